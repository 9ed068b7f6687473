"""Real code: tenure's direct callers of TypeScript methods against typescript-language-server's
``references`` (tsserver, the TypeScript compiler's own answer), on a real project.

Usage::

    python bench/ts_callers.py [--repo DIR | --git GITDIR] [--samples 30] [--seed 0] [--verbose]
                               [--json-out FILE]

The project is ``--repo`` (a work tree, indexed in place: its ``.tenure/`` is replaced) or a clone of
``--git`` (default ``/work/.mirror/honojs+hono/repo``, the ``fetch`` tool's copy of
github.com/honojs/hono; any clone works) made in ``$TENURE_BENCH_CACHE/ts-callers/``. It is indexed
from scratch with enrichment off: the figures are tree-sitter's (value-following) graph alone. In a
clone, ``tsconfig.json`` is replaced by one project of every file (tests and benchmarks too, which
tenure indexes; a solution-style config would leave tsserver looking at one of its projects only),
extending the project's own options (``tsconfig.base.json`` when there is one, else the original; a
folder's own tsconfig.json is set aside),
allowing imports that name a ``.ts`` file (benchmark folders' own configs do: without it tsserver types
what they import as ``any``).

Sample: methods (symbols of kind ``method`` in ``.ts``/``.tsx`` files outside test files), shuffled
with ``--seed``; the first ``--samples`` that tsserver finds at least one call of are scored (how many
were passed over for having none is printed). Oracle: ``references`` at the method's name; each
reference that is the callee of a call (``m(...)``, ``x.m(...)``, ``new``) and whose ``definition``
is the method itself (tsserver lists a whole method family: the interface's and the overrides'
calls too) is a true call. A call whose definition is the method of a supertype (an interface's, a base
class's) that tsserver's ``implementation`` there lists this method among is a *dispatch* call: by the
language it may run this method, so tenure's caller there is not wrong, and not required either (a
lower bound: which implementation runs is the program's state). The strict figures (definition only,
dispatch callers counted wrong) are printed beside, as earlier runs scored. A call's caller is the
innermost function, method or module around it, named as tenure names symbols (a caller is its name: an
edge through another module's arguments is kept by the file that passes them, at its line); an anonymous
function (``<arrow1>``) counts as the named one around it, for both sides: tenure runs an anonymous
callback handed to the runtime on behalf of the function that handed it over.
tenure: ``what_breaks(method, depth=1)``, dependants with relation ``calls``.

The oracle's answers are cached by the project's commit (``$TENURE_BENCH_CACHE/ts-callers/oracle-COMMIT-vN.json``:
each asked method's true and dispatch call sites, as file and line, so a rerun asks tsserver only about methods it has
not asked about; ``--fresh-oracle`` asks again). Callers are named from the call sites at every run, by
the index of that run.

Precision and recall are over (method, caller) pairs; per tier, as bench/requests_callers.py does.
The oracle is the type checker's view: a call through a value TypeScript types as ``any`` has no
definition for it, so tenure's edge there counts as wrong even when it is right (``--verbose``
lists every disagreement).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from common import CACHE_DIR, TIERS, best_tier, fmt_ratio, print_table, ratio, write_json

DEFAULT_GIT = Path("/work/.mirror/honojs+hono/repo")
_TEST = re.compile(r"(^|/)(test|tests|__tests__|spec)/|\.(test|spec)\.tsx?$")
_ANONYMOUS = re.compile(r"\.<[a-z]+\d+>")
_CALLER_KINDS = ("function", "method", "constructor", "module")

Caller = str  # the enclosing named function, as tenure names it


@dataclass
class Method:
    fqn: str
    path: str
    line: int  # 1-based
    column: int  # 0-based, of the name
    lines: frozenset[int] = frozenset()  # every line it is declared on (an overloaded method's signatures)

    def declared_at(self, root: Path, location: object) -> bool:
        return (_relative(root, location.uri) == self.path  # type: ignore[attr-defined]
                and location.range.start.line + 1 in self.lines)  # type: ignore[attr-defined]


@dataclass
class Truth:
    method: Method
    calls: set[Caller]  # callers of a call whose definition is the method
    dispatch: set[Caller]  # callers of a call through a supertype's method that may run it


@dataclass
class Score:
    method: Method
    truth: set[Caller]
    found: dict[Caller, str]  # caller -> tier
    dispatch: set[Caller] = field(default_factory=set)  # may call it: neither wrong nor required
    correct: set[Caller] = field(init=False)
    wrong: set[Caller] = field(init=False)
    missing: set[Caller] = field(init=False)

    def __post_init__(self) -> None:
        self.correct = (self.truth | self.dispatch) & self.found.keys()
        self.wrong = self.found.keys() - self.truth - self.dispatch
        self.missing = self.truth - self.found.keys()


class Figures:
    """Precision and recall over (method, caller) pairs, overall and per tier."""

    def __init__(self, scores: list[Score]) -> None:
        self.tp = sum(len(s.correct) for s in scores)
        self.fp = sum(len(s.wrong) for s in scores)
        self.fn = sum(len(s.missing) for s in scores)
        self.precision, self.recall = ratio(self.tp, self.tp + self.fp), ratio(self.tp, self.tp + self.fn)
        self.tiers: Counter[str] = Counter()
        self.right: Counter[str] = Counter()
        for s in scores:
            for caller, tier in s.found.items():
                self.tiers[tier] += 1
                self.right[tier] += caller in s.correct

    def as_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "correct": self.tp, "wrong": self.fp,
                "missing": self.fn, "tiers": {tier: [self.tiers[tier], self.right[tier]] for tier in self.tiers}}


def named(fqn: str) -> str:
    return _ANONYMOUS.sub("", fqn)


class Spans:
    """Every symbol's span, to tell which function a line is in (the innermost)."""

    def __init__(self, db: object) -> None:
        self.by_path: dict[str, list[tuple[int, int, str]]] = {}
        for r in db.query("SELECT path, start_line, end_line, fqn, kind FROM symbols"):  # type: ignore[attr-defined]
            if r["kind"] in _CALLER_KINDS and r["path"]:
                self.by_path.setdefault(r["path"], []).append((r["start_line"], r["end_line"] or 10**9, r["fqn"]))

    def enclosing(self, path: str, line: int) -> str | None:
        around = [s for s in self.by_path.get(path, ()) if s[0] <= line <= s[1]]
        return min(around, key=lambda s: s[1] - s[0])[2] if around else None


