"""The argument texts the fuzzer sends: valid, near-valid (one thing wrong), and not JSON.

Valid arguments come from the contract schema (`values`). A near-valid
text is a valid one with one field mutated (wrong type, out of range, pattern miss, enum
neighbour, null, missing, extra, given twice, huge, unicode tricks, floats and booleans for
integers...), and it names the field a rejection must name. The texts that are not arguments
at all are built from valid ones too (cut short, quoted twice, in a code fence...), plus a few
fixed ones that stress the parser (deep nesting, the length limit).

What a text is, valid or not, is not decided here: the contract decides (`contract`), so a
mutation that happens to stay valid is judged as valid.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from toolgen_runtime.arguments import MAX_ARGUMENT_CHARS
from toolgen_runtime.fuzz.values import at_place, values_for, with_good

__all__ = ["Case", "Pairs", "Token", "case_strategies", "sweep", "write"]

Loc = tuple[int | str, ...]
Draw = Callable[[st.SearchStrategy[Any]], Any]


@dataclass(frozen=True, slots=True)
class Token:
    """Text written as it is in place of a value: `NaN`, `1e2`, `007`."""

    text: str


@dataclass(frozen=True, slots=True)
class Pairs:
    """An object written with these keys in this order, a key possibly twice."""

    items: tuple[tuple[str, object], ...]


@dataclass(frozen=True, slots=True)
class Style:
    ascii: bool  # non-ASCII characters as \u escapes
    spaced: bool  # ", " and ": " rather than "," and ":"
    reverse: bool  # the keys of each object last first


# one encoder per way of escaping: json.dumps makes one a call with ensure_ascii=False
_ENCODE = {flag: json.JSONEncoder(ensure_ascii=flag).encode for flag in (True, False)}


def write(node: object, style: Style) -> str:
    """`node` as JSON text, with `Token`s and `Pairs` written as they are."""
    comma, colon = (", ", ": ") if style.spaced else (",", ":")
    encode = _ENCODE[style.ascii]
    if isinstance(node, Token):
        return node.text
    if isinstance(node, Pairs | dict):
        items = list(node.items if isinstance(node, Pairs) else node.items())
        if style.reverse and isinstance(node, dict):
            items.reverse()
        pairs = (encode(key) + colon + write(value, style) for key, value in items)
        return "{" + comma.join(pairs) + "}"
    if isinstance(node, list):
        return "[" + comma.join(write(item, style) for item in node) + "]"
    return encode(node)


@dataclass(frozen=True, slots=True)
class Case:
    """One argument text, how it was made, and the field its one mistake is in (if any)."""

    kind: str
    raw: str
    field: Loc | None = None

    def __repr__(self) -> str:
        shown = self.raw if len(self.raw) <= 300 else self.raw[:300] + "..."
        return f"Case({self.kind!r}, raw={shown!r}, field={self.field!r})"


# --- the contract schema, read as data ----------------------------------------------------


def _branch(schema: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """The non-null part of a parameter schema, and whether null is allowed."""
    if "anyOf" in schema:
        inner: Mapping[str, Any] = {}
        nullable = False
        for option in schema["anyOf"]:
            if option.get("type") == "null":
                nullable = True
            elif not inner:
                inner = option
        return inner, nullable
    kind = schema.get("type")
    if isinstance(kind, list):
        rest = [k for k in kind if k != "null"]
        return {**schema, "type": rest[0] if len(rest) == 1 else rest}, "null" in kind
    return schema, False


@dataclass(frozen=True, slots=True)
class _Location:
    path: Loc
    schema: Mapping[str, Any]  # the non-null part
    nullable: bool
    value: object


def _locations(
    value: object, schema: Mapping[str, Any], path: Loc = ()
) -> list[_Location]:
    found: list[_Location] = []
    stack: list[tuple[object, Mapping[str, Any], Loc]] = [(value, schema, path)]
    while stack:
        node, node_schema, node_path = stack.pop()
        inner, nullable = _branch(node_schema)
        found.append(_Location(node_path, inner, nullable, node))
        if isinstance(node, dict) and "properties" in inner:
            for key, child in node.items():
                sub = inner["properties"].get(key)
                if sub is not None:
                    stack.append((child, sub, (*node_path, key)))
        elif isinstance(node, list) and isinstance(inner.get("items"), dict):
            stack.extend(
                (child, inner["items"], (*node_path, i)) for i, child in enumerate(node)
            )
    found.reverse()
    return found


def _replace(doc: object, path: Loc, new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(doc, dict):
        return {k: (_replace(v, rest, new) if k == head else v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_replace(v, rest, new) if i == head else v for i, v in enumerate(doc)]
    raise AssertionError(f"no {head!r} in {type(doc).__name__}")


# --- mutations of one value ---------------------------------------------------------------

_PALETTE: tuple[tuple[str, object], ...] = (
    ("integer", 0),
    ("integer", 7),
    ("integer", -1),
    ("number", 2.5),
    ("number", -0.5),
    ("string", ""),
    ("string", "text"),
    ("string", "null"),
    ("boolean", True),
    ("boolean", False),
    ("null", None),
    ("array", []),
    ("object", {}),
)

_FULLWIDTH = {c: chr(ord(c) + 0xFEE0) for c in map(chr, range(0x21, 0x7F))}
_OTHER_DIGITS = {str(d): chr(0x0660 + d) for d in range(10)}  # Arabic-Indic
# Latin letters and the Cyrillic ones that look the same (written as escapes so the source
# shows which is which)
_LOOKALIKES = dict(
    zip(
        "aceopxyABCEHKMOPTX",
        "\u0430\u0441\u0435\u043e\u0440\u0445\u0443\u0410\u0412\u0421\u0415\u041d\u041a\u041c\u041e\u0420\u0422\u0425",
        strict=True,
    )
)


def _translate(text: str, table: Mapping[str, str]) -> str:
    return "".join(table.get(c, c) for c in text)


def _allowed_types(location: _Location) -> set[str]:
    kind = location.schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if kind else set()
    if "properties" in location.schema:
        kinds.add("object")
    if "number" in kinds:
        kinds.add("integer")
    if location.nullable:
        kinds.add("null")
    return kinds


def _type_mutations(location: _Location) -> Iterator[tuple[str, object]]:
    allowed = _allowed_types(location)
    for kind, value in _PALETTE:
        if kind not in allowed:
            yield f"{kind} {json.dumps(value)} instead", value
    value = location.value
    yield "wrapped in an array", [value]
    yield "wrapped in an object", {"value": value}


def _integer_mutations(location: _Location) -> Iterator[tuple[str, object]]:
    s = location.schema
    value = location.value if type(location.value) is int else s.get("minimum", 0)
    yield "true for an integer", True
    yield "false for an integer", False
    yield "the same as a float", float(value)
    yield "a fraction", value + 0.5
    yield "a numeric string", str(value)
    yield "exponent notation", Token(f"{value}e0")
    yield "a zero fraction", Token(f"{value}.0")
    yield "a leading zero", Token(f"0{abs(value)}")
    yield "minus zero", Token("-0")
    yield from _limits(s, value)
    yield "2**63", 2**63
    yield "-(2**63)-1", -(2**63) - 1
    yield "400 digits", 10**400
    yield "more digits than Python reads", Token("9" * 4301)
    enum = s.get("enum")
    if enum:
        numbers = [e for e in enum if type(e) is int]
        if numbers:
            yield "below the smallest choice", min(numbers) - 1
            yield "above the largest choice", max(numbers) + 1
            yield "a choice as a string", str(numbers[0])
            yield "a choice as a float", float(numbers[0])


def _limits(s: Mapping[str, Any], value: float) -> Iterator[tuple[str, object]]:
    for name in ("minimum", "maximum"):
        bound = s.get(name)
        if bound is None:
            continue
        step = -1 if name == "minimum" else 1
        yield f"one past the {name}", bound + step
        yield f"far past the {name}", bound + step * 10**20
        if type(bound) is float or type(value) is float:
            yield f"a hair past the {name}", math.nextafter(bound, step * math.inf)
        yield f"at the {name}", bound


def _number_mutations(location: _Location) -> Iterator[tuple[str, object]]:
    s = location.schema
    value = location.value
    if not isinstance(value, int | float) or isinstance(value, bool):
        value = s.get("minimum", 0.0)
    yield "true for a number", True
    yield "a numeric string", str(value)
    yield from _limits(s, value)
    yield "NaN", Token("NaN")
    yield "Infinity", Token("Infinity")
    yield "-Infinity", Token("-Infinity")
    yield "1e400 (infinite as a float)", Token("1e400")
    yield "-1e400", Token("-1e400")
    yield "minus zero", -0.0
    yield "the smallest float", 5e-324
    yield "1e308", 1e308
    yield "exponent notation", Token(f"{float(value):e}")
    yield "an integer", int(value) if math.isfinite(value) else 0


def _boolean_mutations(location: _Location) -> Iterator[tuple[str, object]]:
    yield "1 for true", 1
    yield "0 for false", 0
    yield '"true"', "true"
    yield '"false"', "false"
    yield "Python's True", Token("True")
    yield "a misspelt true", Token("tru")


def _text_variants(text: str) -> Iterator[tuple[str, object]]:
    yield "a trailing newline", text + "\n"
    yield "a leading newline", "\n" + text
    yield "a trailing CRLF", text + "\r\n"
    yield "a leading space", " " + text
    yield "a trailing space", text + " "
    yield "a zero-width space", text[:1] + "\u200b" + text[1:]
    yield "a right-to-left override", "\u202e" + text
    yield "a NUL character", text + "\x00"
    yield "a byte order mark", "\ufeff" + text
    yield "a combining accent", text + "\u0301"
    yield "a line separator", text + "\u2028"
    yield "a no-break space", text + "\u00a0"
    yield "an emoji", text + "\U0001f600"
    yield "a lone surrogate", text + "\ud800"
    yield "decomposed (NFD)", unicodedata.normalize("NFD", text + "é")
    yield "fullwidth letters", _translate(text, _FULLWIDTH)
    yield "Arabic-Indic digits", _translate(text, _OTHER_DIGITS)
    yield "look-alike Cyrillic letters", _translate(text, _LOOKALIKES)
    yield "upper case", text.upper()
    yield "lower case", text.lower()
    yield "case swapped", text.swapcase()
    yield "first character dropped", text[1:]
    yield "last character dropped", text[:-1]
    yield "last character doubled", text + text[-1:]
    yield "empty", ""
    yield "100,000 characters", "A" * 100_000
    yield "repeated 1,000 times", text * 1000


# 25 characters take a catastrophic pattern (`^(a+)+$`) seconds in Python's re, 40 hours;
# the kind of such a case ends with NEAR_MATCH
_BACKTRACKING_RUNS = (25, 40)
NEAR_MATCH = "near-match"

_DATE_MISSES = (
    "2026-02-30",
    "2026-13-01",
    "2026-00-10",
    "2026-1-9",
    "20261009",
    "2026/10/09",
    "09-10-2026",
    "2026-10-09T00:00:00Z",
    "2026-10-09 ",
    "0000-01-01",
    "+2026-10-09",
    "2026-W41-5",
    "2026-282",
    "2024-02-29",
    "2023-02-29",
    "\uff19\uff19\uff19\uff19-12-31",  # fullwidth digits,
)
_DATETIME_MISSES = (
    "2026-10-09T14:30:00",
    "2026-10-09T14:30",
    "2026-10-09T14:30Z",
    "2026-10-09 14:30:00+02:00",
    "2026-10-09t14:30:00z",
    "2026-10-09T14:30:00.123456789+02:00",
    "2026-10-09T24:00:00Z",
    "2026-10-09T23:59:60Z",
    "2026-10-09T14:30:00+24:00",
    "2026-10-09T14:30:00+02",
    "2026-10-09T14:30:00+0200",
    "2026-10-09",
    "2026-02-30T14:30:00Z",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "2026-10-09T14:30:00.Z",
)


def _string_mutations(location: _Location) -> Iterator[tuple[str, object]]:
    s = location.schema
    text = location.value if isinstance(location.value, str) else ""
    yield from _text_variants(text)
    low, high = s.get("minLength"), s.get("maxLength")
    fill = text[:1] or "x"
    if low:
        short = (text * low)[: low - 1] if text else fill * (low - 1)
        yield "one character short", short
    if high is not None:
        yield "one character too many", (text + fill * (high + 1))[: high + 1]
        yield "the most emoji allowed", "\U0001f600" * high
        yield "one emoji too many", "\U0001f600" * (high + 1)
    if "pattern" in s and text:
        # a long run of what the pattern takes, then a character that breaks the match: the
        # input that makes a backtracking engine try every way to split the run
        for length in _BACKTRACKING_RUNS:
            run = (text * length)[:length]
            yield f"a {length}-character {NEAR_MATCH}", run + "!"
    fmt = s.get("format")
    if fmt == "date":
        yield from ((f"date {miss!r}", miss) for miss in _DATE_MISSES)
        yield "a timestamp for a date", 1_760_000_000
    elif fmt == "date-time":
        yield from ((f"date-time {miss!r}", miss) for miss in _DATETIME_MISSES)
        yield "a timestamp for a date-time", 1_760_000_000
    for choice in s.get("enum") or ():
        if isinstance(choice, str):
            yield from (
                (f"near the choice {choice!r}: {label}", variant)
                for label, variant in (
                    ("upper case", choice.upper()),
                    ("capitalised", choice.capitalize()),
                    ("plural", choice + "s"),
                    ("cut", choice[:-1]),
                    ("padded", f" {choice} "),
                    ("zero-width space", choice + "\u200b"),
                    ("fullwidth", _translate(choice, _FULLWIDTH)),
                )
            )


def _array_mutations(location: _Location) -> Iterator[tuple[str, object]]:
    s = location.schema
    items = location.value if isinstance(location.value, list) else []
    low, high = s.get("minItems"), s.get("maxItems")
    yield "empty", []
    if low:
        yield "one item short", items[: low - 1]
    if high is not None and items:
        yield "one item too many", (items * (high + 1))[: high + 1]
    yield "10,000 items", (items or [None]) * (10_000 // max(len(items), 1))
    yield "nested in an array", [items]
    yield "a null item", [*items, None]
    yield "an object of items", {str(i): item for i, item in enumerate(items)}


_ODD_KEYS = ("unexpected", "", " ", "__proto__", "constructor", "a.b", "$", "0", "🗝")


def _object_mutations(
    location: _Location, context_keys: Sequence[str]
) -> Iterator[tuple[str, object, str]]:
    """Mutations of an object's keys: (label, new object, the key the problem is about)."""
    obj = location.value
    if not isinstance(obj, dict):
        return
    for key in obj:
        yield f"{key!r} missing", {k: v for k, v in obj.items() if k != key}, key
        for label, other in (("the same value", obj[key]), ("another value", 0)):
            first = Pairs(((key, other), *obj.items()))
            last = Pairs((*obj.items(), (key, other)))
            yield f"{key!r} given twice, first with {label}", first, key
            yield f"{key!r} given twice, last with {label}", last, key
        for label, variant in (
            ("upper case", key.upper()),
            ("with a trailing space", key + " "),
            ("with a zero-width space", key + "\u200b"),
            ("fullwidth", _translate(key, _FULLWIDTH)),
            ("decomposed", unicodedata.normalize("NFD", key + "é")),
        ):
            if variant != key and variant not in obj:
                renamed = {(variant if k == key else k): v for k, v in obj.items()}
                yield f"{key!r} renamed, {label}", renamed, variant
    known = location.schema.get("properties", {})
    for key in (*_ODD_KEYS, *(() if location.path else context_keys)):
        if key not in known:
            yield f"extra key {key!r}", {**obj, key: 1}, key


