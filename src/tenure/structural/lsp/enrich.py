"""Enrichment: a real type checker verifies tree-sitter's call edges, file by file, off the query path.

For every inferred or ambiguous call site of a file (and every call site its facts list) the
server is asked `definition` at the callee's name; the answer is mapped to the index's enclosing
symbol. A target among tree-sitter's candidates is confirmed (`resolved`), the other candidates of
the site are refuted (kept with provenance, no longer dependants), a target tree-sitter did not
have is added as `resolved`, and a definition outside the project (stdlib, site-packages) refutes
the project candidates. Then `references` on each of the file's functions and classes adds the
calls tree-sitter missed (through attributes, callbacks), and `implementation` on its types the
subclasses and implementers. A candidate that overrides the target the server named (`self.add()` in a
base class, which the server types by the base's declaration) is left as it was: the call may dispatch
to it, and the answer says nothing against it. Silence (no definition, or one the index cannot place)
refutes nothing either. Everything lands in `source_edges` under source `lsp`, one origin
per file, written with the file's verified hash in one transaction.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from tenure.namespace.tiers import Relation, Tier
from tenure.storage import Database
from tenure.structural.discover import ignored
from tenure.structural.graph import supertypes
from tenure.structural.languages import language_table
from tenure.structural.lsp.bounds import Bounds
from tenure.structural.lsp.client import LspClient, LspError
from tenure.structural.lsp.servers import ServerSpec, bounds_for, plan
from tenure.structural.lsp.session import MAX_RESTARTS, GaveUp, ServerSession
from tenure.structural.lsp.state import REFS_PREFIX, SOURCE, LspState
from tenure.structural.store import SourceEdge, StructuralStore, Symbol
from tenure.words import counted

DEFAULT_TIMEOUT_S = 60.0  # per request: the first ones wait for the server's initial analysis
CALL_RELATIONS = (Relation.CALLS.value, Relation.INSTANTIATES.value)
UNVERIFIED = (Tier.INFERRED.value, Tier.AMBIGUOUS.value)
TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "record", "type", "protocol", "object"})
CODE_KINDS = frozenset({"function", "method", "constructor", "lambda", "module"})
LINE_CACHE_FILES = 500
Progress = Callable[[str, int, int], None]


@dataclass
class LanguageReport:
    server: str = ""
    pending: int = 0  # files that needed verification
    verified: int = 0  # files verified this run
    sites: int = 0  # call sites asked
    confirmed: int = 0
    refuted: int = 0
    added: int = 0
    undecided: int = 0  # the checker knew no target either (untyped receivers)
    dispatched: int = 0  # candidates overriding the target named: kept at their tier, unverified
    failed: str = ""  # why the server was given up, once
    too_large: int = 0  # files past [lsp] max_file_kb: not asked about
    restarts: int = 0
    server_pids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "server_pids"}


@dataclass
class EnrichReport:
    languages: dict[str, LanguageReport] = field(default_factory=dict)
    no_server: dict[str, str] = field(default_factory=dict)  # language -> how to install one
    # language -> why its server was not run (a tenure.toml's command, a server running the project's code)
    refused: dict[str, str] = field(default_factory=dict)
    dropped: int = 0  # files whose verdicts were dropped (changed or deleted since)
    seconds: float = 0.0
    stopped: str = ""  # why the run stopped before its end (a bound, a newer index)
    max_file_kb: float = 0

    def as_dict(self) -> dict:
        return {"languages": {k: v.as_dict() for k, v in self.languages.items()}, "no_server": self.no_server,
                "refused": self.refused, "dropped": self.dropped, "seconds": round(self.seconds, 2),
                "stopped": self.stopped, "text": self.text()}

    def text(self) -> str:
        parts = [f"stopped: {self.stopped}"] if self.stopped else []
        too_large = sum(r.too_large for r in self.languages.values())
        if too_large:
            parts.append(f"{counted(too_large, 'file')} over {self.max_file_kb:g} KB not asked about "
                         "([lsp] max_file_kb): tree-sitter tiers kept")
        for language, r in self.languages.items():
            if r.failed:
                kept = counted(r.pending - r.verified, "file")
                parts.append(f"{language}: {r.failed}; tree-sitter tiers kept for {kept}")
            elif r.pending:
                parts.append(f"{language} ({r.server}): {counted(r.verified, 'file')} verified, "
                             f"{counted(r.sites, 'call site')}: {r.confirmed} confirmed, {r.refuted} refuted, "
                             f"{r.added} added, {r.undecided} undecided, {counted(r.dispatched, 'override')} kept "
                             "unverified")
            else:
                parts.append(f"{language}: up to date")
        parts += [f"{language}: no language server ({how})" for language, how in self.no_server.items()]
        parts += self.refused.values()
        return "; ".join(parts) or "nothing to verify"


class SymbolIndex:
    """The index's symbols by file, to map a server's locations back to names."""

    def __init__(self, store: StructuralStore) -> None:
        self.by_path: dict[str, list[Symbol]] = {}
        self.by_fqn: dict[str, Symbol] = {}
        for sym in store.defined_symbols():
            self.by_path.setdefault(sym.path, []).append(sym)
            self.by_fqn.setdefault(sym.fqn, sym)

    def _containing(self, path: str, line: int) -> list[Symbol]:
        found = [s for s in self.by_path.get(path, ()) if s.start <= line <= s.end]
        return sorted(found, key=lambda s: (s.end - s.start, -s.start))  # innermost first

    def defined_at(self, path: str, line: int, name: str) -> Symbol | None:
        """The definition named `name` whose span holds `line` (where a server's definition points)."""
        return next((s for s in self._containing(path, line) if s.name == name and s.kind != "module"), None)

    def enclosing(self, path: str, line: int) -> Symbol | None:
        """The code a call on `line` belongs to: the innermost function or module whose body holds the
        line (a call on a definition's first line, `f(lambda: 1)`, belongs to the code around it), else
        the type."""
        around = [s for s in self._containing(path, line) if s.start < line or s.kind == "module"]
        return next((s for s in around if s.kind in CODE_KINDS), around[0] if around else None)


@dataclass
class Site:
    src: str
    line: int
    name: str
    candidates: list[tuple[str, str]] = field(default_factory=list)  # (dst, relation) tree-sitter proposed


class _Run:
    """One enrichment as `tenure status` shows it: the files it had to verify, those it has done
    (saved with each file's verdicts), how it ended."""

    def __init__(self, state: LspState, total: int) -> None:
        self.state, self.total, self.done = state, total, 0
        self.id = state.start_run(total)

    def save(self) -> None:
        self.state.run_progress(self.id, self.done)

    def finish(self, result: str) -> None:
        self.save()
        self.state.finish_run(self.id, result)


class Stopped(Exception):
    """The run must end before its work does: a bound, or the index that started it (see `stop`)."""


class Enricher:
    def __init__(self, root: Path, db: Database, timeout: float = DEFAULT_TIMEOUT_S,
                 max_restarts: int = MAX_RESTARTS, references: bool = True, bounds: Bounds | None = None,
                 stop: Callable[[], str | None] | None = None) -> None:
        """`stop`: asked about once a second or so; a reason it returns ends the run (a background
        run's index died or was superseded)."""
        self.root = root.resolve()
        self.db = db
        self.bounds = bounds or bounds_for(self.root)
        self._stop = stop
        self._deadline = float("inf")
        self._checked = 0.0
        self.store = StructuralStore(db)
        self.state = LspState(db)
        self.timeout = timeout
        self.max_restarts = max_restarts
        self.references = references
        self._lines: dict[str, list[str]] = {}
        self._sites_read: tuple[str, dict[tuple[int, str], set[str]]] = ("", {})
        self._wrapped: dict[str, set[tuple[int, str]]] = {}  # path -> (line, name) of decorated definitions
        self._open_now = ""  # the uri of the file being verified (open while its sites are asked)
        self.file_languages = {r["path"]: r["language"] for r in db.query("SELECT path, language FROM files")}
        self.symbols = SymbolIndex(self.store)
        self._ancestors: dict[str, set[str]] = {}  # class -> the types it derives from
        self.constructors = {lang: frozenset(spec.extra.get("constructor_names", ()))
                             for lang, spec in language_table().items()}

    # the run -----------------------------------------------------------------------------------
    def run(self, languages: set[str] | None = None, progress: Progress | None = None) -> EnrichReport:
        started = time.perf_counter()
        self._deadline = time.monotonic() + self.bounds.max_seconds
        report = EnrichReport(dropped=len(self.state.invalidate()), max_file_kb=self.bounds.max_file_kb)
        files = self.db.query("SELECT id, path, language, content_hash, size FROM files"
                              " WHERE parse_status IN ('ok', 'partial') AND language IS NOT NULL")
        present = {f["language"] for f in files} & (languages or {f["language"] for f in files})
        servers = plan(self.root, present)
        report.refused, report.no_server = servers.refused, servers.no_server
        groups: dict[str, tuple[ServerSpec, set[str]]] = {}
        for language, spec in servers.runnable.items():
            groups.setdefault(spec.name, (spec, set()))[1].add(language)
        verified = self.state.verified()
        work = []
        for spec, langs in groups.values():
            mine = [f for f in files if f["language"] in langs]
            sites_hash = self.state.sites_hashes({f["id"]: f["path"] for f in mine})
            dirty = [f for f in mine if verified.get(f["path"]) != (f["content_hash"], sites_hash[f["path"]])]
            reports = {lang: LanguageReport(server=spec.name) for lang in sorted(langs)}
            for f in [f for f in dirty if f["size"] > self.bounds.max_file_bytes]:  # generated code, most often
                reports[f["language"]].too_large += 1
                dirty.remove(f)
            for f in dirty:
                reports[f["language"]].pending += 1
            report.languages.update(reports)
            if dirty:
                work.append((spec, dirty, sites_hash, reports))
        if work:
            run = _Run(self.state, sum(len(dirty) for _, dirty, _, _ in work))
            try:
                for spec, dirty, sites_hash, reports in work:
                    self._verify_all(spec, dirty, sites_hash, reports, progress, run)
            except Stopped as exc:
                report.stopped = f"{exc} after {run.done} of {counted(run.total, 'file')}"
            finally:  # (also when stopped: the run then says where)
                report.seconds = time.perf_counter() - started
                run.finish(report.text() if run.done == run.total or report.stopped else
                           f"stopped after {run.done} of {counted(run.total, 'file')}")
        report.seconds = time.perf_counter() - started
        failed = {lang: r.failed for lang, r in report.languages.items() if r.failed}
        self.state.record_failures(failed)  # `tenure index` says it once after a background run
        return report

    def _verify_all(self, spec: ServerSpec, dirty: list[dict], sites_hash: dict[str, str],
                    reports: dict[str, LanguageReport], progress: Progress | None, run: _Run) -> None:
        session = ServerSession(spec, self.root, self.timeout, self.max_restarts, max_rss=self.bounds.max_rss)
        phase = f"lsp {'/'.join(sorted(reports))}"
        try:
            for done, f in enumerate(dirty):
                self.check(force=True)
                if progress:
                    progress(phase, done, len(dirty))
                r = reports[f["language"]]
                try:
                    text = self._current_text(f)
                    if text is None:
                        run.done += 1
                        continue  # changed on disk since it was indexed: the next index reschedules it
                    site_edges, ref_edges = session.run(lambda c, f=f, text=text, r=r: self._verify_file(
                        c, spec, f["path"], f["id"], f["language"], text, r))
                except GaveUp as exc:
                    for lang_report in reports.values():
                        lang_report.failed = str(exc)
                    run.done += len(dirty) - done  # done with: the failure is the run's result
                    return
                run.done += 1
                server = session.server_info or spec.name
                with self.db.transaction():
                    self.store.replace_source_edges(SOURCE, f["path"], site_edges)
                    self.store.replace_source_edges(SOURCE, REFS_PREFIX + f["path"], ref_edges)
                    self._sites_read = ("", {})  # the edges it was read from changed
                    self.state.mark(f["path"], f["content_hash"], sites_hash[f["path"]], server)
                    run.save()
                r.verified += 1
                r.server = server
            if progress:
                progress(phase, len(dirty), len(dirty))
        finally:
            session.close()
            for lang_report in reports.values():
                lang_report.restarts = session.restarts
                lang_report.server_pids = list(session.pids)

    def check(self, force: bool = False) -> None:
        """Raise Stopped past the run's time bound, or when `stop` gives a reason (asked at most once a
        second, unless `force`)."""
        now = time.monotonic()
        if now > self._deadline:
            raise Stopped(f"the time bound of {self.bounds.max_minutes:g} min ([lsp] max_minutes) was reached")
        if self._stop is not None and (force or now - self._checked >= 1.0):
            self._checked = now
            if reason := self._stop():
                raise Stopped(reason)

    def _current_text(self, f: dict) -> str | None:
        try:
            data = (self.root / f["path"]).read_bytes()
        except OSError:
            return None
        if hashlib.blake2b(data, digest_size=16).hexdigest() != f["content_hash"]:
            return None
        return data.decode("utf-8", errors="replace")

    # one file ----------------------------------------------------------------------------------
    def _verify_file(self, client: LspClient, spec: ServerSpec, path: str, file_id: int, language: str, text: str,
                     r: LanguageReport) -> tuple[list[SourceEdge], list[SourceEdge]]:
        if len(self._lines) > LINE_CACHE_FILES:
            self._lines.clear()  # a big project's text is not kept whole in memory
        self._lines[path] = text.splitlines()
        detail = client.server_info
        uri = (client.open_document(self.root / path, spec.language_id(language), text) if spec.open_files
               else (self.root / path).as_uri())
        self._open_now = uri
        counts = {"sites": 0, "confirmed": 0, "refuted": 0, "added": 0, "undecided": 0, "dispatched": 0}
        try:
            site_edges: list[SourceEdge] = []
            for site in self._sites(path, file_id):
                self.check()
                site_edges += self._check_site(client, spec, uri, path, language, site, detail, counts)
            ref_edges: list[SourceEdge] = []
            if self.references:
                for sym in self.symbols.by_path.get(path, ()):
                    self.check()
                    ref_edges += self._references_to(client, spec, uri, sym, detail)
            known = {(e.src, e.dst, e.relation, e.line) for e in site_edges}
            counts["added"] += sum(1 for e in ref_edges if (e.src, e.dst, e.relation, e.line) not in known
                                   and not self._tree_sitter_has(e))
        finally:
            if spec.open_files:
                with contextlib.suppress(LspError):
                    client.close_document(uri)
        for key, n in counts.items():  # counted once the file is done: a retried file is not counted twice
            setattr(r, key, getattr(r, key) + n)
        return site_edges, ref_edges

    def _tree_sitter_has(self, e: SourceEdge) -> bool:
        return bool(self.db.query(
            "SELECT 1 FROM edges WHERE dst_fqn = ? AND relation = ? AND src_fqn = ? AND (line = ? OR ? = 0) LIMIT 1",
            (e.dst, e.relation, e.src, e.line, e.line)))

    def _sites(self, path: str, file_id: int) -> list[Site]:
        sites: dict[tuple[str, int, str], Site] = {}
        for e in self.db.query(
            "SELECT src_fqn, dst_fqn, dst_name, relation, line FROM edges WHERE file_id = ? AND relation IN (?, ?)"
            " AND (tier IN (?, ?) OR (dst_fqn IS NULL AND tier != ?)) AND dst_name != ''",
            (file_id, *CALL_RELATIONS, *UNVERIFIED, Tier.DYNAMIC.value),
        ):
            key = (e["src_fqn"], e["line"], e["dst_name"])
            site = sites.setdefault(key, Site(*key))
            if e["dst_fqn"] is not None:
                site.candidates.append((e["dst_fqn"], e["relation"]))
        facts = self.store.load_facts(path)
        seen = {(s.line, s.name) for s in sites.values()}
        for ref in facts.references if facts else ():
            if ref.kind in ("call", "new") and ref.name and (ref.line, ref.name) not in seen:
                enclosing = self.symbols.enclosing(path, ref.line)
                if enclosing is not None:
                    sites[(enclosing.fqn, ref.line, ref.name)] = Site(enclosing.fqn, ref.line, ref.name)
                    seen.add((ref.line, ref.name))
        return list(sites.values())

    def _check_site(self, client: LspClient, spec: ServerSpec, uri: str, path: str, language: str, site: Site,
                    detail: str, counts: dict[str, int]) -> list[SourceEdge]:
        counts["sites"] += 1
        targets: dict[str, str] = {}  # dst -> relation
        external = False
        constructors = self.constructors.get(language, frozenset())
        for column in _name_columns(self._lines[path][site.line - 1] if site.line <= len(self._lines[path]) else "",
                                    site.name):
            for loc in client.definition(uri, site.line - 1, column):
                kind, dst = self._classify(spec, loc, site.name)
                if not self._defines_name(loc, dst, site, constructors):
                    continue  # the server's answer is about another name: silence about this one
                if kind == "project":
                    sym = self.symbols.by_fqn[dst]
                    targets[dst] = Relation.INSTANTIATES.value if sym.kind in TYPE_KINDS else Relation.CALLS.value
                elif kind == "external":
                    external = True
                    if dst:
                        targets[dst] = Relation.CALLS.value
        if not targets and not external:
            counts["undecided"] += 1
            return []

        def edge(dst: str, relation: str, verdict: str) -> SourceEdge:
            return SourceEdge(src=site.src, dst=dst, relation=relation, tier=Tier.RESOLVED.value, verdict=verdict,
                              path=path, line=site.line, name=site.name, detail=detail)

        out: list[SourceEdge] = []
        for dst, relation in site.candidates:
            target = self.symbols.by_fqn.get(dst)
            constructs = target is not None and target.name in constructors and target.parent in targets
            if dst in targets or constructs:
                out.append(edge(dst, relation, "confirms"))
                counts["confirmed"] += 1
            elif self._overrides_one_of(target, targets):
                counts["dispatched"] += 1  # the call may run it: neither confirmed nor ruled out
            elif self._named_at_site(dst, target, site.name, constructors) and (
                    target is not None or any(t in self.symbols.by_fqn for t in targets)):
                # the name match the checker ruled out: a project candidate, or an outside name where
                # the checker found project code
                out.append(edge(dst, relation, "refutes"))
                counts["refuted"] += 1
        proposed = {c for c, _ in site.candidates}
        for dst, relation in targets.items():
            # a decorated definition is not what a call reaches (the decorator's result is): tree-sitter's
            # flow analysis knows which; the checker's declaration does not
            if dst not in proposed and not self._decorated(spec, dst):
                out.append(edge(dst, relation, "confirms"))
                counts["added"] += 1
        return out

    def _overrides_one_of(self, candidate: Symbol | None, targets: dict[str, str]) -> bool:
        """Whether `candidate` is a method of the same name in a subclass of a target's class: a
        server types `self.add()` in a base class by the base's declaration, and the call dispatches
        to the override on a subclass's instance."""
        if candidate is None:
            return False
        if candidate.parent not in self._ancestors:
            self._ancestors[candidate.parent] = set(supertypes(self.db, candidate.parent))
        above = self._ancestors[candidate.parent]
        return any((t := self.symbols.by_fqn.get(dst)) is not None and t.name == candidate.name and t.parent in above
                   for dst in targets)

    def _decorated(self, spec: ServerSpec, fqn: str) -> bool:
        """Whether a definition is wrapped by a decorator that replaces it (not @property, @staticmethod …)."""
        sym = self.symbols.by_fqn.get(fqn)
        if sym is None:
            return False
        if sym.path not in self._wrapped:
            facts = self.store.load_facts(sym.path)
            self._wrapped[sym.path] = {
                (d.start_line, d.name) for d in (facts.definitions if facts else ())
                if any(_decorator_name(x) not in spec.transparent_decorators for x in d.decorators)
            }
        return (sym.start, sym.name) in self._wrapped[sym.path]

    def _defines_name(self, loc: lsp.Location, dst: str | None, site: Site, constructors: frozenset[str]) -> bool:
        """Whether a definition the server gave is of the name at the site: one named so (or a
        constructor), or a candidate tree-sitter linked (an alias, `from m import f as g`). basedpyright
        answers a member it cannot type (`server.url.copy_with`, `server` a pytest fixture) with the call
        around it (builtins' `str`, `Client.request`): read as a definition, it ruled the real candidate out."""
        if dst is not None and any(c == dst for c, _ in site.candidates):
            return True
        if (target := self.symbols.by_fqn.get(dst or "")) is not None:  # (the constructor of the class named)
            return self._named_at_site(dst, target, site.name, constructors)
        file = _uri_path(loc.uri)
        # (a project file by its relative path, as `_classify` read it: read and kept once)
        defined = self._text_at(_relative(file, self.root) or str(file), loc.range) if file is not None else ""
        return not defined.isidentifier() or defined == site.name

    @staticmethod
    def _named_at_site(dst: str, target: Symbol | None, name: str, constructors: frozenset[str]) -> bool:
        """Whether a candidate is the name written at the site (`run` for `x.run()`, `Foo` or its
        constructor for `Foo()`). Other candidates of the site are edges tree-sitter derived (a function
        passed to `map`, returned by the callee, an inherited `__init__`): `definition` on the name says
        nothing about them."""
        if target is None:
            return dst.rsplit(".", 1)[-1] == name
        if target.name in constructors:
            return target.parent.rsplit(".", 1)[-1].rsplit("$", 1)[-1] == name
        return target.name == name

    def _classify(self, spec: ServerSpec, loc: lsp.Location, name: str) -> tuple[str, str | None]:
        """("project", fqn) | ("external", builtin name or None) | ("unknown", None)."""
        file = _uri_path(loc.uri)
        rel = _relative(file, self.root) if file else None
        if rel is None or rel not in self.symbols.by_path or ignored(rel):
            builtin = spec.external_names.get(file.name) if file else None
            if builtin and self._top_level(file, loc.range.start.line):  # a builtin function, not a method
                return "external", f"{builtin}.{name}"
            return "external", None
        defined = self._text_at(rel, loc.range) or name
        sym = self.symbols.defined_at(rel, loc.range.start.line + 1, defined)
        return ("project", sym.fqn) if sym else ("unknown", None)

    def _references_to(self, client: LspClient, spec: ServerSpec, uri: str, sym: Symbol,
                       detail: str) -> list[SourceEdge]:
        if sym.kind == "module":
            return []
        position = self._name_position(sym)
        if position is None:
            return []
        out = []
        # calls of a name a decorator rebinds reach the decorator's result, not this definition
        if client.supports("references_provider") and not self._decorated(spec, sym.fqn):
            relation = Relation.INSTANTIATES.value if sym.kind in TYPE_KINDS else Relation.CALLS.value
            for loc in client.references(uri, *position):
                self.check()  # one name can have hundreds of thousands of references (generated code)
                edge = self._call_edge(loc, sym, relation, detail)
                if edge is not None and (spec.exact_references or self._resolves_to(client, spec, loc, sym)):
                    out.append(edge)
        if sym.kind in TYPE_KINDS and client.supports("implementation_provider"):
            for loc in client.implementation(uri, *position):
                edge = self._implementation_edge(loc, sym, detail)
                if edge is not None:
                    out.append(edge)
        return out

    def _call_edge(self, loc: lsp.Location, sym: Symbol, relation: str, detail: str) -> SourceEdge | None:
        file = _uri_path(loc.uri)
        rel = _relative(file, self.root) if file else None
        if rel is None or rel not in self.symbols.by_path:
            return None
        line = loc.range.start.line + 1
        text = self._file_lines(rel)
        if line > len(text) or not _is_call(text[line - 1], _char_index(text[line - 1], loc.range.end.character)):
            return None
        if any(s.name == sym.name and s.start == line for s in self.symbols.by_path[rel]):
            return None  # a declaration (tsserver lists the overriding methods of a family)
        caller = self._caller_at(rel, line, sym.name)
        if caller is None or caller == sym.fqn:
            return None
        return SourceEdge(src=caller, dst=sym.fqn, relation=relation, tier=Tier.RESOLVED.value, path=rel,
                          line=line, name=sym.name, detail=detail)

    def _caller_at(self, rel: str, line: int, name: str) -> str | None:
        """Who makes the call of `name` on this line: as tree-sitter attributed the site (it knows the
        columns: `f(lambda: 1)` on one line), else the enclosing definition."""
        srcs = self._sites_of(rel).get((line, name), ())
        if len(srcs) == 1:
            return next(iter(srcs))
        enclosing = self.symbols.enclosing(rel, line)
        return enclosing.fqn if enclosing else None

    def _sites_of(self, rel: str) -> dict[tuple[int, str], set[str]]:
        """Who tree-sitter says calls each name on each line of `rel`: read once for the references into
        one file (they come grouped by file), not once per reference."""
        if self._sites_read[0] != rel:
            sites: dict[tuple[int, str], set[str]] = {}
            for r in self.db.query("SELECT line, dst_name, src_fqn FROM edges"
                                   " WHERE file_id = (SELECT id FROM files WHERE path = ?)", (rel,)):
                sites.setdefault((r["line"], r["dst_name"]), set()).add(r["src_fqn"])
            self._sites_read = (rel, sites)
        return self._sites_read[1]

    def _resolves_to(self, client: LspClient, spec: ServerSpec, loc: lsp.Location, sym: Symbol) -> bool:
        """Whether the call at a reference really resolves to `sym` (not to a relative in its family)."""
        opened = spec.open_files and loc.uri != self._open_now
        if opened:
            rel = _relative(_uri_path(loc.uri) or Path(), self.root) or ""
            try:
                text = (self.root / rel).read_text("utf-8", errors="replace")
            except OSError:
                return False
            client.open_document(self.root / rel, spec.language_id(self.file_languages.get(rel, "")), text)
        try:
            targets = client.definition(loc.uri, loc.range.start.line, loc.range.start.character)
        finally:
            if opened:
                with contextlib.suppress(LspError):
                    client.close_document(loc.uri)
        return any(self._classify(spec, t, sym.name) == ("project", sym.fqn) for t in targets)

    def _implementation_edge(self, loc: lsp.Location, sym: Symbol, detail: str) -> SourceEdge | None:
        file = _uri_path(loc.uri)
        rel = _relative(file, self.root) if file else None
        if rel is None or rel not in self.symbols.by_path:
            return None
        impl = self.symbols.defined_at(rel, loc.range.start.line + 1, self._text_at(rel, loc.range))
        if impl is None or impl.fqn == sym.fqn or impl.kind not in TYPE_KINDS:
            return None
        known = self.db.query("SELECT relation FROM edges WHERE src_fqn = ? AND dst_fqn = ? AND relation IN (?, ?)",
                              (impl.fqn, sym.fqn, Relation.INHERITS.value, Relation.IMPLEMENTS.value))
        relation = known[0]["relation"] if known else (
            Relation.IMPLEMENTS.value if sym.kind == "interface" else Relation.INHERITS.value)
        return SourceEdge(src=impl.fqn, dst=sym.fqn, relation=relation, tier=Tier.RESOLVED.value, path=rel, line=0,
                          name=sym.name, detail=detail)

    # text positions ----------------------------------------------------------------------------
    def _top_level(self, file: Path, line: int) -> bool:
        key = str(file)
        if key not in self._lines:
            try:
                self._lines[key] = file.read_text("utf-8", errors="replace").splitlines()
            except OSError:
                self._lines[key] = []
        lines = self._lines[key]
        return line < len(lines) and not lines[line][:1].isspace()

    def _file_lines(self, rel: str) -> list[str]:
        if rel not in self._lines:
            try:
                self._lines[rel] = (self.root / rel).read_text("utf-8", errors="replace").splitlines()
            except OSError:
                self._lines[rel] = []
        return self._lines[rel]

    def _text_at(self, rel: str, rng: lsp.Range) -> str:
        lines = self._file_lines(rel)
        if rng.start.line != rng.end.line or rng.start.line >= len(lines):
            return ""
        line = lines[rng.start.line]
        return line[_char_index(line, rng.start.character):_char_index(line, rng.end.character)]

    def _name_position(self, sym: Symbol) -> tuple[int, int] | None:
        """(0-based line, UTF-16 column) of a definition's name: its first line that declares it."""
        lines = self._file_lines(sym.path)
        for number in range(sym.start, min(sym.end, len(lines)) + 1):
            columns = _name_columns(lines[number - 1], sym.name, calls_only=False)
            if columns:
                return number - 1, columns[0]
        return None


def _name_columns(line: str, name: str, calls_only: bool = True) -> list[int]:
    """UTF-16 columns of `name` as a whole identifier on the line; the occurrences followed by a call's
    `(` when there are any (`a.run(b.run)` asks only about the called one)."""
    found, calls = [], []
    start = line.find(name)
    while start >= 0:
        end = start + len(name)
        before = line[start - 1] if start else " "
        after = line[end] if end < len(line) else " "
        if not (before.isalnum() or before in "_$") and not (after.isalnum() or after in "_$"):
            column = len(line[:start].encode("utf-16-le")) // 2
            found.append(column)
            if _is_call(line, end):
                calls.append(column)
        start = line.find(name, end)
    return (calls or found) if calls_only else found


def _decorator_name(text: str) -> str:
    """`functools.wraps(f)` -> `wraps`, `@abc.abstractmethod` -> `abstractmethod`."""
    return text.lstrip("@").split("(", 1)[0].strip().rsplit(".", 1)[-1]


def _is_call(line: str, end: int) -> bool:
    rest = line[end:].lstrip()
    return rest.startswith(("(", "<"))


def _char_index(line: str, utf16_column: int) -> int:
    """A Python string index from an LSP (UTF-16) column."""
    if line.isascii():
        return utf16_column
    units = 0
    for index, char in enumerate(line):
        if units >= utf16_column:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def _uri_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def _relative(file: Path, root: Path) -> str | None:
    try:
        return file.relative_to(root).as_posix()
    except ValueError:
        return None