def callee_positions(path: Path) -> set[tuple[int, int]]:
    """(line, column) of every name a call or `new` calls in the file (0-based, as LSP counts)."""
    from tenure.structural.languages import language_for

    spec = language_for(path.name)
    tree = spec.parser().parse(path.read_bytes())  # type: ignore[union-attr]
    found: set[tuple[int, int]] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type not in ("call_expression", "new_expression"):
            continue
        callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        if callee is not None and callee.type == "member_expression":
            callee = callee.child_by_field_name("property")
        if callee is not None and callee.type in ("identifier", "property_identifier", "private_property_identifier"):
            found.add((callee.start_point[0], callee.start_point[1]))
    return found


CallSite = tuple[str, int]  # (path, 1-based line) of a call tsserver ties to the method
# What the cache's answers depend on besides the commit: the project config the oracle writes, and
# what is recorded of each method (bump when either changes).
ORACLE_VERSION = "3"
_OPTIONS = ('{"composite": false, "noEmit": true, "skipLibCheck": true, "allowJs": false, '
            '"allowImportingTsExtensions": true}')


class OracleCache:
    """tsserver's true call sites per method, for one commit of the project: written after every method
    asked (atomically), so a run stopped midway keeps what it learnt."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.sites: dict[str, dict[str, list[CallSite]]] = {}  # method -> "calls" | "dispatch" -> sites
        if path is not None and path.exists():
            try:
                self.sites = {k: {kind: [(p, int(n)) for p, n in found] for kind, found in v.items()}
                              for k, v in json.loads(path.read_text()).items()}
            except (ValueError, TypeError, AttributeError):
                print(f"oracle cache {path} is unreadable: asking tsserver again")

    @staticmethod
    def key(method: Method) -> str:
        return f"{method.path}:{method.line}:{method.column}"

    def get(self, method: Method) -> dict[str, list[CallSite]] | None:
        return self.sites.get(self.key(method))

    def put(self, method: Method, sites: dict[str, list[CallSite]]) -> None:
        self.sites[self.key(method)] = {kind: sorted(set(found)) for kind, found in sites.items()}
        if self.path is not None:
            partial = self.path.with_suffix(".partial")
            partial.write_text(json.dumps(self.sites, indent=0, sort_keys=True))
            partial.replace(self.path)


def oracle(root: Path, methods: list[Method], wanted: int, spans: Spans, cache: OracleCache) -> list[Truth]:
    out: list[Truth] = []
    skipped = asked = 0
    with Tsserver(root) as server:
        for method in methods:
            if len(out) >= wanted:
                break
            sites = cache.get(method)
            if sites is None:
                sites = server.call_sites(method)
                cache.put(method, sites)
                asked += 1
            callers, dispatch = ({named(caller) for relative, line in sites.get(kind, ())
                                  if (caller := spans.enclosing(relative, line)) is not None}
                                 for kind in ("calls", "dispatch"))
            if callers:
                out.append(Truth(method, callers, dispatch - callers))
            else:
                skipped += 1
    print(f"oracle: {skipped} sampled methods tsserver finds no call of were passed over; "
          f"{asked} asked of tsserver, {len(out) + skipped - asked} from the cache")
    return out


class Tsserver:
    """typescript-language-server, started at the first question only (a fully cached run needs none)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client: object | None = None
        self.opened: dict[str, str] = {}
        self.calls: dict[str, set[tuple[int, int]]] = {}
        self.implementations: dict[tuple[str, int, int], list[object]] = {}

    def __enter__(self) -> Tsserver:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.__exit__(*exc)  # type: ignore[attr-defined]

    def _open(self, relative: str) -> str:
        """tsserver answers about the files a client has open: each is opened once, as it is asked about."""
        if self.client is None:
            from tenure.state import make_state_dir
            from tenure.structural.lsp.client import LspClient
            from tenure.structural.lsp.servers import server_table

            spec = server_table()["typescript-language-server"]
            argv = spec.argv() or list(spec.command)
            self.client = LspClient(argv, self.root, timeout=300, scratch=make_state_dir(self.root)).__enter__()
            # (as enrichment starts it: one tsserver, which answers in order once the project is loaded)
            self.client.initialize(options=spec.options(argv[0], self.root))  # type: ignore[attr-defined]
        if relative not in self.opened:
            language = "typescriptreact" if relative.endswith(".tsx") else "typescript"
            self.opened[relative] = self.client.open_document(  # type: ignore[attr-defined]
                self.root / relative, language, (self.root / relative).read_text("utf-8"))
        return self.opened[relative]

    def call_sites(self, method: Method) -> dict[str, list[CallSite]]:
        """The calls whose definition is the method, and those through a supertype's method that
        tsserver says the method implements (dispatch)."""
        uri = self._open(method.path)
        sites: dict[str, list[CallSite]] = {"calls": [], "dispatch": []}
        for loc in self.client.references(uri, method.line - 1, method.column):  # type: ignore[attr-defined]
            relative = _relative(self.root, loc.uri)
            if relative is None or not relative.endswith((".ts", ".tsx", ".mts", ".cts")):
                continue
            position = (loc.range.start.line, loc.range.start.character)
            if position not in self.calls.setdefault(relative, callee_positions(self.root / relative)):
                continue
            targets = self.client.definition(self._open(relative), *position)  # type: ignore[attr-defined]
            if any(method.declared_at(self.root, t) for t in targets):
                sites["calls"].append((relative, position[0] + 1))
            elif any(method.declared_at(self.root, i) for t in targets for i in self._implementations(t)):
                sites["dispatch"].append((relative, position[0] + 1))  # (else: a call of a sibling override)
        return sites

    def _implementations(self, target: object) -> list[object]:
        """What tsserver says implements the method declared at target (an interface's, a base's)."""
        relative = _relative(self.root, target.uri)  # type: ignore[attr-defined]
        if relative is None:
            return []
        start = target.range.start  # type: ignore[attr-defined]
        key = (relative, start.line, start.character)
        if key not in self.implementations:
            self.implementations[key] = self.client.implementation(  # type: ignore[attr-defined]
                self._open(relative), start.line, start.character)
        return self.implementations[key]


