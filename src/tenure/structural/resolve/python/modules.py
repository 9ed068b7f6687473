"""Other modules as the file being resolved reads them: through the view, every read recorded
(:class:`Project`); followed syntactically (:class:`Syntactic`); and every question asked of them
noted with its answer (:class:`AskedProject`, :class:`AskedLower`, :class:`Asking`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from tenure.structural.facts import FileFacts
from tenure.structural.resolve import ProjectView, Recording, SymbolInfo, item_key, items_key
from tenure.structural.resolve.answers import Answers, for_state, put_last
from tenure.structural.resolve.python.flows import ModuleFlow, module_flow
from tenure.structural.resolve.python.values import EMPTY, EXT, INST, MODULE, OPEN, Value, constant, declared

MAX_CHAIN = 12  # hops through re-exports and aliases in another module


# (what, of which module or name) -> what was read. What: "facts" (a module whole), "items" (a module
# to look items up in), "exists", "named" (the symbols of a name), "item" (of an `item_key`: True).
Reads = dict[tuple[str, str], object]


class Project:
    """Other modules as this file's resolution sees them; every read goes through the view and is
    also noted, with what it read, by the recorders of cached analyses in progress."""

    def __init__(self, view: ProjectView) -> None:
        self.view = view
        self.recorders: list[Reads] = []
        self._flows: dict[str, tuple[FileFacts | None, ModuleFlow | None]] = {}
        self._read_as: set[tuple[str, bool]] = set()  # (module, by items) read through the view
        self._exists: dict[str, bool] = {}
        self._named: dict[str, tuple[SymbolInfo, ...]] = {}
        self._modules: dict[str, str] = {}

    def facts(self, module: str) -> FileFacts | None:
        """The module's facts, read whole (for its analysis)."""
        return self._read(module, False)[0]

    def flow(self, module: str) -> ModuleFlow | None:
        """The module's flow program, to look named items up in (a read of its existence and star
        imports; each lookup in it is noted apart, see `scopes` and `names`)."""
        return self._read(module, True)[1]

    def _read(self, module: str, items: bool) -> tuple[FileFacts | None, ModuleFlow | None]:
        hit = self._flows.get(module)
        if hit is None or (module, items) not in self._read_as:
            found = [f for f in self.view.module_facts(module, items) if f.language == "python"]
            self._read_as.add((module, items))
            if hit is None:
                facts = found[0] if found else None
                hit = self._flows[module] = (facts, module_flow(facts) if facts is not None else None)
        elif self.view.recording:  # the read, for the recording open now
            self.view.note_items(module) if items else self.view.note_module(module)
        if self.recorders:  # (the object, held: its id could be reused once freed)
            self._note(("items" if items else "facts", module), hit[0])
        return hit

    def facts_at(self, module: str, path: str) -> FileFacts | None:
        """The facts of the module's file at `path` (several files may be one module: a project's
        `conftest.py` files each rooted where they lie), read as the module whole."""
        first = self.facts(module)
        if first is not None and first.path == path:
            return first
        return next((f for f in self.view.module_facts(module) if f.language == "python" and f.path == path), None)

    def flow_at(self, module: str, path: str) -> ModuleFlow | None:
        facts = self.facts_at(module, path)
        return module_flow(facts) if facts is not None else None

    def facts_digest(self, module: str, items: bool = False) -> bytes | None:
        """What `facts` (or `flow`: `items`) would read, as its digest (`digest_of`): without
        loading the facts."""
        digest = self.view.module_digest(module, "python", items)
        if self.recorders:
            self._note(("items" if items else "facts", module), digest)
        return digest

    def scopes(self, mf: ModuleFlow, qualname: object) -> list[int]:
        """`mf.scopes_of`, the lookup noted (`looked_up`)."""
        self.looked_up(mf.module, str(qualname))
        return mf.scopes_of(qualname)

    def names(self, mf: ModuleFlow, idx: int, name: str) -> list[int]:
        """`mf.names`, the lookup noted (`looked_up`)."""
        self.looked_up(mf.module, f"{mf.scopes[idx][0]}:{name}")
        return mf.names(idx, name)

    def looked_up(self, module: str, item: str) -> None:
        """A lookup of an item in another module, found or not: asked again when an edit changes
        the item (`item_edits`)."""
        self._looked_up(item_key(module, item))

    def _looked_up(self, key: str) -> None:
        self.view.note_key(key)
        if self.recorders:
            self._note(("item", key), True)

    def exists(self, module: str) -> bool:
        found = self._exists.get(module)
        if found is None:
            found = self._exists[module] = self.view.module_exists(module)
        elif self.view.recording:
            self.view.note_items(module)
        if self.recorders:
            self._note(("exists", module), found)
        return found

    def module_named(self, dotted: str) -> str:
        """The project module an absolute name means: itself, or the module whose file that dotted
        path spells where the index roots a namespace package (no __init__.py) below it:
        `pkg.m3` -> `m3` for pkg/m3.py. Names of no project module come back unchanged."""
        hit = self._modules.get(dotted)
        if hit is None:
            hit = self._modules[dotted] = self._module_named(dotted)
        elif self.recorders or self.view.recording:
            self._module_named(dotted)  # the reads, for the analysis or question that records them
        return hit

    def _module_named(self, dotted: str) -> str:
        if self.exists(dotted):
            return dotted
        parts = dotted.split(".")
        spelled = "/".join(parts)
        for i in range(1, len(parts)):
            candidate = ".".join(parts[i:])
            if self.exists(candidate):
                mf = self.flow(candidate)
                path = f"/{mf.path}" if mf is not None else ""
                if path.endswith((f"/{spelled}.py", f"/{spelled}.pyi", f"/{spelled}/__init__.py")):
                    return candidate
        return dotted

    def flags(self, fn: Value) -> str:
        """A function's decorator flags (property, staticmethod, …) as its module declares them."""
        mf = self.flow(fn[1])
        return mf.flags(fn[2]) if mf is not None and self.scopes(mf, fn[2]) else ""

    def returns_something(self, fn: Value) -> bool:
        mf = self.flow(fn[1])
        return mf is not None and any(i in mf.returns for i in self.scopes(mf, fn[2]))

    def named(self, name: str) -> tuple[SymbolInfo, ...]:
        """Python definitions anywhere in the project called `name` (for names nothing else binds)."""
        if name not in self._named:
            self._named[name] = tuple(s for s in self.view.named(name) if s.language == "python")
        elif self.view.recording:
            self.view.named(name)
        if self.recorders:
            self._note(("named", name), tuple(s.fqn for s in self._named[name]))
        return self._named[name]

    def _note(self, key: tuple[str, str], seen: object) -> None:
        for rec in self.recorders:
            rec.setdefault(key, seen)

    def replay(self, reads: Reads) -> None:
        """Reads a cached result took, noted again (as `_note` notes each) by the recorders in progress."""
        for rec in self.recorders:
            for key, seen in reads.items():
                rec.setdefault(key, seen)

    @staticmethod
    def recording_of(reads: Reads) -> Recording:
        """A cached analysis's reads as a view records them, to replay at once (a module read by
        items that was not there stands as read whole: found, it is the wider key)."""
        keys: set[str] = set()
        modules: set[str] = set()
        for (kind, arg), seen in reads.items():
            if kind == "named":
                keys.add(f"name:{arg}")
            elif kind == "item":
                keys.add(arg)
            elif kind == "facts" or seen is None or seen is False:
                modules.add(arg)
            else:
                keys.add(items_key(arg))
        return keys, modules

    def reread(self, reads: Reads) -> tuple[Reads, list[tuple[str, str]]]:
        """Read again, through this view, what a cached analysis read: the reads as they are now
        and which of them differ. This view now depends on them as the analysis did."""
        now_reads: Reads = {}
        differ = []
        for (kind, arg), seen in reads.items():
            if kind == "item":  # (whether the item changed is read with the module's items)
                self._looked_up(arg)
                now: object = seen
                same = True
            elif kind in ("facts", "items") and seen.__class__ is bytes:  # (kept by another process)
                now = self.facts_digest(arg, kind == "items")
                same = now == seen
            elif kind in ("facts", "items"):
                now = self._read(arg, kind == "items")[0]
                same = now is seen  # (an index hands out one object per file state)
            else:
                now = self.exists(arg) if kind == "exists" else tuple(s.fqn for s in self.named(arg))
                same = now == seen
            now_reads[(kind, arg)] = now
            if not same:
                differ.append((kind, arg))
        return now_reads, differ

    def import_values(self, mf: ModuleFlow, expr: list, export: Callable[[str, str], frozenset]) -> frozenset:
        """What `["m", module, name, level(, dotted)]` in `mf` binds."""
        target = self.module_named(mf.absolute(expr[1], expr[3]))
        name = expr[2]
        if not target:  # a relative import above the top level: an ImportError when run
            return frozenset({(MODULE, name, "")}) if name and self.exists(name) else EMPTY
        if not name:
            dotted = self.module_named(mf.absolute(expr[4], expr[3])) if len(expr) > 4 else target
            known = self.exists(target) or self.exists(dotted)
            return frozenset({(MODULE, target, "") if known else (EXT, "", target)})
        sub = self.module_named(f"{target}.{name}")
        if self.exists(target):
            found = export(target, name)
            if found:
                return found
        if self.exists(sub):
            return frozenset({(MODULE, sub, "")})
        return EMPTY if self.exists(target) else frozenset({(EXT, "", sub)})


