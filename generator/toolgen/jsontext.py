"""Indented JSON text, exactly as `json.dumps(value, indent=2, ensure_ascii=False)` writes it.

The files reviewers read and diff are indented JSON: the lock file, the package manifest, the
reports. json writes indented text with its pure-Python encoder (its C encoder writes compact
text only), a generator per object and list: the lock file of 1,000 tools took 70 ms to
85 ms. `dumps` walks the value with one list of parts and leaves the strings to json's C
string encoder: the same bytes, in 25 ms to 38 ms. A value of a type
json would hand to its `default` (which raises) is written by json itself, so the errors are
json's too. tests/test_jsontext.py holds the two to the same text on generated values.
"""

from __future__ import annotations

import json
import json.encoder
from typing import Final

_STRING: Final = json.encoder.encode_basestring  # the C encoder where there is one
_INFINITY: Final = float("inf")


class _NotJson(Exception):
    """A value json's encoder would give to `default`: json writes the whole value."""


def dumps(value: object) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`."""
    parts: list[str] = []
    try:
        _write(value, "\n", parts)
    except (_NotJson, RecursionError):  # a circular value is json's ValueError
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(parts)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _scalar(value: object) -> str | None:
    """The text of a value that is not an object or a list; None for those."""
    if isinstance(value, str):
        return _STRING(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return None


def _key(key: object) -> str:
    if isinstance(key, str):
        return _STRING(key)
    if isinstance(key, float):
        return _STRING(_float(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return _STRING(int.__repr__(key))
    raise _NotJson


def _write(value: object, newline: str, out: list[str]) -> None:
    """`value` at the indentation `newline` ends with."""
    kind = type(value)
    if kind is str:
        out.append(_STRING(value))  # type: ignore[arg-type]
    elif kind is dict:
        _object(value, newline, out)  # type: ignore[arg-type]
    elif kind is list or kind is tuple:
        _list(value, newline, out)  # type: ignore[arg-type]
    else:
        text = _scalar(value)  # and subclasses, in json's order
        if text is not None:
            out.append(text)
        elif isinstance(value, (list, tuple)):
            _list(value, newline, out)
        elif isinstance(value, dict):
            _object(value, newline, out)
        else:
            raise _NotJson


def _list(
    value: list[object] | tuple[object, ...], newline: str, out: list[str]
) -> None:
    if not value:
        out.append("[]")
        return
    inner = newline + "  "
    separator = "," + inner
    out.append("[" + inner)
    first = True
    for item in value:
        if not first:
            out.append(separator)
        first = False
        _write(item, inner, out)
    out.append(newline + "]")


def _object(value: dict[object, object], newline: str, out: list[str]) -> None:
    if not value:
        out.append("{}")
        return
    inner = newline + "  "
    separator = "," + inner
    out.append("{" + inner)
    first = True
    for key, item in value.items():
        if not first:
            out.append(separator)
        first = False
        out.append((_STRING(key) if type(key) is str else _key(key)) + ": ")
        _write(item, inner, out)
    out.append(newline + "}")
