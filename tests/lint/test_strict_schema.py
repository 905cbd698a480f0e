"""The exposed schema always has OpenAI's strict-mode shape.

Every property required, `additionalProperties: false`, no `allOf`/`not`/`if`..., only the
keywords strict mode supports: the spec format cannot express anything else, so these are
guarantees of toolschema, tested here, rather than lint rules that could never fire. The
strict-mode *limits* (properties, nesting, enum values, size) depend on the spec and are rules
(TG508, TG510-TG512).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from lint_cases import CASES, Case
from lint_fixtures import write

from toolgen.build import pipeline
from toolgen.spec.ir import Tool

ROOT = Path(__file__).resolve().parents[2]
SUPPORTED = {
    "type", "description", "enum", "properties", "required", "additionalProperties", "items",
    "anyOf", "pattern", "format", "minimum", "maximum", "minItems", "maxItems",
}  # fmt: skip
FORMATS = {"date", "date-time"}


def _objects(schema: Mapping[str, object]) -> Iterator[Mapping[str, object]]:
    """The schema and every sub-schema in it."""
    yield schema
    properties = schema.get("properties")
    subs = list(properties.values()) if isinstance(properties, dict) else []
    subs.append(schema.get("items"))
    branches = schema.get("anyOf")
    subs.extend(branches if isinstance(branches, list) else [])
    for sub in subs:
        if isinstance(sub, dict):
            yield from _objects(sub)


def _assert_strict(tool: Tool) -> None:
    for node in _objects(tool.parameters):
        assert set(node) <= SUPPORTED, (tool.name, set(node) - SUPPORTED)
        if "properties" in node:
            props = node["properties"]
            assert isinstance(props, dict)
            assert node["required"] == list(props), tool.name
            assert node["additionalProperties"] is False, tool.name
        if "format" in node:
            assert node["format"] in FORMATS


def _tools(folder: Path, root: Path) -> tuple[Tool, ...]:
    result = pipeline.check_catalogue(folder, root, implementations=False)
    assert result.catalogue is not None
    return result.catalogue.tools


def test_example_and_bad_catalogues_expose_strict_schemas() -> None:
    tools = _tools(ROOT / "spec" / "inventory", ROOT)
    tools += _tools(ROOT / "tests" / "fixtures" / "bad_catalogue", ROOT)
    assert (
        len(tools) == 12 + 33
    )  # the example (with the derived prepare_order) and the bad one
    for tool in tools:
        _assert_strict(tool)


SMALL_CASES = [c for c in CASES if c.rule not in {"TG510", "TG511", "TG512", "TG952"}]


@pytest.mark.parametrize("case", SMALL_CASES, ids=[c.id for c in SMALL_CASES])
def test_every_fixture_exposes_strict_schemas(case: Case, tmp_path: Path) -> None:
    folder, _ = write(tmp_path, case.good_files())
    for tool in _tools(folder, tmp_path):
        _assert_strict(tool)
