"""Values a JSON Schema allows, as a hypothesis strategy, for the schemas toolgen works with.

Two kinds of schema come here: a tool's contract schema (what the compiler's
`parameters_schema(params, full=True)` writes) and the JSON Schema pydantic gives for a result
class. Both use a small closed set of keywords, and a keyword outside it is an error, never
silently ignored: a generator that skipped a constraint would make "valid" cases that are not.

Patterns are generated with ECMA-262's meaning (`\\d` and `\\w` ASCII, `$` the end of the
text); the contract module, not this one, has the last word on what is valid.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from toolgen_runtime.schema import python_pattern

__all__ = [
    "ITEM",
    "KNOWN_KEYWORDS",
    "at_place",
    "values_for",
    "with_good",
]

KNOWN_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",  # pydantic's enum of one value
        "pattern",
        "format",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
        "anyOf",
        "$ref",
        "$defs",
        # words for people, no constraint
        "title",
        "description",
    }
)
_FORMATS = ("date", "date-time")
_EXACT = 2**53  # the largest whole number from which every smaller one is a float
_MOST_ITEMS = 6  # arrays with no maxItems: a few items show as much as many


def _offsets() -> st.SearchStrategy[datetime.timezone]:
    minutes = st.integers(-23 * 60 - 59, 23 * 60 + 59)
    return minutes.map(lambda m: datetime.timezone(datetime.timedelta(minutes=m)))


def _date_times() -> st.SearchStrategy[str]:
    moments = st.datetimes(
        min_value=datetime.datetime(2, 1, 1), max_value=datetime.datetime(9998, 12, 31)
    )
    aware = st.builds(
        lambda moment, zone: moment.replace(tzinfo=zone), moments, _offsets()
    )
    return aware.map(lambda moment: moment.isoformat()) | moments.map(
        lambda moment: moment.isoformat() + "Z"
    )


def _with_bounds(
    values: st.SearchStrategy[Any], low: object, high: object
) -> st.SearchStrategy[Any]:
    """`values`, and as often as all the rest, its bounds themselves: an off-by-one at a
    bound is the commonest mistake, and the values between are many."""
    bounds = [bound for bound in (low, high) if bound is not None]
    return st.sampled_from(bounds) | values if bounds else values


class _Builder:
    def __init__(self, root: Mapping[str, Any], filled: bool = False) -> None:
        self.root = root
        self.filled = filled

    def build(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        unknown = set(schema) - KNOWN_KEYWORDS
        if unknown:
            raise ValueError(
                f"the fuzzer does not know the keywords {sorted(unknown)} of {dict(schema)!r}"
            )
        if "$ref" in schema:
            return self.build(self._resolve(schema["$ref"]))
        if "anyOf" in schema:
            return st.one_of([self.build(option) for option in schema["anyOf"]])
        if "enum" in schema:
            return st.sampled_from(list(schema["enum"]))
        if "const" in schema:
            return st.just(schema["const"])
        kind = schema.get("type")
        if kind is None and "properties" in schema:
            kind = "object"
        if isinstance(kind, list):
            return st.one_of([self.build({**schema, "type": k}) for k in kind])
        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            low, high = schema.get("minimum"), schema.get("maximum")
            return _with_bounds(st.integers(low, high), low, high)
        if kind == "number":
            return self._numbers(schema)
        if kind == "string":
            return self._strings(schema)
        if kind == "array":
            items = schema.get("items", {})
            low = schema.get("minItems", 0)
            high = schema.get("maxItems", max(low, _MOST_ITEMS))
            low = max(low, 1) if self.filled and high else low
            return st.lists(self.build(items), min_size=low, max_size=high)
        if kind == "object":
            properties = schema.get("properties", {})
            required = set(schema.get("required", ()))
            return st.fixed_dictionaries(
                {k: self.build(v) for k, v in properties.items() if k in required},
                optional={
                    k: self.build(v) for k, v in properties.items() if k not in required
                },
            )
        raise ValueError(
            f"the fuzzer does not know the type {kind!r} of {dict(schema)!r}"
        )

    def _resolve(self, ref: str) -> Mapping[str, Any]:
        prefix = "#/$defs/"
        if not ref.startswith(prefix):
            raise ValueError(
                f"the fuzzer reads only local $defs references, not {ref!r}"
            )
        found: Mapping[str, Any] = self.root["$defs"][ref[len(prefix) :]]
        return found

    def _numbers(self, schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        low, high = schema.get("minimum"), schema.get("maximum")
        floats = _with_bounds(
            st.floats(low, high, allow_nan=False, allow_infinity=False), low, high
        )
        # a number is a float: a whole number past 2**53 is not held exactly (nor by a
        # JSON reader in JavaScript), and would come back as another
        whole_low = max(-_EXACT, -_EXACT if low is None else math.ceil(low))
        whole_high = min(_EXACT, _EXACT if high is None else math.floor(high))
        if whole_low > whole_high:
            return floats
        return floats | st.integers(whole_low, whole_high)

    def _strings(self, schema: Mapping[str, Any]) -> st.SearchStrategy[str]:
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        fmt = schema.get("format")
        if fmt is not None and fmt not in _FORMATS:
            raise ValueError(f"the fuzzer does not know the format {fmt!r}")
        strings: st.SearchStrategy[str]
        if fmt == "date":
            strings = st.dates().map(lambda day: day.isoformat())
        elif fmt == "date-time":
            strings = _date_times()
        elif "pattern" in schema:
            strings = st.from_regex(python_pattern(schema["pattern"]))
        else:
            return st.text(min_size=low, max_size=high)
        if low or high is not None:
            strings = strings.filter(
                lambda s: low <= len(s) <= (high if high is not None else len(s))
            )
        return strings


def values_for(
    schema: Mapping[str, Any], *, filled: bool = False
) -> st.SearchStrategy[Any]:
    """The values `schema` allows (or nearly: the contract judges each); `filled`, only
    those with an item in every array that may hold one."""
    return _Builder(schema, filled).build(schema)


_KEEP = object()  # the value drawn from the schema stays
ITEM = "*"  # in a place (`reports.*`), each item of an array


def at_place(value: object, place: str, new: object) -> object:
    """`value` with `new` where `place` (`copy_to`, `cover.sheet`, `reports.*`) stands, the
    rest as it was; unchanged where nothing stands there."""
    key, _, rest = place.partition(".")
    if key == ITEM:
        if not isinstance(value, list):
            return value
        return [at_place(item, rest, new) if rest else new for item in value]
    if not isinstance(value, dict) or key not in value:
        return value
    return {**value, key: at_place(value[key], rest, new) if rest else new}


def with_good(
    values: st.SearchStrategy[Any],
    good: Mapping[str, Sequence[object]] | None,
    probes: Sequence[tuple[str, str, object]] = (),
) -> st.SearchStrategy[Any]:
    """`values` (objects) where each place (`Guarded.name`) in `good` or `probes` carries
    one of their values as often as the one drawn from the schema (every item of an
    array the same one)."""
    good = good or {}
    places = sorted({*good, *(place for _, place, _ in probes)})
    if not places:
        return values
    choices: dict[str, st.SearchStrategy[object]] = {}
    for place in places:
        options: list[st.SearchStrategy[object]] = []
        if good.get(place):
            options.append(st.sampled_from(list(good[place])))
        probed = [value for _, field, value in probes if field == place]
        if probed:
            options.append(st.sampled_from(probed))
        options.append(st.just(_KEEP))
        choices[place] = st.one_of(options)

    def chosen(value: object, picks: dict[str, object]) -> object:
        for place, pick in picks.items():
            if pick is not _KEEP:
                value = at_place(value, place, pick)
        return value

    return st.builds(chosen, values, st.fixed_dictionaries(choices))