def _relative(root: Path, uri: str) -> str | None:
    try:
        return Path(unquote(urlparse(uri).path)).resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def tenure_callers(t: object, method: Method) -> dict[Caller, str]:
    result = t.what_breaks(method.fqn, depth=1)  # type: ignore[attr-defined]
    tiers: dict[Caller, list[str]] = {}
    for d in result["dependants"]:
        if d["relation"] == "calls" and d["depth"] == 1:
            tiers.setdefault(named(d["symbol"]), []).append(d["tier"])
    return {caller: best_tier(found) for caller, found in tiers.items()}


def sample(db: object, seed: int) -> list[Method]:
    rows = db.query(  # type: ignore[attr-defined]
        "SELECT fqn, name, path, start_line FROM symbols WHERE kind = 'method' AND language IN ('typescript', 'tsx')"
        " ORDER BY fqn")
    methods = []
    for r in rows:
        if _TEST.search(r["path"]) or r["name"].startswith(("[", "<")):
            continue
        methods.append((r["fqn"], r["name"], r["path"], r["start_line"]))
    random.Random(seed).shuffle(methods)
    return [Method(fqn, path, line, 0) for fqn, _, path, line in methods]


def locate(root: Path, methods: list[Method], name_of: dict[str, str], lines: dict[str, set[int]]) -> list[Method]:
    """Each method's name column on its first line (the LSP asks at a position)."""
    out = []
    for m in methods:
        if m.line != min(lines[m.fqn]):
            continue  # one of an overloaded method's declarations: the first stands for it
        source = (root / m.path).read_text("utf-8", "replace").splitlines()
        text = source[m.line - 1] if m.line - 1 < len(source) else ""
        match = re.search(rf"(?<![\w$#]){re.escape(name_of[m.fqn])}(?![\w$])", text)
        if match:
            out.append(Method(m.fqn, m.path, m.line, match.start(), frozenset(lines[m.fqn])))
    return out


