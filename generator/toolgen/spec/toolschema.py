"""The JSON Schemas of a tool's arguments, computed from the model.

Two schemas come from one set of parameters:

- the *exposed* schema is what the model sees (`PARAMETERS`): strict-mode shape (every property
  required, optional means nullable, `additionalProperties: false`), no `title`, no `default`, and
  only the keywords OpenAI's strict mode accepts; a constraint the target cannot express (string
  lengths) is stated in the description instead, and still enforced by the validator;
- the *validation* schema carries every constraint, and is what examples and defaults are checked
  against at build time.
"""

from __future__ import annotations

import contextlib
import functools
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import regress
from toolgen_runtime.schema import ecma_pattern, python_pattern, validator

from toolgen.spec.ir import Param, ReturnField
from toolgen.text import listing, sentence, value_text

if TYPE_CHECKING:
    import jsonschema

# the contract types JSON writes as strings; every other type is a JSON type of that name
_JSON_TYPE = {"date": "string", "datetime": "string", "path": "string", "url": "string"}
_FORMAT = {"date": "date", "datetime": "date-time"}
_FORMAT_NOTE = {
    "date": "Date as YYYY-MM-DD.",
    "datetime": "Date and time with a UTC offset, as 2026-10-09T14:30:00+02:00.",
}
# beside the parameter's own example, which shows the form: the note says the rule only
_FORMAT_NOTE_WITH_EXAMPLE = {
    **_FORMAT_NOTE,
    "datetime": "Date and time with a UTC offset.",
}


def _length_note(low: int | None, high: int | None, unit: str) -> str:
    """`unit` is plural; one of them is said in the singular ("At least 1 character.")."""
    if low is not None and high is not None and low != high:
        return f"{low} to {high} {unit}."
    count = high if high is not None else low
    if count is None:
        return ""
    lead = "Exactly" if low == high else "At most" if high is not None else "At least"
    return f"{lead} {count} {unit if count != 1 else unit[:-1]}."


def guard_note(param: Param) -> str:
    """What a `path` or `url` parameter accepts, in the words its guard checks."""
    if param.path is not None:
        suffixes = param.path.suffixes
        ending = f", ending with {listing(suffixes, 'or')}" if suffixes else ""
        return (
            f"A file name relative to the {param.path.root} folder (folders separated by "
            f"/, no leading / or ..){ending}."
        )
    if param.url is not None:
        schemes = listing([s + "://" for s in param.url.schemes], "or")
        where = "on the hosts configured for it"
        if param.url.hosts:
            where = f"on {listing(param.url.hosts, 'or')}"
            if param.url.hosts_from:
                where += " or the other hosts configured for it"
        return f"A full URL starting with {schemes} {where}."
    return ""


def param_description(param: Param) -> str:
    """The description the model reads for one parameter: the spec's words, then the notes
    that the schema cannot carry (format, lengths, what null means, an example)."""
    c = param.constraints
    shows_example = param.has_example and param.type not in ("object", "array")
    formats = _FORMAT_NOTE_WITH_EXAMPLE if shows_example else _FORMAT_NOTE
    notes = [
        sentence(param.description, fold=False),
        formats.get(param.type, ""),
        _length_note(c.min_length, c.max_length, "characters"),
        guard_note(param),
    ]
    if param.has_default:
        notes.append(f"Null means {value_text(param.default)}.")
    if shows_example:
        notes.append(f"Example: {value_text(param.example)}.")
    return " ".join(note for note in notes if note)


def _constraint_keywords(param: Param, *, full: bool) -> dict[str, object]:
    c = param.constraints
    keywords = {
        "format": _FORMAT.get(param.type),
        "pattern": c.pattern,
        "minimum": c.minimum,
        "maximum": c.maximum,
        "minLength": c.min_length if full else None,
        "maxLength": c.max_length if full else None,
        "minItems": c.min_items,
        "maxItems": c.max_items,
    }
    return {key: value for key, value in keywords.items() if value is not None}


def param_schema(param: Param, *, full: bool = False) -> dict[str, object]:
    """The JSON Schema of one parameter: exposed (full=False) or for validation (full=True)."""
    json_type = _JSON_TYPE.get(param.type, param.type)
    body: dict[str, object] = {"type": json_type}
    description = param_description(param)
    if description and not full:
        body["description"] = description
    if param.constraints.enum is not None:
        body["enum"] = list(param.constraints.enum)
    body.update(_constraint_keywords(param, full=full))
    if param.items is not None:
        body["items"] = param_schema(param.items, full=full)
    if param.type == "object":
        body.update(parameters_schema(param.properties, full=full))
    if not param.optional:
        return body
    if param.type in ("object", "array"):
        # a nullable container is an anyOf; the description stays outside so it is read once
        said = {"description": body.pop("description")} if "description" in body else {}
        return {"anyOf": [body, {"type": "null"}], **said}
    body["type"] = [json_type, "null"]
    if "enum" in body:
        body["enum"] = [*(param.constraints.enum or ()), None]
    return body


