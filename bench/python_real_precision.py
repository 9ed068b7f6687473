"""Real code: how often tenure's `inferred` Python call edges are right, and how many true call edges
it finds, on six real projects, judged by jedi (not by tenure).

Usage::

    python bench/python_real_precision.py [--projects NAME==VER,...] [--samples 100] [--recall-samples 200]
                                          [--seed 0] [--baseline REV] [--verbose] [--json-out FILE]

Each project's sdist (requests, flask, click, attrs, rich, httpx at fixed versions) is fetched once with
``pip download --no-deps --no-binary :all:`` into ``$TENURE_BENCH_CACHE`` (bench/common.py) and copied
per build into a temporary directory, where ``python -m tenure.cli index`` (``PYTHONPATH`` = the build's
``src/``, no enrichment) and ``export edges --format jsonl`` run. Builds: this tree, and with
``--baseline REV`` that revision's ``src/`` (``git archive``) in the same run, figures side by side.

Precision: of the build's `calls` edges at tier `inferred` whose target is a function of the project,
``--samples`` per project are drawn by a seeded hash of (path, line, caller, callee): an edge both
builds make is drawn by both or by neither, so the two figures differ by what changed. Beside the
sample, the two kinds of wrong edge issue 23 names are judged apart, as many of each: self-loops, and
a method's calls into a subclass of its own class (by tenure's `inherits` edges).

Each edge is judged at its call site by jedi's ``infer`` of the callee (what the expression called
evaluates to; where jedi names only a library decorator's stub, ``goto`` says where the function is
defined). The calls Python makes on a program's behalf are asked through a probe: the statement
holding the site gets ``__tenure_probe = (EXPR).__enter__`` inserted before it (the receiver of a
``with``, a ``for``, an operator, a subscript, ``len()``) in a copy of the file, and jedi infers the
probe, so an inherited dunder is found through jedi's own MRO; a constructor's ``__init__`` and an
instance's ``__call__`` are asked as ``(CALLEE).__init__``, a function a call returns (``pick()(3)``, a
decorator factory) as the call's value, or as the nested function that the called function returns by
name (where jedi reads only its ``-> Callable`` annotation). An edge is right when jedi's answer holds
the callee's definition (by file and line), wrong when jedi names something else (another definition,
a builtin or a library object; a `typing` construct is a type, not an answer), unknown when it gives
nothing; precision = right / (right + wrong), the unknown ones counted beside it. jedi reads the
project without the `.pyi` stubs that stand beside their `.py` modules (attrs ships them): with them it
answers with the stub or `dataclass_transform` where the implementation is asked.

Recall: ``--recall-samples`` call sites per project, drawn by a seeded hash from every call in the
code (``ast``: calls and decorators), and as many implicit sites (the receivers above, only of the
dunders some class of the project defines). jedi's answer at a site, restricted to definitions of the
project, gives its true edges (a class called: its definition, which tenure links by `instantiates`);
an edge is found when tenure has a `calls` or `instantiates` edge on that line to that definition, at
any tier (and, beside it, at `inferred`).

jedi's answers are cached per project, jedi version and oracle version under the cache directory: a
second run judges the same sites without asking again. jedi is an oracle, not the truth: ``--verbose``
lists every wrong edge and every missed one (the call's source line beside it) so that a disagreement
can be checked by hand. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from common import CACHE_DIR, REPO, baseline_src, fetch_sdist, fmt_ratio, parse_jsonl, print_table, ratio, write_json

PROJECTS = ("requests==2.32.3", "flask==3.0.3", "click==8.1.7", "attrs==24.2.0", "rich==13.9.4", "httpx==0.27.2")
PROBE = "__tenure_probe"
ORACLE_VERSION = 2  # in the cache's name: what jedi is asked, and of which files
Def = tuple[str, int]  # (path relative to the project, line of the definition's name)

# The dunder a binary, unary or comparison operator calls first on its left (or only) operand; the
# reflected one is tried on the right operand.
_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift",
           ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}
_UNARY = {ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__"}
_COMPARE = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__",
            ast.GtE: "__ge__"}


# --------------------------------------------------------------------------------------------------
# Reading a file's call sites with ast
# --------------------------------------------------------------------------------------------------


@dataclass
class Site:
    """Something called on a line: an explicit call (`name` is the callee's last identifier) or a
    dunder Python calls on `node`'s value (`name` is the dunder)."""

    name: str
    node: ast.expr  # the callee, or the receiver of an implicit call
    call: ast.expr | None = None  # the whole call, for what calling it returns
    implicit: bool = False


@dataclass
class SourceFile:
    path: str
    text: str
    lines: list[str]
    tree: ast.Module
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    sites: dict[int, list[Site]] = field(default_factory=dict)

    def add(self, line: int, site: Site) -> None:
        self.sites.setdefault(line, []).append(site)


def callee_name(node: ast.expr) -> str:
    """The last identifier of a callee, as tenure names a call site (`b` of `a.b()`, `f` of `f()()`)."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return node.attr
        if not isinstance(node, ast.Call):
            return ""
        node = node.func


class _Sites(ast.NodeVisitor):
    def __init__(self, source: SourceFile) -> None:
        self.source = source

    def generic_visit(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.source.parents[child] = node
        super().generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.source.add(node.lineno, Site(callee_name(node.func), node.func, node))
        if isinstance(node.func, ast.Name) and node.func.id in ("len", "iter", "next") and node.args:
            dunder = {"len": "__len__", "iter": "__iter__", "next": "__next__"}[node.func.id]
            self.implicit(node.lineno, dunder, node.args[0])
        self.generic_visit(node)

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for dec in node.decorator_list:
            call = dec if isinstance(dec, ast.Call) else None
            self.source.add(dec.lineno, Site(callee_name(dec), call.func if call else dec, call))
        self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _definition

    def implicit(self, line: int, dunder: str, receiver: ast.expr) -> None:
        self.source.add(line, Site(dunder, receiver, implicit=True))

    def _iterated(self, receiver: ast.expr, is_async: bool) -> None:
        for dunder in ("__aiter__", "__anext__") if is_async else ("__iter__", "__next__"):
            self.implicit(receiver.lineno, dunder, receiver)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._iterated(node.iter, isinstance(node, ast.AsyncFor))
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._iterated(node.iter, bool(node.is_async))
        self.generic_visit(node)

    def visit_YieldFrom(self, node: ast.YieldFrom) -> None:
        self._iterated(node.value, False)
        self.generic_visit(node)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        names = ("__aenter__", "__aexit__") if isinstance(node, ast.AsyncWith) else ("__enter__", "__exit__")
        for item in node.items:
            for dunder in names:
                self.implicit(item.context_expr.lineno, dunder, item.context_expr)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_BinOp(self, node: ast.BinOp) -> None:
        op = _BINARY.get(type(node.op))
        if op:
            self.implicit(node.lineno, f"__{op}__", node.left)
            self.implicit(node.lineno, f"__r{op}__", node.right)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        op = _BINARY.get(type(node.op))
        if op:
            self.implicit(node.lineno, f"__i{op}__", node.target)
            self.implicit(node.lineno, f"__{op}__", node.target)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if type(node.op) in _UNARY:
            self.implicit(node.lineno, _UNARY[type(node.op)], node.operand)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.In | ast.NotIn):
                self.implicit(node.lineno, "__contains__", right)
            elif type(op) in _COMPARE:
                self.implicit(node.lineno, _COMPARE[type(op)], left)
            left = right
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        dunder = {ast.Store: "__setitem__", ast.Del: "__delitem__"}.get(type(node.ctx), "__getitem__")
        self.implicit(node.lineno, dunder, node.value)
        self.generic_visit(node)


def parse_file(root: Path, rel: str) -> SourceFile | None:
    try:
        text = (root / rel).read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
        return None
    source = SourceFile(rel, text, text.splitlines(), tree)
    _Sites(source).visit(tree)
    return source


# --------------------------------------------------------------------------------------------------
# The oracle: jedi
# --------------------------------------------------------------------------------------------------


class Oracle:
    """jedi's answer to "what does this expression evaluate to", as project definitions (path, line)
    and the names of what lies outside the project; cached on disk.

    Questions are asked in two passes: the first records what is not cached yet (and answers nothing),
    `answer` then asks jedi file by file, all of a file's questions in one inference state: the plain
    ones on the file itself, the probes inserted all at once into a copy under another name (jedi's
    parser cache, keyed by path, would otherwise be edited under the plain questions' feet)."""

    def __init__(self, root: Path, cache_file: Path) -> None:
        import jedi

        self.jedi = jedi
        self.root = root
        paths = [str(root / "src")] if (root / "src").is_dir() else []
        base = list(jedi.get_default_environment().get_sys_path())
        self.project = jedi.Project(path=root, sys_path=[*paths, str(root), *base], smart_sys_path=False)
        self.cache_file = cache_file
        self.cache: dict[str, list] = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
        self.pending: dict[str, dict[str, tuple]] = {}  # path -> key -> (line, column) or (first line, probe)
        self.asked = 0

    def save(self) -> None:
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        self.cache_file.write_text(json.dumps(self.cache, sort_keys=True))

    def value(self, source: SourceFile, node: ast.expr | None, attribute: str = "") -> tuple[dict[Def, str], set[str]]:
        """What `node` (then `.attribute` of it) evaluates to: a plain name or attribute chain is
        inferred where it stands; anything else through a probe inserted before its statement."""
        if node is None:
            return {}, set()
        if not attribute and _is_name_chain(node):
            line = node.end_lineno or node.lineno
            column = _chars(source.lines[line - 1], node.end_col_offset or 0) - len(_last_identifier(node))
            return self._ask(source, f"{line}:{column}", (line, column))
        statement = _statement_of(source, node)
        expr = ast.get_source_segment(source.text, node)
        if statement is None or expr is None:
            return {}, set()
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        indent = source.lines[first - 1][: len(source.lines[first - 1]) - len(source.lines[first - 1].lstrip())]
        probe = f"{indent}{PROBE} = ({expr}){'.' + attribute if attribute else ''}\n"
        return self._ask(source, f"{first}:{probe}", (first, probe))

    def _ask(self, source: SourceFile, key: str, question: tuple) -> tuple[dict[Def, str], set[str]]:
        hit = self.cache.get(f"{source.path}:{key}")
        if hit is None:
            self.pending.setdefault(source.path, {})[key] = question
            return {}, set()
        inside = {(path, number): name for path, number, name in hit if path}
        outside = {name for path, _, name in hit if not path}
        return inside, outside

    def answer(self) -> None:
        """Ask jedi every question recorded since the last call."""
        for rel, questions in sorted(self.pending.items()):
            source_path = self.root / rel
            text = source_path.read_text(encoding="utf-8")
            plain = {k: q for k, q in questions.items() if isinstance(q[1], int)}
            if plain:
                script = self.jedi.Script(path=str(source_path), project=self.project)
                for key, (line, column) in plain.items():
                    found = self._names(script.infer, line, column, source_path, [])
                    if not any(path for path, _, _ in found):
                        # a library's decorator (contextmanager, lru_cache) leaves a project function
                        # that infer names by the decorator's stub: where it is defined still counts
                        found += [hit for hit in self._names(partial(script.goto, follow_imports=True), line, column,
                                                             source_path, []) if hit[0]]
                    self.cache[f"{rel}:{key}"] = found
            probes = sorted((q[0], key, q[1]) for key, q in questions.items() if isinstance(q[1], str))
            if probes:
                lines = text.splitlines(keepends=True)
                code, at, inserted = [], {}, []  # inserted: (line in the copy, lines inserted there)
                for first, key, probe in probes:
                    while len(code) < first - 1 + sum(n for _, n in inserted):
                        code.append(lines[len(code) - sum(n for _, n in inserted)])
                    at[key] = len(code) + 1
                    inserted.append((len(code) + 1, probe.count("\n")))
                    code += probe.splitlines(keepends=True)
                code += lines[len(code) - sum(n for _, n in inserted):]
                copy = source_path.with_name(f"{source_path.stem}{PROBE}.py")
                script = self.jedi.Script("".join(code), path=str(copy), project=self.project)
                for _, key, probe in probes:
                    indent = len(probe) - len(probe.lstrip())
                    self.cache[f"{rel}:{key}"] = self._names(script.infer, at[key], indent, copy, inserted)
            self.asked += len(questions)
        self.pending.clear()

    def _names(self, ask: Callable[[int, int], list], line: int, column: int, copy: Path,
               inserted: list[tuple[int, int]]) -> list:
        try:
            names = ask(line, column)
        except Exception:  # noqa: BLE001 - jedi failing on one site must not stop the benchmark
            return []
        found = []
        for name in names:
            path, number = name.module_path, name.line
            if path is not None and Path(path) == copy and inserted:  # a definition of the probed file
                path = copy.with_name(copy.name.replace(PROBE, ""))
                number -= sum(n for start, n in inserted if start <= number)
            try:
                rel = Path(path).resolve().relative_to(self.root.resolve()).as_posix() if path else ""
            except ValueError:
                rel = ""
            if rel and name.type in ("function", "class", "instance"):
                # an instance is called through its class's __call__, asked apart: keep the class
                found.append([rel, number, name.name])
            elif not rel:
                found.append(["", 0, name.full_name or name.name])
        return found


def without_stubs(sdist: Path, into: Path) -> Path:
    """The project as jedi reads it: without the `.pyi` stubs that stand beside their modules' `.py`
    (jedi answers with the stub, or with `dataclass_transform`, where the implementation is asked)."""
    stubs = [p for p in sdist.rglob("*.pyi") if p.with_suffix(".py").is_file()]
    if not stubs:
        return sdist
    copy = into / sdist.name
    shutil.copytree(sdist, copy, ignore=shutil.ignore_patterns(".tenure"))
    for stub in stubs:
        (copy / stub.relative_to(sdist)).unlink()
    return copy


def _is_name_chain(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _last_identifier(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _chars(text: str, byte_offset: int) -> int:
    """ast offsets are UTF-8 bytes; jedi's columns are characters."""
    return len(text.encode()[:byte_offset].decode(errors="replace"))


def _statement_of(source: SourceFile, node: ast.AST) -> ast.stmt | None:
    """The statement holding `node`, where a probe can stand before it (not an `elif` branch)."""
    while node is not None and not isinstance(node, ast.stmt):
        node = source.parents.get(node)
    while isinstance(node, ast.If) and source.lines[node.lineno - 1].lstrip().startswith("elif"):
        node = source.parents.get(node)
    return node if isinstance(node, ast.stmt) else None


# --------------------------------------------------------------------------------------------------
# Judging tenure's edges
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    path: str
    line: int
    name: str
    tier: str


def judge(oracle: Oracle, files: dict[str, SourceFile | None], edge: Edge, targets: tuple[Def, ...]
          ) -> tuple[str, str]:
    """("right" | "wrong" | "unknown", what jedi said) for one call edge to a project definition
    (`targets`: where its name is defined, a module's `.py` and `.pyi` both)."""
    source = files.get(edge.path)
    if source is None:
        return "unknown", "file not parsed"
    inside: dict[Def, str] = {}
    outside: set[str] = set()
    method = edge.dst.rsplit(".", 1)[-1]
    for site in source.sites.get(edge.line, ()):
        if site.name != edge.name:
            continue
        asked = [(site.node, method if site.implicit else "")]
        if not site.implicit and method != edge.name:
            # a constructor's __init__, an instance's __call__, or what a call returns (`f()()`, `@deco(x)`)
            asked += [(site.node, method)] if method.startswith("__") else [(site.call, "")] if site.call else []
        for node, attribute in asked:
            found, names = oracle.value(source, node, attribute)
            inside.update(found)
            outside |= {name for name in names if not name.startswith("typing.")}  # a type, not a value
        if inside.keys() & set(targets):
            return "right", ""
        if site.call is not None and returned_closures(files, inside) & set(targets):
            # what a decorator factory returns, where its annotation (`-> Callable[...]`) is all jedi reads
            return "right", ""
    if not inside and not outside:
        return "unknown", ""
    kind = "same name" if method in inside.values() else "other"
    named = sorted(f"{p}:{n} {name}" for (p, n), name in inside.items()) + sorted(outside)
    return "wrong", f"{kind}: {', '.join(named)}"


def returned_closures(files: dict[str, SourceFile | None], functions: dict[Def, str]) -> set[Def]:
    """The functions nested in these that they return by name (`def route(...): def decorator(f): ...;
    return decorator`), read with ast."""
    found = set()
    for path, line in functions:
        source = files.get(path)
        for node in ast.walk(source.tree) if source else ():
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno <= line <= node.body[0].lineno:
                nested = {n.name: n.lineno for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
                found |= {(path, nested[r.value.id]) for r in ast.walk(node) if isinstance(r, ast.Return)
                          and isinstance(r.value, ast.Name) and r.value.id in nested}
    return found


def drawn(seed: int, *parts: object) -> str:
    return hashlib.sha1("\x1f".join(map(str, (seed, *parts))).encode()).hexdigest()


# --------------------------------------------------------------------------------------------------
# Running a build
# --------------------------------------------------------------------------------------------------


@dataclass
class Graph:
    edges: list[Edge]
    defs: dict[str, tuple[Def, ...]]  # fqn -> where it is defined (functions, methods, classes)
    classes: dict[str, str]  # a method -> its class
    bases: dict[str, set[str]]  # a class -> the classes it inherits from (inherits edges)
    by_line: dict[tuple[str, int], dict[Def, str]]  # (path, line) -> definitions linked there -> best tier

    def into_subclass(self, e: Edge) -> bool:
        """A method's call to a method of a class derived from its own (what a call on `self` in a
        base class may dispatch to)."""
        mine, theirs = self.classes.get(e.src), self.classes.get(e.dst)
        if not mine or not theirs or mine == theirs:
            return False
        seen, todo = set(), [theirs]
        while todo:
            for base in self.bases.get(todo.pop(), ()):
                if base == mine:
                    return True
                if base not in seen:
                    seen.add(base)
                    todo.append(base)
        return False


def index_build(src: Path, sdist: Path, into: Path) -> Graph:
    work = into / sdist.name
    shutil.copytree(sdist, work, ignore=shutil.ignore_patterns(".tenure"))
    env = {**os.environ, "PYTHONPATH": str(src), "TENURE_ENRICH": "off"}
    cli = [sys.executable, "-m", "tenure.cli"]
    subprocess.run([*cli, "index", str(work)], env=env, check=True, capture_output=True)
    exported = subprocess.run([*cli, "export", "edges", "--format", "jsonl", "--repo", str(work)], env=env,
                              check=True, capture_output=True, text=True).stdout
    with sqlite3.connect(f"file:{work / '.tenure' / 'tenure.db'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT s.fqn, s.path, s.start_line, p.kind, s.parent_fqn FROM symbols s LEFT JOIN "
                          "symbols p ON p.fqn = s.parent_fqn WHERE s.language = 'python' AND s.kind IN "
                          "('function', 'method', 'class')").fetchall()
    defs: dict[str, tuple[Def, ...]] = {}
    classes = {}
    for fqn, path, line, parent_kind, parent in rows:
        defs[fqn] = (*defs.get(fqn, ()), (path, line))
        if parent_kind == "class":
            classes[fqn] = parent
    edges, by_line, bases = [], {}, {}
    rank = {"resolved": 0, "observed": 1, "inferred": 2, "ambiguous": 3}
    for e in parse_jsonl(exported):
        if e["relation"] == "inherits" and e.get("dst"):
            bases.setdefault(e["src"], set()).add(e["dst"])
        if e["relation"] not in ("calls", "instantiates") or not e.get("dst") or not str(e["path"]).endswith(".py"):
            continue
        if e["relation"] == "calls":
            edges.append(Edge(e["src"], e["dst"], e["path"], e["line"], e["name"], e["tier"]))
        for target in defs.get(e["dst"], ()):
            linked = by_line.setdefault((e["path"], e["line"]), {})
            if rank.get(e["tier"], 9) < rank.get(linked.get(target, ""), 9):
                linked[target] = e["tier"]
    return Graph(edges, defs, classes, bases, by_line)


@dataclass
class Precision:
    judged: Counter = field(default_factory=Counter)  # the sample: right / wrong / unknown
    inferred: int = 0  # inferred call edges to project definitions
    outside: int = 0  # inferred call edges to names outside the project (not judged)
    wrong: list[tuple[str, Edge, str]] = field(default_factory=list)  # (which check, edge, what jedi said)
    # The two kinds of wrong edge issue 23 names, each judged apart (drawn as the sample is, as many):
    # self-loops, and a method's calls into a subclass of its own class
    focus: dict[str, Counter] = field(default_factory=dict)


FOCUS = {"self-loops": lambda graph, e: e.src == e.dst, "into subclass": Graph.into_subclass}


def precision(graph: Graph, oracle: Oracle, files: dict[str, SourceFile | None], samples: int, seed: int) -> Precision:
    out = Precision()
    pool = []
    for e in graph.edges:
        if e.tier != "inferred":
            continue
        if e.dst in graph.defs:
            pool.append(e)
        else:
            out.outside += 1
    out.inferred = len(pool)
    pool.sort(key=lambda e: drawn(seed, e.path, e.line, e.src, e.dst))
    checks = {"sample": (out.judged, pool[:samples])}
    for name, holds in FOCUS.items():
        checks[name] = (out.focus.setdefault(name, Counter()), [e for e in pool if holds(graph, e)][:samples])
    for check, (counts, chosen) in checks.items():
        for e in chosen:
            verdict, said = judge(oracle, files, e, graph.defs[e.dst])
            counts[verdict] += 1
            if verdict == "wrong":
                out.wrong.append((check, e, said))
    return out


@dataclass
class Truth:
    site: str  # "explicit" or "implicit"
    path: str
    line: int
    name: str
    target: Def


def true_edges(oracle: Oracle, files: dict[str, SourceFile | None], samples: int, seed: int,
               defined: set[str]) -> tuple[list[Truth], Counter]:
    """True edges at sampled call sites (explicit calls; implicit ones of dunders the project defines)."""
    explicit, implicit = [], []
    for rel, source in files.items():
        for line, sites in (source.sites.items() if source else ()):
            for nth, site in enumerate(sites):
                key = drawn(seed, rel, line, nth, site.name)
                if not site.implicit:
                    explicit.append((key, source, line, site))
                elif site.name in defined:
                    implicit.append((key, source, line, site))
    truths: list[Truth] = []
    asked: Counter = Counter()
    for kind, pool in (("explicit", explicit), ("implicit", implicit)):
        for _, source, line, site in sorted(pool, key=lambda x: x[0])[:samples]:
            asked[kind] += 1
            inside, _ = oracle.value(source, site.node, site.name if site.implicit else "")
            truths += [Truth(kind, source.path, line, site.name, target) for target in sorted(inside)]
    return truths, asked


def recall(graph: Graph, truths: list[Truth]) -> dict[str, tuple[int, int, int]]:
    """kind -> (true edges, found at any tier, found at inferred)."""
    out = {}
    for kind in ("explicit", "implicit"):
        mine = [t for t in truths if t.site == kind]
        linked = [graph.by_line.get((t.path, t.line), {}).get(t.target) for t in mine]
        out[kind] = (len(mine), sum(1 for tier in linked if tier), sum(1 for tier in linked if tier == "inferred"))
    return out


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------


Scored = dict[str, tuple[Precision, dict, list[Truth], dict[str, SourceFile | None]]]  # build -> figures


def score_project(spec: str, builds: dict[str, Path], tmp: Path, args: argparse.Namespace
                  ) -> tuple[Scored, dict[str, Graph]]:
    import jedi

    name, version = spec.split("==")
    sdist = fetch_sdist(name, version)
    cache = CACHE_DIR / "python-real-precision" / f"{name}-{version}-jedi{jedi.__version__}-v{ORACLE_VERSION}.json"
    oracle = Oracle(without_stubs(sdist, tmp / "oracle"), cache)
    graphs = {label: index_build(src, sdist, tmp / f"build{i}") for i, (label, src) in enumerate(builds.items())}
    paths = {e.path for g in graphs.values() for e in g.edges}
    paths |= {path for g in graphs.values() for where in g.defs.values() for path, _ in where}
    files = {rel: parse_file(sdist, rel) for rel in sorted(paths) if rel.endswith(".py")}
    defined = {n.name for s in files.values() if s for n in ast.walk(s.tree)
               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("__")}

    def scored() -> Scored:
        truths, _ = true_edges(oracle, files, args.recall_samples, args.seed, defined)
        return {label: (precision(graph, oracle, files, args.samples, args.seed), recall(graph, truths), truths, files)
                for label, graph in graphs.items()}

    scored()  # the first pass records the questions jedi has not answered yet
    oracle.answer()
    oracle.save()
    print(f"{spec}: jedi answered {oracle.asked} new questions", file=sys.stderr)
    return scored(), graphs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default=",".join(PROJECTS), help="NAME==VER,... (default: the six)")
    parser.add_argument("--samples", type=int, default=100, help="inferred edges judged per project")
    parser.add_argument("--recall-samples", type=int, default=200, help="call sites of each kind per project")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", help="also score this git revision's src/ (e.g. main)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="list wrong and missed edges, and true ones found at another tier")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    figures: dict[str, dict] = {}
    rows, recall_rows = [], []
    with tempfile.TemporaryDirectory(prefix="tenure-real-precision-") as tmp:
        builds = {"this tree": REPO / "src"}
        if args.baseline:
            builds = {f"baseline {args.baseline}": baseline_src(args.baseline, Path(tmp, "baseline")), **builds}
        totals: dict[str, Counter] = {label: Counter() for label in builds}
        for spec in args.projects.split(","):
            results, graphs = score_project(spec, builds, Path(tmp), args)
            figures[spec] = {}
            for label, (p, r, truths, files) in results.items():
                totals[label].update(p.judged)
                for check, counts in p.focus.items():
                    totals[label].update({f"{check} {verdict}": n for verdict, n in counts.items()})
                for kind, (true, found, inferred) in r.items():
                    totals[label].update({f"{kind} true": true, f"{kind} found": found, f"{kind} inferred": inferred})
                rows.append([spec, label, p.inferred, p.outside, *_precision_cells(p.judged),
                             *(_focus_cell(counts) for counts in p.focus.values())])
                recall_rows.append([spec, label, *_recall_cells(r)])
                figures[spec][label] = {"inferred_edges": p.inferred, "outside": p.outside, **p.judged,
                                        **{check: dict(counts) for check, counts in p.focus.items()},
                                        "recall": {k: dict(zip(("true", "found", "inferred"), v, strict=True))
                                                   for k, v in r.items()}}
                if args.verbose:
                    print_differences(spec, label, p, truths, files, graphs[label])
        for label, t in totals.items():
            rows.append(["all", label, "", "", *_precision_cells(t),
                         *(_focus_cell(Counter({v: t[f"{check} {v}"] for v in ("right", "wrong", "unknown")}))
                           for check in FOCUS)])
            recall_rows.append(["all", label, *_recall_cells({k: (t[f"{k} true"], t[f"{k} found"], t[f"{k} inferred"])
                                                              for k in ("explicit", "implicit")})])
            figures.setdefault("all", {})[label] = dict(t)
    print_table(f"inferred call edges to project definitions, {args.samples} judged per project by jedi "
                f"(seed {args.seed})",
                ["project", "build", "inferred", "to outside", "right", "wrong", "unknown", "precision",
                 *(f"{check} (right/wrong/unknown)" for check in FOCUS)], rows)
    print_table(f"recall: true edges (jedi) at {args.recall_samples} sampled sites of each kind per project",
                ["project", "build", "explicit found", "implicit found", "explicit at inferred",
                 "implicit at inferred"],
                recall_rows)
    write_json(args.json_out, figures)
    return 0


def _precision_cells(judged: Counter) -> list[object]:
    right, wrong = judged["right"], judged["wrong"]
    return [right, wrong, judged["unknown"], fmt_ratio(ratio(right, right + wrong))]


def _focus_cell(counts: Counter) -> str:
    return f"{counts['right']}/{counts['wrong']}/{counts['unknown']}"


def _recall_cells(r: dict[str, tuple[int, int, int]]) -> list[str]:
    return ([f"{found}/{true} ({fmt_ratio(ratio(found, true))})" for true, found, _ in r.values()]
            + [f"{inferred}/{true}" for true, _, inferred in r.values()])


def print_differences(spec: str, label: str, p: Precision, truths: list[Truth], files: dict[str, SourceFile | None],
                      graph: Graph) -> None:
    def code(path: str, line: int) -> str:
        source = files.get(path)
        return source.lines[line - 1].strip() if source else ""

    print(f"\n{spec} [{label}] wrong inferred edges:")
    for check, e, said in p.wrong:
        print(f"  [{check}] {e.path}:{e.line} {e.src} -> {e.dst}  (jedi: {said})\n      {code(e.path, e.line)}")
    print(f"{spec} [{label}] missed true edges:")
    for t in truths:
        if not graph.by_line.get((t.path, t.line), {}).get(t.target):
            print(f"  {t.site} {t.path}:{t.line} {t.name} -> {t.target[0]}:{t.target[1]}\n      {code(t.path, t.line)}")
    print(f"{spec} [{label}] true edges found at another tier than inferred:")
    for t in truths:
        tier = graph.by_line.get((t.path, t.line), {}).get(t.target)
        if tier and tier != "inferred":
            print(f"  {t.site} {t.path}:{t.line} {t.name} -> {t.target[0]}:{t.target[1]} [{tier}]\n"
                  f"      {code(t.path, t.line)}")


if __name__ == "__main__":
    raise SystemExit(main())
