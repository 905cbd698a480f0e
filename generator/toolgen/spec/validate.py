"""The format check: every spec document against the published JSON Schema of format 1.

The schemas in `toolgen/spec/schemas/` are the single definition of what keys exist;
`toolgen schema` prints them and the YAML files reference them so editors autocomplete. Each
jsonschema error is mapped back to `file:line:col` with a message in plain words, and an
unknown key gets a "did you mean". A document with format errors goes no further down the
pipeline (build/tool_files.py).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import json
import math
from collections.abc import Sized
from importlib import resources
from typing import TYPE_CHECKING, Any, Final, Literal, cast

from toolgen.diagnostics import Diagnostic, error
from toolgen.spec.load import Document, PathKey
from toolgen.text import article, clipped, json_text

if TYPE_CHECKING:
    import jsonschema

SchemaKind = Literal["tool", "catalogue"]


@functools.cache
def schema_text(kind: SchemaKind) -> str:
    return (resources.files("toolgen.spec") / "schemas" / f"{kind}.v1.json").read_text(
        "utf-8"
    )


@functools.cache
def _validator(kind: SchemaKind) -> Any:
    import jsonschema

    schema = json.loads(schema_text(kind))
    defined = schema.get("$defs", {})

    def ref(validator: Any, pointer: str, instance: object, _: object) -> Any:
        # the schemas point only at their own `$defs`, found here by name: jsonschema's
        # resolver looked each up anew at every use, a quarter of the validation
        return validator.descend(instance, defined[pointer.removeprefix("#/$defs/")])

    base = jsonschema.Draft202012Validator
    return jsonschema.validators.extend(base, {"$ref": ref})(schema)  # type: ignore[no-untyped-call]


def stem(file: str) -> str:
    """The name a tool file that cannot be read is known by: its name without suffix."""
    return file.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def broken_name(document: Document) -> str:
    """The name a tool file that failed the format is known by: the name it gives, else
    its file's."""
    name = document.data.get("name") if isinstance(document.data, dict) else None
    return name if isinstance(name, str) else stem(document.file)


def check_document(document: Document, kind: SchemaKind) -> list[Diagnostic]:
    """The format's diagnostics of one document."""
    found: list[Diagnostic] = []
    for err in _validator(kind).iter_errors(document.data):
        if err.validator in ("minimum", "maximum") and not math.isfinite(err.instance):
            continue  # an infinite bound: _non_finite says what is wrong with it
        found.extend(_diagnose(document, err, kind))
    placed = {d.span for d in found}
    found.extend(d for d in _non_finite(document, kind) if d.span not in placed)
    # jsonschema raises `required` once per missing key, each naming them all
    return sorted(dict.fromkeys(found), key=lambda d: d.sort_key)


def _non_finite(document: Document, kind: SchemaKind) -> list[Diagnostic]:
    """YAML can write .inf and .nan, JSON cannot: no schema or literal could carry them.
    Reading the YAML kept where they are (`Document.non_finite`)."""
    return [
        error(
            "TG103",
            f"{_subject(path, kind)} is {_shown(value)}, expected a finite number",
            document.span(path),
            "Write a finite number, or leave the value out: JSON, and so the schema "
            "the model reads, has no infinity or NaN.",
        )
        for path, value in document.non_finite
    ]


_LABELS: Final[dict[str | int, str]] = {
    "params": "parameter",
    "properties": "property",
    "returns": "return field",
    "errors": "error",
    "context": "context field",
    "namespaces": "namespace",
    "toolsets": "toolset",
}
_ENTRIES: Final = ("examples", "not_when", "suppress")


def _subject(path: PathKey, kind: SchemaKind) -> str:
    """A reader's name for the value at `path`.

    `()` is "the tool"; `("params", "sku")` is "parameter 'sku'"; `("params", "sku", "type")`
    is "'type' of parameter 'sku'"; `("examples", 1)` is "examples entry 2"; keys without a
    name of their own are dotted: "'budget.tokens' of the catalogue".
    """
    document = "the catalogue" if kind == "catalogue" else "the tool"
    owner = document
    keys: list[str | int] = []
    index = 0
    while index < len(path):
        part = path[index]
        nxt = path[index + 1] if index + 1 < len(path) else None
        if not keys and part in _LABELS and isinstance(nxt, str):
            label = f"{_LABELS[part]} {nxt!r}"
            owner = label if owner == document else f"{label} of {owner}"
            index += 2
        elif not keys and part in _ENTRIES and isinstance(nxt, int):
            owner = f"{part} entry {nxt + 1}"
            index += 2
        elif not keys and part == "items" and owner != document and nxt is not None:
            owner = f"the items of {owner}"
            index += 1
        else:
            keys.append(part)
            index += 1
    if not keys:
        return owner
    item = ""
    if isinstance(keys[-1], int):
        item = f"item {keys[-1] + 1} of "
        keys = keys[:-1]
    return f"{item}{'.'.join(str(k) for k in keys)!r} of {owner}"