def strict_object(
    properties: dict[str, Any], required: list[str] | None = None
) -> dict[str, Any]:
    """The strict object shape: these properties, every one required (or those `required`
    names), nothing else allowed."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def parameters_schema(
    params: tuple[Param, ...], *, full: bool = False
) -> dict[str, object]:
    """The schema of a tool's whole argument object (`PARAMETERS` when full=False), or of
    an object parameter's properties."""
    return strict_object({p.name: param_schema(p, full=full) for p in params})


def _return_schema(field: ReturnField) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _JSON_TYPE.get(field.type, field.type)}
    if field.description:
        schema["description"] = field.description
    if field.type in _FORMAT:
        schema["format"] = _FORMAT[field.type]
    if field.enum is not None:
        schema["enum"] = list(field.enum)
    if field.type == "array" and field.items is not None:
        schema["items"] = _return_schema(field.items)
    if field.type == "object":
        schema.update(returns_schema(field.properties))
    if field.optional:
        schema["type"] = [schema["type"], "null"]
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
    return schema


def returns_schema(fields: tuple[ReturnField, ...]) -> dict[str, Any]:
    """The JSON Schema of an object of return fields, by the names the model reads."""
    return strict_object({f.name: _return_schema(f) for f in fields})


# --- checking values against a schema at build time ---------------------------------------
#
# A contract's own values (examples, defaults) are checked with the validator the runtime's
# fuzzer judges calls by (toolgen_runtime.schema): an integer is never a float or a bool,
# date-time needs an offset, and a pattern is ECMA-262, as the model's schema means it.

FieldPath = tuple[str | int, ...]


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(python_pattern(pattern))


