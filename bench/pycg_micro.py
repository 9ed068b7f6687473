"""Score tenure's call graph against the PyCG micro-benchmark (119 cases in 18 categories).

Usage::

    python bench/pycg_micro.py [--suite DIR] [--no-peer] [--verbose] [--jobs N] [--json-out FILE]

``--suite`` is PyCG's ``micro-benchmark/`` directory (the one holding ``snippets/``). Without it the
script extracts the suite from a PyCG git mirror (``--pycg-git``, default
``/work/.mirror/vitsalis+PyCG/repo``; any clone of github.com/vitsalis/PyCG works) into
``$TENURE_BENCH_CACHE/pycg-src`` (default ``/tmp/tenure-bench``). The suite is never copied into the
repository.

For every case (``snippets/<category>/<case>/`` with its ``callgraph.json``) the case is copied to a
temporary directory (without ``callgraph.json``), then ``tenure index DIR``,
``tenure export edges --repo DIR --format pycg`` and ``--format jsonl`` run on the copy. The pycg export
is compared with ``callgraph.json`` as PyCG's own evaluation does: a call graph is the set of
(caller, callee) pairs; precision and recall are micro-averaged over all cases; a case is an exact match
when its edge set equals the expected one (``exact (PyCG test)`` additionally requires the same node
keys, which is what ``micro-benchmark/base.py`` asserts). A case where tenure fails counts as zero edges
and is listed.

Each exported edge gets its tier from the jsonl export (the best tier among the records with the same
src and dst; ``unknown`` when no record matches). Per tier: precision = correct edges of that tier /
edges of that tier; recall = true edges found at that tier / all true edges (the tier recalls add up to
the overall recall).

Peers in the same run:
- PyCG 0.0.7 (skip with ``--no-peer``), run as its own runner does: entry point ``main.py``, package =
  the case directory. Its interpreter is ``--pycg-python`` (default ``/tmp/pycg-venv/bin/python``); when
  missing, the venv is created and ``pycg==0.0.7`` installed into it (0.0.8 is broken).
- name-only: every call's last identifier (decorators included) matched to every same-named ``def`` in
  the case (a call of a class name goes to that class's ``__init__``; an unmatched builtin name to
  ``<builtin>.NAME``), computed here with ``ast``.

Reference figures measured on this kind of machine: PyCG 0.0.7 P 0.976 / R 0.932 (106 exact);
name-only P 0.87 / R 0.50. Target for tenure (issue 2): P >= 0.95 and R >= 0.80 from tree-sitter alone,
with every wrong edge below ``resolved``.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from callgraph_suite import (
    Case,
    CaseScore,
    Tool,
    ToolOutput,
    add_run_options,
    make_tenure,
    parse_pycg_json,
    report,
    run_tool,
)
from callgraph_suite import load_cases as load_suite_cases
from common import CACHE_DIR, run, tenure_available, tenure_command

DEFAULT_PYCG_GIT = Path("/work/.mirror/vitsalis+PyCG/repo")
DEFAULT_PYCG_PYTHON = Path("/tmp/pycg-venv/bin/python")
PYCG_VERSION = "0.0.7"
REFERENCE = {"PyCG 0.0.7": (0.976, 0.932), "name-only": (0.87, 0.50)}
TARGET = (0.95, 0.80)

BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))


# --------------------------------------------------------------------------------------------------
# The suite
# --------------------------------------------------------------------------------------------------


def extract_suite(git_dir: Path, cache: Path = CACHE_DIR) -> Path:
    """Extract ``micro-benchmark/`` from a PyCG git directory into the cache (once)."""
    target = cache / "pycg-src"
    suite = target / "micro-benchmark"
    if (suite / "snippets").is_dir():
        return suite
    if not git_dir.exists():
        raise SystemExit(f"no --suite given and no PyCG git dir at {git_dir}; "
                         "clone github.com/vitsalis/PyCG and pass --suite PyCG/micro-benchmark")
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "HEAD", "micro-benchmark"],
        capture_output=True, check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return suite


def load_cases(suite: Path) -> list[Case]:
    return load_suite_cases(suite / "snippets" if (suite / "snippets").is_dir() else suite)


# --------------------------------------------------------------------------------------------------
# PyCG 0.0.7
# --------------------------------------------------------------------------------------------------


def ensure_pycg(python: Path) -> tuple[Path | None, str]:
    """Return PyCG's interpreter, creating its venv when it is missing, or (None, reason)."""
    if python.exists():
        check = run([str(python), "-c", "import pycg"], timeout=60)
        if check.ok:
            return python, ""
    venv = python.parent.parent
    print(f"setting up PyCG {PYCG_VERSION} in {venv} ...", file=sys.stderr)
    created = run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    if not created.ok:
        return None, f"venv failed: {created.describe_failure()}"
    installed = run([str(python), "-m", "pip", "install", "-q", f"pycg=={PYCG_VERSION}"], timeout=900)
    if not installed.ok:
        return None, f"pip install pycg=={PYCG_VERSION} failed: {installed.describe_failure()}"
    return python, ""


def make_pycg(python: Path, timeout: float) -> Callable[[Case], ToolOutput]:
    def analyse(case: Case) -> ToolOutput:
        with tempfile.TemporaryDirectory(prefix="pycg-out-") as tmp:
            out = Path(tmp) / "cg.json"
            argv = [str(python), "-m", "pycg", "--package", str(case.path), str(case.path / "main.py"),
                    "-o", str(out)]
            result = run(argv, timeout=timeout)
            if not result.ok or not out.exists():
                return ToolOutput(error=result.describe_failure())
            return ToolOutput(graph=parse_pycg_json(out.read_text()))

    return analyse


