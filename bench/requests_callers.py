"""Real-code correctness: tenure's direct callers in ``requests`` 2.32.3 against jedi's references.

Usage::

    python bench/requests_callers.py [--path DIR] [--samples 40] [--seed 0] [--verbose]
                                     [--tenure CMD] [--json-out FILE]

Without ``--path`` the input is the ``requests`` 2.32.3 sdist (``src/requests`` plus ``tests/``),
fetched once with ``pip download requests==2.32.3 --no-binary :all: --no-deps`` and unpacked under
``$TENURE_BENCH_CACHE`` (default ``/tmp/tenure-bench``). The script deletes ``DIR/.tenure/`` and runs
a fresh ``tenure index DIR`` (``--no-index`` keeps and uses the existing index instead).

Ground truth (the oracle) is jedi's ``Script.get_references(scope="project")`` on each sampled
function or method defined in ``src/requests`` (a seeded sample of ``--samples`` non-dunder defs,
plus the four symbols of the named checks). jedi runs with ``src/`` first on its sys.path (so
``import requests`` in the tests means this copy, not an installed one) and with its per-search limit
of 30 parsed files lifted. Of the references, only call sites are kept (the reference is the callee
name of an ``ast.Call``); each is mapped to its enclosing function with ``ast`` (innermost ``def``,
else the class body, else ``<module>``), which gives the set of true direct callers.

tenure's answer is ``Tenure.what_breaks(symbol, depth=1)`` through the Python API (the CLI's
``what-breaks --json`` when the API is not importable): its depth-1 dependants with relation
``calls``. A dependant is matched to a caller by file and qualified name (the dependant's name must end
with a def's qualified name in that file; failing that, the def enclosing its line), so module naming
cannot blur the score. A (symbol, caller) pair seen at several call sites keeps its best tier.
Precision = correct pairs / pairs tenure reports; recall = true pairs tenure reports / true pairs; per
tier as in ``pycg_micro.py`` (tier recalls add up to the overall recall). A symbol tenure cannot look up
counts as no callers and is listed.

Named checks (a peer, codebase-memory-mcp, gets both wrong): do the test functions that call
``requests.Request(...).prepare()`` get linked to ``Request.prepare`` (right) or to
``PreparedRequest.prepare`` (wrong, a name-suffix match)? Is ``requests.api.request`` ->
``requests.sessions.Session.request`` found?
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import random
import re
import shutil
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import (
    TIERS,
    best_tier,
    fetch_sdist,
    fmt_ratio,
    print_table,
    ratio,
    run,
    tenure_command,
    to_builtins,
    write_json,
)

REQUESTS = ("requests", "2.32.3")
REQUEST_PREPARE = "requests.models.Request.prepare"
PREPARED_PREPARE = "requests.models.PreparedRequest.prepare"
API_REQUEST = "requests.api.request"
SESSION_REQUEST = "requests.sessions.Session.request"
NAMED = (REQUEST_PREPARE, PREPARED_PREPARE, SESSION_REQUEST, API_REQUEST)
MODULE = "<module>"

CallerKey = tuple[str, str]  # (path relative to the root, qualified name in that file)


@dataclass(frozen=True)
class Def:
    fqn: str
    path: str  # relative to the root
    line: int
    column: int  # of the name, in characters


@dataclass
class Scope:
    qualname: str
    start: int
    end: int


@dataclass
class SourceFile:
    """One parsed file: its scopes (for enclosing-def lookups) and its call sites."""

    path: str
    lines: list[str]
    scopes: list[Scope] = field(default_factory=list)
    calls: set[tuple[int, int]] = field(default_factory=set)  # (line, column in chars) of callee names

    def enclosing(self, line: int) -> str:
        """Qualified name of the innermost def (else class) containing ``line``, else ``<module>``."""
        best: Scope | None = None
        for scope in self.scopes:
            if scope.start <= line <= scope.end and (best is None or scope.start >= best.start):
                best = scope
        return best.qualname if best else MODULE

    def qualname_in(self, fqn: str) -> str | None:
        """The longest qualified name of this file that ``fqn`` ends with."""
        found = [s.qualname for s in self.scopes if fqn == s.qualname or fqn.endswith("." + s.qualname)]
        return max(found, key=len) if found else None


@dataclass
class Answer:
    """tenure's callers of one symbol: caller -> best tier; or why there is none."""

    callers: dict[CallerKey, str] = field(default_factory=dict)
    error: str | None = None