_GROUP = 6


def _groups(
    items: list[tuple[str, object, Loc]],
) -> list[list[tuple[str, object, Loc]]]:
    return [items[i : i + _GROUP] for i in range(0, len(items), _GROUP)]


def _mutation_groups(
    location: _Location, context_keys: Sequence[str]
) -> list[list[tuple[str, object, Loc]]]:
    """The mutations of one location, in groups of a few that are alike (each list above is
    written in that order), so a group is drawn first: the trailing newline that slips past
    a Python pattern is not one chance in sixty."""
    path = location.path
    types: list[tuple[str, object, Loc]] = [
        (label, new, path) for label, new in _type_mutations(location)
    ]
    if not location.nullable:
        types.append(("null where null is not allowed", None, path))
    kind = location.schema.get("type")
    by_kind = {
        "integer": _integer_mutations,
        "number": _number_mutations,
        "boolean": _boolean_mutations,
        "string": _string_mutations,
        "array": _array_mutations,
    }
    own: list[tuple[str, object, Loc]] = []
    if isinstance(kind, str) and kind in by_kind:
        own = [(label, new, path) for label, new in by_kind[kind](location)]
    keys = [
        (label, new, (*path, key))
        for label, new, key in _object_mutations(location, context_keys)
    ]
    return [types, *_groups(own), *_groups(keys)]


