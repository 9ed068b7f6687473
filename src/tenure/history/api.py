"""`GitHistory`: the repository's git history, read once, incrementally, shared by the knowledge
store (commits as rationale) and the episodic store (commits as attempts, reverts as failures).
See /work/brief/history-api.md for the contract."""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from tenure.collector import cyclic_gc_paused
from tenure.history import gitlog, store
from tenure.history.gitlog import NULL_BLOB, GitError, Hunk, RawChange, RawCommit
from tenure.history.model import CLOCK_SKEW_DAYS, HOW, UNKNOWN_DATE, Commit, FileChange, TouchedSymbol, is_sweep
from tenure.history.survival import MIN_MOVED, squeezed
from tenure.history.thin import thin_reason
from tenure.namespace.symbols import IndexedFile, Symbol, indexed_files, symbols_in
from tenure.storage import Database, get_value, insert_rows, set_value
from tenure.structural.discover import content_hash
from tenure.structural.naming import member_ranges
from tenure.words import counted

if TYPE_CHECKING:  # numpy comes with the mapping: an index with nothing to map never loads it
    from tenure.history import mapping

Progress = Callable[[int, int], None]  # (commits read, commits to read)
BATCH = 500  # commits per transaction
HEAD_TTL_S = 2.0
_MAP_CHUNK = 256  # files whose stored symbols are read at once by a remap
_READ_CHUNK = 32  # files whose stored changes (hunks and all) are read at once by a remap
NOT_TOUCHED = frozenset({"lambda"})
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)$")  # GitHub appends the pull request to a squashed subject: (#1865)
_REVERT_SUBJECT = re.compile(r'^Revert "(.+)"(?:\s*\(#\d+\))?$')
RESTORE_WITHIN_DAYS = 90  # an undo by content: later than this is a clean-up, not a failed attempt taken back
_REVERTS_SHA = re.compile(r"\bThis reverts commit ([0-9a-f]{7,40})\b")
_HUNKS = msgspec.msgpack.Encoder()
_READ_HUNKS = msgspec.msgpack.Decoder(list[Hunk])
_COLUMNS = ("id, sha, parents, author_name, author_email, authored_at, committed_at, subject, body, is_merge,"
            " thin_reason, reverts, reverts_how")  # what _assemble reads, in its order
_BLAME = msgspec.msgpack.Encoder()
Starts = dict[str, dict[str, int]]  # path -> old blob -> the first commit (id) that changed the file from it
_READ_BLAME = msgspec.msgpack.Decoder(list[int])