# --------------------------------------------------------------------------------------------------
# Reading the code with ast
# --------------------------------------------------------------------------------------------------


class _FileVisitor(ast.NodeVisitor):
    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.stack: list[str] = []

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.stack.append(node.name)
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        self.source.scopes.append(Scope(".".join(self.stack), start, node.end_lineno or node.lineno))
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            self.source.calls.add((func.lineno, self._chars(func.lineno, func.col_offset)))
        elif isinstance(func, ast.Attribute) and func.end_lineno is not None:
            end = self._chars(func.end_lineno, func.end_col_offset or 0)
            self.source.calls.add((func.end_lineno, end - len(func.attr)))
        self.generic_visit(node)

    def _chars(self, line: int, byte_offset: int) -> int:
        """ast offsets are UTF-8 bytes; jedi's columns are characters."""
        text = self.source.lines[line - 1] if line <= len(self.source.lines) else ""
        return len(text.encode()[:byte_offset].decode(errors="replace"))


def parse_file(root: Path, path: Path) -> SourceFile | None:
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return None
    source = SourceFile(path.relative_to(root).as_posix(), text.splitlines())
    _FileVisitor(source).visit(tree)
    return source


def parse_tree(root: Path) -> dict[str, SourceFile]:
    files = {}
    for path in sorted(root.rglob("*.py")):
        if ".tenure" in path.parts:
            continue
        parsed = parse_file(root, path)
        if parsed:
            files[parsed.path] = parsed
    return files


def package_dir(root: Path) -> Path:
    for candidate in (root / "src" / "requests", root / "requests"):
        if (candidate / "__init__.py").is_file():
            return candidate
    raise SystemExit(f"no requests package under {root} (looked in src/requests and requests)")


def defined_functions(root: Path, package: Path) -> list[Def]:
    """Every non-dunder function and method defined in the package (nested functions left out)."""
    defs = []
    for path in sorted(package.rglob("*.py")):
        module_parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if module_parts[-1] == "__init__":
            module_parts.pop()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        relative = path.relative_to(root).as_posix()
        for qualname, node in _top_defs(ast.parse(text)):
            if node.name.startswith("__") and node.name.endswith("__"):
                continue
            match = re.search(rf"def\s+({re.escape(node.name)})\b", lines[node.lineno - 1])
            if match:
                defs.append(Def(".".join([*module_parts, qualname]), relative, node.lineno, match.start(1)))
    return defs


