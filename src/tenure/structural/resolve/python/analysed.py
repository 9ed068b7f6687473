"""Other modules analysed on their own (no arguments from the file being resolved), cached for the
run with what they read, kept between processes, and checked again after an edit."""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

import msgspec

from tenure.structural.facts import FileFacts, digest_of
from tenure.structural.resolve import Dependants, ProjectView, Recording, Verified, module_key
from tenure.structural.resolve.answers import Answers, may_have_read, question, thaw, verify_stored
from tenure.structural.resolve.python.analysis import Analysis
from tenure.structural.resolve.python.flows import ModuleFlow, expr_tag, forget_flows, module_flow
from tenure.structural.resolve.python.modules import (
    MAX_CHAIN,
    Asking,
    Lower,
    Project,
    Reads,
    Syntactic,
    star_bound,
    star_exported,
)
from tenure.structural.resolve.python.values import CLASS, EMPTY, FUNC, INST, MODULE, Value

CACHE_SIZE = 4096  # analysed modules kept between files of one run


class Outcome:
    """What other modules read of a finished analysis: the values of names bound at module level
    and in classes, and the returns, yields and fields it found. A cached analysis keeps only this
    (the function locals, worklist and lookups are most of an analysis and read by nobody)."""

    __slots__ = ("vars", "cells")

    def __init__(self, vars_: dict[int, frozenset], cells: dict[tuple, frozenset]) -> None:
        self.vars, self.cells = vars_, cells

    @classmethod
    def of(cls, a: Analysis) -> Outcome:
        read = (var for scope in read_scopes(a.mf) for bound in scope[5].values() for var in bound)
        return cls({var: frozenset(a.vars[var]) for var in read if a.vars[var]},
                   {key: frozenset(values) for key, values in a.cells.items() if key[0] in _READ_CELLS})

    def final(self, vars_: Iterable[int]) -> frozenset:
        """What these variables hold once the analysis is done (read by other files' analyses)."""
        out: set = set()
        for var in vars_:
            out |= self.vars.get(var, EMPTY)
        return frozenset(out)


_READ_CELLS = frozenset("ryF")  # returns, yields, fields


def read_scopes(mf: ModuleFlow) -> list[list]:
    """The scopes whose bindings other modules read (`Analysed.export`, `class_attr`): the module's
    and its classes' (every scope of a class's qualname)."""
    classes = {scope[0] for scope in mf.scopes if scope[1] == "class"}
    return [scope for idx, scope in enumerate(mf.scopes) if idx == 0 or scope[0] in classes]


@dataclass
class CachedAnalysis:
    facts: FileFacts
    analysis: Outcome
    reads: Reads  # what it read of the project, as `Project.reread` checks
    recording: Recording  # the same, as a view records it
    # question -> (answer digest, key filter), see `Answers`; a kept analysis's questions stay encoded
    # (msgpack bytes) until one is asked again: most never are. None: let go (`_kept_then_unasked`)
    answers: dict[tuple | bytes, tuple[bytes, bytes]] | None
    epoch: tuple[int, int]  # the index state these hold for

    def encode(self) -> bytes | None:
        """As kept between processes (`kept_analysis`): what it read of other modules' facts as digests."""
        reads = [(kind, arg, _seen_digest(seen)) for (kind, arg), seen in self.reads.items()]
        try:
            encoded = msgspec.msgpack.encode((
                _KEPT_FORMAT, _facts_digest(self.facts), list(self.analysis.vars.items()),
                list(self.analysis.cells.items()),
                [(msgspec.Raw(q) if q.__class__ is bytes else q, d, f) for q, (d, f) in self.answers.items()], reads))
        except (TypeError, msgspec.EncodeError):
            return None
        return zlib.compress(encoded, 3)  # (a fifth of the size: questions and reads repeat module names)


_KEPT_FORMAT = 9  # 9: declared instances marked open (values.OPEN); 8: values of bytes, operators' results
_KeptValues = list[tuple[str, object, object]]  # (values: see `_values`)
_KEPT_DECODER = msgspec.msgpack.Decoder(
    tuple[int, bytes, list[tuple[int, _KeptValues]], list[tuple[list, _KeptValues]],
          list[tuple[msgspec.Raw, bytes, bytes]], list[tuple[str, str, object]]])


def _kept_then_unasked(hit: CachedAnalysis) -> bytes | None:
    """`hit` encoded to be kept, then its questions let go: an index that never changes
    (`ProjectView.fixed`) asks none of them again."""
    blob = hit.encode()
    hit.answers = None
    return blob


