"""The contract holds at its edges (issue 33): numbers JSON cannot hold, a keyset cursor too
long to come back, a date-time without its offset, and a write tool's answer."""

from __future__ import annotations

import datetime
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import Field, ValidationError
from recording import recording_tool
from test_guard_harness import guarded_tool
from toolgen_runtime import (
    ContractViolation,
    StrictArgs,
    result_class,
)
from toolgen_runtime.guards import Boundaries
from toolgen_runtime.pagination import (
    MAX_SORT_KEY_BYTES,
    MAX_TOOL_NAME_CHARS,
    Cursor,
    Keyset,
    Page,
    Pagination,
    after_key,
)
from toolgen_runtime.signing import MAX_SIGNED_LENGTH, Signer
from toolgen_runtime.testing import Recorder, invoke, invoke_raw

# --- numbers: NaN, Infinity and 1e999 are not JSON numbers ----------------------------------


class Reading(StrictArgs):
    celsius: float
    weights_kg: list[float]


class Measure(StrictArgs):
    value: float
    bounded: Annotated[float | None, Field(ge=0, le=100)]
    reading: Reading
    readings: list[Reading]


@result_class
class Measured:
    done: bool


def measure_tool(recorder: Recorder) -> Any:
    return recording_tool("measure", Measure, Measured, recorder)


def measure_text(**replaced: str) -> str:
    fields = {
        "value": "1.5",
        "bounded": "null",
        "reading": '{"celsius": 20.0, "weights_kg": [1.0]}',
        "readings": '[{"celsius": 20.0, "weights_kg": [1.0, 2.0]}]',
        **replaced,
    }
    return "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}"


NOT_FINITE = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400"]
PLACES = {
    "value": lambda bad: {"value": bad},
    "bounded": lambda bad: {"bounded": bad},
    "reading.celsius": lambda bad: {
        "reading": f'{{"celsius": {bad}, "weights_kg": [1.0]}}'
    },
    "reading.weights_kg.0": lambda bad: {
        "reading": f'{{"celsius": 1.0, "weights_kg": [{bad}]}}'
    },
    "readings.0.weights_kg.1": lambda bad: {
        "readings": f'[{{"celsius": 1.0, "weights_kg": [1.0, {bad}]}}]'
    },
}


def test_finite_numbers_are_accepted() -> None:
    recorder = Recorder(Measured(done=True))
    out = invoke_raw(measure_tool(recorder), measure_text(value="1e308"), None)
    assert out == {"ok": True, "done": True}
    assert recorder.calls[0].args.value == 1e308


@pytest.mark.parametrize("bad", NOT_FINITE)
@pytest.mark.parametrize("field", list(PLACES))
def test_a_number_json_cannot_hold_is_refused_on_its_field(
    bad: str, field: str
) -> None:
    recorder = Recorder(Measured(done=True))
    out = invoke_raw(measure_tool(recorder), measure_text(**PLACES[field](bad)), None)
    assert out["error"] == "invalid_arguments", out
    assert [p["field"] for p in out["problems"]] == [field]
    assert out["problems"][0]["problem"].startswith(
        "must be a finite JSON number (JSON has no NaN or Infinity), got "
    )
    assert recorder.calls == []


# --- a keyset cursor always comes back --------------------------------------------------------

LONGEST_NAME = "t" * MAX_TOOL_NAME_CHARS
BY_NAME = Pagination(
    tool=LONGEST_NAME, max_page_size=2, size_field=None, noun="name", ttl_seconds=10**9
)


class NamesArgs(StrictArgs):
    cursor: Annotated[Cursor | None, BY_NAME.cursor_argument()]
    _cursor_binding = BY_NAME.binding()


@result_class
class Name:
    name: str


def names_tool(key: tuple[Any, ...]) -> tuple[Any, list[object]]:
    """A tool of two pages of one item, the second after the sort key `key`; it records the
    sort key each call starts after."""
    seen: list[object] = []

    def list_names(args: NamesArgs) -> Page[Name]:
        after = after_key(args.cursor)
        seen.append(after)
        return Page(
            items=[Name("ann")], total=None, next=Keyset(key) if after is None else None
        )

    boundaries = Boundaries(
        cursor_signer=Signer([b"k" * 32], "cursor"), clock=lambda: 10**12
    )
    tool = guarded_tool(
        NamesArgs, list_names, boundaries=boundaries, pagination=BY_NAME
    )
    return tool, seen


def json_bytes(key: tuple[Any, ...]) -> int:
    import json

    return len(json.dumps(list(key), ensure_ascii=False).encode())