def _top_defs(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level functions and methods of (possibly nested) classes, with qualified names."""

    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, Any]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield f"{prefix}{node.name}", node
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.")

    yield from walk(tree.body, "")


def sample_targets(defs: list[Def], n: int, seed: int) -> list[Def]:
    by_fqn = {d.fqn: d for d in defs}
    pool = sorted(fqn for fqn in by_fqn if fqn not in NAMED)
    chosen = random.Random(seed).sample(pool, min(n, len(pool)))
    return [by_fqn[fqn] for fqn in NAMED if fqn in by_fqn] + [by_fqn[fqn] for fqn in sorted(chosen)]


# --------------------------------------------------------------------------------------------------
# The oracle: jedi
# --------------------------------------------------------------------------------------------------


def jedi_project(root: Path, package: Path) -> Any:
    import jedi
    import jedi.inference.references as references

    references._PARSED_FILE_LIMIT = 100_000  # an oracle must not stop after 30 files
    base = list(jedi.get_default_environment().get_sys_path())
    return jedi.Project(path=root, sys_path=[str(package.parent), *base], smart_sys_path=False)


def true_callers(project: Any, root: Path, target: Def, files: dict[str, SourceFile]) -> set[CallerKey]:
    """Enclosing defs of the call sites among jedi's references to ``target``."""
    import jedi

    script = jedi.Script(path=str(root / target.path), project=project)
    callers = set()
    for ref in script.get_references(target.line, target.column, scope="project", include_builtins=False):
        if ref.is_definition() or ref.module_path is None:
            continue
        try:
            relative = Path(ref.module_path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        source = files.get(relative)
        if source and (ref.line, ref.column) in source.calls:
            callers.add((relative, source.enclosing(ref.line)))
    return callers


# --------------------------------------------------------------------------------------------------
# tenure
# --------------------------------------------------------------------------------------------------


class TenureClient:
    """what_breaks through the Python API, or through the CLI when the API is not importable."""

    def __init__(self, root: Path, cmd: list[str]) -> None:
        self.root = root
        self.cmd = cmd
        try:
            from tenure import Tenure

            self.api: Any = Tenure.open(root)
        except Exception as exc:  # noqa: BLE001 - fall back to the CLI for any API failure
            print(f"Python API unavailable ({exc}); using the CLI", file=sys.stderr)
            self.api = None

    def what_breaks(self, fqn: str) -> dict[str, Any]:
        if self.api is not None:
            return to_builtins(self.api.what_breaks(fqn, depth=1))
        import json

        result = run([*self.cmd, "what-breaks", fqn, "--repo", str(self.root), "--depth", "1", "--json"])
        try:
            return json.loads(result.stdout)
        except json.JSONDecodeError:
            return {"symbol": None, "error": result.describe_failure()}


def tenure_callers(client: TenureClient, fqn: str, files: dict[str, SourceFile], root: Path) -> Answer:
    try:
        result = client.what_breaks(fqn)
    except Exception as exc:  # noqa: BLE001 - one failing lookup must not stop the benchmark
        return Answer(error=f"{type(exc).__name__}: {exc}")
    if not result.get("symbol"):
        matches = [m.get("fqn", m) if isinstance(m, dict) else m for m in result.get("matches") or []]
        return Answer(error=result.get("error") or f"lookup failed, {len(matches)} matches: {matches[:3]}")
    tiers: dict[CallerKey, list[str]] = defaultdict(list)
    for dep in result.get("dependants") or []:
        if dep.get("depth", 1) != 1 or dep.get("relation") != "calls":
            continue
        tiers[caller_key(dep, files, root)].append(str(dep.get("tier", "unknown")))
    return Answer(callers={key: best_tier(found) for key, found in tiers.items()})


def caller_key(dep: dict[str, Any], files: dict[str, SourceFile], root: Path) -> CallerKey:
    path = str(dep.get("path") or "")
    if Path(path).is_absolute():
        with contextlib.suppress(ValueError):
            path = Path(path).resolve().relative_to(root).as_posix()
    symbol = str(dep.get("symbol") or "")
    source = files.get(path)
    if source is None:
        return (path, symbol)
    qualname = source.qualname_in(symbol)
    if qualname is None and isinstance(dep.get("line"), int):
        qualname = source.enclosing(dep["line"])
    return (path, qualname or MODULE)


# --------------------------------------------------------------------------------------------------
# Scoring and report
# --------------------------------------------------------------------------------------------------


@dataclass
class TargetScore:
    target: Def
    truth: set[CallerKey]
    answer: Answer

    @property
    def correct(self) -> set[CallerKey]:
        return set(self.answer.callers) & self.truth

    @property
    def wrong(self) -> set[CallerKey]:
        return set(self.answer.callers) - self.truth

    @property
    def missing(self) -> set[CallerKey]:
        return self.truth - set(self.answer.callers)


def print_overall(scores: list[TargetScore]) -> dict[str, Any]:
    tp = sum(len(s.correct) for s in scores)
    fp = sum(len(s.wrong) for s in scores)
    fn = sum(len(s.missing) for s in scores)
    failed = sum(1 for s in scores if s.answer.error)
    p, r = ratio(tp, tp + fp), ratio(tp, tp + fn)
    rows = [[len(scores), failed, tp + fn, tp + fp, tp, fp, fn, fmt_ratio(p), fmt_ratio(r)]]
    headers = ["symbols", "lookup failed", "true callers", "tenure callers", "correct", "wrong", "missing",
               "precision", "recall"]
    print_table("Direct callers, tenure vs jedi references (pairs of symbol and caller)", headers, rows)
    return {"precision": p, "recall": r, "correct": tp, "wrong": fp, "missing": fn, "failed": failed}


def tier_counts(scores: list[TargetScore]) -> dict[str, tuple[int, int]]:
    """tier -> (callers tenure gave at that tier, how many of them are true), every tier listed."""
    counts = {tier: [0, 0] for tier in TIERS}
    for s in scores:
        for key, tier in s.answer.callers.items():
            counts.setdefault(tier, [0, 0])
            counts[tier][0] += 1
            counts[tier][1] += key in s.truth
    return {tier: (n, ok) for tier, (n, ok) in counts.items()}


def print_per_tier(scores: list[TargetScore]) -> dict[str, Any]:
    true_total = sum(len(s.truth) for s in scores)
    counts = tier_counts(scores)
    rows = [[tier, n, ok, n - ok, fmt_ratio(ratio(ok, n)), fmt_ratio(ratio(ok, true_total))]
            for tier, (n, ok) in counts.items() if n or tier != "unknown"]
    print_table(f"Per tier ({true_total} true callers)",
                ["tier", "callers", "correct", "wrong", "precision", "recall share"], rows)
    return {tier: {"callers": n, "correct": ok} for tier, (n, ok) in counts.items()}


def print_per_target(scores: list[TargetScore]) -> None:
    rows = []
    for s in scores:
        tiers = Counter(s.answer.callers.values())
        rows.append([s.target.fqn, len(s.truth), "failed" if s.answer.error else len(s.answer.callers),
                     len(s.correct), len(s.wrong), len(s.missing),
                     ", ".join(f"{t} {n}" for t, n in sorted(tiers.items()))])
    print_table("Per symbol", ["symbol", "true", "tenure", "correct", "wrong", "missing", "tenure tiers"], rows)
    for s in scores:
        if s.answer.error:
            print(f"  {s.target.fqn}: {s.answer.error}")


def print_differences(scores: list[TargetScore]) -> None:
    print("\nWrong and missing callers")
    for s in scores:
        if not s.wrong and not s.missing:
            continue
        print(f"  {s.target.fqn}")
        for path, qualname in sorted(s.wrong):
            print(f"    wrong   {path}::{qualname}  ({s.answer.callers[(path, qualname)]})")
        for path, qualname in sorted(s.missing):
            print(f"    missing {path}::{qualname}")


def request_prepare_callers(files: dict[str, SourceFile], root: Path) -> set[CallerKey]:
    """Test functions that call ``prepare()`` on ``Request(...)``, chained or through a local name."""
    found = set()
    for relative, source in files.items():
        if not relative.startswith("tests/"):
            continue
        tree = ast.parse((root / relative).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _calls_request_prepare(node):
                found.add((relative, source.enclosing(node.lineno)))
    return found


def _is_request_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "Request") or (
        isinstance(func, ast.Attribute) and func.attr == "Request")


def _calls_request_prepare(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    names = {target.id for node in ast.walk(function) if isinstance(node, ast.Assign)
             and _is_request_call(node.value) for target in node.targets if isinstance(target, ast.Name)}
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "prepare":
            receiver = node.func.value
            if _is_request_call(receiver) or (isinstance(receiver, ast.Name) and receiver.id in names):
                return True
    return False


def print_named_checks(by_fqn: dict[str, TargetScore], files: dict[str, SourceFile], root: Path) -> dict:
    tests = request_prepare_callers(files, root)
    right = by_fqn.get(REQUEST_PREPARE)
    wrong = by_fqn.get(PREPARED_PREPARE)
    rows = []
    for label, score in (("Request.prepare (right)", right), ("PreparedRequest.prepare (wrong)", wrong)):
        if score is None:
            continue
        linked = {key: tier for key, tier in score.answer.callers.items() if key in tests}
        jedi_says = len(tests & score.truth)
        tiers = ", ".join(f"{t} {n}" for t, n in sorted(Counter(linked.values()).items())) or "-"
        rows.append([label, len(linked), tiers, jedi_says])
    print_table(f"Check 1: {len(tests)} test functions call requests.Request(...).prepare(); linked by tenure to",
                ["target", "linked", "tiers", "jedi: real callers"], rows)
    print("  (a test function may also call PreparedRequest.prepare for real: see the jedi column; an\n"
          "   'ambiguous' link keeps every candidate and picks none, an 'inferred' one picks this target)")

    session = by_fqn.get(SESSION_REQUEST)
    api_key = next(((s.target.path, "request") for s in by_fqn.values() if s.target.fqn == API_REQUEST), None)
    tier = session.answer.callers.get(api_key) if session and api_key else None
    in_truth = bool(session and api_key in session.truth)
    print(f"\nCheck 2: {API_REQUEST} -> {SESSION_REQUEST}: "
          f"{'found (' + tier + ')' if tier else 'NOT found'} by tenure; jedi: {'yes' if in_truth else 'no'}")
    result = {row[0]: {"linked": row[1], "tiers": row[2], "jedi": row[3]} for row in rows}
    return {"request_prepare_tests": len(tests), "linked": result, "api_request_to_session": tier}


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, help="requests source tree (default: the 2.32.3 sdist)")
    parser.add_argument("--tenure", help="command that runs the tenure CLI (default: tenure on PATH)")
    parser.add_argument("--samples", type=int, default=40, help="sampled functions besides the named ones")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-index", action="store_true", help="keep and use the existing DIR/.tenure index")
    parser.add_argument("--verbose", "-v", action="store_true", help="list wrong and missing callers")
    parser.add_argument("--json-out", type=Path, help="also write the figures as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    root = (args.path or fetch_sdist(*REQUESTS)).resolve()
    package = package_dir(root)
    cmd = tenure_command(args.tenure)
    if not args.no_index:
        shutil.rmtree(root / ".tenure", ignore_errors=True)  # a fresh index: no edges from older builds
        indexed = run([*cmd, "index", str(root)], timeout=1800)
        if not indexed.ok:
            raise SystemExit(f"tenure index failed: {indexed.describe_failure()}")
    files = parse_tree(root)
    targets = sample_targets(defined_functions(root, package), args.samples, args.seed)
    print(f"{len(targets)} symbols from {package.relative_to(root)} (seed {args.seed}); "
          f"oracle: jedi references over {len(files)} files")
    project = jedi_project(root, package)
    client = TenureClient(root, cmd)
    scores = []
    for target in targets:
        truth = true_callers(project, root, target, files)
        scores.append(TargetScore(target, truth, tenure_callers(client, target.fqn, files, root)))
    overall = print_overall(scores)
    tiers = print_per_tier(scores)
    print_per_target(scores)
    checks = print_named_checks({s.target.fqn: s for s in scores}, files, root)
    if args.verbose:
        print_differences(scores)
    write_json(args.json_out, {"overall": overall, "per_tier": tiers, "checks": checks,
                               "symbols": [s.target.fqn for s in scores]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
