"""Render details that the golden tree shows but does not explain."""

from __future__ import annotations

from pathlib import Path

from toolgen import pipeline
from toolgen.render import render_tool_module

GOLDEN = Path(__file__).parent / "golden" / "kitchen_sink"


def test_array_items_share_their_hint_with_the_array() -> None:
    result = pipeline.check_catalogue(
        GOLDEN / "spec/kitchen", GOLDEN, implementations=False
    )
    assert result.catalogue is not None
    tool = result.catalogue.tool("plan_shipment")
    assert tool is not None
    text = render_tool_module(result.catalogue, tool)
    # the runtime looks hints up without list indexes: labels.1 -> labels
    assert '"labels": FieldHint(one_of=("cold", "heavy"), nullable=True),' in text
    assert '"parcels.weight_kg": FieldHint(' not in text  # nothing to tell there


def test_patterns_are_translated_for_python_but_shown_as_written() -> None:
    result = pipeline.check_catalogue(
        GOLDEN / "spec/kitchen", GOLDEN, implementations=False
    )
    assert result.catalogue is not None
    tool = result.catalogue.tool("plan_shipment")
    assert tool is not None
    text = render_tool_module(result.catalogue, tool)
    assert 'Field(pattern="(?a)^WH-[0-9]{2}\\\\Z", alias="from")' in text
    assert '"pattern": "^WH-[0-9]{2}$"' in text  # the schema the model sees
    assert 'FieldHint(example="WH-01", pattern="^WH-[0-9]{2}$")' in text
