"""What a tool's contract allows: the oracle the fuzzer judges every call by.

The contract is a JSON Schema of the arguments with every constraint (what the compiler's
`parameters_schema(params, full=True)` gives). It is read with JSON Schema's own meaning
(`toolgen_runtime.schema`, the validator the compiler checks examples with too),
independently of the generated validator, so a gap between the two shows as a failure.

Argument text is read strictly: JSON (RFC 8259) as Python reads it, with no key given twice
in one object and no lone surrogate in a string, within the runtime's stated bounds (at most
`MAX_ARGUMENT_CHARS` characters, arrays and objects at most `MAX_NESTING` deep). Text outside
that is outside the contract, and refused as a whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import jsonschema
import jsonschema.validators

from toolgen_runtime.arguments import MAX_ARGUMENT_CHARS, MAX_NESTING
from toolgen_runtime.schema import is_date_time, is_full_date, validator

__all__ = ["Contract", "Reading", "is_date_time", "is_full_date", "read_arguments"]

Loc = tuple[int | str, ...]


def _depth(value: object) -> int:
    """How deep arrays and objects nest in a parsed value (a scalar is 0 deep)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _unicode_text(value: object) -> bool:
    """Whether every string of a parsed value (keys too) is text UTF-8 can carry."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return True


class _Repeated(ValueError):
    pass


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Repeated("a key is given twice in one object")
    return obj


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True, slots=True)
class Reading:
    """Argument text as the contract reads it: a JSON value, or why it is not one."""

    value: object = None
    refused: str | None = None  # why the text is not arguments at all

    @property
    def parsed(self) -> bool:
        return self.refused is None


def read_arguments(raw: str) -> Reading:
    """Parse argument text strictly (see the module docstring)."""
    if len(raw) > MAX_ARGUMENT_CHARS:
        return Reading(refused="longer than the runtime reads")
    try:
        value = json.loads(
            raw, object_pairs_hook=_no_repeats, parse_constant=_no_constants
        )
    except _Repeated as err:
        return Reading(refused=str(err))
    except (ValueError, RecursionError) as err:
        # ValueError: not JSON, or an integer of more digits than Python reads
        return Reading(refused=f"not JSON: {err}")
    if not _unicode_text(value):
        return Reading(refused="a string holds a lone surrogate")
    if _depth(value) > MAX_NESTING:
        return Reading(refused="nested deeper than the runtime reads")
    return Reading(value=value)


def _error_locs(err: jsonschema.ValidationError) -> list[Loc]:
    base = tuple(err.absolute_path)
    instance = err.instance
    if err.validator == "required" and isinstance(instance, dict):
        required = cast("list[str]", err.validator_value)
        return [(*base, name) for name in required if name not in instance]
    if err.validator == "additionalProperties" and isinstance(instance, dict):
        known = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
        return [(*base, key) for key in instance if key not in known]
    if err.validator == "anyOf" and err.context:
        # a nullable parameter: what is wrong inside its non-null branch is blamed too
        inner = [e for e in err.context if e.validator_value != "null"]
        return [base, *(loc for e in inner for loc in _error_locs(e))]
    return [base]


def _keywords(err: jsonschema.ValidationError) -> set[str]:
    """The keywords an error comes from; for a nullable parameter, those inside it."""
    if err.validator == "anyOf" and err.context:
        inner = [e for e in err.context if e.validator_value != "null"]
        return set().union(*(_keywords(e) for e in inner)) if inner else {"anyOf"}
    return {str(err.validator)}


class Contract:
    """One tool's argument contract, checked once (a broken schema fails here)."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = cast("dict[str, Any]", dict(schema))
        self._validator = validator(self.schema)
        self._validator.check_schema(self.schema)

    def errors(self, value: object) -> Iterator[tuple[Loc, str]]:
        """Every way `value` breaks the contract, as (field path, message) pairs, found
        one at a time (10,000 wrong items are 10,000 errors: read only what is needed)."""
        for err in self._validator.iter_errors(value):
            for loc in _error_locs(err):
                yield loc, err.message

    def only_formats_broken(self, value: object) -> bool:
        """Whether `value` breaks nothing but `format`s (a date written another way)."""
        return all(
            _keywords(err) <= {"format"} for err in self._validator.iter_errors(value)
        )

    def allows(self, value: object) -> bool:
        return bool(self._validator.is_valid(value))
