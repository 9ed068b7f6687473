"""what-breaks: dependants with tiers and sources, transitive depth, and an honest summary."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app

FILES = {
    "shop/__init__.py": "",
    "shop/orders.py": (
        "class Order:\n"
        "    def total(self):\n"
        "        return 1\n"
        "\n\n"
        "class RushOrder(Order):\n"
        "    def total(self):\n"
        "        return 2\n"
    ),
    "shop/checkout.py": (
        "from shop.orders import Order\n\n\n"
        "def checkout():\n"
        "    order = Order()\n"
        "    return order.total()\n\n\n"
        "def api():\n"
        "    return checkout()\n"
    ),
    # billing/ has no __init__.py: it is an import root of its own, so the module is `invoice`
    "billing/invoice.py": "class Invoice:\n    def total(self):\n        return 3\n",
}


def test_full_name_suffix_and_ambiguous_lookups(make_repo) -> None:
    with Tenure.open(make_repo(FILES), discover=False) as t:
        t.index()
        assert t.find_symbol("shop.orders.Order.total").how == "exact"
        assert t.find_symbol("Order.total").how == "suffix"
        ambiguous = t.find_symbol("total")
        assert ambiguous.how == "ambiguous"
        assert {m.fqn for m in ambiguous.matches} == {
            "shop.orders.Order.total", "shop.orders.RushOrder.total", "invoice.Invoice.total"
        }
        result = t.what_breaks("total")
        assert result["symbol"] is None
        assert "names 3 symbols" in result["summary"]["text"]


def test_dependants_carry_relation_tier_sources_and_location(make_repo) -> None:
    with Tenure.open(make_repo(FILES), discover=False) as t:
        t.index()
        result = t.what_breaks("shop.orders.Order")
        rows = {(d["symbol"], d["relation"]) for d in result["dependants"]}
        assert ("shop.checkout.checkout", "instantiates") in rows
        assert ("shop.orders.RushOrder", "inherits") in rows
        assert ("shop.checkout", "imports") in rows
        for d in result["dependants"]:
            assert set(d) >= {"symbol", "relation", "tier", "sources", "path", "line", "depth", "generated"}
            assert d["sources"] == ["tree-sitter"]
            assert d["tier"] in ("inferred", "ambiguous")


def test_depth_follows_callers_transitively(make_repo) -> None:
    with Tenure.open(make_repo(FILES), discover=False) as t:
        t.index()
        shallow = t.what_breaks("Order.total", depth=1)
        deep = t.what_breaks("Order.total", depth=2)
        assert {d["symbol"] for d in shallow["dependants"] if d["depth"] == 1} >= {"shop.checkout.checkout"}
        assert ("shop.checkout.api", 2) in {(d["symbol"], d["depth"]) for d in deep["dependants"]}


def test_overriding_methods_are_dependants_of_the_base_method(make_repo) -> None:
    with Tenure.open(make_repo(FILES), discover=False) as t:
        t.index()
        result = t.what_breaks("shop.orders.Order.total")
        assert ("shop.orders.RushOrder.total", "overrides") in {
            (d["symbol"], d["relation"]) for d in result["dependants"]
        }
        assert "invoice.Invoice.total" not in {d["symbol"] for d in result["dependants"]}


def test_a_warm_handle_answers_from_the_hierarchy_and_dynamic_sites_as_they_are_now(make_repo) -> None:
    # (both are kept in memory between questions: another process's index must be seen at once)
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        answer = t.what_breaks("shop.orders.Order.total")
        assert {d["symbol"] for d in answer["dependants"] if d["relation"] == "overrides"} == {
            "shop.orders.RushOrder.total"}
        assert answer["summary"]["unresolved_dynamic"] == 0
        (root / "shop/express.py").write_text(
            "from shop.orders import RushOrder\n\n\nclass Express(RushOrder):\n    def total(self):\n"
            "        return 3\n\n\ndef run(order, name):\n    return getattr(Express(), name)()\n")
        with Tenure.open(root, discover=False) as other:
            other.index()
        answer = t.what_breaks("shop.orders.Order.total")
        assert {d["symbol"] for d in answer["dependants"] if d["relation"] == "overrides"} == {
            "shop.orders.RushOrder.total", "shop.express.Express.total"}
        assert answer["summary"]["unresolved_dynamic"] == 1  # getattr on an Express: any member of its hierarchy
        (root / "shop/express.py").unlink()
        t.index()  # this handle's own write
        answer = t.what_breaks("shop.orders.Order.total")
        assert {d["symbol"] for d in answer["dependants"] if d["relation"] == "overrides"} == {
            "shop.orders.RushOrder.total"}
        assert answer["summary"]["unresolved_dynamic"] == 0


def test_summary_says_lower_bound_and_why(make_repo) -> None:
    files = {**FILES, "shop/plugins.py": "def run(obj, name):\n    return getattr(obj, name)()\n"}
    with Tenure.open(make_repo(files), discover=False) as t:
        t.index()
        summary = t.what_breaks("shop.checkout.checkout")["summary"]
        assert summary["lower_bound"] is True
        assert summary["text"].startswith("1 caller (1 inferred)")
        assert summary["text"].endswith("— a lower bound")
        assert summary["by_tier"]["inferred"] == 1
        assert summary["reasons"]


def test_freshness_reports_files_changed_since_the_index(make_repo) -> None:
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        assert t.what_breaks("Order")["freshness"]["files_stale"] == 0
        (root / "shop/orders.py").write_text("class Order:\n    pass\n")
        t._freshness = None  # the freshness cache lives for a couple of seconds
        fresh = t.what_breaks("Order")["freshness"]
        assert fresh["files_stale"] == 1 and fresh["stale_paths"] == ["shop/orders.py"]
        assert "1 file changed since" in fresh["text"]


def test_freshness_reports_source_files_the_index_has_not_seen(make_repo) -> None:
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        (root / "shop/refunds.py").write_text("from shop.orders import Order\n\n\ndef refund():\n    Order()\n")
        (root / "notes.txt").write_text("not source")
        os.mkfifo(root / "shop/pipe.py")  # never indexed: not a file to read
        t._freshness = None
        fresh = t.what_breaks("Order")["freshness"]  # refund() is a dependant this answer cannot see
        assert (fresh["files_new"], fresh["new_paths"]) == (1, ["shop/refunds.py"])
        assert fresh["text"].endswith("1 new file not indexed")


def test_cli_what_breaks_json_has_the_documented_fields(make_repo) -> None:
    root = make_repo(FILES)
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(root)]).exit_code == 0
    out = runner.invoke(app, ["what-breaks", "Order.total", "--repo", str(root), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert set(data) >= {"symbol", "matches", "dependants", "summary", "freshness"}
    assert set(data["summary"]) >= {"by_tier", "lower_bound", "text"}


def test_cli_unknown_symbol_exits_non_zero_with_a_message(make_repo) -> None:
    root = make_repo(FILES)
    runner = CliRunner()
    runner.invoke(app, ["index", str(root)])
    out = runner.invoke(app, ["what-breaks", "NoSuchThing", "--repo", str(root)])
    assert out.exit_code == 1
    assert "no symbol matches 'NoSuchThing'" in out.output


def test_a_name_matching_no_symbol_or_several_is_not_found_not_a_lower_bound(make_repo) -> None:
    """No symbol, no answer to bound: the API and the CLI's JSON say alike what the lookup found."""
    root = make_repo(FILES)
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(root)]).exit_code == 0
    with Tenure.open(root, discover=False) as t:
        for name, text in (("NoSuchThing", "no symbol matches 'NoSuchThing'"), ("total", "names 3 symbols")):
            answer = t.what_breaks(name)
            out = runner.invoke(app, ["what-breaks", name, "--repo", str(root), "--json"])
            assert out.exit_code == 1, name
            for data in (answer, json.loads(out.stdout)):
                summary = data["summary"]
                assert data["symbol"] is None and summary["lower_bound"] is None and summary["reasons"] == [], name
                assert text in summary["text"] and "lower bound" not in summary["text"], name
            assert {k: v for k, v in json.loads(out.stdout).items() if k != "freshness"} == \
                {k: v for k, v in answer.items() if k != "freshness"}


