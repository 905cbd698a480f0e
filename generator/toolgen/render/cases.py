"""Test data derived from a contract: boundary cases and sample values.

Every boundary case starts from the tool's first accepted example and breaks exactly one field,
so the generated test can require the rejection to name that field: each enum's neighbours,
min-1 and max+1, a pattern miss, lengths and sizes one past their limits, wrong JSON types
(bools and numeric strings as integers, floats with a zero fraction), values of another type that
equal or read like an enum member (`true` and `1.0` for 1, `"1"` for 1, `1` for "1"), null where
null is not allowed, an extra field and a missing one; an array's first item is broken the same
ways, and the fields of its first object item are visited.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolgen.render.source import py_literal, py_str
from toolgen.spec.answers import REDACTED
from toolgen.spec.ir import Catalogue, JsonValue, Param, ReturnField, Tool
from toolgen.spec.toolschema import compiled


@dataclass(frozen=True, slots=True)
class Case:
    """One boundary case: the first accepted example with the field at the dotted path
    `field` set to `value` (or, with `missing`, left out); the rejection must name it."""

    label: str
    args: dict[str, Any]
    field: str
    value: JsonValue = None
    missing: bool = False


_WRONG_TYPES: dict[str, list[tuple[str, JsonValue]]] = {
    "integer": [("a boolean", True), ("a numeric string", "4"), ("a float", 4.0)],
    "number": [("a boolean", True), ("a numeric string", "1.5")],
    "string": [("a number", 5), ("a boolean", True)],
    "boolean": [("a string", "true"), ("a number", 1)],
    "date": [("a day-first date", "09/10/2026"), ("a number", 20261009)],
    "datetime": [("a time without offset", "2026-10-09T14:30:00"), ("a number", 1)],
    "array": [("a string", "x")],
    "object": [("a string", "x")],
    "path": [("a number", 5)],
    "url": [("a number", 5)],
}


def _guard_cases(param: Param, valid: object) -> Iterator[tuple[str, JsonValue]]:
    """What a guard must refuse: ways out of a root, hosts and schemes not allowed, a cursor
    that was never made (the generated tests run them with test boundaries)."""
    if param.path is not None:
        yield "a path out of the root with ..", "../outside/" + _file_name(param)
        yield "an absolute path", "/etc/" + _file_name(param)
        yield "a NUL byte", _file_name(param) + "\x00.txt"
        if param.path.suffixes:
            yield "a suffix not allowed", "notes.toolgen-not-allowed"
    elif param.url is not None:
        tail = "/"
        if isinstance(valid, str) and "://" in valid:
            tail = "/" + valid.split("://", 1)[1].partition("/")[2]
        yield "an IP address for a host", "https://169.254.169.254" + tail
        yield "a host not allowed", "https://toolgen-not-allowed.invalid" + tail
        if param.url.hosts:
            host = param.url.hosts[0].removeprefix("*.")
            yield "a user name before the host", f"https://user@{host}" + tail
            yield "a trailing dot on the host", f"https://{host}." + tail
            if "http" not in param.url.schemes:
                yield "a scheme not allowed", f"http://{host}" + tail
    elif param.is_cursor:
        yield "a cursor that was never made", "eyJ2IjoxfQ.not-signed"


def _file_name(param: Param) -> str:
    suffix = param.path.suffixes[0] if param.path and param.path.suffixes else ".txt"
    return "passwd" + suffix


def _pattern_misses(param: Param, valid: object) -> Iterator[str]:
    pattern = param.constraints.pattern
    if pattern is None:
        return
    seeds = [str(valid)] if isinstance(valid, str) else []
    if param.has_example and isinstance(param.example, str):
        seeds.append(param.example)
    candidates = [s.lower() for s in seeds] + [s.upper() for s in seeds]
    candidates += [s + "!" for s in seeds] + ["!" + s for s in seeds] + ["", "x", "?"]
    regex = compiled(pattern)
    for candidate in candidates:
        if regex.search(candidate) is None:
            yield candidate
            return


def _enum_neighbours(param: Param) -> list[JsonValue]:
    enum = param.constraints.enum or ()
    if param.type == "string":
        words = [str(v) for v in enum]
        near = (words[0].upper(), words[0] + "s", words[0].strip() + " ", "other")
        found: list[JsonValue] = [c for c in dict.fromkeys(near) if c not in words]
        return found[:2]
    numbers = [
        v for v in enum if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    return [max(numbers) + 1] if numbers else []


def _enum_lookalikes(param: Param) -> list[tuple[str, JsonValue]]:
    """Values of another JSON type that Python holds equal to, or that read like, a member
    of the enum (`true` and `1.0` for 1, `"1"` for 1, `1` for "1"): what a lax validator or
    an `==` takes for a choice."""
    members = list(param.constraints.enum or ())
    found: list[tuple[str, JsonValue]] = []
    if param.type == "integer":
        ints = [m for m in members if isinstance(m, int) and not isinstance(m, bool)]
        for boolean, number in ((True, 1), (False, 0)):
            if number in ints:
                found.append(
                    (f"{json.dumps(boolean)} for the enum value {number}", boolean)
                )
        if ints:
            m = ints[0]
            found.append((f"{float(m)!r} for the enum value {m}", float(m)))
            found.append((f"{json.dumps(str(m))} for the enum value {m}", str(m)))
    elif param.type == "string":
        for word in (m for m in members if isinstance(m, str)):
            flag = word.strip().lower()
            if flag in ("true", "false"):
                boolean = flag == "true"
                found.append((f"{json.dumps(boolean)} for {json.dumps(word)}", boolean))
            try:
                parsed = float(word)
            except ValueError:
                continue
            if not math.isfinite(parsed):
                continue
            value: JsonValue = int(parsed) if parsed.is_integer() else parsed
            found.append((f"{json.dumps(value)} for {json.dumps(word)}", value))
    return found[:4]


def _value_cases(param: Param, valid: object) -> Iterator[tuple[str, JsonValue]]:
    """(label, bad value) pairs for one field, each breaking only that field."""
    c = param.constraints
    lookalikes = _enum_lookalikes(param)
    yield from lookalikes
    tried = {json.dumps(bad) for _, bad in lookalikes}
    for label, bad in _WRONG_TYPES[param.type]:
        if json.dumps(bad) not in tried:
            yield f"{label} instead of {param.type}", bad
    yield from _guard_cases(param, valid)
    if not param.optional:
        yield "null where null is not allowed", None
    if c.enum is not None:
        for bad in _enum_neighbours(param):
            yield f"{py_literal(bad)}, not in the enum", bad
    if c.minimum is not None:
        yield "one below the minimum", c.minimum - 1
    if c.maximum is not None:
        yield "one above the maximum", c.maximum + 1
    for miss in _pattern_misses(param, valid):
        yield f"{miss!r} misses the pattern", miss
    if c.min_length is not None and c.min_length > 0:
        yield "one character too short", _fill(valid, c.min_length - 1)
    if c.max_length is not None:
        yield "one character too long", _fill(valid, c.max_length + 1)
    if param.type == "array" and isinstance(valid, list):
        item = valid[0] if valid else None
        # the item is shared: cases are only read; a list past the runtime's cap on the
        # arguments' size (a million characters) would not be refused on its field
        many = 0 if c.max_items is None else c.max_items + 1
        if item is not None and 0 < many * len(json.dumps(item)) < 500_000:
            yield "one item too many", [item] * many
        if c.min_items is not None and c.min_items > 0 and item is not None:
            yield "one item too few", [item] * (c.min_items - 1)


def _fill(valid: object, length: int) -> str:
    seed = valid if isinstance(valid, str) and valid else "x"
    return (seed * (length // len(seed) + 1))[:length]


def cases(tool: Tool) -> list[Case]:
    """Boundary cases for a tool, from its first accepted example; none without one."""
    if not tool.accepted_examples:
        return []
    found = _Cases(dict(tool.accepted_examples[0].args))
    found.visit(tool.params, found.base, ())
    return found.cases


class _Cases:
    """The cases of one example, collected as its parameters are walked (an object, not
    nested functions: closures that call each other are reference cycles, which hold each
    tool's cases until the collector runs)."""

    def __init__(self, base: dict[str, Any]) -> None:
        self.base = base
        self.cases: list[Case] = []

    def broken(self, param: Param, valid: object, here: tuple[str, ...]) -> None:
        name = ".".join(here)
        for label, bad in _value_cases(param, valid):
            self.cases.append(
                Case(f"{name}: {label}", _replaced(self.base, here, bad), name, bad)
            )

    def visit(
        self,
        params: tuple[Param, ...],
        container: dict[str, Any],
        path: tuple[str, ...],
    ) -> None:
        for param in params:
            here = (*path, param.name)
            name = ".".join(here)
            valid = container.get(param.name)
            self.broken(param, valid, here)
            missing = _replaced(self.base, path, None, drop=param.name)
            self.cases.append(Case(f"{name}: missing", missing, name, missing=True))
            if param.type == "object" and isinstance(valid, dict):
                self.visit(param.properties, valid, here)
            if param.items is not None and isinstance(valid, list):
                self.items(param, valid, here)
        extra = (*path, "unexpected_field")
        name = ".".join(extra)
        unexpected = _replaced(self.base, extra, 1)
        self.cases.append(Case(f"{name}: not a parameter", unexpected, name, 1))

    def items(self, array: Param, valid: list[Any], path: tuple[str, ...]) -> None:
        """The first item broken the ways a field of the items' type is (an empty array
        gets that one bad item: the path one past its end), and the fields of the first
        object item visited."""
        item = array.items
        assert item is not None
        if not valid and array.constraints.max_items == 0:
            return
        here = (*path, "0")
        first = valid[0] if valid else None
        if item.type == "object":
            if isinstance(first, dict):
                self.visit(item.properties, first, here)
            return
        self.broken(item, first, here)


def _replaced(
    base: dict[str, Any],
    path: tuple[str, ...],
    value: object,
    *,
    drop: str | None = None,
) -> dict[str, Any]:
    """`base` with one field set (or, with `drop`, one key removed). Only the containers on
    the way to the field are copied; the rest is shared with `base`, which is never changed
    (a case is only read: compared and written out as a literal)."""
    keys = path[:-1] if drop is None else path
    result: dict[str, Any] = dict(base)
    node: Any = result
    for key in keys:  # copy each container on the way down, in place of the original
        index: Any = int(key) if isinstance(node, list) else key
        child = node[index]
        node[index] = list(child) if isinstance(child, list) else dict(child)
        node = node[index]
    if drop is not None:
        node.pop(drop, None)
    elif isinstance(node, list):
        index = int(path[-1])
        node[index : index + 1] = [value]  # one past the end adds the item
    else:
        node[path[-1]] = value
    return result


# --- samples: valid values of the declared types, for fake implementations --------------------


def _sample_scalar(
    type_: str, name: str, enum: tuple[JsonValue, ...] | None
) -> tuple[str, JsonValue]:
    """(Python expression, JSON value) of a sample of one scalar type."""
    if enum:
        return py_literal(enum[0]), enum[0]
    if type_ == "string":
        return py_str(f"sample {name}"), f"sample {name}"
    if type_ == "integer":
        return "1", 1
    if type_ == "number":
        return "1.5", 1.5
    if type_ == "boolean":
        return "True", True
    if type_ == "date":
        return "datetime.date(2026, 1, 2)", "2026-01-02"
    # what the runtime writes (pydantic's JSON): UTC as "Z", RFC 3339
    return (
        "datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)",
        "2026-01-02T03:04:05Z",
    )


def _sample_field(f: ReturnField, qualifier: str) -> tuple[str, JsonValue]:
    if f.type == "array":
        assert f.items is not None
        expr, value = _sample_field(f.items, qualifier)
        return f"[{expr}]", [value]
    if f.type == "object":
        return _sample_object(f.class_name, f.properties, qualifier)
    return _sample_scalar(f.type, f.name, f.enum)


def _sample_object(
    class_name: str, fields: tuple[ReturnField, ...], qualifier: str
) -> tuple[str, JsonValue]:
    parts = []
    values: dict[str, JsonValue] = {}
    for f in fields:
        expr, value = _sample_field(f, qualifier)
        parts.append(f"{f.py_name}={expr}")
        # what the model reads: a sensitive value never shows (toolgen_runtime.output)
        values[f.name] = REDACTED if f.sensitive else value
    return f"{qualifier}{class_name}({', '.join(parts)})", values


def sample_result_expression(tool: Tool, qualifier: str = "") -> str:
    """A Python expression building a valid result of the tool (`qualifier` prefixes class
    names, e.g. "create_reorder." when the module is imported as a whole)."""
    return _sample_object(tool.py.result_class, tool.returns, qualifier)[0]


def sample_result_json(tool: Tool) -> dict[str, JsonValue]:
    value = _sample_object(tool.py.result_class, tool.returns, "")[1]
    assert isinstance(value, dict)
    return value


def sample_context_expression(catalogue: Catalogue) -> str:
    args = ", ".join(
        f"{f.py_name}={_sample_scalar(f.type, f.name, None)[0]}"
        for f in catalogue.context
    )
    return f"{catalogue.context_class}({args})"


def needs_datetime(tool: Tool) -> bool:
    return any(
        f.type in ("date", "datetime") for top in tool.returns for f in top.walk()
    )


def context_needs_datetime(catalogue: Catalogue) -> bool:
    return any(f.type in ("date", "datetime") for f in catalogue.context)
