"""The term pool of a recall on the process's own file (counted with NumPy) is the one the database's
GROUP BY picks, ties at the last place included, and its overlaps are the database's."""

from __future__ import annotations

import random
from pathlib import Path

from tenure.memories.recall import CANDIDATES, TermCounts, overlaps_of
from tenure.storage import open_database


def test_the_terms_memories_share_are_counted_in_the_process_as_the_database_counts_them(tmp_path: Path) -> None:
    db = open_database(tmp_path / "terms.db")
    db.execute("CREATE TABLE memory_terms (term TEXT NOT NULL, memory_id INTEGER NOT NULL,"
               " PRIMARY KEY (term, memory_id))")
    rng = random.Random(7)
    vocabulary = [f"t{n}" for n in range(12)]
    # many more memories than the pool holds, most sharing a few common terms: ties at every count
    db.executemany("INSERT INTO memory_terms (term, memory_id) VALUES (?, ?)",
                   [(term, memory_id) for memory_id in range(1, 3 * CANDIDATES)
                    for term in rng.sample(vocabulary, rng.randint(1, 6))])
    for asked in ({"t0", "t1", "t2"}, {"t3"}, set(vocabulary), {"t5", "absent"}, {"absent"}):
        by_the_database = {memory_id for (memory_id,) in db.rows(
            f"SELECT memory_id FROM memory_terms WHERE term IN {db.each} GROUP BY memory_id"
            " ORDER BY COUNT(*) DESC, memory_id DESC LIMIT ?", (db.many(sorted(asked)), CANDIDATES))}
        here = TermCounts.read(db, asked)
        assert here.top() == by_the_database
        pool = by_the_database | set(range(1, 3 * CANDIDATES, 7))
        assert here.shares(pool, 3) == overlaps_of(db, asked, pool, 3)
    db.close()
