"""Canonical digests of everything a full index stores and derives, to show that speed work changed none
of it: two indexed copies of one tree (one per build) compared table by table.

    PYTHONPATH=SRC python bench/index_digests.py DIR [OTHER_DIR]

Each DIR is an indexed project (its `.tenure/`). Rows are digested in a canonical form, free of what
legitimately differs between two runs: row and file ids (by path instead), the order in which rows,
sets and a file's questions were written (resolution runs in workers: `resolution_answers` and
`resolution_missing` differ byte for byte between two runs of one build), and term or symbol ids of
the words index (by their text). Digested: edges (as bench/index_vs_peer.py's edge md5), symbols, files,
file facts, escapes, resolution answers (question and answer digest pairs), reads, missing modules and
gaps, element terms, the history step's tables (`_history`), the words index (postings and symbols) and the
phrase ladder. With two
directories, each row says whether they agree. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
from pathlib import Path

import msgspec
import numpy as np

from tenure.namespace.intent import _stored_phrases
from tenure.namespace.symbol_terms import _INDEX_CACHE, _unpacked
from tenure.state import state_dir
from tenure.structural.resolve.answers import _DIGEST_BYTES


def _md5(rows: list) -> str:
    digest = hashlib.md5()
    for row in sorted(rows, key=repr):
        digest.update(repr(row).encode())
    return f"{digest.hexdigest()[:8]} ({len(rows)})"


def _answers(blob: bytes | None) -> tuple | None:
    if blob is None:
        return None
    fmt, digests, _filters, questions, _wide = msgspec.msgpack.decode(bytes(blob))
    n = _DIGEST_BYTES
    pairs = ((msgspec.msgpack.encode(q), digests[i * n : (i + 1) * n]) for i, q in enumerate(questions))
    return fmt, tuple(sorted(pairs))


def _history(db: sqlite3.Connection) -> dict[str, list]:
    """What the history step stores (commits, their changes, the symbols they touched, the blame of today's
    lines, the episodes and their symbols' snapshots), commits by sha and episodes by (kind, ref) instead of
    ids; none for an index without history."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'history_commits'").fetchall():
        return {}
    sha = dict(db.execute("SELECT id, sha FROM history_commits"))
    episode = {i: (kind, ref) for i, kind, ref in db.execute("SELECT id, kind, ref FROM episodes")}
    return {
        "history commits": db.execute("SELECT sha, parents, author_name, author_email, authored_at, committed_at,"
                                      " subject, subject_key, body, is_merge, thin_reason, reverts, reverts_how,"
                                      " off_head FROM history_commits"),
        "history changes": db.execute("SELECT h.sha, c.path, c.old_path, c.status, c.added, c.deleted, c.old_blob,"
                                      " c.new_blob, c.hunks FROM history_changes c JOIN history_commits h"
                                      " ON h.id = c.commit_id"),
        "history symbols": db.execute("SELECT h.sha, c.path, s.fqn, s.path, s.how, s.lines FROM history_symbols s"
                                      " JOIN history_changes c ON c.id = s.change_id JOIN history_commits h"
                                      " ON h.id = s.commit_id"),
        "history blame": [(path, [sha.get(i, i) for i in msgspec.msgpack.decode(bytes(commits))])
                          for path, commits in db.execute("SELECT path, commits FROM history_blame")],
        "history mapped": db.execute("SELECT path, content_hash FROM history_mapped"),
        "episodes": [(*row[:-1], episode.get(row[-1])) for row in db.execute(
            "SELECT kind, ref, actor, task, started_at, ended_at, declared, commit_sha, base_sha, pr, thin, part_of"
            " FROM episodes")],
        "episode symbols": [(episode[e], *rest) for e, *rest in db.execute(
            "SELECT s.episode_id, s.fqn, s.path, s.how, s.lines, n.fqn, n.fingerprint, n.neighbours"
            " FROM episode_symbols s LEFT JOIN symbol_snapshots n ON n.id = s.snapshot_id")],
        "episode files": [(episode[e], path) for e, path in db.execute("SELECT episode_id, path FROM episode_files")],
    }


def digests(root: Path) -> dict[str, str]:
    db = sqlite3.connect(f"file:{state_dir(root) / 'tenure.db'}?mode=ro", uri=True)
    try:
        path_of = dict(db.execute("SELECT id, path FROM files"))
        by_path = (lambda sql: [(path_of[r[0]], *r[1:]) for r in db.execute(sql)])  # noqa: E731
        out = {
            "edges": db.execute("SELECT src_fqn, dst_fqn, dst_name, relation, tier, path, line, detail FROM edges"),
            "symbols": db.execute("SELECT fqn, name, kind, language, path, start_line, end_line, signature,"
                                  " fingerprint, parent_fqn, module, bases, generated FROM symbols"),
            "files": db.execute("SELECT path, language, module, size, content_hash, parse_status, status_detail"
                                " FROM files"),
            "file facts": by_path("SELECT file_id, facts, digest FROM file_facts"),
            "escapes": by_path("SELECT file_id, name, scope, line, how, receiver, detail FROM escapes"),
            "resolution answers": [(p, _answers(a))
                                   for p, a in by_path("SELECT file_id, answers FROM resolution_answers")],
            "resolution reads": by_path("SELECT file_id, key_id FROM resolution_deps"),
            "resolution missing": [(p, sorted(map(repr, msgspec.msgpack.decode(bytes(m)))))
                                   for p, m in by_path("SELECT file_id, modules FROM resolution_missing")],
            "resolution gaps": by_path("SELECT file_id, status, reason, names FROM resolution_gaps"),
            "element terms": db.execute("SELECT element, fingerprint, terms FROM element_terms"),
            **_history(db),
        }
        out = {name: _md5(list(rows)) for name, rows in out.items()}
    finally:
        db.close()
    with np.load(state_dir(root) / _INDEX_CACHE) as kept:
        fqns, kinds, paths, vocabulary = (_unpacked(kept[k]) for k in ("fqns", "kinds", "paths", "vocabulary"))
        term = np.repeat(np.arange(len(vocabulary)), np.diff(kept["indptr"]))
        out["words postings"] = _md5([(fqns[s], vocabulary[t], round(w, 5), f) for s, t, w, f in zip(
            kept["symbol_of"].tolist(), term.tolist(), kept["weight"].tolist(), kept["fields"].tolist(), strict=True)])
        out["words symbols"] = _md5(list(zip(fqns, kinds, paths, kept["lines"].tolist(), kept["in_tests"].tolist(),
                                             strict=True)))
    stored = _stored_phrases(root)
    if stored is not None:
        ladder = stored[2]
        out["ladder entries"] = _md5([msgspec.to_builtins(e) for e in ladder.fqns.values()])
        out["ladder words"] = _md5([(w, sorted(f)) for w, f in ladder.by_word.items()])
        out["ladder modules"] = _md5(list(ladder.modules_by_path.items()))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", type=Path, nargs="+", help="indexed projects (one or two)")
    args = parser.parse_args()
    found = [digests(d) for d in args.dirs[:2]]
    for name in found[0]:
        values = [f.get(name, "-") for f in found]
        verdict = "" if len(values) == 1 else "  same" if len(set(values)) == 1 else "  DIFFERENT"
        print(f"{name:20} {'  '.join(f'{v:18}' for v in values)}{verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
