"""Indexing: walk the tree, parse what changed, store symbols, re-resolve what depends on it.

The whole update is one transaction: a process killed half-way leaves the previous graph.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tenure.collector import cyclic_gc_paused
from tenure.state import make_state_dir
from tenure.structural import workers
from tenure.structural.discover import (
    MAX_FILE_BYTES,
    Candidate,
    discover,
    ignored,
    inspect_file,
    named_in_utf8,
)
from tenure.structural.facts import FileFacts, decode_facts, digest_of
from tenure.structural.gaps import names_in
from tenure.structural.languages import LanguageSpec, language_for, language_table
from tenure.structural.naming import module_name, stem_siblings
from tenure.structural.parse import extractor_version, shape, symbols_of
from tenure.structural.report import IndexReport, Progress
from tenure.structural.resolve import (
    MODULE_KEY,
    HashSeedNeeded,
    ItemEdit,
    ProjectIndex,
    ProjectView,
    Recording,
    SymbolInfo,
    Verified,
    changed_keys,
    items_key,
    module_key,
    order_dependence,
    resolver_for,
    touched_keys,
)
from tenure.structural.store import StructuralStore
from tenure.structural.vendored import full_analysis_globs, settings_digest
from tenure.words import counted

PENDING_META = "verified_unrecorded"  # ids of files checked whose bookkeeping is deferred (see `Indexer.run`)
BULK_THRESHOLD = 500  # files to re-resolve from which indexes are dropped and rebuilt


# Extraction and resolution recurse once or twice per level of nesting: Python's default limit (1,000)
# dropped files CPython compiles, such as a 350-term string concatenation. Python 3.11 keeps Python
# frames off the C stack, and C recursion that counts against the limit (msgspec, comparisons) stays
# within a thread's 8 MB at this depth.
RECURSION_LIMIT = 10_000


@contextlib.contextmanager
def deeper_recursion() -> Iterator[None]:
    """Python's recursion limit raised to RECURSION_LIMIT for an index (its workers, forked inside,
    keep it)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def _old_keys(old_facts: FileFacts | None, old_symbols: list[SymbolInfo]) -> set[str]:
    """The keys a changed file's stored state answered to: none for a new file, or when its stored
    facts were not read (another build's, in a rebuild that resolves every file again anyway)."""
    return touched_keys(old_facts, old_symbols) if old_facts is not None else set()


def _item_edit(edits: dict[str, ItemEdit | None], spec: LanguageSpec, old: FileFacts, new: FileFacts,
               moved: bool) -> None:
    """Note which items of its module an edit of a file changed (`ItemEdit`): none when the code
    only moved (lookups read no lines), else as its resolver tells; None when that cannot be told.
    (Kept only for a module of one file: `Indexer._item_edits_of_one_file_modules`.)"""
    items = set() if moved else resolver_for(spec.resolver).item_edits(old, new)
    edits[new.module] = (digest_of(old), digest_of(new), frozenset(items)) if items is not None else None


def _naming_inputs(paths: Iterable[str], go_mods: dict[str, str]) -> str:
    """A digest of what module names are made of besides a file's own path (`naming.module_name`)."""
    inits = sorted(p for p in paths if p == "__init__.py" or p.endswith("/__init__.py"))
    siblings = stem_siblings(paths)  # (JS/TS files differing only by extension: naming.path_module)
    return hashlib.blake2b(json.dumps([inits, sorted(go_mods.items()), siblings]).encode(), digest_size=16).hexdigest()


def _go_mods(root: Path, paths: Iterable[str]) -> dict[str, str]:
    mods = {}
    for p in paths:
        if p == "go.mod" or p.endswith("/go.mod"):
            try:
                for line in (root / p).read_text("utf-8", "replace").splitlines():
                    if line.startswith("module "):
                        mods[p.rpartition("/")[0]] = line.split()[1]
                        break
            except OSError:
                continue
    return mods


def _naming(symbols: list[SymbolInfo]) -> list[tuple]:
    """What the naming digest reads of a file's symbols (`StructuralStore.naming_digest`), in its order."""
    return [(s.fqn, s.name, s.kind, s.path, s.module, s.parent or None, s.bases)
            for s in sorted(symbols, key=lambda s: (s.line or 0, s.fqn))]


@dataclass
class _Tree:
    """What a run found of the tree before writing anything (`Indexer._look`)."""

    known: dict[str, dict]  # path -> its files row before the run
    rebuild: bool  # written by another build of the extractor: every file parsed again
    paths: set[str]  # every path of the project now (module names are made of them)
    go_mods: dict[str, str]  # directory -> the module path its go.mod declares
    cands: list[Candidate]  # the source files there are
    same_content: list[Candidate]  # read again (the stat moved), and the same
    changed: list[Candidate]  # to parse
    modules: Counter[str]  # module -> how many parsed files made it up before the run