class GitHistory:
    def __init__(self, db: Database, root: Path) -> None:
        self.db = db
        self.root = Path(root)
        store.migrations.apply(db)
        self._available: tuple[bool, str | None] | None = None
        self._inside = False
        self._shallow = False
        self._head: tuple[float, str] | None = None
        self._impossible: tuple[tuple, dict[str, tuple[str, str]]] | None = None  # `impossible_dates`

    # state ---------------------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """False: no git, not a work tree, or no commits yet (`reason` says which)."""
        return self._probe()[0]

    @property
    def reason(self) -> str | None:
        return self._probe()[1]

    def _probe(self, again: bool = False) -> tuple[bool, str | None]:
        """One git question: a work tree? a project in a directory of it? shallow? HEAD?"""
        if self._available is None or again:
            try:
                answer = gitlog.git(self.root, "rev-parse", "--is-inside-work-tree", "--show-prefix",
                                    "--is-shallow-repository", "--verify", "-q", "HEAD", check=False).split("\n")
            except GitError as exc:  # no git on PATH
                self._available = (False, f"git is not usable here: {exc}")
                return self._available
            inside, prefix, shallow, head = (answer + ["", "", "", ""])[:4]
            if inside.strip() != "true":
                self._available = (False, f"{self.root} is not inside a git work tree")
            elif not head.strip():
                self._available = (False, "the repository has no commits yet")
            else:
                self._available = (True, None)
                # a project in a directory of a larger repository reads only the commits that change it
                self._inside = bool(prefix.strip())
                self._shallow = shallow.strip() == "true"
                self._head = (time.monotonic(), head.strip())
        return self._available

    def head(self, fresh: bool = True) -> str | None:
        """The commit checked out now (None without history); `fresh=False` accepts one asked of git
        in the last HEAD_TTL_S (a burst of questions shares one git process)."""
        if not self.available:
            return None
        now = time.monotonic()
        if fresh or self._head is None or now - self._head[0] > HEAD_TTL_S:
            self._head = (now, gitlog.git(self.root, "rev-parse", "HEAD").strip())
        return self._head[1]

    def status(self) -> dict:
        """How far the history is read, without reading git's log: for answers to say so."""
        total = self._count()
        if not self.available:
            return {"available": False, "reason": self.reason, "commits": total}
        head = self.head(fresh=False)
        read = bool(self.db.query("SELECT 1 FROM history_commits WHERE sha = ?", (head,)))
        return {"available": True, "commits": total, "head": head, "head_read": read,
                "text": f"{counted(total, 'commit')} read" + ("" if read else "; the latest commits are not read yet "
                                                                  "(`tenure index` reads them)")}

    # reading git --------------------------------------------------------------------------------
    def update(self, progress: Progress | None = None) -> dict:
        """Read the commits not seen yet (reachable from HEAD), one transaction per batch, then map
        the changed files' history onto the index's symbols where the index changed."""
        with cyclic_gc_paused():
            return self._update(progress)

    def _update(self, progress: Progress | None) -> dict:
        started = time.perf_counter()
        if not self._probe(again=True)[0]:
            return {"commits_new": 0, "commits_total": self._count(), "thin": 0, "reverts": 0,
                    "seconds": 0.0, "reason": self.reason}
        head = self.head(fresh=False)  # (as the probe just saw it: what is read is what is recorded)
        assert head is not None
        tips = [r["sha"] for r in self.db.query("SELECT sha FROM history_tips ORDER BY sha")]
        # a store with nothing in it: every commit it will hold is one read now, from HEAD
        first = not tips and not self.db.rows("SELECT 1 FROM history_commits LIMIT 1")
        again = self._read_hunks_again(tips) if get_value(self.db, "history_meta", "hunks") == "stale" else 0
        # (a tip git no longer has, a rebased branch's, is left out: every commit it reached is stored)
        revisions = ["--ignore-missing", head, "--not", *tips]
        todo = 0 if tips == [head] else int(gitlog.git(self.root, "rev-list", "--count", *revisions, "--",
                                                       *(["."] if self._inside else [])).strip() or 0)
        new = 0
        batch: list[RawCommit] = []
        changed: set[str] = set()  # the paths the new commits changed: mapped now, even where the index is behind
        starts: Starts = {}
        for raw in gitlog.log(self.root, revisions, self._inside) if todo else ():
            batch.append(raw)
            changed |= {c.path for c in raw.changes}
            if len(batch) >= BATCH:
                new += self._store(batch, starts)
                batch = []
                if progress:
                    progress(new, todo)
        if batch:
            new += self._store(batch, starts)
        with self.db.transaction():
            before = get_value(self.db, "history_meta", "head")
            forward = self._forward(before, head)
            self.db.execute("DELETE FROM history_tips")
            self.db.executemany("INSERT INTO history_tips (sha) VALUES (?) ON CONFLICT DO NOTHING",
                                [(s,) for s in ([head] if first else self._tips(head, tips, before, forward))])
            set_value(self.db, "history_meta", "shallow", "1" if self._shallow else "0")
            if first:  # (HEAD reaches all of them)
                set_value(self.db, "history_meta", "head", head)
            else:
                self._mark_reachable(head, forward)
        mapped = self.remap(also=changed)
        if progress:
            progress(todo, todo)
        report = {"commits_new": new, "commits_total": self._count(),
                  "thin": self.db.rows("SELECT COUNT(*) FROM history_commits WHERE thin_reason IS NOT NULL")[0][0],
                  "reverts": self.db.rows("SELECT COUNT(*) FROM history_commits WHERE reverts IS NOT NULL")[0][0],
                  "files_mapped": mapped, "seconds": round(time.perf_counter() - started, 3)}
        if again:
            report["read_again"] = again  # (their hunks now say which lines were only reformatted or moved)
        if get_value(self.db, "history_meta", "shallow") == "1":
            report["shallow"] = "a shallow clone: history before its cut-off is not there to read"
        return report

    def _read_hunks_again(self, tips: list[str]) -> int:
        """The hunks of the commits already read, from git again (a store written before hunks said
        which lines a change only reformatted or moved); every file is then mapped again. Returns how
        many commits were read."""
        revisions = ["--ignore-missing", *tips]
        batch: list[RawCommit] = []
        read = 0
        for raw in gitlog.log(self.root, revisions, self._inside) if tips else ():
            read += 1
            batch.append(raw)
            if len(batch) >= BATCH:
                self._store_hunks(batch)
                batch = []
        self._store_hunks(batch)
        with self.db.transaction():
            self.db.execute("DELETE FROM history_mapped")
            set_value(self.db, "history_meta", "hunks", "survival")
        return read

    def _store_hunks(self, batch: list[RawCommit]) -> None:
        with self.db.transaction():
            for raw in batch:
                self.db.executemany(
                    "UPDATE history_changes SET hunks = ? WHERE commit_id = (SELECT id FROM history_commits"
                    " WHERE sha = ?) AND path = ? AND old_blob = ? AND new_blob = ?",
                    [(_HUNKS.encode(c.hunks), raw.sha, c.path, c.old_blob, c.new_blob) for c in raw.changes
                     if c.hunks is not None])

    def _count(self) -> int:
        return self.db.rows("SELECT COUNT(*) FROM history_commits WHERE off_head = 0")[0][0]

    def _forward(self, before: str | None, head: str) -> bool:
        """Whether HEAD is where the last read left it, or only moved forward from there."""
        return before is not None and (before == head or gitlog.git_ok(self.root, "merge-base", "--is-ancestor",
                                                                       before, head))

    def _tips(self, head: str, tips: list[str], before: str | None, forward: bool) -> list[str]:
        """The commits every stored commit is reachable from: HEAD alone after it moved forward from
        the one tip there was, the HEAD of the last read (most reads), else as git finds them among
        HEAD and the tips it still has."""
        if forward and tips in ([], [before]):
            return [head]
        return gitlog.git(self.root, "merge-base", "--independent", head,
                          *[t for t in tips if self._exists(t)]).split()

    def _mark_reachable(self, head: str, forward: bool) -> None:
        """Which stored commits HEAD reaches. A HEAD that only moved forward reaches all it reached
        before and every commit just read: nothing to do. Otherwise (a reset, a rebase, another branch
        checked out, commits off HEAD that a merge may have brought back, or a store that never
        recorded its HEAD) ask git once."""
        before = get_value(self.db, "history_meta", "head")
        if before == head:
            return
        off = self.db.rows("SELECT 1 FROM history_commits WHERE off_head = 1 LIMIT 1")
        if off or not forward:
            reached = gitlog.git(self.root, "rev-list", head, "--", *(["."] if self._inside else [])).split()
            self.db.execute("UPDATE history_commits SET off_head = 1")
            self.db.execute(f"UPDATE history_commits SET off_head = 0 WHERE sha IN {self.db.each}",
                            (self.db.many(reached),))
        set_value(self.db, "history_meta", "head", head)

    def _exists(self, sha: str) -> bool:
        """(A tip can vanish: a rebased branch whose old commits git collected.)"""
        return gitlog.git_ok(self.root, "cat-file", "-e", f"{sha}^{{commit}}")

    def _store(self, batch: list[RawCommit], starts: Starts) -> int:
        """Write a batch of commits (oldest first) and what they changed; find the reverts among them
        (each sees only the commits stored before it, as if they were written one at a time); `starts`:
        what `_undone_before` found in the batches stored before it."""
        with self.db.transaction():
            # (read before by a run that stopped before it recorded its tips: left as they are)
            known = {r[0] for r in self.db.rows(f"SELECT sha FROM history_commits WHERE sha IN {self.db.each}",
                                                (self.db.many([raw.sha for raw in batch]),))}
            new = [raw for raw in batch if raw.sha not in known]
            messages = [(subject.strip(), body) for subject, _, body in (raw.message.partition("\n") for raw in new)]
            # (no None, bool or bytes among the values where it can be helped: Python's sqlite3 looks for an
            # adapter of each, two failing attribute look-ups a value, a tenth of the store's instructions)
            self.db.executemany(
                """INSERT INTO history_commits (sha, parents, author_name, author_email, authored_at, committed_at,
                   subject, subject_key, body, is_merge, thin_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                   NULLIF(?, ''))""",
                [(raw.sha, " ".join(raw.parents), raw.author_name, raw.author_email, raw.authored_at,
                  raw.committed_at, subject, subject_key(subject), body.strip(), int(merge := len(raw.parents) > 1),
                  thin_reason(raw.message, merge) or "") for raw, (subject, body) in zip(new, messages, strict=True)])
            ids = dict(self.db.rows(f"SELECT sha, id FROM history_commits WHERE sha IN {self.db.each}",
                                    (self.db.many([raw.sha for raw in new]),)))
            self.db.executemany(
                """INSERT INTO history_changes (commit_id, path, old_path, status, added, deleted, old_blob,
                   new_blob, hunks) VALUES (?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, NULLIF(?, CAST('' AS BLOB)))""",
                [(ids[raw.sha], c.path, c.old_path or "", c.status, c.added, c.deleted, c.old_blob, c.new_blob,
                  _encoded(c.hunks)) for raw in new for c in raw.changes])
            undone = self._undone_before(new, ids, starts)
            reverts = []
            for raw, (subject, body) in zip(new, messages, strict=True):
                commit_id = ids[raw.sha]
                reverted = self._reverted_by_message(raw, commit_id, subject, body) or \
                    (self._restored_by_content(raw, commit_id) if raw.sha in undone else None)
                if reverted:
                    reverts.append((*reverted, commit_id))
            self.db.executemany("UPDATE history_commits SET reverts = ?, reverts_how = ? WHERE id = ?", reverts)
            set_value(self.db, "history_meta", "commits", str(self._stored() + len(new)))
        return len(new)

    def _stored(self) -> int:
        """How many commits the store holds (store.m007_commits_counted)."""
        return int(get_value(self.db, "history_meta", "commits") or 0)

    def _reverted_by_message(self, raw: RawCommit, commit_id: int, subject: str, body: str) -> tuple[str, str] | None:
        """`This reverts commit SHA` (git revert's own words), else `Revert "<subject>"`: the latest
        earlier commit with that subject."""
        if m := _REVERTS_SHA.search(body):
            found = self.db.query("SELECT sha FROM history_commits WHERE sha >= ? AND sha < ? AND id < ?"
                                  " ORDER BY sha LIMIT 2", (m.group(1), m.group(1) + "g", commit_id))
            if len(found) == 1:
                return found[0]["sha"], "message"
        if m := _REVERT_SUBJECT.match(subject):
            found = self.db.query(
                "SELECT sha FROM history_commits WHERE subject_key = ? AND id < ? AND committed_at <= ?"
                " ORDER BY committed_at DESC, id DESC LIMIT 1", (subject_key(m.group(1)), commit_id, raw.committed_at))
            if found:
                return found[0]["sha"], "message"
        return None

    @staticmethod
    def _undoing(raw: RawCommit) -> set[tuple[str, str, str]]:
        """(path, blob after, blob before) of each change, when a commit can be an undo by content: one
        parent, and every file it changes changed in place."""
        if len(raw.parents) != 1:  # (a merge's changes are not looked at: flask's first-parent diffs hold many)
            return set()
        undone = {(c.path, c.new_blob, c.old_blob) for c in raw.changes if c.old_blob != c.new_blob and c.status != "R"}
        return undone if undone and len(undone) == len(raw.changes) else set()

    def _undone_before(self, batch: list[RawCommit], ids: dict[str, int], starts: Starts) -> set[str]:
        """The commits of a batch whose new content of a file an earlier change started from (`ids`: sha
        -> commit id, the order they were stored in): the only ones an undo by content can be (the batch's
        own later changes do not count). `starts`: path -> old blob -> the first commit changing the file
        from it, for the paths looked up in the batches stored before in this read, which this batch's
        changes (stored now) extend; a path not looked up yet is read from the store, in one query for
        the batch (read again for every batch, a file's changes were read a dozen times over flask)."""
        for raw in batch:
            for c in raw.changes:
                if c.path in starts:
                    starts[c.path].setdefault(c.old_blob, ids[raw.sha])  # (later than all it holds)
        first = {raw.sha: min(undone) for raw in batch if (undone := self._undoing(raw))}
        if paths := sorted({path for path, _, _ in first.values()} - starts.keys()):
            for path in paths:
                starts[path] = {}
            for path, blob, commit_id in self.db.rows(f"SELECT path, old_blob, commit_id FROM history_changes WHERE"
                                                      f" path IN {self.db.each}", (self.db.many(paths),)):
                if commit_id < starts[path].get(blob, commit_id + 1):
                    starts[path][blob] = commit_id
        return {sha for sha, (path, blob, _) in first.items() if starts[path].get(blob, ids[sha]) < ids[sha]}

    def _restored_by_content(self, raw: RawCommit, commit_id: int) -> tuple[str, str] | None:
        """An earlier commit this one undoes, whatever its message says: every file this one changes is
        put back as it was before that commit, with nothing else changing it in between (that commit
        may have changed more files: a partial revert), within RESTORE_WITHIN_DAYS (removing, years
        later, a file someone added is a clean-up)."""
        undone = self._undoing(raw)
        if not undone:
            return None
        path, blob, now = min(undone)
        earliest = gitlog.days_before(raw.committed_at, RESTORE_WITHIN_DAYS)
        candidates = self.db.query(
            """SELECT c.commit_id, h.sha FROM history_changes c JOIN history_commits h ON h.id = c.commit_id
               WHERE c.path = ? AND c.old_blob = ? AND c.new_blob = ? AND c.commit_id < ? AND h.is_merge = 0
               AND h.committed_at <= ? AND h.committed_at >= ? ORDER BY h.committed_at DESC, h.id DESC""",
            (path, blob, now, commit_id, raw.committed_at, earliest))
        for candidate in candidates:
            theirs = self.db.query("SELECT path, old_blob, new_blob, status FROM history_changes WHERE commit_id = ?",
                                   (candidate["commit_id"],))
            changes = {(t["path"], t["old_blob"], t["new_blob"]) for t in theirs}
            if undone <= changes:
                return candidate["sha"], "content" if undone == changes else "content-partial"
        return None

    # mapping onto symbols ----------------------------------------------------------------------
    def remap(self, also: Iterable[str] = ()) -> int:
        """Map the history of indexed files onto their symbols again where the index holds other
        content than the last mapping used, and of the files `also` names (new commits changed them).
        Returns how many files were mapped."""
        files = indexed_files(self.db)
        done = {r["path"]: r["content_hash"] for r in self.db.query("SELECT path, content_hash FROM history_mapped")}
        todo = sorted(p for p in files if done.get(p) != files[p].content_hash or p in set(also))
        if not todo and not set(done) - set(files):
            return 0
        lineage = self._lineage()
        dirty = {c.path: c for c in self._working_tree()} if todo else {}
        spans = _spans_of(self.db, todo)
        gone = sorted(set(done) - set(files))
        # a first mapping (no touched symbol stored yet): nothing to replace, every commit's breadth asked for
        first = not done and not self.db.rows("SELECT 1 FROM history_symbols LIMIT 1")
        with self.db.transaction(), self._symbols_written(bulk=not done, first=first):
            version = self.mapping_version() + 1
            changed: set[int] = set()
            breadth: dict[int, int] = {}  # commit id -> how many files it changed (filled as files ask)
            if first:  # (one count for them all, not a query per file for the commits it adds)
                breadth.update(self.db.rows("SELECT commit_id, COUNT(*) FROM history_changes GROUP BY commit_id"))
            for path in gone:  # no longer indexed: its symbols are gone
                changed |= {commit for commit, *_ in self._touched_in(path)}
                self.db.execute("DELETE FROM history_symbols WHERE path = ?", (path,))
                self.db.execute("DELETE FROM history_blame WHERE path = ?", (path,))
                self.db.execute("DELETE FROM history_mapped WHERE path = ?", (path,))
            for start in range(0, len(todo), _MAP_CHUNK):
                part = todo[start:start + _MAP_CHUNK]
                touched = {} if first else self._touched_in_each(part)
                mapped = _Mapped()
                for at in range(0, len(part), _READ_CHUNK):
                    reach = self._changes_reaching({path: _reachable_names(path, dirty.get(path), lineage)
                                                    for path in part[at:at + _READ_CHUNK]})
                    for path, rows in reach.items():
                        before = touched.get(path, set())
                        after = self._map_file(files[path], spans.get(path, []), lineage, dirty.get(path), rows,
                                               breadth, bool(before), mapped)
                        changed |= {commit for commit, *_ in before ^ after}
                mapped.write(self.db)
            self.db.executemany("INSERT INTO history_remapped_commits (commit_id, version) VALUES (?, ?)"
                                " ON CONFLICT (commit_id) DO UPDATE SET version = excluded.version",
                                [(c, version) for c in sorted(changed)])
            set_value(self.db, "history_meta", "mapping_version", str(version))
        return len(todo)

    def _symbols_written(self, bulk: bool, first: bool) -> AbstractContextManager[None]:
        """A first mapping (nothing mapped yet: every file's symbols are written) builds the indexes of
        the touched symbols by name and by commit once at its end, not one B-tree insert per row each
        (the mapping itself looks them up by path only: that index too when there are none to look up,
        `first`)."""
        if not bulk:
            return nullcontext()
        return self.db.deferred_indexes("history_symbols", keep=() if first else ("history_symbols_path",))

    def _touched_in(self, path: str) -> set[tuple]:
        """What the mapping of one file says the commits touched: (commit id, symbol, how, lines)."""
        return set(self.db.rows("SELECT commit_id, fqn, how, lines FROM history_symbols WHERE path = ?", (path,)))

    def _touched_in_each(self, paths: list[str]) -> dict[str, set[tuple]]:
        """`_touched_in` of each of these files (one query: a first mapping has thousands, mostly empty)."""
        found: dict[str, set[tuple]] = defaultdict(set)
        for path, *touched in self.db.rows("SELECT path, commit_id, fqn, how, lines FROM history_symbols"
                                           f" WHERE path IN {self.db.each}", (self.db.many(paths),)):
            found[path].add(tuple(touched))
        return found

    def remapped_since(self, version: int) -> list[Commit]:
        """The commits HEAD reaches whose touched symbols a mapping made after `mapping_version()` was
        `version` changed, newest first (a remap after an edit of one function leaves the other commits of
        the file as they were)."""
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM history_commits WHERE off_head = 0 AND id IN (SELECT commit_id"
                            " FROM history_remapped_commits WHERE version > ?) ORDER BY committed_at DESC, id DESC",
                            (version,))
        return self._assemble(rows)

    def _changes_reaching(self, reach: dict[str, set[str]]) -> dict[str, list[tuple]]:
        """For each file, every stored change under the names it can be reached by (`reach`: path ->
        names), newest first: one query for all of them (one per file was 2,899 on Django)."""
        by_path: dict[str, list[tuple]] = defaultdict(list)
        for r in self.db.rows(
                "SELECT c.id, c.path, c.old_path, c.old_blob, c.new_blob, c.hunks, h.is_merge, c.commit_id"
                " FROM history_changes c JOIN history_commits h ON h.id = c.commit_id"
                f" WHERE c.path IN {self.db.each} ORDER BY c.id DESC",
                (self.db.many(sorted(set().union(*reach.values()))),)):
            by_path[r[1]].append(r)
        return {path: by_path.get(next(iter(names)), []) if len(names) == 1 else
                sorted((r for name in names for r in by_path.get(name, ())), key=lambda r: r[0], reverse=True)
                for path, names in reach.items()}

    def _map_file(self, file: IndexedFile, spans: list[Symbol], lineage: dict[str, set[str]],
                  uncommitted: RawChange | None, rows: list[tuple], breadth: dict[int, int], stored: bool,
                  mapped: _Mapped) -> set[tuple]:
        """Map one file's history onto its symbols; returns what it stores, as `_touched_in` reads it
        (`rows`: every change the mapping can reach, `_changes_reaching`; `breadth`: commit id -> files it
        changed, shared by the files mapped in one remap; `stored`: symbols of the file were stored before,
        to replace; `mapped`: where its rows wait to be written with those of the files mapped beside it)."""
        from tenure.history import mapping

        try:
            content = (self.root / file.path).read_bytes()
        except OSError:
            content = None
        first = _edits_start(file.path, uncommitted)
        names = _names_of(file.path, lineage)
        # (every change the mapping can reach is decoded once: the walk back asks for them by blob)
        commit_of = {r[0]: r[-1] for r in rows}
        self._count_files(breadth, set(commit_of.values()))
        into: dict[tuple[str, str], list[mapping.Change]] = defaultdict(list)
        for r in rows:
            into[(r[1], r[4])].append(mapping.Change(
                *r[:5], _READ_HUNKS.decode(r[5]) if r[5] is not None else None,
                # (a merge's diff is its branch's work: its lines are written, not swept)
                not r[6] and is_sweep(breadth[r[7]], 0)))
        touched: dict[int, mapping.Touched] = {}
        if content is not None and file.holds(content):
            symbols = mapping.FileSymbols(file.path, file.language, spans, content)
            touched, blame = mapping.carry(symbols, mapping.blob_id(content),
                                           lambda path, blob: into.get((path, blob), []), first)
            mapped.blame.append((file.path, _blame_of(blame, commit_of)))
        else:  # the file changed since it was indexed: names are all there is to go by
            symbols = mapping.FileSymbols(file.path, file.language, spans, b"")
            self.db.execute("DELETE FROM history_blame WHERE path = ?", (file.path,))
        for (path, _), changes in into.items():
            for change in changes if path in names else ():
                if change.id not in touched and change.hunks:
                    touched[change.id] = mapping.by_names(change.hunks, symbols)
        # (only this file's rows: a change before a split is mapped onto both files' symbols)
        if stored:
            self.db.execute("DELETE FROM history_symbols WHERE path = ?", (file.path,))
        rows = [(cid, commit_of[cid], fqn, file.path, how, lines) for cid, found in touched.items()
                for fqn, (how, lines) in found.items()]
        mapped.symbols += rows
        mapped.files.append((file.path, file.content_hash))
        return {(commit, fqn, how, lines) for _, commit, fqn, _, how, lines in rows}

    def _count_files(self, breadth: dict[int, int], commits: set[int]) -> None:
        """How many files each of `commits` changed, into `breadth` where it is not yet (one query for
        those: counted per change row, a commit of every file of the project was counted once per file)."""
        if todo := sorted(commits - breadth.keys()):
            breadth.update(self.db.rows(f"SELECT commit_id, COUNT(*) FROM history_changes WHERE commit_id IN"
                                        f" {self.db.each} GROUP BY commit_id", (self.db.many(todo),)))

    def last_written(self, path: str, start: int, end: int) -> list[tuple[str, str, str | None] | None]:
        """For lines start..end of an indexed file as the index holds it: the commit that last wrote
        each, as (sha, committed_at, the sha that commit reverts); None where the history does not say
        (older than it, or an uncommitted edit)."""
        rows = self.db.rows("SELECT commits FROM history_blame WHERE path = ?", (path,))
        if not rows:
            return [None] * max(end - start + 1, 0)
        ids = _READ_BLAME.decode(rows[0][0])[max(start, 1) - 1:end]
        known = {r[0]: tuple(r[1:]) for r in self.db.rows(
            f"SELECT id, sha, committed_at, reverts FROM history_commits WHERE id IN {self.db.each}",
            (self.db.many(sorted({i for i in ids if i > 0})),))}
        return [known.get(i) for i in ids]

    def unchanged_since(self, asked: list[tuple[str, str, list[int]]]) -> list[set[int] | None]:
        """For each (commit, indexed file, lines of it as the history mapped it): which of those lines hold,
        whitespace aside, a line of the file as the commit left it (under any name it had then). A merge or
        a cherry-pick that brought the very lines again wrote nothing new, whatever the blame's last writer.
        Only lines of MIN_MOVED characters or more are looked up (`return`, `)` and blank lines are
        everywhere: no evidence). None: the file then cannot be read, or now is not the content the blame's
        lines number (edited since the index): the blame is all there is."""
        if not self.available:
            return [None] * len(asked)
        paths = sorted({path for _, path, _ in asked})
        mapped = dict(self.db.rows(f"SELECT path, content_hash FROM history_mapped WHERE path IN {self.db.each}",
                                   (self.db.many(paths),)))
        now: dict[str, list[bytes] | None] = {}
        for path in paths:
            try:
                content = (self.root / path).read_bytes()
            except OSError:
                content = None
            now[path] = squeezed(content).split(b"\n") if content is not None and \
                content_hash(content) == mapped.get(path) else None
        then = self._lines_then(sorted({(sha, path) for sha, path, _ in asked if now[path] is not None}))
        found: list[set[int] | None] = []
        for sha, path, lines in asked:
            today, before = now[path], then.get((sha, path))
            found.append(None if today is None or before is None else {
                n for n in lines if n <= len(today) and len(text := today[n - 1]) >= MIN_MOVED and text in before})
        return found

    def _lines_then(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], frozenset[bytes]]:
        """The lines of each file as a commit left it, squeezed ((sha, path): by its name today, else by one it
        had before a rename), those git has: asked of one `git cat-file` process."""
        found: dict[tuple[str, str], frozenset[bytes]] = {}
        with gitlog.CatFile(self.root) as objects:
            missing = []
            for key in wanted:
                if (content := objects.file_at(*key)) is None:
                    missing.append(key)
                else:
                    found[key] = frozenset(squeezed(content).split(b"\n"))
            lineage = self._lineage() if missing else {}
            for key in missing:
                for name in sorted(_names_of(key[1], lineage) - {key[1]}):
                    if (content := objects.file_at(key[0], name)) is not None:
                        found[key] = frozenset(squeezed(content).split(b"\n"))
                        break
        return found

    def _lineage(self) -> dict[str, set[str]]:
        """path -> the paths it was renamed from (directly)."""
        found: dict[str, set[str]] = {}
        for r in self.db.query("SELECT path, old_path FROM history_changes WHERE status = 'R'"):
            found.setdefault(r["path"], set()).add(r["old_path"])
        return found

    def _working_tree(self) -> list[RawChange]:
        try:
            return gitlog.working_tree_changes(self.root, self._inside)
        except GitError:
            return []

    def working_tree(self) -> tuple[list[FileChange], list[TouchedSymbol]]:
        """The uncommitted edits (tracked files against HEAD) and the symbols they touch: `span` where
        the index holds the file as it is on disk, else by name."""
        from tenure.history import mapping

        if not self.available:
            return [], []
        changes = self._working_tree()
        files = indexed_files(self.db)
        spans = _spans_of(self.db, [c.path for c in changes if c.path in files])
        touched: list[TouchedSymbol] = []
        for c in changes:
            if c.path not in files or not c.hunks:
                continue
            file = files[c.path]
            try:
                content = (self.root / c.path).read_bytes()
            except OSError:
                continue
            fresh = file.holds(content)
            symbols = mapping.FileSymbols(c.path, file.language, spans.get(c.path, []), content if fresh else b"")
            found = mapping.in_place(c.hunks, symbols) if fresh else mapping.by_names(c.hunks, symbols)
            touched += [TouchedSymbol(fqn, c.path, how, n) for fqn, (how, n) in sorted(found.items())]
        return [FileChange(c.path, c.old_path, c.status, c.added, c.deleted) for c in changes], touched

    # answers ------------------------------------------------------------------------------------
    def commits(self, limit: int | None = None, since: str | datetime | None = None) -> Iterator[Commit]:
        """The commits HEAD reaches, newest first; `since`: committed at or after (ISO 8601 or a datetime)."""
        where, params = ("AND committed_at >= ?", [_iso(since)]) if since else ("", [])
        sql = f"SELECT {_COLUMNS} FROM history_commits WHERE off_head = 0 {where} ORDER BY committed_at DESC, id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self.db.rows(sql, params)
        for i in range(0, len(rows), BATCH):
            yield from self._assemble(rows[i:i + BATCH])

    def commit(self, sha_or_prefix: str) -> Commit | None:
        """A stored commit by sha or unique prefix, reachable from HEAD or not (asked for by name)."""
        ref = sha_or_prefix.strip().lower()
        if not re.fullmatch(r"[0-9a-f]{4,40}", ref):
            return None
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM history_commits WHERE sha >= ? AND sha < ? ORDER BY sha LIMIT 2",
                            (ref, ref + "g"))
        return self._assemble(rows)[0] if len(rows) == 1 else None

    def read_after(self, cursor: int, limit: int = BATCH) -> tuple[list[Commit], int]:
        """The commits stored after `cursor` (0: from the first), in the order they were read: ancestors
        before descendants, those HEAD no longer reaches included (an attempt given up is history too).
        Returns them and the cursor to pass next time (a consumer's bookmark)."""
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM history_commits WHERE id > ? ORDER BY id LIMIT ?", (cursor, limit))
        return self._assemble(rows), rows[-1][0] if rows else cursor

    def impossible_dates(self, shas: Iterable[str], now: datetime) -> dict[str, tuple[str, str]]:
        """Of these commits, those whose date cannot be when they were made: after `now` (the history was read
        before it), or more than CLOCK_SKEW_DAYS after a commit built on it (a child: a clock set wrong, a date
        written by hand). Each with the latest date it can have been made at: the earliest date among the
        nearest commits built on it with a possible date (through those dated after `now` or not at all),
        `now` at the most; and that commit's sha ("": `now`). One pass over the history, kept while it and
        the hour are the same (flask's 5,531 commits in 10 ms; commits are only ever added: their number,
        which the update stores, says whether it is the same)."""
        at = now.astimezone(UTC).isoformat(timespec="seconds")
        key = (self._stored(), at[:13])
        if self._impossible is None or self._impossible[0] != key:
            self._impossible = (key, _impossible_dates(self.db.rows(
                "SELECT sha, parents, committed_at FROM history_commits ORDER BY id DESC"), at))
        return {sha: self._impossible[1][sha] for sha in shas if sha in self._impossible[1]}

    def lookup(self, shas: Iterable[str]) -> dict[str, Commit]:
        """Stored commits by full sha (those not read are missing)."""
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM history_commits WHERE sha IN {self.db.each}",
                            (self.db.many(list(shas)),))
        return {c.sha: c for c in self._assemble(rows)}

    def bookmark(self, reader: str) -> str | None:
        """How far another store (`reader`) has copied this checkout's history (`set_bookmark`). Kept
        with the history, not with the reader: a team's shared store is read into from many checkouts,
        and a cursor into one checkout's history means nothing in another's."""
        return get_value(self.db, "history_meta", f"read:{reader}")

    def set_bookmark(self, reader: str, value: str) -> None:
        set_value(self.db, "history_meta", f"read:{reader}", value)

    def mapping_version(self) -> int:
        """Grows whenever commits are mapped onto symbols again: a consumer that copied touched symbols
        refreshes what it copied before a newer mapping."""
        return int(get_value(self.db, "history_meta", "mapping_version") or 0)

    def since(self, base: str) -> list[Commit]:
        """The commits reachable from HEAD and not from `base` (what was committed since it), newest
        first; those not read yet are read first."""
        if not self.available:
            return []
        shas = gitlog.git(self.root, "rev-list", "HEAD", f"^{base}", "--", *(["."] if self._inside else []),
                          check=False).split()
        if shas and not self.db.query("SELECT 1 FROM history_commits WHERE sha = ?", (shas[0],)):
            self.update()
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM history_commits WHERE sha IN {self.db.each}"
                            " ORDER BY committed_at DESC, id DESC", (self.db.many(shas),))
        return self._assemble(rows)

    def touching(self, fqns: Iterable[str]) -> list[Commit]:
        """The commits HEAD reaches whose diff touched any of these symbols or a symbol inside one (a
        method of a class, every symbol of a package), newest first."""
        ids: set[int] = set()
        for fqn in dict.fromkeys(fqns):
            ids.update(r[0] for r in self.db.rows("SELECT commit_id FROM history_symbols WHERE fqn = ?", (fqn,)))
            for low, high in member_ranges(fqn):
                ids.update(r[0] for r in self.db.rows("SELECT commit_id FROM history_symbols WHERE fqn > ? AND fqn < ?",
                                                      (low, high)))
        rows = self.db.rows(f"SELECT {_COLUMNS} FROM history_commits WHERE id IN {self.db.each} AND off_head = 0"
                            " ORDER BY committed_at DESC, id DESC", (self.db.many(sorted(ids)),))
        return self._assemble(rows)

    def _assemble(self, rows: list[tuple]) -> list[Commit]:
        """Commits from rows of `_COLUMNS`, with their files and touched symbols: one query each for
        all of them (a package's commits are thousands)."""
        ids = self.db.many([r[0] for r in rows])
        files: dict[int, list[FileChange]] = defaultdict(list)
        symbols: dict[int, list[TouchedSymbol]] = defaultdict(list)
        for commit_id, path, old_path, status, added, deleted in self.db.rows(
                "SELECT commit_id, path, old_path, status, added, deleted FROM history_changes"
                f" WHERE commit_id IN {self.db.each} ORDER BY id", (ids,)):
            files[commit_id].append(FileChange(path, old_path, status, added, deleted))
        for commit_id, fqn, path, how, lines in self.db.rows(
                f"SELECT commit_id, fqn, path, how, lines FROM history_symbols WHERE commit_id IN {self.db.each}"
                " ORDER BY fqn", (ids,)):
            symbols[commit_id].append(TouchedSymbol(fqn, path, how, lines))
        return [Commit(sha, tuple(parents.split()), author_name, author_email, authored_at, committed_at, subject, body,
                       bool(is_merge), thin_reason is not None, thin_reason, reverts, reverts_how,
                       tuple(files.get(i, ())), tuple(_merged(symbols[i]) if i in symbols else ()))
                for (i, sha, parents, author_name, author_email, authored_at, committed_at, subject, body, is_merge,
                     thin_reason, reverts, reverts_how) in rows]


