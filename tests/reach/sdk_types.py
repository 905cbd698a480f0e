"""Whether a JSON value is what an official SDK's request types allow, read from the types.

The OpenAI and Anthropic Python SDKs type request parameters as TypedDicts (pydantic is lax
about them: it ignores unknown keys, coerces values and turns lists into iterators), so
`problems` walks the type hints itself: every key must be one the TypedDict declares, every
required key present, and every value of its declared type (Literal values exactly,
unions as any of their members, nested TypedDicts, lists, dicts). Gemini's SDK types are
pydantic models that forbid extra keys: they are checked with `model_validate`.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

import typing_extensions

_WRAPPERS = {typing.Required, typing.NotRequired, typing_extensions.Required}
_SEQUENCES = {
    list,
    collections.abc.Iterable,
    collections.abc.Sequence,
    typing.List,  # noqa: UP006  (the SDKs write it)
}


def _is_typed_dict(kind: object) -> bool:
    return isinstance(kind, type) and typing_extensions.is_typeddict(kind)


def problems(value: object, kind: Any, where: str = "") -> list[str]:
    """What of `value` does not fit the type `kind`, each with its place; [] when it fits."""
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin in _WRAPPERS or origin is typing.Annotated:
        return problems(value, args[0], where)
    if kind is object or kind is Any:
        return []
    if _is_typed_dict(kind):
        return _typed_dict(value, kind, where)
    if origin in (typing.Union, types.UnionType):
        found = [problems(value, member, where) for member in args]
        if any(not p for p in found):
            return []
        return [f"{where or 'value'}: fits none of {kind}: {min(found, key=len)}"]
    if origin is typing.Literal:
        ok = value in args and type(value) in {type(a) for a in args}
        return [] if ok else [f"{where}: {value!r} is not one of {args}"]
    if origin in _SEQUENCES or (
        origin is not None and origin.__name__ == "SequenceNotStr"
    ):
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        return [
            p
            for i, item in enumerate(value)
            for p in problems(item, args[0], f"{where}[{i}]")
        ]
    if origin in (dict, collections.abc.Mapping):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        return [
            p for k, v in value.items() for p in problems(v, args[1], f"{where}.{k}")
        ]
    if kind is type(None):
        return [] if value is None else [f"{where}: expected null"]
    if kind in (str, bool, float, dict, list):
        ok = isinstance(value, kind) and not (
            kind is not bool and isinstance(value, bool)
        )
        return [] if ok else [f"{where}: expected {kind.__name__}, got {value!r}"]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: expected int, got {value!r}"]
    raise TypeError(f"{where}: no check for the type {kind!r}")


def _typed_dict(value: object, kind: Any, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: expected an object ({kind.__name__}), got {value!r}"]
    hints = typing_extensions.get_type_hints(kind, include_extras=True)
    found = [
        f"{where}.{key}: not a key of {kind.__name__}"
        for key in value
        if key not in hints
    ]
    found += [
        f"{where}: {kind.__name__} requires {key!r}"
        for key in sorted(kind.__required_keys__)
        if key not in value
    ]
    for key, item in value.items():
        if key in hints:
            found += problems(item, hints[key], f"{where}.{key}")
    return found
