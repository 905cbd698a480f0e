"""The arguments of a call: from the model's raw JSON text to a validated model, or the reasons not.

Generated argument models use `StrictArgs`, `null_means` and `json_integer`, and `FieldHint`s
say what the model is told about a rejected field. `ArgumentParser.parse` does the checking,
in this order:

1. the raw text is at most `MAX_ARGUMENT_CHARS` characters long (checked before parsing);
2. it validates against the strict argument model (pydantic, in JSON mode);
3. no object in it gives a key twice (`duplicates`).

A rejection carries the first problems only and how many there were in all, so the answer
stays small and fast to build however many problems an argument text has.
"""

from __future__ import annotations

import contextlib
import datetime
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError, from_json

from toolgen_runtime.duplicates import Loc, duplicate_keys, may_repeat_keys

__all__ = [
    "ARGUMENTS_TOO_LONG",
    "DUPLICATE_KEY",
    "MAX_ARGUMENT_CHARS",
    "MAX_NESTING",
    "ArgumentParser",
    "FieldHint",
    "Issue",
    "Rejected",
    "json_integer",
    "not_a_bool",
    "null_means",
]

ArgsT = TypeVar("ArgsT", bound=BaseModel)

# Longer argument text is refused unread: a model's real arguments are far shorter, and
# parsing and validating the rest would cost time for nothing.
MAX_ARGUMENT_CHARS = 1_000_000

# Arrays and objects nest at most this deep in argument text that pydantic's JSON parser
# (jiter) reads; deeper text is valid JSON, but refused as a whole (tests/runtime check it).
MAX_NESTING = 201

# Problem kinds of our own, beside pydantic's error types.
ARGUMENTS_TOO_LONG = "arguments_too_long"
DUPLICATE_KEY = "duplicate_key"

# Up to this many validation errors are taken as Python objects; more are read from
# pydantic's JSON rendering of them, a prefix at a time (100,000 errors as objects cost
# about 0.2 s, mostly garbage collection; as JSON about 20 ms).
_ERRORS_AS_OBJECTS = 50


# pydantic's errors for text it could not read at all
_UNREADABLE = frozenset({"json_invalid", "string_unicode"})


def _reject_bool(value: object) -> object:
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


def _reject_bool_or_float(value: object) -> object:
    if isinstance(value, bool | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


# An integer enum is a Literal of ints, and Python's True == 1 == 1.0: pydantic would take
# `true` and `4.0` for a choice of integers even in strict mode. This runs first and refuses
# them as an integer parameter does. (`"1"` is refused by the Literal itself.)
json_integer = BeforeValidator(_reject_bool_or_float)
# For a number enum, where 1.0 is the choice 1: booleans only (toolgen 0.1 also gave it to
# integer enums, which let 3.0 through).
not_a_bool = BeforeValidator(_reject_bool)


def _iso(error: str, shape: str, parse: Callable[[str], object]) -> BeforeValidator:
    pattern = re.compile(shape, re.ASCII)  # digits 0-9 only

    def read(value: object) -> object:
        if not isinstance(value, str):
            return value
        if pattern.fullmatch(value):
            with contextlib.suppress(ValueError):  # 2026-02-30
                return parse(value.upper())  # RFC 3339 allows t and z
        raise PydanticCustomError(error, "Input should be in ISO 8601 form")

    return BeforeValidator(read)


# pydantic reads a date or a date-time from more texts than the schema's ISO 8601 forms,
# even in strict mode: "0" is 1970-01-01 (a Unix time), "2026-01-02 10:00Z" a date-time.
# These read the ISO forms themselves (after a validator, pydantic's strict mode takes a
# date object, no longer text) and refuse the rest with its own error types, which
# envelope.py words.
iso_date = _iso("date_parsing", r"\d{4}-\d{2}-\d{2}", datetime.date.fromisoformat)
iso_datetime = _iso(
    "datetime_parsing",
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})",
    datetime.datetime.fromisoformat,
)