class Lower(Protocol):
    """What one layer knows of modules other than the one being analysed."""

    def export(self, module: str, name: str) -> frozenset: ...
    def star_export(self, module: str, name: str) -> frozenset: ...
    def class_attr(self, cls: Value, name: str) -> frozenset: ...
    def bases(self, cls: Value) -> list[frozenset]: ...
    def returns(self, fn: Value) -> frozenset: ...
    def yields(self, fn: Value) -> frozenset: ...
    def field(self, obj: Value, key: object) -> frozenset: ...
    def fixture(self, module: str, path: str, name: str) -> frozenset: ...


# Index state -> (what, of what) -> (what `Syntactic` found, what reading it took as a view records
# it and as a recorder notes it), for the state in use, the least recently used first: the same
# walks are followed for many files and for each analysis of another module (a class's bases, an
# export), reading the same flows (Django: half of them were walks made before in the process).
FOLLOWED: dict[tuple[int, int], dict[tuple, tuple[object, Recording, Reads]]] = {}
_FOLLOWED_KEPT = 1 << 12


class Syntactic(Lower):
    """Another module read without analysing it: definitions, imports, aliases and constants, each
    followed to what it names (a bounded walk in an order fixed by what it reads, not by string
    hashing: its result hangs only on its reads, so it is cached with them).

    A walk follows a binding's variables once each (`seen`, one per binding followed), and each
    (module, name) it goes on to once (`walk`: what it came to, None while being followed: a cycle
    stops there). Variables are not shared between bindings: a walk may come back into a module
    (one importing itself, or two each other), and what one binding finds must hang only on what
    its own lookup read (edits.py, `_ItemDigests`), not on which variables another binding visited first."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._cache: dict[tuple, tuple[object, Recording, Reads]] | None = None  # (`FOLLOWED`, this state's)

    def _cached(self, key: tuple, compute: Callable[[], object]) -> object:
        project = self.project
        view = project.view
        cache = self._cache
        if cache is None:
            cache = self._cache = for_state(FOLLOWED, view)
        hit = cache.pop(key, None)
        if hit is not None:  # (what reading it took, taken on as if read again)
            cache[key] = hit  # (`put_last`: popped, it is below the limit)
            view.absorb(hit[1])
            if project.recorders:
                project.replay(hit[2])
            return hit[0]
        reads: Reads = {}
        project.recorders.append(reads)
        view.begin()
        try:
            result = compute()
        finally:
            read = view.end()
            project.recorders.pop()
        put_last(cache, key, (result, read, reads), _FOLLOWED_KEPT)
        return result

    def export(self, module: str, name: str) -> frozenset:
        return self._cached(("export", module, name), lambda: self._follow(module, name, {}, 0))  # type: ignore[return-value]

    def star_export(self, module: str, name: str) -> frozenset:
        return self._cached(("star", module, name), lambda: star_exported(self.project, module, name, self.export))  # type: ignore[return-value]

    def class_attr(self, cls: Value, name: str) -> frozenset:
        return self._cached(("attr", cls, name), lambda: self._class_attr(cls, name))  # type: ignore[return-value]

    def _class_attr(self, cls: Value, name: str) -> frozenset:
        mf = self.project.flow(cls[1])
        found: set[Value] = set()
        walk: dict = {}
        for idx in self.project.scopes(mf, cls[2]) if mf is not None else ():
            self._vars(mf, self.project.names(mf, idx, name), found, set(), walk, 0)
        return frozenset(found)

    def bases(self, cls: Value) -> list[frozenset]:
        return self._cached(("bases", cls), lambda: self._bases_of(cls))  # type: ignore[return-value]

    def _bases_of(self, cls: Value) -> list[frozenset]:
        mf = self.project.flow(cls[1])
        out: list[frozenset] = []
        walk: dict = {}
        for idx in self.project.scopes(mf, cls[2]) if mf is not None else ():
            for expr in mf.bases.get(idx, []):
                found: set[Value] = set()
                self._eval(mf, expr, found, set(), walk, 0)
                out.append(frozenset(found))
        return out

    def returns(self, fn: Value) -> frozenset:
        return self.scope_exprs(fn, "returns")

    def yields(self, fn: Value) -> frozenset:
        return self.scope_exprs(fn, "yields")

    def field(self, obj: Value, key: object) -> frozenset:
        return EMPTY

    def fixture(self, module: str, path: str, name: str) -> frozenset:
        return EMPTY  # (what a fixture makes takes its module's analysis)

    def scope_exprs(self, fn: Value, which: str) -> frozenset:
        """What `fn`'s return (or yield) statements give, read syntactically."""
        return self._cached((which, fn), lambda: self._scope_exprs(fn, which))  # type: ignore[return-value]

    def _scope_exprs(self, fn: Value, which: str) -> frozenset:
        mf = self.project.flow(fn[1])
        found: set[Value] = set()
        walk: dict = {}
        for idx in self.project.scopes(mf, fn[2]) if mf is not None else ():
            for expr in getattr(mf, which).get(idx, []):
                self._eval(mf, expr, found, set(), walk, 0)
        return frozenset(found)

    def _vars(self, mf: ModuleFlow, vars_: Iterable[int], out: set, seen: set, walk: dict, hops: int) -> None:
        for var in vars_:
            if var not in seen:
                seen.add(var)
                for expr in mf.var_defs.get(var, []):
                    self._eval(mf, expr, out, seen, walk, hops)

    def _eval(self, mf: ModuleFlow, expr: list | None, out: set, seen: set, walk: dict, hops: int) -> None:
        if expr is None or hops > MAX_CHAIN:
            return
        if expr.__class__ is int:
            self._vars(mf, (expr,), out, seen, walk, hops)
            return
        tag = expr[0]
        if tag == "v":
            self._vars(mf, expr[1], out, seen, walk, hops)
        elif tag in ("f", "C"):
            out.add(mf.value(expr[1]))
        elif tag == "k":
            out.add(constant(expr[1]))
        elif tag == "m":
            out |= self.project.import_values(mf, expr, lambda m, n: self._follow(m, n, walk, hops + 1))
        elif tag == "a":
            owners: set[Value] = set()
            self._eval(mf, expr[1], owners, seen, walk, hops)
            out.update((EXT, "", f"{owner[2]}.{expr[2]}") for owner in owners if owner[0] == EXT)
            # in a fixed order: `walk` keeps the first follow of each name
            for module in sorted(owner[1] for owner in owners if owner[0] == MODULE):
                out |= self._follow(module, expr[2], walk, hops + 1)
        elif tag == "@":
            self._eval(mf, expr[3], out, seen, walk, hops)  # the decorator is not evaluated at this depth
        elif tag == "u":
            for part in expr[1]:
                self._eval(mf, part, out, seen, walk, hops)
        elif tag in ("i", "ic"):
            cls = mf.value(expr[1])
            out.add((INST, cls[1], cls[2]) if tag == "i" else cls)
        elif tag == "A":
            types: set[Value] = set()
            classes: set[Value] = set()
            for parts, into in ((expr[1], types), (expr[2], classes)):
                for part in parts:
                    self._eval(mf, part, into, seen, walk, hops)
            out |= declared(types, classes)
        elif tag == "Ad":  # the annotation when it names a class of the project (not narrowed here)
            annotated: set[Value] = set()
            self._eval(mf, expr[1], annotated, seen, walk, hops)
            out |= annotated
            if not any(v[0] == OPEN for v in annotated):
                self._eval(mf, expr[2], out, seen, walk, hops)

    def _follow(self, module: str, name: str, walk: dict, hops: int) -> frozenset:
        if (module, name) in walk:
            return walk[module, name] or EMPTY  # (None: still being followed, a cycle)
        walk[module, name] = None
        mf = self.project.flow(module)
        found: set[Value] = set()
        if mf is not None:
            bound = self.project.names(mf, 0, name)
            self._vars(mf, bound, found, set(), walk, hops)
            if not bound and hops < MAX_CHAIN:  # perhaps re-exported by `from .x import *`
                found |= star_bound(self.project, mf, name, lambda m, n: self._follow(m, n, walk, hops + 1))
        result = walk[module, name] = frozenset(found)
        return result


