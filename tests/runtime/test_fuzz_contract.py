"""The fuzzer's oracle: the contract read as JSON Schema means it, not as Python would.

If the oracle shared a mistake with the generated validator, the fuzz could not see it; these
cases pin where the two readings differ.
"""

from __future__ import annotations

import sys

import pytest
from toolgen_runtime.fuzz.contract import (
    Contract,
    is_date_time,
    is_full_date,
    read_arguments,
)

SKU = Contract(
    {
        "type": "object",
        "properties": {
            "sku": {"type": "string", "pattern": "^SKU-\\d{2,6}$"},
            "quantity": {"type": "integer", "minimum": 1},
            "weight": {"type": ["number", "null"]},
            "choice": {"type": "integer", "enum": [1, 2, 3]},
        },
        "required": ["sku", "quantity", "weight", "choice"],
        "additionalProperties": False,
    }
)
GOOD = {"sku": "SKU-11", "quantity": 1, "weight": None, "choice": 1}


@pytest.mark.parametrize(
    ("change", "allowed"),
    [
        ({}, True),
        ({"sku": "SKU-11\n"}, False),  # Python's $ would take the newline
        (
            {"sku": "SKU-\u0661\u0661"},
            False,
        ),  # Python's \d would take Arabic-Indic digits
        ({"sku": "xSKU-11"}, False),
        ({"quantity": True}, False),  # True == 1 in Python
        ({"quantity": 1.0}, False),  # JSON Schema itself would take 1.0 as an integer
        ({"choice": True}, False),
        ({"choice": 1.0}, False),
        ({"weight": float("nan")}, False),
        ({"weight": float("inf")}, False),
        ({"weight": 3}, True),
        ({"weight": 2.5}, True),
    ],
)
def test_what_the_contract_allows(change: dict[str, object], allowed: bool) -> None:
    assert SKU.allows({**GOOD, **change}) is allowed


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2026-10-09", True),
        ("2024-02-29", True),
        ("2023-02-29", False),
        ("2026-1-9", False),
        ("20261009", False),
        ("0000-01-01", False),  # RFC 3339 has year 0; Python's date does not
        ("2026-10-09T00:00:00Z", False),
        ("\uff12026-10-09", False),
    ],
)
def test_full_date(text: str, valid: bool) -> None:
    assert is_full_date(text) is valid


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2026-10-09T14:30:00+02:00", True),
        ("2026-10-09t14:30:00z", True),  # RFC 3339 allows lower case
        ("2026-10-09T14:30:00.123456789Z", True),
        ("2026-10-09T14:30:00", False),  # no offset
        ("2026-10-09T14:30Z", False),  # no seconds
        ("2026-10-09 14:30:00Z", False),
        ("2026-10-09T23:59:60Z", False),  # a leap second Python's datetime cannot hold
        ("2026-10-09T14:30:00+0200", False),
        ("2026-10-09T24:00:00Z", False),
    ],
)
def test_date_time(text: str, valid: bool) -> None:
    assert is_date_time(text) is valid


@pytest.mark.parametrize(
    ("raw", "refusal"),
    [
        ('{"a": 1}', None),
        ('{"a": 1, "a": 1}', "a key is given twice in one object"),
        ('{"a": NaN}', "not JSON"),
        ('{"a": "\\ud800"}', "a string holds a lone surrogate"),
        ('{"a": ' + "[" * 200 + "]" * 200 + "}", None),
        (
            '{"a": ' + "[" * 201 + "]" * 201 + "}",
            "nested deeper than the runtime reads",
        ),
        ("\ufeff{}", "not JSON"),
    ],
)
def test_reading_argument_text(raw: str, refusal: str | None) -> None:
    reading = read_arguments(raw)
    if refusal is None:
        assert reading.parsed
    else:
        assert reading.refused is not None and reading.refused.startswith(refusal)


def test_without_the_testing_extra_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolgen_runtime.fuzz import fuzz_tool

    for name in list(sys.modules):
        if name.startswith(("toolgen_runtime.fuzz.", "hypothesis")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # what a missing package does
    with pytest.raises(ImportError, match=r"toolgen-runtime\[testing\]"):
        fuzz_tool(lambda implementation: None, {}, context=None)  # type: ignore[arg-type,return-value]


def test_the_sweep_starts_from_the_same_valid_arguments_on_every_run() -> None:
    # hypothesis's first value, not shrunk: deterministic, and valid for the contract
    from toolgen_runtime.fuzz.outcomes import simplest
    from toolgen_runtime.fuzz.values import values_for

    schema = SKU.schema
    first = simplest(values_for(schema))
    assert first == simplest(values_for(schema))
    assert SKU.allows(first)


def test_the_sweep_reaches_the_fields_inside_array_items() -> None:
    """Its valid arguments hold an item in every array that may hold one, so every field
    of the items is mutated too (with empty arrays, only random cases reached them)."""
    from toolgen_runtime.fuzz.outcomes import simplest
    from toolgen_runtime.fuzz.texts import sweep
    from toolgen_runtime.fuzz.values import values_for

    line = {
        "type": "object",
        "properties": {"qty": {"type": "integer", "minimum": 1}},
        "required": ["qty"],
        "additionalProperties": False,
    }
    schema = {
        "type": "object",
        "properties": {
            "lines": {"type": "array", "items": line, "maxItems": 5},
            "none": {"type": "array", "items": line, "maxItems": 0},
        },
        "required": ["lines", "none"],
        "additionalProperties": False,
    }
    base = simplest(values_for(schema, filled=True))
    assert base == {"lines": [{"qty": 1}], "none": []}
    assert Contract(schema).allows(base)
    fields = {case.field for case in sweep(schema, base)}
    assert ("lines", 0, "qty") in fields


def test_one_value_enums_and_whole_numbers_are_drawn_as_a_tool_holds_them() -> None:
    """pydantic writes an enum of one value as `const` (met on Resend's record.type), and a
    `number` is a float: the fuzzer drew 2**53 + 1 for chrome-devtools-mcp's pageId, which
    came back as 2**53, a promise broken that the contract never made."""
    from hypothesis import given, settings
    from toolgen_runtime.fuzz.outcomes import simplest
    from toolgen_runtime.fuzz.values import values_for

    assert simplest(values_for({"const": "TXT", "type": "string"})) == "TXT"

    @settings(max_examples=300, database=None)
    @given(values_for({"type": "number"}))
    def held_exactly(value: float) -> None:
        assert float(value) == value

    held_exactly()