def null_means(default: object) -> BeforeValidator:
    """Apply a parameter's default when the model sends null (strict schemas have no absent
    fields: an optional parameter is required and nullable)."""

    def apply(value: object) -> object:
        return default if value is None else value

    return BeforeValidator(apply)


@dataclass(frozen=True, slots=True)
class FieldHint:
    """What the model is told about one field when its value is rejected: the pattern and
    the choices as the schema states them, an example, and whether null is allowed."""

    example: object = None
    pattern: str | None = None
    one_of: tuple[object, ...] | None = None
    nullable: bool = False


class StrictArgs(BaseModel):
    """The base of every generated argument model: strict JSON types (`true`, `"4"` and `4.0`
    are not integers), no extra keys, frozen, patterns with Python's engine (toolgen writes
    them so they mean what the schema's ECMA-262 patterns mean), built on first use.

    Numbers are finite at every depth (a nested model inherits the config): JSON has no NaN
    or Infinity, yet pydantic's parser reads `NaN`, `Infinity` and `1e999` (a float too
    large, read as infinity), and the implementation must never receive them."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        regex_engine="python-re",
        defer_build=True,
        allow_inf_nan=False,
    )


def _types(schema: Mapping[str, Any]) -> tuple[object, ...]:
    declared = schema.get("type")
    return tuple(declared) if isinstance(declared, list) else (declared,)


def _unwrapped(schema: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """A field's schema without its null branch (strict schemas write a nullable array or
    object as `anyOf: [{...}, {"type": "null"}]`), and whether null is allowed."""
    branches = schema.get("anyOf")
    if isinstance(branches, list):
        kept = [b for b in branches if b.get("type") != "null"]
        if len(kept) == 1:
            merged = {**{k: v for k, v in schema.items() if k != "anyOf"}, **kept[0]}
            return merged, len(kept) < len(branches)
    return schema, "null" in _types(schema)


def hints_from_schema(
    schema: Mapping[str, Any], examples: Mapping[str, object] | None = None
) -> dict[str, FieldHint]:
    """What the model is told about each field when it is rejected, read from the schema it
    sees (the pattern, the choices, whether null is allowed) and the contract's examples, by
    dotted path without list indexes (`parcels.weight_kg`). The items of an array of values
    share the array's path, so what they say is told for the array."""
    found: dict[str, FieldHint] = {}
    stack: list[tuple[str, Mapping[str, Any]]] = [("", schema)]
    while stack:
        prefix, node = stack.pop()
        for name, declared in (node.get("properties") or {}).items():
            path = prefix + name
            prop, nullable = _unwrapped(declared)
            items = prop.get("items") if "array" in _types(prop) else None
            told = (
                items
                if isinstance(items, Mapping) and "object" not in _types(items)
                else prop
            )
            choices = tuple(v for v in told.get("enum", ()) if v is not None) or None
            hint = FieldHint(
                example=(examples or {}).get(path),
                pattern=told.get("pattern"),
                one_of=choices,
                nullable=nullable,
            )
            if hint != FieldHint():
                found[path] = hint
            shape = items if isinstance(items, Mapping) else prop
            if "object" in _types(shape):
                stack.append((path + ".", shape))
    return found


class Issue:
    """One problem of an argument text: a pydantic error, or one of ours."""

    # a plain class: made by the thousand for a bad call, and defined at every import
    __slots__ = ("ctx", "input", "kind", "loc", "message")

    def __init__(
        self,
        kind: str,
        loc: Loc,
        input: object = None,
        ctx: Mapping[str, Any] | None = None,
        message: str = "",
    ) -> None:
        self.kind = kind
        self.loc = loc
        self.input = input
        self.ctx = ctx
        self.message = message

    def __repr__(self) -> str:
        return f"Issue({self.kind!r}, {self.loc!r})"


class Rejected:
    """Why the arguments were refused: the first issues, in order, and how many in all."""

    __slots__ = ("issues", "total")

    def __init__(self, issues: tuple[Issue, ...], total: int) -> None:
        self.issues = issues
        self.total = total


