"""The annotations of the graph fixtures (tests/fixtures/graph/<case>/): what edges each annotated line
must have, in the jedi style described in test_graph_fixtures.py. Read by that test and by
bench/graph_fixtures.py, which scores the graph against the same annotations."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ANNOTATION = re.compile(
    r"(?:#|//|--|;)\s*(known-wrong\s+)?(calls|instantiates|inherits|implements|imports)\s*:\s*(.+?)\s*"
    r"(?:\[(\w+)\])?(?:\s+because\s+(.+?))?\s*(?:\*/)?$"
)

TARGET = re.compile(r"(\S+?)(?:\s*\[(\w+)\])?")  # one target of an annotation, with its own tier
Key = tuple[str, int, str]  # (path, line, relation)
Got = dict[str, str]  # the targets of one line's edges of one relation -> their tier ("?" for dynamic)


@dataclass(frozen=True)
class Edges:
    tiers: dict[str, str | None]  # target -> its tier (None: any tier)

    @classmethod
    def parse(cls, targets: str, tier: str | None) -> Edges:
        """`a, b [tier]` (one tier for all), or `a [tier], b [tier]` (each its own)."""
        parts = [TARGET.fullmatch(part.strip()).groups() for part in targets.split(",")]  # type: ignore[union-attr]
        if all(own is None for _, own in parts[:-1]):  # (a trailing tier is every target's)
            return cls({name: tier for name, _ in parts if name != "-"})
        return cls({name: own for name, own in parts[:-1]} | {parts[-1][0]: tier})

    @property
    def targets(self) -> frozenset[str]:
        return frozenset(self.tiers)

    def match(self, got: Got) -> bool:
        return got.keys() == self.tiers.keys() and all(self.tiers[t] in (None, got[t]) for t in got)

    def __str__(self) -> str:
        return ", ".join(f"{t} [{tier}]" if tier else t for t, tier in sorted(self.tiers.items())) or "-"


@dataclass(frozen=True)
class Annotation:
    right: Edges  # what the language's semantics give
    today: Edges | None = None  # a known-wrong marker: what the resolver gives instead
    because: str = ""


def described(got: Got) -> str:
    return ", ".join(f"{target} [{tier}]" for target, tier in sorted(got.items())) or "-"


def expectations(root: Path) -> dict[Key, Annotation]:
    """Every annotated (path, line, relation) of a fixture repository."""
    right: dict[Key, Edges] = {}
    wrong: dict[Key, tuple[Edges, str]] = {}
    for f in sorted(root.rglob("*")):
        if not f.is_file() or f.name.endswith((".md", ".toml")):
            continue
        rel = f.relative_to(root).as_posix()
        pending: list[re.Match[str]] = []
        for lineno, line in enumerate(f.read_text("utf-8", "replace").splitlines(), start=1):
            m = ANNOTATION.search(line)
            code_part = line[: m.start()].strip() if m else line.strip()
            if m:
                pending.append(m)
            if not code_part:
                continue
            for a in pending:
                known_wrong, relation, targets, tier, because = a.groups()
                edges = Edges.parse(targets, tier)
                key = (rel, lineno, relation)
                if not known_wrong:
                    right[key] = edges
                elif not because:
                    raise ValueError(f"{root.name}/{rel}:{lineno}: a known-wrong marker says why (`because ...`)")
                else:
                    wrong[key] = (edges, because)
            pending = []
    if lonely := sorted(wrong.keys() - right.keys()):
        raise ValueError(f"{root.name}: a known-wrong marker without the right annotation beside it: {lonely}")
    return {key: Annotation(edges, *wrong.get(key, (None, ""))) for key, edges in right.items()}
