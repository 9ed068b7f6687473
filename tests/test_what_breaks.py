"""what-breaks: dependants with tiers and sources, transitive depth, and an honest summary."""

from __future__ import annotations

import json
import os

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
        assert "1 files changed since" in fresh["text"]


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
        assert fresh["text"].endswith("1 new files not indexed")


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


def test_dynamic_sites_of_another_language_do_not_widen_the_lower_bound(make_repo) -> None:
    files = {
        "plugins.py": "def run(obj, name):\n    return getattr(obj, name)()\n",
        "src/com/acme/Ledger.java": "package com.acme;\npublic class Ledger { void record() {} }\n",
        "src/com/acme/Use.java": "package com.acme;\npublic class Use { void go(Ledger l) { l.record(); } }\n",
    }
    with Tenure.open(make_repo(files), discover=False) as t:
        t.index()
        assert t.what_breaks("com.acme.Ledger.record")["summary"]["unresolved_dynamic"] == 0
        assert t.what_breaks("plugins.run")["summary"]["unresolved_dynamic"] == 1


def test_a_name_shared_by_more_symbols_than_are_listed_says_how_many(make_repo) -> None:
    root = make_repo({f"m{i}.py": "def f():\n    pass\n" for i in range(60)})
    with Tenure.open(root, discover=False) as t:
        t.index()
        lookup = t.find_symbol("f")
        assert (lookup.how, len(lookup.matches), lookup.total) == ("ambiguous", 50, 60)
        assert lookup.message().startswith("'f' names 60 symbols (the first 50 listed)")
        assert t.find_symbol(".f").total == 60  # a suffix written with its dot