@functools.cache  # a catalogue's patterns repeat from tool to tool
def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be a parameter's, or None: the model's schema means it as
    ECMA-262 (`regress` reads it as the contract's validator does), and the generated
    validator runs it with Python's `re` as `python_pattern` writes it, so it must be both
    (`(?i)`, `(?P<name>...)` and `\\Z` are Python's only; `\\p{L}` is ECMA-262's only)."""
    try:
        ecma_pattern(pattern)
    except regress.RegressError as exc:
        return f"{exc} (a pattern is ECMA-262, as in JSON Schema)"
    try:
        with warnings.catch_warnings():  # `[[`: a nested set some day
            warnings.simplefilter("error", FutureWarning)
            compiled(pattern)
    except re.error as exc:
        return f"{exc.msg}, in Python's re, which the generated validator runs"
    except FutureWarning as exc:  # "Possible set union at position 9", of another text
        reason = str(exc).split(" at position")[0].lower()
        return f"{reason} ([[, --, &&, || or ~~ in a class), which a later Python reads anew"
    return None


def dotted(path: FieldPath) -> str:
    """("filter", "status") -> "filter.status"; the root is "$"."""
    return ".".join(str(part) for part in path) or "$"


def first_problem(param: Param, value: object) -> str | None:
    """Why `value` breaks the parameter's own constraints (null not allowed), or None."""
    schema = param_schema(replace(param, optional=False), full=True)
    error = next(validator(schema).iter_errors(value), None)
    return None if error is None else error.message


# --- what is wrong with a value, in the words the model reads ------------------------------
#
# The generated tool checks the model's arguments with pydantic, so each jsonschema error of a
# contract's own values (above) is read as the pydantic error kind the runtime words
# (toolgen_runtime.envelope.problem_text): "must be a JSON integer, got 2.0" means the same
# thing in `toolgen check` and in the answer the model gets.

_TYPE_KINDS = {
    "integer": "int_type",
    "number": "float_type",
    "boolean": "bool_type",
    "string": "string_type",
    "array": "list_type",
    "object": "model_type",
}
_FORMAT_KINDS = {"date": "date_parsing", "date-time": "datetime_parsing"}
_LIMIT_KINDS = {
    "minimum": ("greater_than_equal", "ge"),
    "maximum": ("less_than_equal", "le"),
    "minLength": ("string_too_short", "min_length"),
    "maxLength": ("string_too_long", "max_length"),
    "minItems": ("too_short", "min_length"),
    "maxItems": ("too_long", "max_length"),
}


def nullable(schema: object) -> bool:
    """Whether a schema takes null: a null type, or a null branch of its anyOf."""
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    if declared == "null" or (isinstance(declared, list) and "null" in declared):
        return True
    branches = schema.get("anyOf")
    return isinstance(branches, list) and any(
        isinstance(b, dict) and b.get("type") == "null" for b in branches
    )


def _issues(
    err: jsonschema.ValidationError, named: set[tuple[FieldPath, int]]
) -> Iterator[tuple[FieldPath, Callable[[], str]]]:
    """One jsonschema error as (field, the runtime's words for it) pairs, the words worded
    only when asked for: the runtime's wording imports the Agents SDK (over a second), which
    a check that only needs the fields (a rejected example refused where it says) spares."""

    def told(
        kind: str, loc: FieldPath, ctx: dict[str, Any] | None = None, **hint: Any
    ) -> Callable[[], str]:
        def words() -> str:
            from toolgen_runtime.arguments import FieldHint, Issue
            from toolgen_runtime.envelope import problem_text

            return problem_text(Issue(kind, loc, err.instance, ctx), FieldHint(**hint))

        return words

    def said(message: str) -> Callable[[], str]:
        return lambda: message

    base: FieldPath = tuple(err.absolute_path)
    schema = err.schema if isinstance(err.schema, dict) else {}
    check = err.validator
    instance = err.instance
    if check == "required" and isinstance(instance, dict):
        # jsonschema raises one error a missing name, each with the whole list: the first
        # names them all (going through the list again for each is quadratic)
        if (base, id(err.validator_value)) in named:
            return
        named.add((base, id(err.validator_value)))
        properties = schema.get("properties", {})
        for name in cast(list[str], err.validator_value):
            if name not in instance:
                loc = (*base, name)
                yield loc, told("missing", loc, nullable=nullable(properties.get(name)))
    elif check == "additionalProperties" and isinstance(instance, dict):
        known = schema.get("properties", {})
        for key in instance:
            if key not in known:
                yield (*base, key), told("extra_forbidden", (*base, key))
    elif check == "anyOf" and err.context:
        # a nullable container: what is wrong inside its non-null branch
        for found in err.context:
            if not (found.validator == "type" and found.validator_value == "null"):
                yield from _issues(found, named)
    elif check == "type":
        wanted = err.validator_value
        names = [
            n for n in (wanted if isinstance(wanted, list) else [wanted]) if n != "null"
        ]
        fmt = schema.get("format")
        kind = _FORMAT_KINDS.get(str(fmt)) if fmt else None
        kind = kind or _TYPE_KINDS.get(str(names[0]) if names else "", "")
        yield base, told(kind, base) if kind else said(err.message)
    elif check == "enum":
        choices = tuple(
            v for v in cast(list[object], err.validator_value) if v is not None
        )
        yield base, told("literal_error", base, one_of=choices)
    elif check == "pattern":
        yield (
            base,
            told("string_pattern_mismatch", base, pattern=str(err.validator_value)),
        )
    elif check in _LIMIT_KINDS:
        kind, key = _LIMIT_KINDS[str(check)]
        yield base, told(kind, base, {key: err.validator_value})
    elif check == "format":
        kind = _FORMAT_KINDS.get(str(err.validator_value), "")
        if kind == "datetime_parsing" and _naive_datetime(instance):
            kind = "timezone_aware"
        yield base, told(kind, base) if kind else said(err.message)
    else:
        yield base, said(err.message)


def _naive_datetime(value: object) -> bool:
    import datetime

    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return datetime.datetime.fromisoformat(value).tzinfo is None
    return False


def worded_problems(
    schema: dict[str, object], value: object
) -> list[tuple[FieldPath, str]]:
    """Every field of `value` that breaks `schema`, with what the model would be told about
    it, in the order jsonschema finds them (the schema's order of properties)."""
    return [(path, words()) for path, words in _first_issues(schema, value).items()]


def problem_fields(schema: dict[str, object], value: object) -> list[FieldPath]:
    """The fields `worded_problems` names, in its order, without wording them."""
    return list(_first_issues(schema, value))


def _first_issues(
    schema: dict[str, object], value: object
) -> dict[FieldPath, Callable[[], str]]:
    first: dict[FieldPath, Callable[[], str]] = {}
    named: set[tuple[FieldPath, int]] = set()
    for err in validator(schema).iter_errors(value):
        for path, words in _issues(err, named):
            # one problem a field, as the runtime says (its type before its choices)
            first.setdefault(path, words)
    return first