def one_project(root: Path) -> None:
    """tsconfig.json as one project of every TypeScript file, with the project's own options. A folder's
    own tsconfig.json is set aside (tsserver puts a file in the project of the nearest one: a benchmark
    folder's, resolving `module: NodeNext` from no installed packages, types the project's own imports
    there as `any`)."""
    for nested in root.glob("*/**/tsconfig.json"):
        if "node_modules" not in nested.parts:
            nested.rename(nested.with_name("tsconfig.original.json"))
    config = root / "tsconfig.json"
    base = "./tsconfig.base.json" if (root / "tsconfig.base.json").exists() else "./tsconfig.original.json"
    if config.exists():
        config.rename(root / "tsconfig.original.json")
    config.write_text(f'{{"extends": "{base}", "compilerOptions": {_OPTIONS}, '
                      '"include": ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"], "exclude": ["**/node_modules"]}\n')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="a TypeScript project's work tree (indexed in place)")
    parser.add_argument("--git", type=Path, default=DEFAULT_GIT, help="a git dir to clone when --repo is not given")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--fresh-oracle", action="store_true", help="ask tsserver again, not the cache")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    os.environ["TENURE_ENRICH"] = "off"
    from tenure import Tenure

    root = args.repo
    if root is None:
        root = CACHE_DIR / "ts-callers" / args.git.parent.name
        shutil.rmtree(root, ignore_errors=True)
        root.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(args.git), str(root)], check=True)
        one_project(root)
    root = root.resolve()
    shutil.rmtree(root / ".tenure", ignore_errors=True)
    head = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%H %s"], capture_output=True, text=True)
    commit, _, subject = head.stdout.strip().partition(" ")
    print(f"{root.name} at {commit[:9]} {subject}")
    # (no commit, or a dirty tree beyond our tsconfig: the answers belong to no commit, and are not kept)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                            ".", ":!*tsconfig.json"], capture_output=True, text=True).stdout.strip()
    cache_path = CACHE_DIR / "ts-callers" / f"oracle-{commit}-v{ORACLE_VERSION}.json" if commit and not dirty else None
    if cache_path is not None and args.fresh_oracle:
        cache_path.unlink(missing_ok=True)

    t = Tenure.open(root, discover=True)
    started = time.perf_counter()
    report = t.index()
    print(f"index: {time.perf_counter() - started:.1f}s, {report.files_parsed} files parsed, {report.edges} edges")
    name_of: dict[str, str] = {}
    lines: dict[str, set[int]] = {}
    for r in t.db.query("SELECT fqn, name, start_line FROM symbols WHERE kind = 'method'"):
        name_of[r["fqn"]] = r["name"]
        lines.setdefault(r["fqn"], set()).add(r["start_line"])
    candidates = locate(root, sample(t.db, args.seed), name_of, lines)
    spans = Spans(t.db)
    started = time.perf_counter()
    truths = oracle(root, candidates, args.samples, spans, OracleCache(cache_path))
    print(f"oracle: typescript-language-server for {len(truths)} methods in {time.perf_counter() - started:.1f}s, "
          f"{sum(len(t.calls) for t in truths)} true (method, caller) pairs")
    scores = [Score(truth.method, truth.calls, tenure_callers(t, truth.method), truth.dispatch) for truth in truths]
    strict = [Score(s.method, s.truth, s.found) for s in scores]
    t.close()

    dispatch = sum(len(s.dispatch) for s in scores)
    print(f"dispatch callers (through a supertype's method): {dispatch}, tenure lists "
          f"{sum(len(s.dispatch & s.found.keys()) for s in scores)}")
    figures = {"by the language": Figures(scores), "strict": Figures(strict)}
    print_table("Direct callers vs tsserver's references ((method, caller) pairs; strict: dispatch callers "
                "counted wrong)",
                ["scoring", "methods", "true callers", "tenure callers", "correct", "wrong", "missing", "precision",
                 "recall"],
                [[name, len(scores), f.tp + f.fn, f.tp + f.fp, f.tp, f.fp, f.fn, fmt_ratio(f.precision),
                  fmt_ratio(f.recall)] for name, f in figures.items()])
    print_table(f"Per tier ({figures['strict'].tp + figures['strict'].fn} true callers)",
                ["scoring", "tier", "callers", "correct", "wrong", "precision", "recall share"],
                [[name, tier, f.tiers[tier], f.right[tier], f.tiers[tier] - f.right[tier],
                  fmt_ratio(ratio(f.right[tier], f.tiers[tier])), fmt_ratio(ratio(f.right[tier], f.tp + f.fn))]
                 for name, f in figures.items() for tier in TIERS if f.tiers[tier]])
    print_table("Per method", ["method", "true", "dispatch", "found", "correct", "wrong", "missing"],
                [[s.method.fqn, len(s.truth), len(s.dispatch), len(s.found), len(s.correct), len(s.wrong),
                  len(s.missing)] for s in scores])
    if args.verbose:
        for s in scores:
            for caller in sorted(s.wrong):
                print(f"  wrong    {s.method.fqn} <- {caller} ({s.found[caller]})")
            for caller in sorted(s.missing):
                print(f"  missing  {s.method.fqn} <- {caller}")
            for caller in sorted(s.dispatch):
                listed = f"listed {s.found[caller]}" if caller in s.found else "not listed"
                print(f"  dispatch {s.method.fqn} <- {caller} ({listed})")
    write_json(args.json_out, {name: f.as_dict() for name, f in figures.items()}
               | {"methods": [s.method.fqn for s in scores]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
