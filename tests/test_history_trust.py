"""History a maintainer believes (issue 29, points 7-10; issue 30, point 9): a partial revert counts where
it put lines back; sweeps, release bumps and importers' edits are not attempts on a symbol; expiry reads
what survives of the code ignoring whitespace, moves and sweeps; rules mined from a real history say why
when nothing qualifies; history reading stays linear on hostile commits."""

from __future__ import annotations

from tenure import Tenure
from tests.git_support import SERVICE, GitRepo


def project(g: GitRepo) -> Tenure:
    t = Tenure.open(g.root, discover=False)
    t.index()
    return t


def attempts(result: dict) -> dict[str, dict]:
    return {a["commit"]: a for group in result["groups"] for a in group["attempts"]}


def test_a_partial_revert_of_other_files_is_no_verdict_on_the_symbol(git_repo: GitRepo) -> None:
    g = git_repo
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE, "pyproject.toml": "[a]\nx = 1\n"})
    attempt = g.commit("audit returns a copy, pin x",
                       {"pay/service.py": SERVICE.replace("    return payment\n", "    return dict(payment)\n"),
                        "pyproject.toml": "[a]\nx = 2\n"})
    g.commit("unpin x", {"pyproject.toml": "[a]\nx = 1\n"})  # puts back pyproject.toml only: a partial revert
    with project(g) as t:
        assert t.history.commit(attempt) is not None
        reverted = t.db.query("SELECT reverts_how FROM history_commits WHERE reverts = ?", (attempt,))
        assert [r["reverts_how"] for r in reverted] == ["content-partial"]
        found = attempts(t.episodes.what_happened_before("pay.service.audit"))
        assert found[attempt]["verdict"]["class"] != "mixed"
        assert not [x for x in found[attempt]["evidence"] if x.get("revert")]


def test_a_partial_revert_that_put_the_symbols_lines_back_counts(git_repo: GitRepo) -> None:
    g = git_repo
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE, "pyproject.toml": "[a]\nx = 1\n"})
    attempt = g.commit("audit returns a copy, pin x",
                       {"pay/service.py": SERVICE.replace("    return payment\n", "    return dict(payment)\n"),
                        "pyproject.toml": "[a]\nx = 2\n"})
    g.commit("audit returns the payment again", {"pay/service.py": SERVICE})
    with project(g) as t:
        found = attempts(t.episodes.what_happened_before("pay.service.audit"))
        assert found[attempt]["verdict"]["verdict"] == "partly-reverted"


def test_a_version_bump_in_a_module_that_imports_the_symbol_is_no_attempt_on_it(git_repo: GitRepo) -> None:
    g = git_repo
    init = 'from pay.service import audit\n\n__version__ = "1.0"\n'
    g.commit("add the service", {"pay/__init__.py": init, "pay/service.py": SERVICE,
                                 "pay/api.py": "from pay.service import audit\n\n\ndef check(p):\n    return audit(p)\n"})
    bump = g.commit("release version 1.1", {"pay/__init__.py": init.replace("1.0", "1.1")})
    caller = g.commit("check twice", {"pay/api.py": "from pay.service import audit\n\n\ndef check(p):\n"
                                                    "    return audit(audit(p))\n"})
    with project(g) as t:
        found = attempts(t.episodes.what_happened_before("pay.service.audit"))
        assert bump not in found
        assert found[caller]["relation"] == "dependant"  # a caller is a close dependant; an importer is not


def test_a_sweep_ranks_after_focused_attempts_and_says_it_is_one(git_repo: GitRepo) -> None:
    g = git_repo
    modules = {f"pay/m{i}.py": f"def f{i}(x):\n    return x\n" for i in range(12)}
    g.commit("add the service", {"pay/__init__.py": "", "pay/service.py": SERVICE, **modules})
    focused = g.commit("audit copies the payment", {"pay/service.py": SERVICE.replace(
        "def audit(payment):\n    return payment", "def audit(payment):\n    return dict(payment)")}, days=1)
    sweep = g.commit("annotate everywhere", {
        "pay/service.py": SERVICE.replace("def audit(payment):\n    return payment",
                                          "def audit(payment):\n    # checked\n    return dict(payment)"),
        **{p: text.replace("(x)", "(value)").replace("return x", "return value") for p, text in modules.items()}},
        days=300)  # (newer: recency alone would rank it first)
    with project(g) as t:
        groups = t.episodes.what_happened_before("pay.service.audit")["groups"]
        order = [a["commit"] for group in groups for a in group["attempts"]]
        assert order.index(focused) < order.index(sweep)
        assert groups[-1]["sweep"] and groups[-1]["attempts"][0]["sweep"]
        assert groups[-1]["attempts"][0]["files"] >= 13
