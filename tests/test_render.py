"""Render details that the golden tree shows but does not explain."""

from __future__ import annotations

from pathlib import Path

from toolgen_runtime import FieldHint, hints_from_schema

from toolgen import pipeline
from toolgen.render.modules import examples_of, render_tool_module

GOLDEN = Path(__file__).parent / "golden" / "kitchen_sink"


def test_array_items_share_their_hint_with_the_array() -> None:
    result = pipeline.check_catalogue(
        GOLDEN / "spec/kitchen", GOLDEN, implementations=False
    )
    assert result.catalogue is not None
    tool = result.catalogue.tool("plan_shipment")
    assert tool is not None
    hints = hints_from_schema(tool.parameters, examples_of(tool))
    # the runtime looks hints up without list indexes: labels.1 -> labels
    assert hints["labels"] == FieldHint(one_of=("cold", "heavy"), nullable=True)
    assert "parcels.weight_kg" not in hints  # nothing to tell there


def test_patterns_are_translated_for_python_but_shown_as_written() -> None:
    result = pipeline.check_catalogue(
        GOLDEN / "spec/kitchen", GOLDEN, implementations=False
    )
    assert result.catalogue is not None
    tool = result.catalogue.tool("plan_shipment")
    assert tool is not None
    text = render_tool_module(result.catalogue, tool)
    assert 'Field(pattern="(?a)^WH-[0-9]{2}\\\\Z", alias="from")' in text
    assert (
        tool.parameters["properties"]["from"]["pattern"] == "^WH-[0-9]{2}$"
    )  # as seen
    assert (
        '"from": "WH-01"' in text
    )  # the example the model is shown when it is rejected
    hints = hints_from_schema(tool.parameters, examples_of(tool))
    assert hints["from"] == FieldHint(example="WH-01", pattern="^WH-[0-9]{2}$")