def _shown(value: object) -> str:
    """A value as the message quotes it: short, and containers by their kind."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, float) and math.isnan(value):
        return ".nan"
    if isinstance(value, float) and math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if isinstance(value, str):
        value = clipped(value, 40)
    return clipped(json_text(value), 60)


def _did_you_mean(word: str, choices: list[str]) -> str:
    """A choice the word is a typo (patern, contxt, usewhen) or an abbreviation (str, retry)
    of; never one that merely shares a part of it (unique_items is not min_items)."""
    started = sorted(
        (c for c in choices if len(word) >= 3 and c.startswith(word)), key=len
    )
    close = started or difflib.get_close_matches(word, choices, n=1, cutoff=0.75)
    return f"did you mean {close[0]!r}? " if close else ""


# What JSON Schema (and OpenAPI) call what toolgen has, or has not: people write these from
# habit. Each says the toolgen key, or why there is none.
_SCHEMA_SPELLINGS: Final[dict[str, str]] = {
    "minimum": "toolgen writes it min.",
    "maximum": "toolgen writes it max.",
    "minLength": "toolgen writes it min_length.",
    "maxLength": "toolgen writes it max_length.",
    "minItems": "toolgen writes it min_items.",
    "maxItems": "toolgen writes it max_items.",
    "examples": "toolgen takes one example per parameter: example.",
    "nullable": "toolgen writes it optional: true.",
    "required": "Every parameter is required unless it says optional: true.",
    "format": "Use type: date or type: datetime for dates; other formats are a pattern.",
    "title": "The model reads description; a title would only cost tokens.",
    "uniqueItems": "toolgen has no unique_items; say in the description that values must "
    "not repeat, and have the implementation refuse repeats.",
    "unique_items": "toolgen has no unique_items; say in the description that values must "
    "not repeat, and have the implementation refuse repeats.",
    "exclusiveMinimum": "toolgen has only inclusive bounds: write min with the next value.",
    "exclusiveMaximum": "toolgen has only inclusive bounds: write max with the value below.",
    "multipleOf": "toolgen has no multipleOf; state the step in the description.",
    "const": "Use enum with one value.",
    "additionalProperties": "Objects never take other properties; list every field.",
}


def _unknown_key_hint(key: str, known: list[str]) -> str:
    """What to write instead of an unknown key: the toolgen spelling of a JSON-Schema key,
    or a close known key, then the keys there are."""
    listed = f"Known keys: {', '.join(known)}."
    if key in _SCHEMA_SPELLINGS and key not in known:
        return f"{_SCHEMA_SPELLINGS[key]} {listed}"
    return _did_you_mean(key, known).capitalize() + listed


def _split_by_comma(
    document: Document, path: PathKey, mapping: dict[str, object], key: str
) -> tuple[str, str] | None:
    """Why an unknown key is the rest of the text before it, and how to quote it, when it
    is: in a `{...}` mapping a comma ends a plain value, so `{description: The fee
    charged, in euros}` holds description 'The fee charged' and a key 'in euros' with no
    value. Such keys have no value and stand on the line of the text they continue."""
    names = list(mapping)
    spans = document.key_spans
    line = spans[(*path, key)].line if (*path, key) in spans else 0

    def continues(at: int) -> bool:  # a piece of text cut off by a comma
        name = names[at]
        place = spans.get((*path, name))
        return mapping[name] is None and place is not None and place.line == line

    at = names.index(key)
    if not continues(at):
        return None
    start, end = at - 1, at
    while start >= 0 and continues(start):
        start -= 1
    while end + 1 < len(names) and continues(end + 1):
        end += 1
    before = names[start] if start >= 0 else ""
    value, place = mapping.get(before), spans.get((*path, before))
    if not isinstance(value, str) or place is None or place.line != line:
        return None
    whole = json_text(", ".join([value, *names[start + 1 : end + 1]]))
    return (
        f"a comma ended the value of {before!r} before it ({value!r}): in a {{...}} "
        "mapping a comma ends a value that is not quoted",
        f"Quote the whole text: {before}: {whole}.",
    )


def _diagnose(
    document: Document, err: jsonschema.ValidationError, kind: SchemaKind
) -> list[Diagnostic]:
    path: PathKey = tuple(err.absolute_path)
    span = document.span
    schema: dict[str, Any] = err.schema if isinstance(err.schema, dict) else {}
    subject = _subject(path, kind)
    if err.validator == "anyOf" and isinstance(err.instance, dict):
        # a mapping where a word or a mapping fits (an idempotency key): what is wrong
        # inside the mapping, not that it is not a word
        inner = [
            sub for sub in err.context or () if sub.validator not in ("enum", "type")
        ]
        if inner:
            return [d for sub in inner for d in _diagnose(document, sub, kind)]
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        return _unknown_keys(document, err.instance, path, subject, schema)
    if err.validator == "required" and isinstance(err.instance, dict):
        return [
            error(
                "TG102",
                f"{subject} has no {name!r}",
                span(path, key=True),
                _required_hint(name, schema),
            )
            for name in cast(list[str], err.validator_value)
            if name not in err.instance
        ]
    wrong_word = _not_a_choice(document, err, subject)
    if wrong_word is not None:
        return [wrong_word]
    if err.validator == "type":
        wanted = err.validator_value
        names = wanted if isinstance(wanted, list) else [wanted]
        expected = " or ".join(_article(str(n)) for n in names)
        return [
            error(
                "TG103",
                f"{subject} is {_shown(err.instance)}, expected {expected}",
                span(path),
                _type_hint([str(n) for n in names], err.instance),
            )
        ]
    message = f"{subject}: {err.message}"
    if err.validator in ("maxItems", "maxLength"):
        unit = "items" if err.validator == "maxItems" else "characters"
        message = (
            f"{subject} has {len(cast(Sized, err.instance)):,} {unit}, more than the "
            f"{err.validator_value} allowed"
        )
    elif err.validator in ("minItems", "minLength") or schema.get("pattern") == r"\S":
        message = f"{subject} is empty"
    return [
        error(
            "TG104",
            message,
            span(path),
            schema.get("description", "See toolgen schema for the format."),
        )
    ]


def _unknown_keys(
    document: Document,
    mapping: dict[str, object],
    path: PathKey,
    subject: str,
    schema: dict[str, Any],
) -> list[Diagnostic]:
    """TG101 for each key of a mapping its schema does not know."""
    properties = schema.get("properties", {})
    found = []
    for key in (key for key in mapping if key not in properties):
        message = f"unknown key {key!r} in {subject}"
        split = _split_by_comma(document, path, mapping, key)
        if split is None:
            hint = _unknown_key_hint(key, sorted(properties))
        else:
            message, hint = f"{message}: {split[0]}", split[1]
        found.append(
            error("TG101", message, document.span((*path, key), key=True), hint)
        )
    return found


def _not_a_choice(
    document: Document, err: jsonschema.ValidationError, subject: str
) -> Diagnostic | None:
    """TG103 for a value that is none of the words a failed `enum`, `const` or `anyOf` of
    words takes; None for another failure."""
    choices: list[object] = []
    if err.validator == "enum":
        choices = list(cast(list[object], err.validator_value))
    elif err.validator == "const":
        choices = [err.validator_value]
    elif err.validator == "anyOf":
        # a word, or a mapping (idempotency: {key: ...}): name the words
        for branch in cast(list[object], err.validator_value):
            if isinstance(branch, dict):
                choices.extend(cast(list[object], branch.get("enum", [])))
    if not choices:
        return None
    words = [str(c) for c in choices]
    if len(words) == 1:
        expected, hint = words[0], f"Write {words[0]} here."
    else:
        expected = f"one of {', '.join(words)}"
        hint = f"Use one of: {', '.join(words)}."
    return error(
        "TG103",
        f"{subject} is {_shown(err.instance)}, expected {expected}",
        document.span(tuple(err.absolute_path)),
        _did_you_mean(str(err.instance), words).capitalize() + hint,
    )


# YAML 1.1 read these as booleans; toolgen reads YAML 1.2, where they are text.
_YES_WORDS: Final = frozenset({"y", "yes", "on", "true"})
_NO_WORDS: Final = frozenset({"n", "no", "off", "false"})


def _type_hint(expected: list[str], value: object) -> str:
    """How to write a value of the expected type, guessing from what was written."""
    word = value.lower() if isinstance(value, str) else ""
    if "boolean" in expected and word in _YES_WORDS | _NO_WORDS:
        flag = "true" if word in _YES_WORDS else "false"
        if word in ("true", "false"):
            return f"Write {flag} without quotes; in quotes it is text."
        return (
            f"Write {flag}: toolgen reads YAML 1.2, where only true and false are "
            f"booleans and {value!r} is text."
        )
    if "string" in expected:
        if isinstance(value, bool | int | float):
            return (
                "Put the value in quotes ('...'): without them YAML reads it as a "
                "number or a boolean."
            )
        if isinstance(value, dict):
            return (
                "Write plain text here. Text that holds ': ' needs quotes, or '>-' "
                "after the colon with the text indented on the lines below."
            )
        if isinstance(value, list):
            return "Write plain text here, not a list."
    if {"integer", "number"} & set(expected) and isinstance(value, str):
        with contextlib.suppress(ValueError):
            float(value)
            return "Write the number without quotes; in quotes it is text."
    wanted = " or ".join(
        "true or false" if e == "boolean" else _article(e) for e in expected
    )
    if value is None:
        return f"Write {wanted} after the colon; a key with nothing after it is null."
    return f"Write {wanted} here."


def _article(word: str) -> str:
    """A JSON Schema type as a YAML writer knows it, with its article."""
    return {"object": "a mapping", "array": "a list"}.get(word) or article(word)


def _required_hint(name: str, schema: dict[str, Any]) -> str:
    prop = schema.get("properties", {}).get(name, {})
    description = prop.get("description", "") if isinstance(prop, dict) else ""
    return f"Add {name}: ... ({description})" if description else f"Add {name}."