def test_export_pycg_lists_every_function_and_its_callees(make_repo) -> None:
    root = make_repo(FILES)
    with Tenure.open(root, discover=False) as t:
        t.index()
        graph = t.export_pycg()
        assert graph["shop.checkout.api"] == ["shop.checkout.checkout"]
        assert "invoice.Invoice.total" in graph
        assert all(isinstance(v, list) for v in graph.values())


def test_export_pycg_names_every_language_as_the_suites_do(make_repo) -> None:
    files = {
        "main.js": "import { f } from './nested/to_import.js';\nimport { g } from './nested/index.js';\n"
                   "function run() { f(); g(); }\n",
        "nested/to_import.js": "export function f() {}\n",
        "nested/index.js": "export function g() {}\n",
        "src/com/acme/Ledger.java": "package com.acme;\npublic class Ledger {\n  void record() { new Entry(); }\n"
                                    "  static class Entry { Entry() {} }\n}\n",
    }
    with Tenure.open(make_repo(files), discover=False) as t:
        t.index()
        graph = t.export_pycg()
    assert graph["main.run"] == ["nested.g", "nested.to_import.f"]  # a directory's index module is the directory
    assert graph["nested.to_import.f"] == [] and "main" in graph
    assert graph["com.acme.Ledger.record"] == ["com.acme.Ledger$Entry.Entry"]  # javac's names