def largest_keys() -> list[tuple[Any, ...]]:
    """Sort keys of exactly MAX_SORT_KEY_BYTES bytes as JSON, in the spellings that grow most."""
    room = MAX_SORT_KEY_BYTES - len('[""]')
    return [
        ("x" * room,),
        ("\u00e9" * (room // 2),),  # two bytes a character in UTF-8
        ("\U0001f600" * (room // 4),),  # four
        (10**300, "y" * (room - 300 - 3)),
        ('"' * (room // 2),),  # each written as \"
    ]


@pytest.mark.parametrize(
    "key", largest_keys(), ids=["ascii", "2-byte", "4-byte", "int", "escapes"]
)
def test_the_largest_sort_key_makes_a_cursor_that_comes_back(
    key: tuple[Any, ...],
) -> None:
    assert json_bytes(key) == MAX_SORT_KEY_BYTES
    tool, seen = names_tool(key)
    first = invoke(tool, {"cursor": None}, None)
    # the longest tool name and an expiry far out: the payload at its largest
    assert len(first["next_cursor"]) <= MAX_SIGNED_LENGTH
    second = invoke(tool, {"cursor": first["next_cursor"]}, None)
    assert second["ok"] is True, second
    assert seen == [None, key]


@pytest.mark.parametrize(
    "key",
    [("x" * 1503,), ("x" * (MAX_SORT_KEY_BYTES - 3),), (10**5000,)],
    ids=[
        "the issue's 1,503 characters",
        "one byte over",
        "an integer too long to write",
    ],
)
def test_a_sort_key_too_long_for_a_cursor_is_a_broken_contract(
    key: tuple[Any, ...],
) -> None:
    """Before, the first page handed out a cursor of 2,212 characters that the signer refused
    when it came back (cursor_invalid, "send next_cursor exactly as returned"): the model
    could never read page 2."""
    tool, seen = names_tool(key)
    with pytest.raises(ContractViolation, match=r"sort key is .* over the 1,024"):
        invoke(tool, {"cursor": None}, None)
    assert seen == [None]


def test_a_tool_name_longer_than_a_cursor_carries_is_refused() -> None:
    with pytest.raises(ValueError, match="1 to 64 characters"):
        Pagination(tool="t" * (MAX_TOOL_NAME_CHARS + 1), max_page_size=2)


# --- a date-time reaches the model with its offset ---------------------------------------------

# the generated code of the every_type golden case, which tests/test_golden.py holds equal to
# what the compiler writes today
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "every_type" / "expected"


@pytest.fixture(scope="module")
def read_visit() -> Iterator[Any]:
    sys.path.insert(0, str(GOLDEN))
    try:
        yield importlib.import_module("every_generated.every.read_visit")
    finally:
        sys.path.remove(str(GOLDEN))


def visit(module: Any, left_at: datetime.datetime) -> Any:
    aware = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    return module.ReadVisitResult(
        **{
            **SAMPLE_VISIT,
            "arrive_after": aware,
            "left_at": left_at,
            "call_times": [aware],
            "parts": [],
            # an array of arrays of objects, one field of them sensitive
            "crews": [[module.ReadVisitCrewItem(name="Ann", badge_pin="4711")], []],
            "contact": module.ReadVisitContact(
                name="Ann",
                reachable_from=None,
                phone=module.ReadVisitContactPhone(number="+391234567", kind="mobile"),
            ),
            "access": None,
        }
    )


SAMPLE_VISIT: dict[str, Any] = {
    "visit_id": "V-1",
    "status": "booked",
    "floor": 1,
    "ratio": 0.5,
    "technicians": 2,
    "duration_hours": 1.5,
    "paid": True,
    "visit_on": datetime.date(2026, 1, 2),
    "note": None,
    "crew_people": None,
    "budget_eur": None,
    "reminded": None,
    "fallback_on": None,
    "skills": [],
    "floors": [],
    "weights_kg": [],
    "flags": [],
    "other_days": None,
}


def test_a_date_time_return_field_reaches_the_model_with_its_offset(
    read_visit: Any,
) -> None:
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    moment = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=plus_two)
    tool = read_visit.build_tool(Recorder(visit(read_visit, moment)))
    out = invoke(tool, {"visit_id": "V-1"}, None)
    assert out["left_at"] == "2026-01-02T03:04:05+02:00"
    assert out["arrive_after"] == "2026-01-02T03:04:05Z"
    assert out["crews"] == [[{"name": "Ann", "badge_pin": "[redacted]"}], []]


def test_a_naive_date_time_in_a_result_is_the_implementation_breaking_its_contract(
    read_visit: Any,
) -> None:
    """Before, a naive datetime reached the model as "2026-01-02T03:04:05", without the
    offset spec.md promises; now it fails where the implementation builds the result, as a
    NaN in a number field does, and the run stops."""
    naive = datetime.datetime(2026, 1, 2, 3, 4, 5)

    def read(args: Any) -> Any:
        return visit(read_visit, naive)

    with pytest.raises(ValidationError) as raised:
        invoke(read_visit.build_tool(read), {"visit_id": "V-1"}, None)
    assert [error["type"] for error in raised.value.errors()] == ["timezone_aware"]
    # nested result classes hold the same type
    with pytest.raises(ValidationError):
        read_visit.ReadVisitPart(
            part_code="P",
            count=1,
            weight_kg=1.0,
            fitted_on=None,
            checked_at=naive,
        )


def test_a_result_class_of_another_package_is_named_with_its_module() -> None:
    # an implementation left importing the package before `package:` moved: the message said
    # "returned Measured, expected Measured"
    other = type("Measured", (), {"__module__": "generated_before.shop"})
    tool = measure_tool(Recorder(other()))
    with pytest.raises(ContractViolation) as caught:
        invoke_raw(tool, measure_text(), None)
    assert str(caught.value) == (
        f"measure returned generated_before.shop.Measured, expected {__name__}.Measured"
    )
