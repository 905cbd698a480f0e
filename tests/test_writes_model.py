"""The compiler side of tools that write (issue 9): what the IR says for an idempotency key
and a token contract, on the example catalogue (its other cases are the spec.md examples and
tests/corpus/model_writes)."""

from __future__ import annotations

from pathlib import Path

from loading import tool_named

from toolgen.build import pipeline
from toolgen.spec.ir import Catalogue, Tool

ROOT = Path(__file__).resolve().parent.parent


def inventory() -> Catalogue:
    result = pipeline.check_catalogue(ROOT / "spec" / "inventory", ROOT)
    assert result.catalogue is not None
    return result.catalogue


def tool(name: str) -> Tool:
    return tool_named(inventory(), name)


def test_an_idempotency_key_keeps_its_arguments_context_and_retention() -> None:
    declared = tool("send_order").idempotency
    assert (declared.kind, declared.arguments, declared.context) == (
        "key",
        ("order_ref",),
        ("run_id",),
    )
    assert declared.retention_s == 7 * 86400


def test_a_token_contract_is_the_confirm_tool_and_makes_its_prepare_tool() -> None:
    confirm, prepare = tool("confirm_order"), tool("prepare_order")
    assert (confirm.role, prepare.role) == ("confirm", "prepare")
    assert confirm.token_pair == prepare.token_pair
    assert confirm.token_pair is not None
    assert confirm.token_pair.identity == ("customer_id",)
    assert prepare.derived and not confirm.derived
    assert prepare.file == confirm.file
    assert prepare.params == confirm.params and prepare.context == confirm.context
    assert prepare.effect == "read" and prepare.errors == ()
    assert [f.name for f in prepare.returns] == ["token", "summary", "expires_in_s"]
    assert list(confirm.parameters["properties"]) == ["sku", "quantity", "token"]  # type: ignore[call-overload]
    assert "token" not in prepare.parameters["properties"]  # type: ignore[operator]


def test_the_example_catalogue_has_no_write_findings_and_no_suppressions() -> None:
    result = pipeline.check_catalogue(ROOT / "spec" / "inventory", ROOT)
    assert [d for d in result.diagnostics if d.code.startswith("TG7")] == []
    writes = [t for t in inventory().tools if t.effect != "read"]
    assert {t.name for t in writes} >= {"send_order", "confirm_order", "cancel_order"}
    assert all(not t.suppressions for t in writes)


def test_a_prepare_tool_gets_no_stub() -> None:
    assert not (ROOT / "impl" / "inventory" / "prepare_order.py").exists()
    assert (ROOT / "impl" / "inventory" / "confirm_order.py").exists()