def test_dynamic_sites_of_another_language_are_not_said_of_its_symbols(make_repo) -> None:
    files = {
        "plugins.py": "def run(obj, name):\n    return getattr(obj, name)()\n",
        "src/com/acme/Ledger.java": "package com.acme;\npublic class Ledger { void record() {} }\n",
        "src/com/acme/Use.java": "package com.acme;\npublic class Use { void go(Ledger l) { l.record(); } }\n",
    }
    with Tenure.open(make_repo(files), discover=False) as t:
        t.index()
        assert t.what_breaks("com.acme.Ledger.record")["summary"]["dynamic_anywhere"] == 0
        assert t.what_breaks("plugins.run")["summary"]["dynamic_anywhere"] == 1


DYNAMIC = {
    "app/__init__.py": "",
    "app/views.py": (
        "class View:\n    def dispatch(self, method):\n        return getattr(self, method)()\n\n\n"
        "class Users(View):\n    def get(self):\n        return 1\n\n\n"
        "class Other:\n    def get(self):\n        return 2\n"
    ),
    "app/events.py": (
        "from importlib import import_module\n\nfrom app import handlers\n\n\n"
        "def fire(event):\n    return getattr(handlers, 'on_' + event)()\n\n\n"
        "def load(name):\n    return import_module(f'app.plugins.{name}')\n\n\n"
        "def run(code):\n    return eval(code)\n"
    ),
    "app/handlers.py": "def on_save():\n    return 1\n\n\ndef helper():\n    return 2\n",
    "app/plugins/__init__.py": "",
    "app/plugins/audit.py": "def start():\n    return 1\n",
}


