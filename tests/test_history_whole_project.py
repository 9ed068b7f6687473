"""A history that is one commit adding the whole project (a shallow clone, a release unpacked and
committed): every symbol of it is touched by that commit, snapshotted with its neighbours, and
stored as a many-commit history stores it."""

from __future__ import annotations

from tenure import Tenure
from tenure.episodic.episodes import neighbours_of
from tenure.namespace.symbols import every_symbol, neighbours
from tenure.structural import store as structural_store
from tests.git_support import GitRepo

MODULES = {f"pay/m{i}.py": f"from pay.core import book\n\n\ndef f{i}(x):\n    return book(x)\n" for i in range(12)}
CORE = "def book(x):\n    return x\n\n\nclass Ledger:\n    def add(self, x):\n        return book(x)\n"


def test_the_neighbours_of_many_names_are_those_each_name_has_alone(git_repo: GitRepo, monkeypatch) -> None:
    git_repo.commit("init", {"pay/__init__.py": "", "pay/core.py": CORE, **MODULES})
    with Tenure.open(git_repo.root, discover=False) as t:
        t.index()
        fqns = sorted({s.fqn for s in every_symbol(t.db)})
        monkeypatch.setattr(structural_store, "EDGES_PER_LOOKUP", 0)  # (index lookups per name)
        alone = {f: neighbours(t.db, [f])[f] for f in fqns}
        monkeypatch.setattr(structural_store, "EDGES_PER_LOOKUP", 10**9)  # (one pass over the edges)
        together = neighbours(t.db, fqns)
    assert together == alone and together["pay.core.book"] >= {"calls<pay.m0.f0", "calls<pay.core.Ledger.add"}


def test_a_commit_of_every_file_touches_every_symbol_with_its_snapshot(git_repo: GitRepo) -> None:
    sha = git_repo.commit("init", {"pay/__init__.py": "", "pay/core.py": CORE, **MODULES})
    with Tenure.open(git_repo.root, discover=False) as t:
        t.index()
        [commit] = list(t.history.commits())
        touched = {s.fqn: (s.how, s.lines) for s in commit.symbols}
        episode = t.episodes.db.rows("SELECT id FROM episodes WHERE commit_sha = ?", (sha,))[0][0]
        snapshots = {fqn: neighbours_of(blob) for fqn, blob in t.episodes.db.rows(
            "SELECT s.fqn, n.neighbours FROM episode_symbols s JOIN symbol_snapshots n ON n.id = s.snapshot_id"
            " WHERE s.episode_id = ?", (episode,))}
        code_neighbours = neighbours(t.db, list(snapshots))
    assert touched["pay.core.Ledger.add"] == ("span", 2) and touched["pay.m3.f3"] == ("span", 2)
    assert set(snapshots) == set(touched) and snapshots == code_neighbours
    assert "calls>pay.core.book" in snapshots["pay.core.Ledger.add"]
