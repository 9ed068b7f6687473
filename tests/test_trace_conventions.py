"""The semantic-convention knowledge the trace mapper relies on, spelled as the runtimes spell it."""

from __future__ import annotations

import pytest

from tenure.structural.traces.conventions import SpanKind, messaging_role, normalize_function, normalize_route


@pytest.mark.parametrize(("as_reported", "as_named"), [
    ("shop.orders.api.outer.<locals>.inner", "shop.orders.api.outer.inner"),  # Python __qualname__
    ("example.com/pay/settlement.(*Service).Retry", "example.com/pay/settlement.Service.Retry"),  # Go
    ("crate::util::DateUtil::format", "crate.util.DateUtil.format"),  # Rust, C++, PHP
    ("Billing::Invoice#total", "Billing.Invoice.total"),  # Ruby
    ("com.acme.pay.Outer$Inner.process", "com.acme.pay.Outer$Inner.process"),  # Java: already our spelling
])
def test_function_names_are_rewritten_to_the_namespace_spelling(as_reported, as_named):
    assert normalize_function(as_reported) == as_named


@pytest.mark.parametrize("route", ["/orders/{order_id}", "/orders/<int:order_id>", "/orders/:orderId",
                                   "/orders/{id:int}/", "/orders/{order_id}?expand=1"])
def test_route_parameters_in_every_framework_spelling_compare_equal(route):
    assert normalize_route(route) == "/orders/{}"


def test_the_messaging_role_comes_from_either_operation_attribute_or_else_the_span_kind():
    assert messaging_role(SpanKind.INTERNAL, "publish") == "produce"
    assert messaging_role(SpanKind.CLIENT, "send") == "produce"
    assert messaging_role(SpanKind.INTERNAL, "deliver") == "consume"
    assert messaging_role(SpanKind.CONSUMER, None) == "consume"
    assert messaging_role(SpanKind.PRODUCER, None) == "produce"
    assert messaging_role(SpanKind.SERVER, None) == ""