def test_a_dynamic_site_counts_only_against_what_it_may_reach(make_repo) -> None:
    with Tenure.open(make_repo(DYNAMIC), discover=False) as t:
        t.index()

        def dynamic(symbol: str) -> int:
            return t.what_breaks(symbol)["summary"]["unresolved_dynamic"]

        # getattr(self, m) in View: a member of View's hierarchy, by any name
        assert (dynamic("app.views.Users.get"), dynamic("app.views.View.dispatch"), dynamic("app.views.Other.get")) \
            == (1, 1, 0)
        # getattr(handlers, "on_" + event): a member of that module whose name starts with on_
        assert (dynamic("app.handlers.on_save"), dynamic("app.handlers.helper")) == (1, 0)
        assert dynamic("app.plugins.audit") == 1  # import_module(f"app.plugins.{name}")
        helper = t.what_breaks("app.handlers.helper")["summary"]
        # eval(code) may reach anything: listed once by `tenure status`, not counted in each answer
        assert not any("dynamic" in reason for reason in helper["reasons"])
        assert helper["dynamic_anywhere"] == 1
        # nothing else makes its answer partial: no dependants is no lower bound (flask's `what-breaks conf`)
        assert not helper["lower_bound"]
        assert helper["text"].endswith("— complete as far as the resolver sees (every file that names it resolved, "
                                       "no call site of its name left unlinked), but for 1 dynamic call site that "
                                       "may reach anything")
        status = t.status()["dynamic_anywhere"]
        assert (status["count"], [(s["path"], s["line"]) for s in status["sites"]]) == (1, [("app/events.py", 15)])


def test_status_lists_the_dynamic_sites_that_may_reach_anything(make_repo) -> None:
    root = make_repo(DYNAMIC)
    runner = CliRunner()
    runner.invoke(app, ["index", str(root)])
    out = runner.invoke(app, ["status", "--repo", str(root)])
    assert out.exit_code == 0
    assert "app/events.py:15  eval(code)" in out.output


def test_a_name_shared_by_more_symbols_than_are_listed_says_how_many(make_repo) -> None:
    root = make_repo({f"m{i}.py": "def f():\n    pass\n" for i in range(60)})
    with Tenure.open(root, discover=False) as t:
        t.index()
        lookup = t.find_symbol("f")
        assert (lookup.how, len(lookup.matches), lookup.total) == ("ambiguous", 50, 60)
        assert lookup.message().startswith("'f' names 60 symbols (the first 50 listed)")
        assert t.find_symbol(".f").total == 60  # a suffix written with its dot


HOOKS = {
    "app/__init__.py": "",
    "app/scaffold.py": "class Scaffold:\n    def before_request(self, f):\n        return f\n",
    "app/blueprint.py": "class Hooks:\n    def before_request(self, f):\n        return f\n",
    # a pytest fixture's parameter: nothing says what `app` is
    "tests/test_hooks.py": "def test_one(app):\n    @app.before_request\n    def hook():\n        pass\n",
    # an object of the project that lacks the member (it answers through __getattr__): no target found
    "app/proxy.py": (
        "class Proxy:\n    def __getattr__(self, name):\n        return print\n\n\n"
        "proxy = Proxy()\n\n\n"
        "def use():\n    proxy.before_request(print)\n\n\n"
        "def again():\n    proxy.before_request(print)\n"
    ),
}


def test_a_decorator_on_a_receiver_of_unknown_type_may_be_every_method_of_its_name(make_repo) -> None:
    with Tenure.open(make_repo(HOOKS), discover=False) as t:
        t.index()
        for method in ("app.scaffold.Scaffold.before_request", "app.blueprint.Hooks.before_request"):
            callers = {d["symbol"]: d for d in t.what_breaks(method)["dependants"]}
            assert callers["test_hooks.test_one"]["tier"] == "ambiguous"
            assert callers["test_hooks.test_one"]["line"] == 2


