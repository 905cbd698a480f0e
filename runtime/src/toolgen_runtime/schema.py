"""JSON Schema as a tool's contract means it: the one validator of argument values.

The compiler checks a contract's own examples and defaults with it, and the fuzzer
(`toolgen_runtime.fuzz`) judges every call by it, so both read a schema the same way:

- an integer is a JSON integer: `true`, `4.0` and `"4"` are not integers, and a number is
  finite (JSON has no NaN or Infinity);
- a `pattern` is an ECMA-262 regular expression (what JSON Schema says), run by `regress`, a
  real ECMA engine, not by Python's `re`: `\\d` is ASCII, `$` is the end of the text;
  `python_pattern` writes it for Python's `re` (the generated validator's engine) with the
  same meaning;
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

__all__ = [
    "ecma_pattern",
    "is_date_time",
    "is_full_date",
    "python_pattern",
    "validator",
]

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


# ECMA-262's `\\s`: its white space and line terminators (Python's, even ASCII-only, is
# another set); its `\\d`, `\\w` and `\\b` are Python's with flag a
_SPACE = r"\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_OUTSIDE = {
    "$": r"\Z",
    ".": r"[^\n\r\u2028\u2029]",  # `.` stops at every line terminator
    r"\s": f"[{_SPACE}]",
    r"\S": f"[^{_SPACE}]",
}
# what python_pattern rewrites: an escape, a character class (with its escapes), `.` and `$`
_TOKENS = re.compile(r"\\.|\[(?:\\.|[^\\\]])*\]?|[.$]", re.DOTALL)
_CLASS_ITEMS = re.compile(r"\\.|.", re.DOTALL)


def python_pattern(pattern: str) -> str:
    """`pattern` (ECMA-262) for Python's `re`, meaning the same: `\\s` is ECMA-262's set, `.`
    stops at any line terminator (`\\r` and U+2028 too), `$` is the end of the text (`\\Z`:
    `SKU-11\\n` does not match `^SKU-\\d+$`), and `\\d`, `\\w`, `\\b` are ASCII (flag a)."""
    return "(?a)" + _TOKENS.sub(_python_token, pattern)


def _python_token(found: re.Match[str]) -> str:
    token = found.group()
    if not token.startswith("["):
        return _OUTSIDE.get(token, token)
    if len(token) < 2 or not token.endswith("]"):
        return token  # an unclosed class, which ECMA-262 refuses
    negated = token.startswith("[^")
    items = _CLASS_ITEMS.findall(token[2 if negated else 1 : -1])
    kept = "".join(_SPACE if i == r"\s" else i for i in items if i != r"\S")
    if r"\S" not in items:
        return f"[^{kept}]" if negated else f"[{kept}]"
    # `[\\s\\S]`, `[^\\S\\n]`: Python's re has no negated set within a class, so such a
    # class is an alternative, or a white space character the rest does not match
    if negated:
        return f"(?:(?![{kept}])[{_SPACE}])" if kept else f"[{_SPACE}]"
    return f"(?:[{kept}]|[^{_SPACE}])" if kept else f"[^{_SPACE}]"


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