# --- texts that are not arguments ---------------------------------------------------------


def _broken_texts(raw: str, value: object) -> Iterator[tuple[str, str]]:
    yield "cut short", raw[: len(raw) // 2]
    yield "one character short", raw[:-1]
    yield "a trailing x", raw + "x"
    yield "a second object after it", raw + "{}"
    yield "a trailing comma", raw[:-1] + ",}" if raw.endswith("}") else raw + ","
    yield "a JavaScript comment", raw + " // the arguments"
    yield "a byte order mark in front", "\ufeff" + raw
    yield "single quotes", raw.replace('"', "'")
    yield "quoted twice (a JSON string)", json.dumps(raw)
    yield "in a Markdown code fence", "```json\n" + raw + "\n```"
    yield "Python's repr", repr(value)
    yield (
        "a raw newline in a string",
        raw.replace('":"', '":"\n', 1).replace('": "', '": "\n', 1),
    )
    yield (
        "an invalid escape",
        re.sub(r'":\s?"', lambda m: m.group(0) + "\\x41", raw, count=1),
    )
    yield (
        "a lone low surrogate escape",
        re.sub(r'":\s?"', lambda m: m.group(0) + "\\udc00", raw, count=1),
    )
    yield "in an array", "[" + raw + "]"


_FIXED_TEXTS: tuple[tuple[str, str], ...] = (
    ("empty", ""),
    ("only spaces", "   "),
    ("null", "null"),
    ("an array", "[]"),
    ("a number", "0"),
    ("true", "true"),
    ("a string", '"text"'),
    ("an open brace", "{"),
    ("a close brace", "}"),
    ("NaN", "NaN"),
    ("an empty object with a NUL", "{}\x00"),
    ("nested 199 deep", '{"a":' + "[" * 199 + "]" * 199 + "}"),
    ("nested 201 deep", '{"a":' + "[" * 201 + "]" * 201 + "}"),
    ("nested 100,000 deep", "[" * 100_000 + "]" * 100_000),
    ("100,000 keys", "{" + ",".join(f'"k{i}":{i}' for i in range(100_000)) + "}"),
    ("one character over the limit", '{"a":"' + "A" * (MAX_ARGUMENT_CHARS - 7) + '"}'),
)


# --- the strategies -----------------------------------------------------------------------


def _styles() -> st.SearchStrategy[Style]:
    return st.builds(Style, st.booleans(), st.booleans(), st.booleans())


def case_strategies(
    contract_schema: Mapping[str, Any],
    *,
    context_keys: Sequence[str] = (),
    good: Mapping[str, Sequence[object]] | None = None,
    probes: Sequence[tuple[str, str, object]] = (),
) -> dict[str, st.SearchStrategy[Case]]:
    """The argument texts for one tool, by kind: "valid", "mutated" (one field wrong) and
    "text" (not arguments at all). The places in `good` often carry one of its values (what
    passes a guard), or one of the `probes` (label, place, value) for that place."""
    values = with_good(values_for(contract_schema), good, probes)

    @st.composite
    def valid(draw: Draw) -> Case:
        return Case("valid", write(draw(values), draw(_styles())))

    @st.composite
    def mutated(draw: Draw) -> Case:
        value = draw(values)
        location = draw(st.sampled_from(_locations(value, contract_schema)))
        group = draw(st.sampled_from(_mutation_groups(location, context_keys)))
        label, new, field = draw(st.sampled_from(group))
        raw = write(_replace(value, location.path, new), draw(_styles()))
        return Case(f"mutated: {label}", raw, field)

    @st.composite
    def broken(draw: Draw) -> Case:
        value = draw(values)
        raw = write(value, draw(_styles()))
        texts = [*_broken_texts(raw, value), *_FIXED_TEXTS]
        label, text = draw(st.sampled_from(texts))
        return Case(f"text: {label}", text)

    arbitrary = st.text(max_size=40).map(lambda text: Case("text: arbitrary", text))
    return {"valid": valid(), "mutated": mutated(), "text": broken() | arbitrary}


def sweep(
    contract_schema: Mapping[str, Any],
    value: object,
    *,
    context_keys: Sequence[str] = (),
    probes: Sequence[tuple[str, str, object]] = (),
) -> list[Case]:
    """Every mutation of every field of one valid value, each probe (label, place, a value
    the contract allows that a guard must judge) in its place, and every text that
    is not arguments made from it: what random drawing would reach only by luck, sent in
    turn."""
    style = Style(ascii=False, spaced=False, reverse=False)
    raw = write(value, style)
    cases = [Case("valid", raw)]
    for location in _locations(value, contract_schema):
        for group in _mutation_groups(location, context_keys):
            for label, new, field in group:
                mutated = write(_replace(value, location.path, new), style)
                cases.append(Case(f"mutated: {label}", mutated, field))
    for label, place, new in probes:
        probed = at_place(value, place, new)
        if probed != value:
            cases.append(Case(f"probe: {label}", write(probed, style)))
    texts = [*_broken_texts(raw, value), *_FIXED_TEXTS]
    cases.extend(Case(f"text: {label}", text) for label, text in texts)
    return cases