def kept_analysis(facts: FileFacts, view: ProjectView) -> CachedAnalysis | None:
    """The analysis of this file an earlier process kept (`keep_analysis`), when it was made of
    these very facts; what it read of the rest is checked by `Analysed.still_holds` (its epoch
    is no index's)."""
    blob = view.kept_analysis(facts.path)
    if blob is None:
        return None
    try:
        fmt, digest, vars_, cells, answers, reads = _KEPT_DECODER.decode(zlib.decompress(blob))
    except (zlib.error, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if fmt != _KEPT_FORMAT or digest != _facts_digest(facts):
        return None
    frozen = {(kind, arg): tuple(seen) if seen.__class__ is list else seen for kind, arg, seen in reads}
    if frozen.get(("facts", facts.module)) == digest:
        frozen["facts", facts.module] = facts
    outcome = Outcome({var: _values(values) for var, values in vars_},
                      {thaw(key): _values(values) for key, values in cells})  # type: ignore[misc]
    return CachedAnalysis(facts, outcome, frozen, Project.recording_of(frozen),
                           {bytes(q): (d, f) for q, d, f in answers}, (0, -1))


def _seen_digest(seen: object) -> object:
    """A read as kept between processes: facts as their digest, anything else as it is."""
    return _facts_digest(seen) if seen.__class__ is FileFacts else seen  # type: ignore[arg-type]


def _values(values: _KeptValues) -> frozenset:
    """Decoded values as tuples: a few nest another value, or their key (`thaw`)."""
    return frozenset(v if v[2].__class__ is not list and v[1].__class__ is not list
                     else (v[0], thaw(v[1]), thaw(v[2])) for v in values)


_DIGESTS: OrderedDict[str, tuple[FileFacts, bytes]] = OrderedDict()


def _facts_digest(facts: FileFacts) -> bytes:
    """What a file's facts are, for comparing them in another process (by path and object, as
    `module_flow`)."""
    hit = _DIGESTS.get(facts.path)
    if hit is not None and hit[0] is facts:
        return hit[1]
    digest = digest_of(facts)
    _DIGESTS[facts.path] = (facts, digest)
    if len(_DIGESTS) > CACHE_SIZE:
        _DIGESTS.popitem(last=False)
    return digest


class Analysed(Lower):
    """Another module analysed on its own (no arguments from the file being resolved), reading its
    own imports through :class:`Syntactic`. Analyses are cached for the run, with their reads."""

    # For the facts object (an index hands every file the same object for a module), checked
    # against what the analysis read: a warm index keeps unchanged files' objects between runs.
    # Within one state of the index (its epoch) nothing read can differ, so the check is skipped.
    # Keyed by path: a file's new state replaces the old one's analysis.
    _cache: OrderedDict[str, CachedAnalysis] = OrderedDict()

    def __init__(self, project: Project) -> None:
        self.project = project
        self.syntactic = Syntactic(project)
        self._mine: dict[str, tuple[Outcome | None, Recording]] = {}

    def analysis(self, module: str, path: str = "") -> Outcome | None:
        """The module's analysis (of its file at `path`, where several files are one module)."""
        facts = self.project.facts_at(module, path) if path else self.project.facts(module)
        key = f"{module}@{path}" if path else module
        mine = self._mine.get(key)
        if mine is not None:
            if self.project.view.recording:
                self.project.view.replay(mine[1])
            return mine[0]
        result, recording = None, (set(), set())
        if facts is not None:
            hit = self._cache.get(facts.path)
            if hit is None or hit.facts is not facts:
                hit = kept_analysis(facts, self.project.view)
                if hit is not None:
                    self._cache[facts.path] = hit
            if hit is not None and self.still_holds(hit):
                self._cache.move_to_end(facts.path)
                result, recording = hit.analysis, hit.recording
            else:
                result, recording = self.analyse(facts)
        self._mine[key] = (result, recording)
        return result

    def recording(self, module: str) -> Recording:
        """What `analysis(module)`, asked already, read of the project."""
        return self._mine[module][1]

    def still_holds(self, hit: CachedAnalysis) -> bool:
        """Whether a cached analysis may be reused by this view (which then depends on what it
        read). After an edit, when modules it read changed, it still holds if every question it
        asked whose reads the change touched gets the same answer (the early cutoff of `verify`,
        one level down): adding a function to a module read by a hundred analyses re-runs none."""
        view = self.project.view
        if hit.epoch == view.epoch and not self.project.recorders:
            view.absorb(hit.recording)
            return True
        changed = None if self.project.recorders else view.changed_since(hit.epoch)
        if changed is None:
            reads, differ = self.project.reread(hit.reads)
        else:  # read again only what changed since (the same index: its objects are the same otherwise)
            view.absorb(hit.recording)
            now, differ = self.project.reread({key: hit.reads[key] for key in changed if key in hit.reads})
            reads = {**hit.reads, **now} if now else hit.reads
        if differ:
            if hit.answers is None or any(kind == "exists" for kind, _ in differ):
                return False  # a module appeared or went: lookups it never asked about may now succeed
            touched: list[str] = []
            for kind, arg in differ:
                if kind == "items":  # (an edit touches the lookups of the items it changed)
                    before, after = _seen_digest(hit.reads[kind, arg]), _seen_digest(reads[kind, arg])
                    touched += view.item_changes(arg, before, after)  # type: ignore[arg-type]
                else:
                    touched.append(module_key(arg) if kind == "facts" else f"name:{arg}")
            answers = Answers(view)
            asking = Asking(self.syntactic, self.project, answers)
            self.project.recorders.append(reads)
            encoded = []  # kept questions asked again (decoded now)
            try:
                for query, (digest, key_filter) in hit.answers.items():
                    if may_have_read(key_filter, touched):
                        if query.__class__ is bytes:
                            encoded.append(query)
                            query = question(query)
                        if asking.again(query)[0] != digest:  # type: ignore[arg-type]
                            return False
            finally:
                self.project.recorders.pop()
            for query in encoded:
                del hit.answers[query]
            hit.answers.update(answers.log)
            hit.recording = Project.recording_of(reads)
            view.keep_analysis(hit.facts.path, hit.encode)  # (kept as checked: a later process asks none again)
        hit.reads, hit.epoch = reads, view.epoch
        if view.fixed:  # (checked: its questions are never asked again here)
            hit.answers = None
        return True

    def analyse(self, facts: FileFacts) -> tuple[Outcome, Recording]:
        reads: Reads = {}
        answers = Answers(self.project.view)
        self.project.recorders.append(reads)
        try:
            self.project.facts(facts.module)
            asking = Asking(Syntactic(self.project), self.project, answers)
            analysis = Analysis(module_flow(facts), asking.lower, asking.project, record=False)  # type: ignore[arg-type]
            analysis.run()
        finally:
            self.project.recorders.pop()
        result = Outcome.of(analysis)
        analysis.mf.drop_body()
        recording = Project.recording_of(reads)
        hit = self._cache[facts.path] = CachedAnalysis(facts, result, reads, recording, answers.log,
                                                        self.project.view.epoch)
        self._cache.move_to_end(facts.path)
        view = self.project.view
        view.keep_analysis(facts.path, partial(_kept_then_unasked, hit) if view.fixed else hit.encode)
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return result, recording

    def export(self, module: str, name: str, hops: int = 0) -> frozenset:
        mf = self.project.flow(module)
        if mf is None:
            return EMPTY
        exprs = [e for v in self.project.names(mf, 0, name) for e in mf.var_defs.get(v, [])]
        if not exprs:  # not bound here: perhaps re-exported by `from .x import *`
            return self.syntactic.export(module, name) if hops >= MAX_CHAIN else star_bound(
                self.project, mf, name, lambda m, n: self.export(m, n, hops + 1))
        if all(expr_tag(e) in ("f", "C", "k") for e in exprs):
            return self.syntactic.export(module, name)
        if all(expr_tag(e) == "m" for e in exprs) and hops < MAX_CHAIN:  # a re-export
            out: set = set()
            for e in exprs:
                out |= self.project.import_values(mf, e, lambda m, n: self.export(m, n, hops + 1))
            return frozenset(out)
        a = self.analysis(module)
        return a.final(mf.names(0, name)) if a is not None else EMPTY

    def star_export(self, module: str, name: str) -> frozenset:
        return star_exported(self.project, module, name, self.export)

    def class_attr(self, cls: Value, name: str) -> frozenset:
        mf = self.project.flow(cls[1])
        if mf is None:
            return EMPTY
        exprs = [e for idx in self.project.scopes(mf, cls[2]) for v in self.project.names(mf, idx, name)
                 for e in mf.var_defs.get(v, [])]
        if all(expr_tag(e) in ("f", "C", "k", "m") for e in exprs):
            return self.syntactic.class_attr(cls, name)
        a = self.analysis(cls[1])
        return a.final([v for idx in mf.scopes_of(cls[2]) for v in mf.names(idx, name)]) if a is not None else EMPTY

    def bases(self, cls: Value) -> list[frozenset]:
        return self.syntactic.bases(cls)

    def returns(self, fn: Value) -> frozenset:
        return self._scope_values(fn, "r", "returns")

    def yields(self, fn: Value) -> frozenset:
        return self._scope_values(fn, "y", "yields")

    def _scope_values(self, fn: Value, cell: str, which: str) -> frozenset:
        mf = self.project.flow(fn[1])
        exprs = [e for i in self.project.scopes(mf, fn[2]) for e in getattr(mf, which).get(i, [])] if mf else []
        if all(expr_tag(e) in ("f", "C", "k", "m", "A") for e in exprs):
            return self.syntactic.scope_exprs(fn, which)
        a = self.analysis(fn[1])
        return frozenset(a.cells.get((cell, fn[2]), EMPTY)) if a is not None else EMPTY

    def fixture(self, module: str, path: str, name: str) -> frozenset:
        """What the fixture `name` of the module's file at `path` makes: its function's return, or
        its yield (a generator fixture)."""
        mf = self.project.flow_at(module, path)
        a = self.analysis(module, path) if mf is not None else None
        if a is None:
            return EMPTY
        out: set = set()
        for fn in a.final(mf.fixture_vars(name)):  # type: ignore[union-attr]
            if fn[0] == FUNC and fn[1] == module:
                out |= a.cells.get(("y" if "g" in mf.flags(fn[2]) else "r", fn[2]), EMPTY)  # type: ignore[union-attr]
        return frozenset(out)

    def field(self, obj: Value, key: object) -> frozenset:
        if not obj[1]:
            return EMPTY
        if obj[0] in (INST, CLASS, MODULE):  # only worth an analysis when its module can assign the field:
            mf = self.project.flow(obj[1])  # a class's `self.<key>` in a method, a module's any `.<key>`
            if mf is None:
                return EMPTY
            # (noted found or not: an edit that takes the field away touches the lookup, `item_edits`;
            # a module's obj[2] is "")
            self.project.looked_up(mf.module, f"{obj[2]}@{key}")
            if (key not in mf.assigned_attrs) if obj[0] == MODULE else ((obj[2], key) not in mf.self_fields):
                return EMPTY
        a = self.analysis(obj[1])
        return frozenset(a.cells.get(("F", obj, key), EMPTY)) if a is not None else EMPTY


def code_moved(old: FileFacts, new: FileFacts, view: ProjectView) -> None:
    """See `Resolver.code_moved`: the module's analysis before the edit, kept again as made of the new
    facts. An analysis reads no line (its values name scopes, sites and allocations by qualname
    and by order, which an edit that only moves code keeps), so it found what it found."""
    hit = analysis_before(old, view)
    if hit is None:
        return
    old_digest, new_digest = _facts_digest(old), _facts_digest(new)

    def carried(kind: str, arg: str, seen: object) -> object:
        if arg != new.module or kind not in ("facts", "items"):
            return seen
        if seen.__class__ is bytes:
            return new_digest if seen == old_digest else seen
        return new if _facts_digest(seen) == old_digest else seen  # type: ignore[arg-type]

    reads = {(kind, arg): carried(kind, arg, seen) for (kind, arg), seen in hit.reads.items()}
    hit = Analysed._cache[new.path] = CachedAnalysis(new, hit.analysis, reads, hit.recording, hit.answers,
                                                      hit.epoch)
    view.keep_analysis(new.path, hit.encode)


def analysis_before(old: FileFacts, view: ProjectView) -> CachedAnalysis | None:
    """The analysis of a file's state before an edit: held by this process (a watcher), or kept."""
    hit = Analysed._cache.get(old.path)
    if hit is not None and hit.answers is not None and _facts_digest(hit.facts) == _facts_digest(old):
        return hit
    return kept_analysis(old, view)


def warm(module: str, view: ProjectView) -> None:
    """The module's analysis, cached as verifying a reader's answers asks for it (see `Resolver.warm`)."""
    Analysed(Project(view)).analysis(module)


def verify(items: Dependants, view: ProjectView) -> Verified:
    """See `Resolver.verify`: each stored question that read a touched key asked again (`verify_stored`)
    of the project or of other modules' analyses, as it was asked (`Asking`)."""
    project = Project(view)
    answers = Answers(view, lazy_filters=True)
    return verify_stored(items, answers, Asking(Analysed(project), project, answers).again)


def forget_analyses() -> None:
    """As a new process starts: no analysis of another module made here, no flow decoded (what a
    test of a later process begins with)."""
    Analysed._cache.clear()
    forget_flows()
