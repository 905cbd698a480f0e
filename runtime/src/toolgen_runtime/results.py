"""Results: the class an implementation returns, and the JSON text the model receives for it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar, cast, dataclass_transform

import pydantic.dataclasses
from pydantic import ConfigDict
from pydantic_core import SchemaSerializer, to_json

__all__ = ["result_class", "serializer_for", "success"]

# allow_inf_nan=False: JSON has no NaN or Infinity, and pydantic would write them as null,
# so a result holding one would reach the model as a number field without a value
_RESULT_CONFIG = ConfigDict(strict=True, defer_build=True, allow_inf_nan=False)

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def result_class(cls: type[_T]) -> type[_T]:
    """Make a result class: a frozen, strict pydantic dataclass, so a result built with a
    wrong type fails in the implementation, loudly, never reaching the model as `ok`."""
    made = pydantic.dataclasses.dataclass(
        frozen=True, slots=True, config=_RESULT_CONFIG
    )
    return cast("type[_T]", made(cls))


def serializer_for(result_type: type[object]) -> Callable[[object], bytes]:
    """What writes instances of `result_type` as JSON: the class's own pydantic serializer
    once it is built (a little faster), else pydantic's general one."""
    own = getattr(result_type, "__pydantic_serializer__", None)
    # by alias: a field whose Python name differs from the spec's (class_ for class) is
    # written under the spec's name, which is what the model reads
    if isinstance(own, SchemaSerializer):
        return functools.partial(own.to_json, by_alias=True)
    return functools.partial(to_json, by_alias=True)


def success(outcome: object, serialize: Callable[[object], bytes]) -> str:
    """`{"ok":true,...the result's fields}` as JSON text.

    The result's fields were validated when the implementation built it (strict pydantic
    dataclass), so this only writes them: pydantic's serializer, in Rust, turns dates and
    nested results into JSON, and `ok` is put in front without a second pass.
    """
    fields = serialize(outcome)
    if fields == b"{}":
        return '{"ok":true}'
    return fields.replace(b"{", b'{"ok":true,', 1).decode()