class _Mapped:
    """What the mapping of a few files stores, written at once (a statement per file and table cost a
    tenth of a first mapping: Django's 2,899 files, each with a row count of its own to compile)."""

    def __init__(self) -> None:
        self.symbols: list[tuple] = []  # history_symbols rows, file after file
        self.blame: list[tuple[str, bytes]] = []  # (path, `_blame_of`)
        self.files: list[tuple[str, str]] = []  # (path, the content hash mapped)

    def write(self, db: Database) -> None:
        insert_rows(db, "INSERT INTO history_symbols (change_id, commit_id, fqn, path, how, lines) VALUES ",
                    "(?, ?, ?, ?, ?, ?)", self.symbols)
        db.executemany("INSERT INTO history_blame (path, commits) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET"
                       " commits = excluded.commits", self.blame)
        db.executemany("INSERT INTO history_mapped (path, content_hash) VALUES (?, ?) ON CONFLICT (path)"
                       " DO UPDATE SET content_hash = excluded.content_hash", self.files)


def _blame_of(blame: list[int], commit_of: dict[int, int]) -> bytes:
    """A file's blame as stored: today's lines with the commit that last wrote each (0: before the history
    says; -1: the uncommitted edits); `blame`: the change (id) that did, by line from 0 (`mapping.carry`),
    `commit_of`: change id -> commit id."""
    lines = blame[1:]
    # (each distinct writer looked up once: a file has a few, and one commit added many a file whole;
    # a dict over the lines, not numpy's unique: that sorts them, 0.1 s over Django's 2,899 files)
    commit = {i: commit_of.get(i, 0) if i > 0 else i for i in set(lines)}
    return _BLAME.encode(list(map(commit.__getitem__, lines)))


