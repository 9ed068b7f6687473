"""The fifteen-minute check (issue 6, point 5): a Java shop compiled with javac, its beans file from
the prod profile, and what-breaks on the interface every payment goes through."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenure import Tenure
from tenure.cli import app
from tests.conftest import FIXTURES

JVM = FIXTURES / "jvm"
pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="javac missing: .ci/run installs openjdk-17")


def compile_into(repo: Path, *source_roots: Path) -> None:
    sources = [str(p) for root in source_roots for p in sorted(root.rglob("*.java"))]
    subprocess.run(["javac", "-d", str(repo / "target" / "classes"), *sources], check=True, capture_output=True)


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop's sources; its target/classes also holds what only a build produced (a generated
    gateway, a CGLIB proxy), whose sources stay outside the repository. Compiled once per module."""
    repo = tmp_path_factory.mktemp("jvm") / "shop"
    shutil.copytree(JVM / "shop", repo)
    compile_into(repo, repo / "src", JVM / "generated_src")
    assert not list(repo.rglob("GeneratedLedgerGateway.java"))
    return repo


@pytest.fixture(scope="module")
def impact(shop: Path) -> dict:
    with Tenure.open(shop, discover=False) as t:
        t.index()
        return t.what_breaks("PaymentGateway.charge", depth=2)


def direct(impact: dict, relation: str) -> dict[str, dict]:
    return {d["symbol"]: d for d in impact["dependants"] if d["depth"] == 1 and d["relation"] == relation}


def test_every_implementer_is_listed_including_generated_and_proxy_classes(impact: dict) -> None:
    implementers = direct(impact, "overrides")
    assert set(implementers) == {f"com.acme.pay.{name}.charge" for name in (
        "StripeGateway", "AdyenGateway", "PaypalGateway", "KlarnaGateway", "GeneratedLedgerGateway",
        "StripeGateway$$SpringCGLIB$$0")}
    assert implementers["com.acme.pay.GeneratedLedgerGateway.charge"]["generated"]
    assert implementers["com.acme.pay.StripeGateway$$SpringCGLIB$$0.charge"]["generated"]
    assert not implementers["com.acme.pay.AdyenGateway.charge"]["generated"]


def test_callers_through_the_interface_are_resolved_by_bytecode(impact: dict) -> None:
    callers = direct(impact, "calls")
    assert set(callers) == {"com.acme.pay.CheckoutService.checkout", "com.acme.pay.InvoiceService.invoice",
                            "com.acme.pay.RefundService.refund",
                            "com.acme.pay.BatchCharger.chargeAll"}  # the last through a method reference
    assert all(c["tier"] == "resolved" and "bytecode" in c["sources"] for c in callers.values())
    assert "tree-sitter" in callers["com.acme.pay.RefundService.refund"]["sources"]  # confirmed, not duplicated


def test_the_direct_caller_of_one_implementation_is_listed(impact: dict) -> None:
    bill = [d for d in impact["dependants"] if d["symbol"] == "com.acme.pay.DirectBilling.bill"]
    assert [(d["via"], d["tier"]) for d in bill] == [("com.acme.pay.AdyenGateway.charge", "resolved")]


def test_the_wired_implementation_is_named_from_the_beans_file_with_its_profile(impact: dict) -> None:
    callers = direct(impact, "calls")
    for wired in ("com.acme.pay.CheckoutService.checkout", "com.acme.pay.InvoiceService.invoice"):  # field, constructor
        assert "di" in callers[wired]["sources"] and callers[wired]["contexts"] == ["prod"]
        assert "com.acme.pay.StripeGateway.charge" in callers[wired]["detail"]
    stripe = direct(impact, "overrides")["com.acme.pay.StripeGateway.charge"]
    assert "di" in stripe["sources"] and stripe["contexts"] == ["prod"]


def test_the_unrelated_same_named_method_is_not_listed(impact: dict) -> None:
    assert not [d for d in impact["dependants"] if "power" in d["symbol"]]


def test_summary_is_a_lower_bound_counting_generated_methods_dispatches_and_the_dynamic_site(impact: dict) -> None:
    summary = impact["summary"]
    assert summary["generated"] == 2
    assert summary["unresolved_dynamic"] == 1  # Class.forName(name).getMethod("charge").invoke(…): any charge
    assert summary["unresolved_dispatch"] == 2  # RefundService and BatchCharger: no wiring picks the gateway
    assert summary["lower_bound"]
    assert re.fullmatch(
        r"4 callers \(4 resolved\), 6 implementers \(6 resolved\); \d+ more up to depth 2, "
        r"2 unresolved interface dispatches, 2 generated methods, 1 dynamic call site that may reach it; "
        r"not enriched \(no language server ran\) — a lower bound",
        summary["text"],
    ), summary["text"]


def test_the_reflective_call_counts_only_against_methods_of_the_name_it_looked_up(shop: Path, impact: dict) -> None:
    with Tenure.open(shop, discover=False) as t:
        other = t.what_breaks("com.acme.pay.CheckoutService.checkout")["summary"]
    assert (other["unresolved_dynamic"], other["dynamic_anywhere"]) == (0, 0)


def test_the_cli_shows_the_profile_of_wired_edges_and_the_lower_bound(shop: Path, impact: dict) -> None:
    result = CliRunner().invoke(app, ["what-breaks", "PaymentGateway.charge", "--repo", str(shop)])
    assert result.exit_code == 0
    wired = [line for line in result.output.splitlines() if "CheckoutService.checkout" in line]
    assert wired and "[prod]" in wired[0]
    assert ("2 unresolved interface dispatches, 2 generated methods, 1 dynamic call site that may reach it; "
            "not enriched (no language server ran) — a lower bound") in " ".join(result.output.split())