def test_call_sites_of_its_name_linked_to_no_target_count_against_the_coverage_and_are_said(make_repo) -> None:
    with Tenure.open(make_repo(HOOKS), discover=False) as t:
        t.index()
        summary = t.what_breaks("app.scaffold.Scaffold.before_request")["summary"]
    assert summary["unlinked_by_name"] == 2  # the proxy's two calls: any of them may reach it
    assert (summary["coverage"]["in_scope"], summary["coverage"]["unlinked"]) == (3, 2)  # sites, not edges
    assert "2 call sites of its name linked to no target" in summary["text"]
    assert summary["lower_bound"]
    assert any("2 call sites of .before_request() are linked to no target" in r for r in summary["reasons"])


CALLERS = {
    "lib.py": "def route(rule):\n    return rule\n",
    "views.py": "from lib import route\n\n\ndef setup():\n    route('/')\n    route('/a')\n    route('/b')\n",
    "more.py": "from lib import route\n" + "".join(f"\n\ndef f{i}():\n    route('/{i}')\n" for i in range(3)),
}


def test_callers_are_listed_once_with_their_sites_after_the_summary_and_the_rows_are_capped(make_repo) -> None:
    root = make_repo(CALLERS)
    runner = CliRunner()
    runner.invoke(app, ["index", str(root)])
    out = runner.invoke(app, ["what-breaks", "lib.route", "--repo", str(root)]).output
    summary = "4 callers (6 sites, all inferred)"
    assert summary in out and out.index(summary) < out.index("views.setup")  # the summary first
    assert [line for line in out.splitlines() if "views.setup" in line][0].split("│")[-3:-1] == [
        " 3     ", " views.py:5, 6, 7 "]  # one row: three sites and their lines
    capped = runner.invoke(app, ["what-breaks", "lib.route", "--limit", "2", "--repo", str(root)]).output
    assert "… 4 more dependants (--all lists them; --json gives every site)" in capped  # 4 callers, 2 importers
    assert sum("│ 1     │" in line for line in capped.splitlines()) == 2
    every = runner.invoke(app, ["what-breaks", "lib.route", "--limit", "2", "--all", "--repo", str(root)]).output
    assert sum("│ 1     │" in line for line in every.splitlines()) == 6 and "more dependants" not in every
    data = json.loads(runner.invoke(app, ["what-breaks", "lib.route", "--json", "--repo", str(root)]).output)
    assert len(data["dependants"]) == 8  # JSON keeps every site
    assert (data["summary"]["direct"], data["summary"]["sites"], data["summary"]["by_relation"]) == (
        6, 8, {"calls": 4, "imports": 2})


INHERITED = {
    "src/flask/__init__.py": "from flask.app import Flask\n",
    # sansio/ has no __init__.py: a namespace package of flask, named from flask's import root
    "src/flask/sansio/scaffold.py": "class Scaffold:\n    def route(self, rule):\n        return rule\n",
    "src/flask/sansio/app.py": "from flask.sansio.scaffold import Scaffold\n\n\nclass App(Scaffold):\n    pass\n",
    "src/flask/app.py": "from flask.sansio.app import App\n\n\nclass Flask(App):\n    pass\n",
    "tests/test_app.py": "from flask import Flask\n\n\ndef test_route():\n    Flask().route('/')\n",
}


def test_a_package_without_init_inside_a_package_is_named_from_the_import_root(make_repo) -> None:
    with Tenure.open(make_repo(INHERITED), discover=False) as t:
        t.index()
        modules = {r["fqn"] for r in t.db.query("SELECT fqn FROM symbols WHERE kind = 'module'")}
    assert {"flask.sansio.app", "flask.sansio.scaffold", "flask.app", "test_app"} <= modules
    assert not {"app", "scaffold"} & modules


