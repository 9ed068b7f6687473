"""The git history as rationale: every commit's message, author and date, and the symbols its diff
touched, read through tenure.history (shared with the episodic store; it reads only commits not seen
before and maps diffs to symbols through the structural index, never by a model). A thin commit ("fix
bug", "wip", a merge without a body) is kept and counted, never extracted from."""

from __future__ import annotations

from pathlib import Path

from tenure.history import Commit, GitHistory
from tenure.knowledge.sections import Section
from tenure.knowledge.sources import SourceDocument
from tenure.storage import Database

FILES_KEPT = 50
SYMBOLS_KEPT = 500  # a commit touching more is a sweep (a reformat): its first 500 are kept


def read(code: Database, root: Path, built_head: str | None, built_mapping: int | None = None,
         ) -> tuple[list[SourceDocument], dict, bool]:
    """The commits as documents, what reading the history did (or why it could not), and whether they
    are all of them. After a build from `built_head` that HEAD descends from, made when the history's
    mapping was at `built_mapping`, only the commits since are returned (the others are stored already),
    and the older commits whose touched symbols the history mapped again since (the index changed, and
    with it what they touched)."""
    history = GitHistory(code, root)
    read = history.update()
    if "reason" in read:  # (no git, not a work tree, no commits yet)
        return [], {"available": False, "reason": read["reason"]}, False
    report = {"available": True, **read}
    report["head"] = head = history.head(fresh=False)  # (the HEAD the update read up to)
    report["mapping_version"] = mapping = history.mapping_version()
    if built_head and built_mapping is not None:
        new = [] if built_head == head else history.since(built_head)
        if built_head == head or any(built_head in c.parents for c in new):  # nothing was rewritten
            again = history.remapped_since(built_mapping) if mapping != built_mapping else []
            return [document(c) for c in {c.sha: c for c in [*new, *again]}.values()], report, False
    return [document(c) for c in history.commits()], report, True


def document(commit: Commit) -> SourceDocument:
    text = commit.subject + (f"\n\n{commit.body.strip()}" if commit.body.strip() else "")
    symbols = [{"fqn": s.fqn, "how": s.how} for s in commit.symbols[:SYMBOLS_KEPT]]
    return SourceDocument(
        key=f"commit:{commit.sha}", kind="commit", origin="history", ref=f"commit {commit.sha[:10]}",
        title=commit.subject, sections=(Section((), 0, text),),
        thin_reason=commit.thin_reason or ("thin" if commit.thin else None),
        authored_at=commit.authored_at,
        meta={"sha": commit.sha, "author": commit.author_name, "files": [f.path for f in commit.files[:FILES_KEPT]],
              "symbols": symbols, "breadth": [len(commit.files), len(commit.symbols)],  # (counted before the cuts)
              **({"reverts": commit.reverts} if commit.reverts else {}),
              **({"merge": True} if commit.is_merge else {})})