def star_modules(project: Project, mf: ModuleFlow) -> list[str]:
    """The project modules `mf` imports with `from ... import *`."""
    return [t for t in (mf.absolute(m, level) for m, level in mf.star) if t and project.exists(t)]


def star_bound(project: Project, mf: ModuleFlow, name: str, export: Callable[[str, str], frozenset]) -> frozenset:
    """What `mf`'s star imports bind `name` to: the last of them whose module exports it (each binds
    over the one before)."""
    for target in reversed(star_modules(project, mf)):
        found = star_exported(project, target, name, export)
        if found:
            return found
    return EMPTY


def star_exported(project: Project, module: str, name: str, export: Callable[[str, str], frozenset]) -> frozenset:
    """What `from module import *` binds `name` to (`export` says what the module binds it to): the
    names its `__all__` lists, or without one every name not starting with an underscore."""
    mf = project.flow(module)
    if mf is None:
        return EMPTY
    project.names(mf, 0, "__all__")  # (the lookup noted: an edit of `__all__` asks this again)
    listed = mf.all_names
    return export(module, name) if (name in listed if listed is not None else not name.startswith("_")) else EMPTY


class AskedProject:
    """The project as the file being resolved sees it: every question answered by the real
    :class:`Project` and noted. Reading another module's facts directly is no question: it marks
    the answers incomplete, and the file is resolved again whenever something it read changes."""

    def __init__(self, inner: Project, answers: Answers) -> None:
        self.inner, self.answers = inner, answers

    def exists(self, module: str) -> bool:
        return self.answers.ask(("exists", module), lambda: self.inner.exists(module))  # type: ignore[return-value]

    def module_named(self, dotted: str) -> str:
        return self.answers.ask(("module_named", dotted), lambda: self.inner.module_named(dotted))  # type: ignore[return-value]

    def flags(self, fn: Value) -> str:
        return self.answers.ask(("flags", fn), lambda: self.inner.flags(fn))  # type: ignore[return-value]

    def returns_something(self, fn: Value) -> bool:
        return self.answers.ask(("returns_something", fn), lambda: self.inner.returns_something(fn))  # type: ignore[return-value]

    def named(self, name: str) -> tuple[SymbolInfo, ...]:
        return self.answers.ask(("named", name), lambda: self.inner.named(name), _used_of_named)  # type: ignore[return-value]

    import_values = Project.import_values  # built of exists, module_named and an export: all noted

    def facts(self, module: str) -> FileFacts | None:
        self.answers.complete = False
        return self.inner.facts(module)

    def flow_at(self, module: str, path: str) -> ModuleFlow | None:
        self.answers.complete = False
        return self.inner.flow_at(module, path)

    def flow(self, module: str) -> ModuleFlow | None:
        self.answers.complete = False
        return self.inner.flow(module)