class ArgumentParser(Generic[ArgsT]):
    """Checks the raw arguments of one tool's calls against its argument model."""

    __slots__ = ("_validate_json", "keep", "max_chars", "model")

    def __init__(
        self, model: type[ArgsT], *, keep: int, max_chars: int = MAX_ARGUMENT_CHARS
    ) -> None:
        self.model = model
        self.keep = keep
        self.max_chars = max_chars
        self._validate_json: Callable[[str], ArgsT] | None = None

    def parse(
        self, raw: str, context: Mapping[str, object] | None = None
    ) -> ArgsT | Rejected:
        """The validated arguments, or the first `keep` issues and the count of all.
        `context` is pydantic's validation context (what guards and cursors read)."""
        if len(raw) > self.max_chars:
            too_long = Issue(
                ARGUMENTS_TOO_LONG,
                (),
                ctx={"length": len(raw), "limit": self.max_chars},
            )
            return Rejected((too_long,), 1)
        validate_json = self._validate_json or self._validator()
        try:
            args = validate_json(raw) if context is None else self._with(raw, context)
        except ValidationError as exc:
            return _rejected(exc, raw, self.keep)
        # The fields given are at most the distinct keys: when the colons are no more,
        # no key repeats (may_repeat_keys says why), and the call needs nothing else.
        fields = len(args.__pydantic_fields_set__)
        if raw.count(":") > fields and may_repeat_keys(raw, fields):
            repeats = duplicate_keys(raw)
            if repeats:
                issues = tuple(Issue(DUPLICATE_KEY, loc) for loc in repeats)
                return Rejected(issues[: self.keep], len(issues))
        return args

    def _with(self, raw: str, context: Mapping[str, object]) -> ArgsT:
        validator = self.model.__pydantic_validator__
        return cast(ArgsT, validator.validate_json(raw, context=context))

    def _validator(self) -> Callable[[str], ArgsT]:
        # What model_validate_json calls, without its per-call argument checks. Generated
        # models defer building their validator until first use, which this access does.
        validate_json = cast(
            "Callable[[str], ArgsT]", self.model.__pydantic_validator__.validate_json
        )
        self._validate_json = validate_json
        return validate_json


def _rejected(exc: ValidationError, raw: str, keep: int) -> Rejected:
    errors = _first_errors(exc, keep)
    repeats: list[Loc] = []
    # text that is not JSON (or not Unicode: a lone surrogate) has no keys to count
    not_json = len(errors) == 1 and errors[0].get("type") in _UNREADABLE
    if not not_json and may_repeat_keys(raw, 0):
        repeats = duplicate_keys(raw)
    issues = [Issue(DUPLICATE_KEY, loc) for loc in repeats[:keep]]
    issues.extend(_issue(error) for error in errors[: keep - len(issues)])
    return Rejected(tuple(issues), len(repeats) + exc.error_count())


def _issue(error: Mapping[str, Any]) -> Issue:
    # errors come from pydantic as dicts, or as parsed JSON (a list for `loc`)
    ctx = error.get("ctx")
    return Issue(
        str(error.get("type", "")),
        tuple(error.get("loc") or ()),
        error.get("input"),
        ctx if type(ctx) is dict else None,
        str(error.get("msg", "")),
    )


def _first_errors(exc: ValidationError, keep: int) -> list[Mapping[str, Any]]:
    """The first `keep` errors of `exc`, without building all of them when there are many."""
    if exc.error_count() <= _ERRORS_AS_OBJECTS:
        return list(exc.errors(include_url=False)[:keep])
    try:
        text = exc.json(include_url=False)
    except ValueError:  # a custom error whose context cannot be written as JSON
        return list(exc.errors(include_url=False)[:keep])
    size = 16_384
    while True:
        # a prefix of the JSON array parses to its complete errors plus at most one
        # incomplete last one, so more than `keep` of them means the first `keep` are whole
        errors = from_json(text[:size], allow_partial=True)
        if size >= len(text) or len(errors) > keep:
            return list(errors[:keep])
        size *= 4
