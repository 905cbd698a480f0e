"""Cards, tools made from them, and the hints read from the schema the model sees."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from toolgen_runtime import Card, FieldHint, hints_from_schema, lazy_tool
from toolgen_runtime.testing import invoke

SCHEMA = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "pattern": "^SKU-\\d{2,6}$"},
        "status": {"type": ["string", "null"], "enum": ["open", "shipped", None]},
        "codes": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"weight_kg": {"type": ["number", "null"]}},
            },
        },
        "count": {"type": "integer"},
        "tags": {
            "anyOf": [
                {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
                {"type": "null"},
            ]
        },
    },
}


def test_hints_say_what_the_schema_says() -> None:
    hints = hints_from_schema(SCHEMA, {"sku": "SKU-11"})
    assert hints == {
        "sku": FieldHint(example="SKU-11", pattern="^SKU-\\d{2,6}$"),
        "status": FieldHint(one_of=("open", "shipped"), nullable=True),
        "codes": FieldHint(
            one_of=("a", "b")
        ),  # the items' choices, at the array's path
        "lines.weight_kg": FieldHint(nullable=True),
        # a nullable array in strict mode: anyOf with a null branch
        "tags": FieldHint(pattern="^[a-z]+$", nullable=True),
    }


def test_a_tool_from_its_card_imports_its_module_on_the_first_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "carded_tool.py").write_text(
        textwrap.dedent(
            """
            import json
            from agents import FunctionTool

            CALLS = []

            async def on_invoke(ctx, raw):
                CALLS.append(raw)
                return json.dumps({"ok": True})

            TOOL = FunctionTool(
                name="t", description="d", params_json_schema={}, on_invoke_tool=on_invoke
            )
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    strict = {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    card = Card("t", "A tool.", strict)
    tool = lazy_tool(card, "carded_tool")
    assert (tool.name, tool.description, tool.params_json_schema) == (
        "t",
        "A tool.",
        card.parameters,
    )
    assert "carded_tool" not in sys.modules
    assert invoke(tool, {}, None) == {"ok": True}
    assert sys.modules["carded_tool"].CALLS == ["{}"]
    invoke(tool, {"a": 1}, None)
    assert sys.modules["carded_tool"].CALLS == ["{}", '{"a": 1}']