def first_touched(db: Database, fqn: str, shas: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Of these commits, those whose diff touched the symbol or a symbol inside it: sha -> the first such
    symbol by name (the symbol itself sorts before its members) and how it was mapped. Every symbol a
    commit touched is here, where a consumer may keep only some (the knowledge store keeps a sweep's first
    500)."""
    wanted = sorted(set(shas))
    if not wanted:
        return {}
    found: dict[str, tuple[str, str]] = {}
    ranges = member_ranges(fqn)
    inside = " OR ".join(["s.fqn = ?", *("(s.fqn > ? AND s.fqn < ?)" for _ in ranges)])
    bounds = [bound for pair in ranges for bound in pair]
    for sha, touched, how in db.rows(
            "SELECT c.sha, s.fqn, s.how FROM history_commits c JOIN history_symbols s ON s.commit_id = c.id"
            f" WHERE c.sha IN {db.each} AND ({inside}) ORDER BY s.fqn DESC", (db.many(wanted), fqn, *bounds)):
        found[sha] = (touched, how)  # (the last row of a commit is its first name)
    return found


def _encoded(hunks: list[Hunk] | None) -> bytearray:
    """Hunks as stored (none: empty, stored as NULL): a bytearray, which Python's sqlite3 binds without
    looking for an adapter."""
    out = bytearray()
    if hunks is not None:
        _HUNKS.encode_into(hunks, out)
    return out


def _impossible_dates(newest_first: list[tuple[str, str, str]], now: str) -> dict[str, tuple[str, str]]:
    """`GitHistory.impossible_dates` of every commit; `newest_first`: (sha, parents, committed_at) of each,
    after its descendants (by id, descending: a commit is stored after its parents)."""
    # sha -> (date, sha) of the earliest of the nearest commits built on it with a possible date (one
    # dated after `now` or not at all passes on the bound of those built on it)
    earliest: dict[str, tuple[str, str]] = {}
    found: dict[str, tuple[str, str]] = {}
    for sha, parents, at in newest_first:
        below = earliest.pop(sha, (now, ""))
        if _later(at, below[0]):
            found[sha] = below
        offer = (at, sha) if at <= now and at != UNKNOWN_DATE else below
        for parent in parents.split():
            if parent not in earliest or offer < earliest[parent]:
                earliest[parent] = offer
    return found


def _later(at: str, than: str) -> bool:
    """Whether one stored date is more than CLOCK_SKEW_DAYS after another."""
    return at > than and datetime.fromisoformat(at) - datetime.fromisoformat(than) > timedelta(days=CLOCK_SKEW_DAYS)


def _spans_of(db: Database, paths: list[str]) -> dict[str, list[Symbol]]:
    """The symbols of each file that an edit can touch, outermost first (an edit inside a lambda is
    an edit of the function around it)."""
    return {path: [s for s in found if s.kind not in NOT_TOUCHED] for path, found in symbols_in(db, paths).items()}


def subject_key(subject: str) -> str:
    """A subject as `Revert "…"` quotes it: without the pull request number GitHub appends."""
    return _PR_SUFFIX.sub("", subject.strip())


def _merged(symbols: list[TouchedSymbol]) -> list[TouchedSymbol]:
    """One entry per symbol (a commit can touch it in two files' changes: a move), lines summed, the
    strongest mapping kept."""
    best: dict[str, TouchedSymbol] = {}
    for s in symbols:
        old = best.get(s.fqn)
        if old is None:
            best[s.fqn] = s
        else:
            how = min(old.how, s.how, key=HOW.index)
            best[s.fqn] = TouchedSymbol(s.fqn, old.path if how == old.how else s.path, how, old.lines + s.lines)
    return list(best.values())


def _edits_start(path: str, uncommitted: RawChange | None) -> tuple[str, str, list[Hunk]] | None:
    """Where a file's uncommitted edits start from: HEAD's blob, perhaps under another name (path, blob,
    the edits' hunks); None without such edits."""
    if uncommitted is not None and uncommitted.hunks is not None and uncommitted.old_blob != NULL_BLOB:
        return uncommitted.old_path or path, uncommitted.old_blob, uncommitted.hunks
    return None


def _reachable_names(path: str, uncommitted: RawChange | None, lineage: dict[str, set[str]]) -> set[str]:
    """The names a file's history is stored under: its own and those it was renamed from, and those of
    the file its uncommitted edits start from."""
    first = _edits_start(path, uncommitted)
    return _names_of(path, lineage) | (_names_of(first[0], lineage) if first else set())


def _names_of(path: str, lineage: dict[str, set[str]]) -> set[str]:
    """A path and every path it was renamed from, transitively."""
    names, todo = {path}, [path]
    while todo:
        for older in lineage.get(todo.pop(), ()):
            if older not in names:
                names.add(older)
                todo.append(older)
    return names


def _iso(value: str | datetime) -> str:
    return value.isoformat() if isinstance(value, datetime) else gitlog.utc(value) if "T" in value else value
