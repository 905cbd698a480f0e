"""Results: the class an implementation returns, and the JSON text the model receives for it."""

from __future__ import annotations

from typing import TypeVar, cast, dataclass_transform

import pydantic.dataclasses
from pydantic import ConfigDict
from pydantic_core import to_json

__all__ = ["result_class", "success"]

_RESULT_CONFIG = ConfigDict(strict=True, defer_build=True)

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def result_class(cls: type[_T]) -> type[_T]:
    """Make a result class: a frozen, strict pydantic dataclass, so a result built with a
    wrong type fails in the implementation, loudly, never reaching the model as `ok`."""
    made = pydantic.dataclasses.dataclass(
        frozen=True, slots=True, config=_RESULT_CONFIG
    )
    return cast("type[_T]", made(cls))


def success(outcome: object) -> str:
    """`{"ok":true,...the result's fields}` as JSON text.

    The result's fields were validated when the implementation built it (strict pydantic
    dataclass), so this only writes them: pydantic's serializer, in Rust, turns dates and
    nested results into JSON, and `ok` is put in front without a second pass.
    """
    fields = to_json(outcome)
    if fields == b"{}":
        return '{"ok":true}'
    return fields.replace(b"{", b'{"ok":true,', 1).decode()
