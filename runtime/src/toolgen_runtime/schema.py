"""JSON Schema as a tool's contract means it: the one validator of argument values.

The compiler checks a contract's own examples and defaults with it, and the fuzzer
(`toolgen_runtime.fuzz`) judges every call by it, so both read a schema the same way:

- an integer is a JSON integer: `true`, `4.0` and `"4"` are not integers, and a number is
  finite (JSON has no NaN or Infinity);
- a `pattern` is an ECMA-262 regular expression (what JSON Schema says), run by `regress`, a
  real ECMA engine, not by Python's `re`: `\\d` is ASCII, `$` is the end of the text;
- `date` and `date-time` are RFC 3339 `full-date` and `date-time` (with an offset), less what
  Python's `datetime` cannot hold (year 0, leap second 60);
- lengths count code points, as JSON Schema does.

It needs `jsonschema` and `regress`: the compiler depends on both, and so does the runtime's
`testing` extra. Nothing else of the runtime imports it.
"""

from __future__ import annotations

import datetime
import functools
import math
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
import jsonschema.validators
import regress

__all__ = ["ecma_pattern", "is_date_time", "is_full_date", "validator"]

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
    r"(?:[Zz]|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def _valid_day(year: str, month: str, day: str) -> bool:
    try:
        datetime.date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


def is_full_date(text: object) -> bool:
    if not isinstance(text, str):
        return True  # a format says nothing about other types
    found = _DATE.fullmatch(text)
    return found is not None and _valid_day(*found.groups())


def is_date_time(text: object) -> bool:
    if not isinstance(text, str):
        return True
    found = _DATETIME.fullmatch(text)
    if found is None:
        return False
    year, month, day, hour, minute, second, _, _, off_hour, off_minute = found.groups()
    if not _valid_day(year, month, day):
        return False
    if int(hour) > 23 or int(minute) > 59 or int(second) > 59:
        return False
    return off_hour is None or (int(off_hour) <= 23 and int(off_minute) <= 59)


def _is_integer(_checker: object, value: object) -> bool:
    return type(value) is int


def _is_number(_checker: object, value: object) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


@functools.cache
def ecma_pattern(pattern: str) -> regress.Regex:
    """`pattern` read as JSON Schema reads it: ECMA-262; a `regress.RegressError` when it
    cannot be."""
    # the "u" flag, as JSON Schema 2020-12 asks: a code point is one character
    return regress.Regex(pattern, "u")


def _pattern(
    validator: object, pattern: str, instance: object, schema: object
) -> Iterator[jsonschema.ValidationError]:
    if isinstance(instance, str) and ecma_pattern(pattern).find(instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.cache
def _validator_class() -> Any:
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine_many(
        {"integer": _is_integer, "number": _is_number}
    )
    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, validators={"pattern": _pattern}, type_checker=checker
    )


@functools.cache
def _formats() -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("date")(is_full_date)
    checker.checks("date-time")(is_date_time)
    return checker


def validator(schema: dict[str, Any]) -> Any:
    """A jsonschema validator of `schema` with the contract's meaning (`iter_errors`,
    `is_valid`)."""
    return _validator_class()(schema, format_checker=_formats())