def _used_of_named(found: object) -> list:
    """What the analysis uses of the symbols of a name, in no particular order (a re-indexed file's
    symbols move to the end of the index's lists) and without lines (moving code answers the same)."""
    return sorted((s.fqn, s.name, s.kind, s.parent, s.module) for s in found)  # type: ignore[attr-defined]


class AskedLower:
    """A lower layer (:class:`Analysed`, or :class:`Syntactic` under a cached analysis), with every
    answer noted."""

    def __init__(self, inner: Lower, answers: Answers) -> None:
        self.inner, self.answers = inner, answers

    def export(self, module: str, name: str) -> frozenset:
        return self.answers.ask(("export", module, name), lambda: self.inner.export(module, name))  # type: ignore[return-value]

    def star_export(self, module: str, name: str) -> frozenset:
        return self.answers.ask(("star_export", module, name), lambda: self.inner.star_export(module, name))  # type: ignore[return-value]

    def class_attr(self, cls: Value, name: str) -> frozenset:
        return self.answers.ask(("class_attr", cls, name), lambda: self.inner.class_attr(cls, name))  # type: ignore[return-value]

    def bases(self, cls: Value) -> list[frozenset]:
        return self.answers.ask(("bases", cls), lambda: self.inner.bases(cls))  # type: ignore[return-value]

    def returns(self, fn: Value) -> frozenset:
        return self.answers.ask(("returns", fn), lambda: self.inner.returns(fn))  # type: ignore[return-value]

    def yields(self, fn: Value) -> frozenset:
        return self.answers.ask(("yields", fn), lambda: self.inner.yields(fn))  # type: ignore[return-value]

    def field(self, obj: Value, key: object) -> frozenset:
        return self.answers.ask(("field", obj, key), lambda: self.inner.field(obj, key))  # type: ignore[return-value]

    def fixture(self, module: str, path: str, name: str) -> frozenset:
        return self.answers.ask(("fixture", module, path, name), lambda: self.inner.fixture(module, path, name))  # type: ignore[return-value]


class Asking:
    """The layers a file's analysis asks its questions of, each question noted in `answers` with its
    answer: the project (:class:`AskedProject`) and a lower layer (:class:`AskedLower`)."""

    def __init__(self, lower: Lower, project: Project, answers: Answers) -> None:
        self.lower, self.project, self.answers = AskedLower(lower, answers), AskedProject(project, answers), answers

    def again(self, query: tuple) -> tuple[bytes, bytes]:
        """(digest, key filter) of `query`'s answer now, asked of the layer that answers its kind."""
        if query not in self.answers.log:
            getattr(getattr(self, _ASKED_OF[query[0]]), query[0])(*query[1:])
        return self.answers.log[query]


_ASKED_OF = {
    **dict.fromkeys(("exists", "module_named", "flags", "returns_something", "named"), "project"),
    **dict.fromkeys(("export", "star_export", "class_attr", "bases", "returns", "yields", "field", "fixture"), "lower"),
}