@dataclass
class _Changes:
    """What the files a run wrote changed, for the resolution after them."""

    touched: set[str] = field(default_factory=set)  # keys whose readers may read otherwise now
    files: set[int] = field(default_factory=set)  # to resolve again, whatever they read
    # module -> the items its edit changed (`_item_edit`), and its edited file's facts before (`_spared`)
    edits: dict[str, ItemEdit | None] = field(default_factory=dict)
    before_edit: dict[str, FileFacts] = field(default_factory=dict)
    moved_from: list[FileFacts] = field(default_factory=list)  # facts before an edit that only moved code (`_carry`)
    renamed: bool = False  # a symbol was added, removed or named otherwise (the naming digest moves)


class Indexer:
    def __init__(self, root: Path, store: StructuralStore, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self.root = root
        self.store = store
        self.max_file_bytes = max_file_bytes
        self.full_analysis: tuple[str, ...] = ()  # the project's globs of paths never read cheaply (vendored.py)
        self._index: ProjectIndex | None = None  # kept warm between runs of one indexer
        self._parsed: dict[str, FileFacts] = {}  # this run's new facts, handed to the index as they are
        self._stored: dict[str, list[SymbolInfo]] = {}  # path -> the symbols this run stored for it
        self._recorded: dict[int, _Recorded] = {}  # see `_not_yet_recorded`
        self._to_warm: deque[tuple[str, set[str]]] | None = None  # (module, its resolvers): see `warm`
        self.warm_failed: list[tuple[str, str]] = []  # (module, error) that warming could not analyse
        self.warm_rounds = 0  # how many warm-ups began: one per index built (see `warm`)
        self._pending: list[tuple[Verified, ProjectIndex]] = []  # deferred bookkeeping, see `run`

    def run(self, progress: Progress | None = None, changed_paths: set[str] | None = None,
            defer_bookkeeping: bool = False, seedless: bool = False) -> IndexReport:
        """Bring the index up to date. With `changed_paths` (from a file watcher) only those paths
        are looked at; otherwise the whole tree is walked and compared by stat and content hash.
        With `defer_bookkeeping`, what checking dependants read (reads to add, answers whose filters
        widened) is recorded by `flush` (a watcher's idle time, or the next run) instead of now; the
        graph is complete either way, and a process that dies first leaves the ids of those files,
        which the next run resolves again.

        `seedless`: this process's string-hash seed is random (`tenure.entry`). A run whose
        resolution followed it (`order_dependence`), or that resolves too many files to watch for
        that (workers), raises `HashSeedNeeded` and commits nothing; any other run stores what a
        run under the fixed seed would."""
        self.flush()
        with cyclic_gc_paused(freeze_survivors=True), deeper_recursion():
            return self._run(progress, changed_paths, defer_bookkeeping, seedless)

    def flush(self) -> None:
        """Record deferred bookkeeping (see `run`), unless another process indexed since: its ids
        stay in the store and the next run resolves those files again."""
        pending, self._pending = self._pending, []
        if self._index is None or not (pending or self._index.analyses_to_keep):
            return
        with self.store.db.transaction(), cyclic_gc_paused(freeze_survivors=True):
            self._keep_analyses(self._index)
            if not pending or self._index.generation != self.store.get_meta("generation"):
                return  # (checked holding the write lock: a run that came between rewrote their answers)
            for verified, index in pending:
                self._record(verified, index)
            self.store.set_meta(PENDING_META, "")

    def _keep_analyses(self, index: ProjectIndex) -> None:
        """Write the analyses resolvers asked to keep (`ProjectView.keep_analysis`). Each is checked
        against what it read when a later process takes it, so any index state may write it."""
        keep, index.analyses_to_keep = index.analyses_to_keep, {}
        self.store.save_analyses({path: blob for path, encode in keep.items() if (blob := encode()) is not None})

    def _record(self, verified: Verified, index: ProjectIndex) -> None:
        stored = self.store.recorded_reads_digests(f for f in verified if f not in self._recorded)
        self.store.keep_verified(*self._not_yet_recorded(
            {f: c.reads_to_keep() for f, c in verified.items()}, index, stored))

    def _run(self, progress: Progress | None, changed_paths: set[str] | None, defer: bool,
             seedless: bool) -> IndexReport:
        started = time.perf_counter()
        order_dependent = order_dependence()
        self._parsed, self._stored = {}, {}  # (a run that failed may have left some)
        report = IndexReport(changed_paths=sorted(changed_paths) if changed_paths is not None else None)
        generation_before = self.store.get_meta("generation")
        naming_before = self.store.kept_naming_digest()
        tree = self._look(changed_paths, seedless, report)
        report.phases["discover"] = time.perf_counter() - started
        if seedless and len(tree.changed) >= workers.PARALLEL_THRESHOLD:
            raise HashSeedNeeded(f"{len(tree.changed)} files to parse")  # (before the work: most such runs need it)
        # (parsed while `_store_parsed` stores what is done)
        parsed = workers.parse_all(tree.changed, progress, self.full_analysis)

        db = self.store.db
        with db.first_fill() if not tree.known else db.transaction():
            if tree.rebuild:
                self.store.drop_analyses()  # (another build's resolver made them)
            now = datetime.now(UTC).isoformat(timespec="seconds")
            kept = {c.path for c in tree.cands if not c.skip} - {c.path for c in tree.changed}
            before = self.store.fingerprints(paths=[p for p in tree.known if p not in kept])
            changes = _Changes()
            self._remove_vanished(tree, changes, report)
            self._store_skipped(tree, changes, report, now)
            self._refresh_stats(tree)
            renamed = self._renamed(tree)
            # (a first index fills the symbol tables: their indexes by name are built once, sorted, after)
            with (db.deferred_indexes("symbols", "escapes", keep=("symbols_file", "escapes_file")) if not tree.known
                  else contextlib.nullcontext()):
                self._store_parsed(tree, parsed, changes, report, now)
            self._rename_modules(renamed, tree, changes, now)
            report.files_unchanged = (len(tree.cands) - len(tree.changed) - len(renamed)
                                      - sum(1 for c in tree.cands if c.skip))
            item_edits, before_edit = self._item_edits_of_one_file_modules(tree, changes)
            affected, dependants, touched_by_file = self._affected(tree, kept, changes)
            mark = time.perf_counter()
            report.phases["parse and store"] = mark - started - sum(report.phases.values())
            rewritten = (set(tree.known) - kept) | {c.path for c in (*tree.changed, *renamed)}
            generation = f"{now}/{os.getpid()}/{time.perf_counter_ns()}"
            try:
                report.files_resolved, report.files_verified, report.files_spared = self._resolve(
                    affected, dependants, touched_by_file, progress, report.phases, rewritten, generation_before,
                    defer, item_edits, before_edit, changes.moved_from, seedless, report)
                if seedless and order_dependence() != order_dependent:
                    raise HashSeedNeeded("resolution followed the order of string hashing")
            except BaseException:
                self._pending = []
                self._index = None  # it may hold state the rolled-back transaction never committed (rebuilt
                # next run, which also forgets `_recorded`)
                raise
            self._record_state(generation, defer)
            report.phases["resolve"] = time.perf_counter() - mark - report.phases["write edges"]
            report.drifted = self._drifted(before)
            self._stamp(now)
            self.store.keep_naming_digest(naming_before if not (changes.renamed or tree.rebuild) else None)
        counts = db.query("SELECT (SELECT COUNT(*) FROM symbols) AS s, (SELECT COUNT(*) FROM edges) AS e")[0]
        report.symbols, report.edges = counts["s"], counts["e"]
        report.seconds = time.perf_counter() - started
        report.phases["commit"] = report.seconds - sum(report.phases.values())
        return report

    # the steps of a run, in order ----------------------------------------------------------------
    def _look(self, changed_paths: set[str] | None, seedless: bool, report: IndexReport) -> _Tree:
        """What the run finds of the tree before it writes anything: the files the store knew, the
        paths there are now, and each file to look at by its stat (read when the stat moved)."""
        known = self.store.files()
        self.full_analysis = full_analysis_globs(self.root)  # (read each run: a watcher sees it change)
        # Another build of the extractor wrote this index: parse everything again, and read none of
        # its stored facts (their shape may not be this build's).
        rebuild = self.store.get_meta("extractor_version") != self._extraction()
        if rebuild:
            known = {p: {**row, "content_hash": None} for p, row in known.items()}
        look_at, all_paths = self._paths(changed_paths, known, report)
        if seedless:  # before the files are read: a first index learns here that it needs the seed
            unknown = sum(1 for p in look_at if (rebuild or p not in known) and language_for(p) is not None)
            if unknown >= workers.PARALLEL_THRESHOLD:
                raise HashSeedNeeded(f"{unknown} new files to parse")
        go_mods = _go_mods(self.root, all_paths)
        path_set = set(all_paths)
        cands = self._candidates(look_at, known, changed_paths, path_set)
        report.files_seen = len(cands)
        # Read again (the stat moved) but the same content: only the stat is refreshed.
        same_content = [c for c in cands if not c.skip and c.content is not None and
                        (p := known.get(c.path)) is not None and p["content_hash"] == c.content_hash and
                        p["parse_status"] in ("ok", "partial")]
        same = {c.path for c in same_content}
        changed = [c for c in cands if not c.skip and c.content is not None and c.path not in same]
        modules = Counter(row["module"] for row in known.values() if row["parse_status"] in ("ok", "partial"))
        return _Tree(known, rebuild, path_set, go_mods, cands, same_content, changed, modules)

    def _extraction(self) -> str:
        """What made the stored facts: the extractor's build, and the project's settings they follow
        (which paths are always fully analysed). Facts made otherwise are made again."""
        return extractor_version() + settings_digest(self.full_analysis)

    def _paths(self, changed_paths: set[str] | None, known: dict[str, dict],
               report: IndexReport) -> tuple[list[str], list[str]]:
        """The paths to look at, and every path of the project: all that discovery finds, or (from a
        watcher) the changed paths, and the known ones but those gone."""
        if changed_paths is None:
            listing = discover(self.root)
            report.listing = listing.how
            all_paths, unnamed = named_in_utf8(listing.paths)
            report.skipped.extend(listing.skipped + unnamed)
            return all_paths, all_paths
        named, unnamed = named_in_utf8(changed_paths)
        report.skipped.extend(unnamed)
        wanted = {p for p in named if not ignored(p)}
        gone = {p for p in wanted if not os.path.lexists(self.root / p)}
        return sorted(wanted - gone), sorted((set(known) | wanted) - gone)

    def _candidates(self, look_at: list[str], known: dict[str, dict], changed_paths: set[str] | None,
                    path_set: set[str]) -> list[Candidate]:
        """What the index needs of each path it looks at (`inspect_file`), and from a watcher, of
        every other known file as the store has it."""
        cands = []
        root = os.fspath(self.root)  # (joined with every path: a string once, not a Path each time)
        for p in look_at:
            c = inspect_file(root, p, known.get(p), self.max_file_bytes)
            if c is not None:
                cands.append(c)
        if changed_paths is not None:  # untouched files count as present and unchanged
            looked = set(look_at)
            cands += [Candidate(p, spec, row["size"], row["mtime_ns"], content_hash=row["content_hash"] or "",
                                skip=row["status_detail"] if row["parse_status"] == "skipped" else "")
                      for p, row in known.items() if p not in looked and p in path_set
                      and (spec := language_for(p)) is not None]
        return cands

    def _remove_vanished(self, tree: _Tree, changes: _Changes, report: IndexReport) -> None:
        present = {c.path for c in tree.cands}
        for path, row in tree.known.items():
            if path not in present:
                changes.touched |= self._touched(row)
                self.store.delete_file(path)
                report.files_removed += 1
                changes.renamed = True

    def _store_skipped(self, tree: _Tree, changes: _Changes, report: IndexReport, now: str) -> None:
        """Files passed over (too large, binary, a link out of the tree, …): what their last parse
        made goes."""
        for c in tree.cands:
            if c.skip:
                report.skipped.append((c.path, c.skip))
                if c.path in tree.known:
                    changes.touched |= self._touched(tree.known[c.path])
                    self.store.forget_parse(tree.known[c.path]["id"])
                    changes.renamed = True
                self.store.upsert_file(self._row(c, "skipped", c.skip, "", now))

    def _refresh_stats(self, tree: _Tree) -> None:
        """Unchanged content with a new stat: the stat is stored, nothing else."""
        for c in tree.same_content:
            row = tree.known[c.path]
            self.store.upsert_file(self._row(c, row["parse_status"], row["status_detail"], row["module"],
                                             row["indexed_at"]))

    def _renamed(self, tree: _Tree) -> list[Candidate]:
        """Unchanged files whose module name moved. It moves only when the __init__.py files or the
        go.mod files' modules do (`naming`): only then is every file's name made again."""
        naming = _naming_inputs(tree.paths, tree.go_mods)
        renamed = [] if naming == self.store.get_meta("naming") and not tree.rebuild else self._modules_changed(
            tree.cands, tree.known, tree.paths, tree.go_mods)
        self.store.set_meta("naming", naming)
        return renamed

    def _store_parsed(self, tree: _Tree, parsed: Iterable[tuple[bytes | None, str]], changes: _Changes,
                      report: IndexReport, now: str) -> None:
        """The changed files' new facts and symbols, stored as the workers parse them, and what each
        edit changed for the files that read them."""
        for c, (blob, note) in zip(tree.changed, parsed, strict=True):
            old = tree.known.get(c.path)
            old_facts = self.store.load_facts(c.path) if old is not None and not tree.rebuild else None
            old_symbols = self.store.symbols_of_file(old["id"]) if old_facts is not None else []
            if blob is None:
                report.skipped.append((c.path, note))
                file_id = self.store.upsert_file(self._row(c, "error", note, "", now))
                changes.touched |= _old_keys(old_facts, old_symbols)
                if old is not None:
                    self.store.forget_parse(old["id"])
                    changes.renamed = True
                self.store.note_unread(file_id, note, names_in(c.content or b""))
                continue
            facts = decode_facts(blob)
            self._finish_facts(facts, c.spec, tree.paths, tree.go_mods)
            moved: dict[int, int] | None = None  # old line -> new line, when the code only moved
            if old_facts is not None and old_facts.module == facts.module:
                (old_shape, old_lines), (new_shape, new_lines) = (
                    shape(f, c.spec.extractor) for f in (old_facts, facts))
                moved = dict(zip(old_lines, new_lines, strict=False)) if old_shape == new_shape else None
            status = "partial" if facts.error_nodes or note else "ok"
            detail = "; ".join(x for x in (f"{counted(facts.error_nodes, 'syntax error')} recovered"
                                            if facts.error_nodes else "", note) if x)
            if status == "partial":
                report.partial.append((c.path, detail))
            file_id = self._store_facts(c, facts, status, detail, now)
            if old_facts is None or _naming(old_symbols) != _naming(self._stored[c.path]):
                changes.renamed = True
            self._parsed[c.path] = facts
            report.files_parsed += 1
            self._note_edit(c, file_id, old_facts, old_symbols, facts, moved, changes)

    def _note_edit(self, c: Candidate, file_id: int, old_facts: FileFacts | None,
                   old_symbols: list[SymbolInfo], facts: FileFacts, moved: dict[int, int] | None,
                   changes: _Changes) -> None:
        """What storing a file's new facts changed: the file to resolve again (or, when its code only
        moved, its edges moved with it), the keys its edit touched, and the items it changed."""
        if moved is None or not self.store.move_edge_lines(file_id, moved):  # (moved: edges follow)
            changes.files.add(file_id)
        elif old_facts is not None and self.store.keys_read({module_key(facts.module)}):
            changes.moved_from.append(old_facts)  # (its analysis, carried for readers of it whole: else none)
        if old_facts is not None and moved is None:
            changes.touched |= changed_keys(old_facts, old_symbols, facts, self._stored[c.path])
            if old_facts.module == facts.module:
                changes.before_edit[facts.module] = old_facts
        elif moved is None:
            changes.touched |= _old_keys(old_facts, old_symbols) | touched_keys(facts, self._stored[c.path])
        if old_facts is not None and self.store.keys_read({items_key(facts.module)}):  # (else: no reader)
            _item_edit(changes.edits, c.spec, old_facts, facts, moved is not None)

    def _rename_modules(self, renamed: list[Candidate], tree: _Tree, changes: _Changes, now: str) -> None:
        changes.renamed = changes.renamed or bool(renamed)
        for c in renamed:
            file_id, keys = self._refresh_module(c, tree.known[c.path], tree.paths, tree.go_mods, now)
            changes.files.add(file_id)
            changes.touched |= keys

    def _item_edits_of_one_file_modules(
        self, tree: _Tree, changes: _Changes,
    ) -> tuple[dict[str, ItemEdit], dict[str, FileFacts]]:
        """The edits whose changed items are known, and the facts before them (`_spared`), of modules
        of one file before the run and after it (readers read the first of several: a run that takes
        one away leaves another, which was never the one read). Such an edit touches its items' keys,
        not its module's items key. (So two files of one module edited in one run never pass: the
        module had both before.)"""
        one_file = {module for module in changes.edits.keys() | changes.before_edit.keys()
                    if tree.modules[module] == 1 and self.store.files_of_module(module) == 1}
        item_edits = {module: edit for module, edit in changes.edits.items() if edit is not None and module in one_file}
        before_edit = {module: old for module, old in changes.before_edit.items() if module in one_file}
        for module, edit in item_edits.items():
            changes.touched = (changes.touched - {items_key(module)}) | edit[2]
        return item_edits, before_edit

    def _affected(self, tree: _Tree, kept: set[str],
                  changes: _Changes) -> tuple[set[int], set[int], dict[int, set[str]]]:
        """The files to resolve again, those of them to check first (dependants: they read keys the
        run touched), and which touched keys each file read."""
        if kept:
            new_modules = self._new_modules(tree.modules.keys(), changes.files)
            looked_for_new = self.store.files_missing(new_modules)
            touched_by_file = self.store.keys_read(changes.touched)  # file id -> which touched keys it read
        else:  # every file is new or changed (a first index): no other holds reads to look up
            looked_for_new, touched_by_file = set(), {}
        # Checked by a process that died before recording what the checks read: resolved again.
        unrecorded = {int(i) for i in self.store.get_meta(PENDING_META).split()}  # (gone ones are skipped)
        dependants = set(touched_by_file) - changes.files - looked_for_new - unrecorded
        return changes.files | dependants | looked_for_new | unrecorded, dependants, touched_by_file

    def _record_state(self, generation: str, defer: bool) -> None:
        """The new index state's generation, the analyses to keep (now, unless deferred), and the
        files whose bookkeeping is deferred."""
        self._index.generation = generation
        self.store.set_meta("generation", generation)
        if not defer:
            self._keep_analyses(self._index)
        self.store.set_meta(PENDING_META, " ".join(str(f) for verified, _ in self._pending for f in verified))

    def _drifted(self, before: dict[str, str]) -> list[str]:
        """The symbols whose fingerprint the run changed or that it removed (`before`: of the files
        it rewrote)."""
        after = self.store.fingerprints(fqns=list(before))
        return sorted(fqn for fqn, fp in before.items() if after.get(fqn) != fp)

    def _stamp(self, now: str) -> None:
        """When, by which build and of which root the index was made."""
        self.store.set_meta("indexed_at", now)
        self.store.set_meta("extractor_version", self._extraction())
        self.store.set_meta("root", str(self.root))

    def warm(self, seconds: float) -> bool:
        """Analyse ahead of the next update, for at most `seconds`, the modules other files'
        resolution read, the most read first; True once all are. A full index analyses them in
        worker processes, so the first update after it would analyse again every module its checks
        ask about (2 s for an edit to a module 851 Django files read); a watcher calls this while idle.
        An index another process has indexed past is not warmed: the next run builds a new one, and
        warming starts again for that."""
        index = self._index
        warmed = self._to_warm is not None and not self._to_warm
        if index is None or warmed or index.generation != self.store.get_meta("generation"):
            return True
        if self._to_warm is None:
            self.warm_rounds += 1
            index.complete()  # every symbol in memory: later checks look none up in the store (first:
            # completing starts a new change log, which what is warmed after it can rely on)
            read = self.store.keys_by_readers(map(module_key, index.module_paths))
            modules = (key[len(MODULE_KEY):] for key in read)
            self._to_warm = deque(
                (m, {spec.resolver for p in index.module_paths.get(m, ()) if (spec := language_for(p)) is not None})
                for m in modules)
        deadline = time.perf_counter() + seconds
        with cyclic_gc_paused(freeze_survivors=True):
            while self._to_warm and time.perf_counter() < deadline:
                module, resolvers = self._to_warm.popleft()
                for resolver in resolvers:
                    try:
                        resolver_for(resolver).warm(module, ProjectView(index))
                    except Exception as exc:  # noqa: BLE001 — warming is ahead of time: an update meets it as it would have
                        self.warm_failed.append((module, f"{type(exc).__name__}: {exc}"))
        return not self._to_warm

    # helpers -----------------------------------------------------------------------------------
    def _row(self, c: Candidate, status: str, detail: str, module: str, now: str) -> dict:
        return {"path": c.path, "language": c.spec.name, "module": module, "size": c.size, "mtime_ns": c.mtime_ns,
                "content_hash": c.content_hash if status != "skipped" else "", "parse_status": status,
                "status_detail": detail, "indexed_at": now}

    def _new_modules(self, before: AbstractSet[str], written: set[int]) -> set[str]:
        """Module names that exist now and did not `before` this update: of the files it wrote (parsed
        again, or renamed), the only ones whose module can be new."""
        if not written:
            return set()
        db = self.store.db
        now = {r["module"] for r in db.query(
            f"SELECT DISTINCT module FROM files WHERE parse_status IN ('ok', 'partial') AND id IN {db.each}",
            (db.many(sorted(written)),))}
        return now - before

    def _touched(self, row: dict, old_facts: FileFacts | None = None) -> set[str]:
        """The keys a file's stored state answers to (pass its facts when already loaded)."""
        old_facts = old_facts or self.store.load_facts(row["path"])
        if old_facts is None:
            return set()
        return touched_keys(old_facts, self.store.symbols_of_file(row["id"]))

    def _finish_facts(self, facts: FileFacts, spec: LanguageSpec, path_set: set[str], go_mods: dict) -> None:
        facts.module = module_name(spec, facts.path, facts.package, path_set, go_mods)

    def _store_facts(self, c: Candidate, facts: FileFacts, status: str, detail: str, now: str) -> int:
        file_id = self.store.upsert_file(self._row(c, status, detail, facts.module, now))
        syms, extra = symbols_of(facts, c.spec, c.content_hash)
        self.store.replace_symbols(file_id, syms, extra)
        self._stored[c.path] = syms
        self.store.save_facts(file_id, facts)
        return file_id

    def _modules_changed(self, cands: list[Candidate], known: dict, path_set: set[str], go_mods: dict) -> list:
        """Unchanged files whose module name moved (an __init__.py or go.mod appeared or went)."""
        out = []
        for c in cands:
            row = known.get(c.path)
            if c.skip or row is None or row["parse_status"] not in ("ok", "partial"):
                continue
            if row["content_hash"] != c.content_hash or c.spec.module_scheme == "package":
                continue  # re-parsed anyway, or named by its declared package, which did not change
            if module_name(c.spec, c.path, "", path_set, go_mods) != row["module"]:
                out.append(c)
        return out

    def _refresh_module(
        self, c: Candidate, row: dict, path_set: set[str], go_mods: dict, now: str
    ) -> tuple[int, set[str]]:
        """Rename an unchanged file's symbols after its module name moved; returns touched keys."""
        facts = self.store.load_facts(c.path)
        assert facts is not None, "a parsed file always has stored facts"
        touched = self._touched(row, facts)
        self._finish_facts(facts, c.spec, path_set, go_mods)
        file_id = self._store_facts(c, facts, row["parse_status"], row["status_detail"], now)
        return file_id, touched | touched_keys(facts, self._stored[c.path])

    def _project_index(self, rewritten: set[str], generation: str) -> tuple[ProjectIndex, list[dict]]:
        """The project's symbols. A cold indexer reads those that are looked up, as they are (a
        one-file update of Django reads a few dozen of 45k; a resolve big enough for worker
        processes reads them all first). A warm one (watch mode, a server) keeps its index between
        runs and swaps in only the rewritten files, unless another process indexed in between."""
        rows = self.store.db.query(
            "SELECT id, path, module, language FROM files WHERE parse_status IN ('ok', 'partial') ORDER BY id"
        )
        index = self._index
        if index is None or index.generation != generation:
            index = ProjectIndex(load_facts=self.store.load_facts, lazy=self.store,
                                 load_analysis=self.store.load_analysis, load_digest=self.store.facts_digest,
                                 keeps_analyses=True)
            self._recorded, self._to_warm = {}, None
            index.add_modules((r["module"], r["path"]) for r in rows)
        else:
            for path in rewritten:
                index.remove_file(path)
            for r in rows:
                if r["path"] in rewritten:
                    index.add_module(r["module"], r["path"])
                    stored = self._stored.get(r["path"])
                    for sym in stored if stored is not None else self.store.symbols_of_file(r["id"]):
                        index.add(sym)
        index.seed_facts(self._parsed)
        index.seed_symbols(self._stored)
        self._parsed, self._stored = {}, {}
        self._index = index
        return index, rows

    def _resolve(
        self, file_ids: set[int], verifiable: set[int], touched: dict[int, set[str]], progress: Progress | None,
        phases: dict[str, float], rewritten: set[str], generation: str, defer: bool,
        item_edits: dict[str, ItemEdit], before_edit: dict[str, FileFacts], moved_from: list[FileFacts],
        seedless: bool, report: IndexReport,
    ) -> tuple[int, int, int]:
        """Resolve `file_ids` again, except those of `verifiable` whose stored answers still hold
        after the keys each read (`touched`) changed, or that `_spared` finds untouched. Returns
        (files resolved, files verified and kept, files spared); files a resolver gave up on go to the
        report's `unresolved`, those it resolved partly to its `resolved_partly`."""
        phases["write edges"] = 0.0
        index, rows = self._project_index(rewritten, generation)
        index.item_edits.update(item_edits)
        self._carry(index, moved_from)
        spared = self._spared(index, rows, verifiable, touched, before_edit, defer) if before_edit else set()
        verifiable_rows = [r for r in rows if r["id"] in verifiable and r["id"] not in spared]
        kept = self._still_valid(index, verifiable_rows, touched, defer) if verifiable_rows else set()
        file_ids = file_ids - kept - spared
        if not file_ids:
            return 0, len(kept), len(spared)
        todo = [(r["id"], r["path"], r["language"]) for r in rows if r["id"] in file_ids]
        if seedless and len(todo) >= workers.PARALLEL_THRESHOLD:
            raise HashSeedNeeded(f"{len(todo)} files to resolve")  # (in workers, whose order nobody sees)
        for file_id in file_ids:
            self._recorded.pop(file_id, None)
        # Re-resolving most of the project is a bulk load: every index is built once at the end, even
        # those whose rows arrive in key order (files in id order) or are few: kept up row by row,
        # `edges_file` and `edges_dst_name` cost Django's 277,604 edges 0.3 s of CPU, built 0.12 s.
        bulk = len(todo) >= BULK_THRESHOLD and len(todo) * 2 >= len(rows)
        deferred = self.store.db.deferred_indexes("edges", "resolution_deps")
        with deferred if bulk else contextlib.nullcontext():
            if bulk:
                self.store.delete_resolutions([file_id for file_id, _, _ in todo])
            write = self.store.resolution_writer(update=not bulk)
            forks = workers.resolves_in_workers(len(todo))
            scratch = str(make_state_dir(self.root)) if forks else None
            with self.store.db.small_cache() if forks else contextlib.nullcontext():
                for done, resolved in enumerate(workers.resolve_all(index, todo, scratch), 1):
                    mark = time.perf_counter()
                    write.add(resolved)
                    phases["write edges"] += time.perf_counter() - mark
                    if resolved.failed:
                        report.unresolved.append((resolved.path, resolved.failed))
                    elif resolved.cheap:
                        report.read_cheaply.append((resolved.path, resolved.cheap))
                    elif resolved.partial:
                        report.resolved_partly.append((resolved.path, resolved.partial))
                    if progress:
                        progress("resolve", done, len(todo))
            mark = time.perf_counter()
            write.flush()
            phases["write edges"] += time.perf_counter() - mark
        return len(todo), len(kept), len(spared)

    def _carry(self, index: ProjectIndex, moved_from: list[FileFacts]) -> None:
        """What resolvers kept of files whose code only moved, kept again for their new facts
        (`Resolver.code_moved`)."""
        for old in moved_from:
            spec = language_for(old.path)
            new = index.facts(old.path)
            if spec is not None and new is not None:
                resolver_for(spec.resolver).code_moved(old, new, ProjectView(index))

    def _spared(self, index: ProjectIndex, rows: list[dict], verifiable: set[int], touched: dict[int, set[str]],
                before_edit: dict[str, FileFacts], defer: bool) -> set[int]:
        """Dependants that need no check: an edited module whose readers of it whole (`mod:` key)
        read the same of it after the edit (`Resolver.outcome_unchanged`) touches none of those its
        resolver resolves. Such a key is taken out of their touched keys; those left with none are
        spared. (A body edit of Django's models/base.py: 51 files not checked.) When reading the
        module now reads more than it did, a reader is spared only whole, and only once its stored
        answers and reads take that in (`Resolver.spare`, recorded as a check is); the others keep the key."""
        resolver_of = {r["id"]: language_table()[r["language"]].resolver for r in rows if r["id"] in verifiable}
        # resolver -> the `mod:` keys its readers read the same of, and what reading them now reads besides
        unchanged: dict[str, tuple[set[str], Recording]] = {}
        for module, old in before_edit.items():
            key = module_key(module)
            spec = language_for(old.path)
            if spec is None or not any(key in touched[f] and resolver_of[f] == spec.resolver for f in verifiable):
                continue
            new = index.facts(old.path)
            same = resolver_for(spec.resolver).outcome_unchanged
            try:
                reads = same(old, new, ProjectView(index)) if new is not None else None
            except Exception:  # noqa: BLE001 — an analysis kept unreadable: checking the readers is always right
                reads = None
            if reads is not None:
                keys, more = unchanged.setdefault(spec.resolver, (set(), (set(), set())))
                keys.add(key)
                more[0].update(reads[0])
                more[1].update(reads[1])
        spared: set[int] = set()
        for resolver, (keys, more) in unchanged.items():
            readers = [f for f in verifiable if resolver_of[f] == resolver]
            if not (more[0] or more[1]):
                for f in readers:
                    touched[f] = touched[f] - keys
                spared.update(f for f in readers if not touched[f])
                continue
            whole = [f for f in readers if touched[f] <= keys]
            stored = self.store.answers(whole) if whole else {}
            items = [(f, stored[f], touched[f]) for f in whole if stored.get(f)]
            try:
                kept = resolver_for(resolver).spare(items, ProjectView(index), more) if items else {}
            except Exception:  # noqa: BLE001 — unreadable answers: checking them is always right
                kept = {}
            if kept and defer:
                self._pending.append((kept, index))
            elif kept:
                self._record(kept, index)
            spared.update(kept)
        return spared

    def _still_valid(self, index: ProjectIndex, rows: list[dict], touched: dict[int, set[str]],
                     defer: bool) -> set[int]:
        """The dependants whose resolution would come out the same: asked again, every question
        they asked of the project that read a touched key gets the same answer (early cutoff).
        Their edges stay."""
        stored = self.store.answers(r["id"] for r in rows)
        by_resolver: dict[str, list[tuple[int, bytes, set[str]]]] = {}
        for r in rows:
            if r["id"] in stored:
                by_resolver.setdefault(language_table()[r["language"]].resolver, []).append(
                    (r["id"], stored[r["id"]], touched.get(r["id"], set())))
        kept: set[int] = set()
        for name, items in by_resolver.items():
            view = ProjectView(index)
            try:
                still = resolver_for(name).verify(items, view)
            except Exception:  # noqa: BLE001 — unreadable answers: resolving again is always right
                continue
            if defer:
                self._pending.append((still, index))
            else:
                self._record(still, index)
            kept |= set(still)
        return kept

    def _not_yet_recorded(
        self, verified: dict[int, tuple[bytes | None, Recording]], index: ProjectIndex, stored: dict[int, bytes],
    ) -> tuple[dict[int, tuple[bytes | None, set, set]], dict[int, bytes]]:
        """Verified files' reads as the store keeps them (dependency keys, modules looked up in vain),
        without those this warm indexer knows the store holds for them: a file verified after every
        edit of a watched module reads the same each time, and writing that again was a third of such
        an update. Compared as read (key strings are made only for what is new). Forgotten when the
        file is resolved again (its reads are rewritten then) or the index is rebuilt. A file this
        indexer knows nothing of is compared by digest with what an earlier check recorded (`stored`,
        see `recorded_reads_digests`); the digests of reads now held in full come back to be stored."""
        out: dict[int, tuple[bytes | None, set, set]] = {}
        digests: dict[int, bytes] = {}
        nothing: _Recorded = (frozenset(), frozenset(), frozenset(), None)
        view = ProjectView(index)
        for file_id, (answers, read) in verified.items():
            keys, present, missing, last = self._recorded.get(file_id, nothing)
            if read is last:  # the very reads recorded last time
                out[file_id] = (answers, set(), set())
                continue
            digest = _reads_digest(read, view)
            if last is None and stored.get(file_id) == digest:  # recorded by an earlier process
                out[file_id] = (answers, set(), set())
                self._recorded[file_id] = (keys, present, missing, read)
                continue
            digests[file_id] = digest
            read_missing = view.missing_of(read)
            new_keys, new_missing = read[0] - keys, read_missing - missing
            new_present = read[1] - read_missing - present
            out[file_id] = (answers, view.keys_of((new_keys, new_present)), new_missing)
            self._recorded[file_id] = (keys | new_keys, present | new_present, missing | new_missing, read)
        return out, digests


_READS_DIGESTS: OrderedDict[tuple[Recording, int], bytes] = OrderedDict()


def _reads_digest(read: Recording, view: ProjectView) -> bytes:
    """A digest of reads as the store keeps them (`keys_of`, `missing_of`): made once per reads
    object (files checked alike share one, see `_joined_reads`) and set of modules."""
    key = (read, view.modules_version)
    hit = _READS_DIGESTS.get(key)
    if hit is None:
        text = "\n".join(sorted(view.keys_of(read))) + "\0" + "\n".join(sorted(view.missing_of(read)))
        hit = _READS_DIGESTS[key] = hashlib.blake2b(text.encode(), digest_size=16).digest()
        if len(_READS_DIGESTS) > 4096:
            _READS_DIGESTS.popitem(last=False)
    return hit


# What a warm indexer knows the store holds of a file's reads: keys other than modules', modules
# found, modules looked up in vain; and the last verified reads it recorded (see `_not_yet_recorded`).
_Recorded = tuple[AbstractSet[str], AbstractSet[str], AbstractSet[str], object]
