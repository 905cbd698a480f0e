"""A date or date-time argument is taken in the ISO 8601 form the schema states only:
pydantic, even strict, read "0" as 1970-01-01 (a Unix time) and a space for the T."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from pydantic import AwareDatetime, BaseModel, ConfigDict
from recording import recording_tool
from toolgen_runtime import iso_date, iso_datetime
from toolgen_runtime.testing import Recorder, invoke


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    ship_day: Annotated[datetime.date | None, iso_date]
    left_at: Annotated[list[Annotated[AwareDatetime, iso_datetime]], iso_datetime]


@dataclass(frozen=True, slots=True)
class Result:
    ok_count: int


def _tool(recorder: Recorder) -> Any:
    return recording_tool("ship", Args, Result, recorder)


@pytest.mark.parametrize(
    ("args", "field", "expected"),
    [
        ({"ship_day": "0", "left_at": []}, "ship_day", "a date as YYYY-MM-DD"),
        ({"ship_day": "86400", "left_at": []}, "ship_day", "a date as YYYY-MM-DD"),
        (
            {"ship_day": "\uff12\uff10\uff12\uff16-01-02", "left_at": []},
            "ship_day",
            "a date",
        ),
        ({"ship_day": None, "left_at": ["0"]}, "left_at.0", "a date and time as"),
        (
            {"ship_day": None, "left_at": ["99999999999"]},
            "left_at.0",
            "a date and time",
        ),
        (
            {"ship_day": None, "left_at": ["2026-01-02 10:00:00Z"]},
            "left_at.0",
            "a date",
        ),
        ({"ship_day": None, "left_at": ["2026-01-02T10:00Z"]}, "left_at.0", "a date"),
        ({"ship_day": None, "left_at": ["2026-01-02T10:00:00+0200"]}, "left_at.0", "a"),
    ],
)
def test_a_date_in_another_form_is_refused_on_its_field(
    args: dict[str, Any], field: str, expected: str
) -> None:
    recorder = Recorder(Result(1))
    out = invoke(_tool(recorder), args, None)
    assert out["ok"] is False and out["error"] == "invalid_arguments", out
    [problem] = out["problems"]
    assert problem["field"] == field and expected in problem["problem"], problem
    assert recorder.calls == []


def test_the_iso_forms_are_taken() -> None:
    recorder = Recorder(Result(1))
    args = {
        "ship_day": "2026-01-02",
        "left_at": ["2026-01-02t10:00:00z", "2026-01-02T10:00:00.25+02:00"],
    }
    assert invoke(_tool(recorder), args, None)["ok"] is True
    [call] = recorder.calls
    assert call.args.ship_day == datetime.date(2026, 1, 2)
    assert call.args.left_at[1].utcoffset() == datetime.timedelta(hours=2)