def test_an_inherited_member_is_found_through_the_class_hierarchy_and_says_where_it_is_defined(make_repo) -> None:
    root = make_repo(INHERITED)
    with Tenure.open(root, discover=False) as t:
        t.index()
        lookup = t.find_symbol("Flask.route")
        assert (lookup.how, [(m.fqn, m.member_of) for m in lookup.matches]) == (
            "inherited", [("flask.sansio.scaffold.Scaffold.route", "flask.app.Flask")])
        assert lookup.message() == ("flask.app.Flask.route is inherited: defined as "
                                    "flask.sansio.scaffold.Scaffold.route (src/flask/sansio/scaffold.py:2)")
        assert t.what_breaks("Flask.route")["symbol"] == "flask.sansio.scaffold.Scaffold.route"
    out = CliRunner().invoke(app, ["find", "Flask.route", "--repo", str(root)])
    assert out.exit_code == 0 and "is inherited: defined as flask.sansio.scaffold.Scaffold.route" in out.output


@pytest.mark.parametrize(("glob", "reached"), [
    ("pay.Ledger.post", True), ("pay.Ledger.po", False),  # a name
    ("pay.Ledger.*", True), ("pay.Led*", True), ("pay.Ledger2.*", False),  # a prefix
    ("*.post", True), ("*.pos", False), ("*.Ledger.*", True), ("pay.*.post", True), ("pay.*.get", False),
    ("p*t", True), ("q*t", False), ("p*x", False), ("pay.*Book*", True), ("*Ledger", True), ("*o*k", False),
])
def test_a_dynamic_sites_glob_reaches_the_names_it_spells(glob: str, reached: bool) -> None:
    from tenure.structural.graph import DynamicSite

    site = DynamicSite("pay.run", "pay.py", 3, "getattr", (glob,))
    assert site.reaches(["pay.Ledger", "pay.Ledger.post", "pay.Book.post"]) is reached


def test_what_breaks_reads_the_edges_through_indexes_never_the_whole_table(make_repo) -> None:
    # (SQLite plans by the schema alone here, as on Django's 277,000 edges: a plan that walks every edge,
    # or all of an index over them, costs there what no answer should, 50 to 200 ms)
    with Tenure.open(make_repo({**FILES, **DYNAMIC}), discover=False) as t:
        t.index()
        statements: list[tuple[str, tuple]] = []
        query, rows = t.db.query, t.db.rows

        def recorded(read):
            def read_and_record(sql: str, params: tuple = ()) -> list:
                statements.append((sql, tuple(params)))
                return read(sql, params)
            return read_and_record

        t.db.query, t.db.rows = recorded(query), recorded(rows)  # type: ignore[method-assign]
        for symbol in ("shop.orders.Order.total", "shop.orders.Order", "app.views.View.dispatch", "app.handlers"):
            t.what_breaks(symbol)
        t.db.query, t.db.rows = query, rows  # type: ignore[method-assign]
        plans = {sql: [r["detail"] for r in t.db.query("EXPLAIN QUERY PLAN " + sql, params)]
                 for sql, params in statements if " edges" in sql}
    assert plans
    for sql, plan in plans.items():
        for step in plan:
            assert not (step.startswith("SCAN") and " edges" in step and "edges_supertypes" not in step), (sql, plan)
            assert "(dst_fqn>?)" not in step, (sql, plan)
            assert not ("dst_fqn IS NULL" in sql and "INDEX edges_dst " in step), (sql, plan)  # every unlinked edge
            assert "edges_file" not in step, (sql, plan)  # every edge of whole files


def test_the_summary_counts_dependants_by_relation_in_a_stated_order_not_the_hash_seeds() -> None:
    from tenure.namespace.lookup import Lookup
    from tenure.namespace.tiers import Relation
    from tenure.structural.impact import Dependant, Impact

    stated = ["calls", "instantiates", "inherits", "implements", "imports", "references", "overrides"]
    assert [r.value for r in Relation][:len(stated)] == stated
    dependants = [Dependant(f"m.user{i}", relation, "resolved", [], "m.py", i, 1, "m.f")
                  for i, relation in enumerate(reversed(stated + ["zz-other", "aa-other"]))]
    summary = Impact("m.f", Lookup("m.f", "exact", []), dependants).summary()
    assert list(summary["by_relation"]) == stated + ["aa-other", "zz-other"]