# --------------------------------------------------------------------------------------------------
# name-only baseline
# --------------------------------------------------------------------------------------------------


def module_name(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


class _DefsAndCalls(ast.NodeVisitor):
    """Collect the defs of one module and its calls as (caller, last identifier of the callee)."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.scope: list[tuple[str, bool]] = []  # (name, is_function)
        self.functions: list[tuple[str, str]] = []  # (short name, qualified name)
        self.classes: list[tuple[str, str]] = []
        self.methods: dict[str, set[str]] = defaultdict(set)
        self.calls: list[tuple[str, str]] = []

    def _qualify(self, name: str) -> str:
        return ".".join([self.module, *(part for part, _ in self.scope), name])

    def _caller(self) -> str:
        for depth in range(len(self.scope), 0, -1):
            if self.scope[depth - 1][1]:
                return ".".join([self.module, *(part for part, _ in self.scope[:depth])])
        return self.module

    def _visit_decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """``@dec`` calls ``dec`` from the enclosing scope (``@dec(...)`` is visited as a Call)."""
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Name):
                self.calls.append((self._caller(), decorator.id))
            elif isinstance(decorator, ast.Attribute):
                self.calls.append((self._caller(), decorator.attr))

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._visit_decorators(node)
        self.functions.append((node.name, self._qualify(node.name)))
        if self.scope and not self.scope[-1][1]:
            self.methods[".".join([self.module, *(part for part, _ in self.scope)])].add(node.name)
        self.scope.append((node.name, True))
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._visit_decorators(node)
        self.classes.append((node.name, self._qualify(node.name)))
        self.scope.append((node.name, False))
        self.generic_visit(node)
        self.scope.pop()

    def visit_Call(self, node: ast.Call) -> None:
        name = None
        if isinstance(node.func, ast.Name):
            name = node.func.id
        elif isinstance(node.func, ast.Attribute):
            name = node.func.attr
        if name is not None:
            self.calls.append((self._caller(), name))
        self.generic_visit(node)


def name_only(case: Case) -> ToolOutput:
    """Link every call to every same-named def in the case, by name alone."""
    collectors = []
    for path in sorted(case.path.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(), filename=str(path))
        except (SyntaxError, UnicodeDecodeError):
            continue
        collector = _DefsAndCalls(module_name(path.relative_to(case.path)))
        collector.visit(tree)
        collectors.append(collector)
    targets: dict[str, set[str]] = defaultdict(set)
    for collector in collectors:
        for short, qualified in collector.functions:
            targets[short].add(qualified)
    for collector in collectors:
        for short, qualified in collector.classes:
            if any("__init__" in c.methods.get(qualified, ()) for c in collectors):
                targets[short].add(f"{qualified}.__init__")
    graph: dict[str, set[str]] = defaultdict(set)
    for collector in collectors:
        for caller, name in collector.calls:
            if name in targets:
                graph[caller] |= targets[name]
            elif name in BUILTIN_NAMES:
                graph[caller].add(f"<builtin>.{name}")
    return ToolOutput(graph={caller: sorted(callees) for caller, callees in graph.items()})


# --------------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path, help="PyCG's micro-benchmark/ directory")
    parser.add_argument("--pycg-git", type=Path, default=DEFAULT_PYCG_GIT,
                        help="PyCG git dir to extract the suite from when --suite is not given")
    parser.add_argument("--no-peer", action="store_true", help="skip PyCG 0.0.7")
    parser.add_argument("--no-tenure", action="store_true", help="score only the peers")
    parser.add_argument("--pycg-python", type=Path, default=DEFAULT_PYCG_PYTHON)
    add_run_options(parser)
    return parser.parse_args(argv)


def build_tools(args: argparse.Namespace) -> list[Tool]:
    tools = []
    if not args.no_tenure:
        cmd = tenure_command(args.tenure)
        if tenure_available(cmd):
            tools.append(Tool("tenure", make_tenure(cmd, args.timeout), tiered=True))
        else:
            print(f"tenure is not runnable ({' '.join(cmd)} --help failed): skipped", file=sys.stderr)
    if not args.no_peer:
        python, reason = ensure_pycg(args.pycg_python)
        if python is None:
            print(f"PyCG peer skipped: {reason}", file=sys.stderr)
        else:
            tools.append(Tool(f"PyCG {PYCG_VERSION}", make_pycg(python, args.timeout)))
    tools.append(Tool("name-only", name_only))
    return tools


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    suite = args.suite or extract_suite(args.pycg_git)
    cases = load_cases(suite)
    if args.category:
        cases = [case for case in cases if case.category in set(args.category)]
    print(f"PyCG micro-benchmark: {len(cases)} cases from {suite}")
    tools = build_tools(args)
    results: dict[str, list[CaseScore]] = {}
    for tool in tools:
        print(f"running {tool.name} ...", file=sys.stderr, flush=True)
        results[tool.name] = run_tool(tool, cases, args.jobs)
    rows = [[f"{name} (reference)", "", "", "", "", "", f"{p:.3f}", f"{r:.3f}", "", ""]
            for name, (p, r) in REFERENCE.items()]
    rows.append(["target (issue 2)", "", "", "", "", "", f">={TARGET[0]}", f">={TARGET[1]}", "", ""])
    report(results, tools, args.verbose, args.json_out, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
