"""jsonschema's errors for toolgen's own schemas, found without importing jsonschema.

Importing jsonschema (with referencing, attrs and its format libraries) costs 50-70 ms, a
tenth of a rebuild after one edit, which checks one document against the format and the
examples and defaults of one tool; nearly all of them pass, and the rest are worded from
jsonschema's own errors. So a build asks this module first: it walks a schema written in
the few keywords toolgen's schemas use (`_KEYWORDS`) and finds the errors jsonschema's
Draft 2020-12 validator would yield, in its order, as `Error`s that carry what the callers
read of jsonschema's (the path, the keyword, its value, the branches of an `anyOf`). A
schema with any other keyword, a `$ref` that is not a pointer into the same document, or a
value of a type JSON does not have, is `Unknown`: the caller asks jsonschema.

Each check runs in a `Dialect`: `FORMAT` is plain Draft 2020-12 as validate.py runs it (no
format asserted, Python's `re`); toolschema's `CONTRACT` is the generated validator's (an
integer is never a float, patterns mean what ECMA-262 says, `date` and `date-time` asserted).
tests/test_quickcheck.py holds both to jsonschema's answers on generated schemas and values,
and on every spec file there is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple

FieldPath = tuple[str | int, ...]
Schema = dict[str, object]


class Unknown(Exception):
    """The schema or the value is beyond this module: ask jsonschema."""


class Error(NamedTuple):
    """One error as jsonschema yields it: `keyword` is its `validator` (None for a False
    schema), `rule` its `validator_value`, `value` its `instance`, `schema` the schema
    whose keyword it is, `context` the errors of an anyOf's branches."""

    path: FieldPath
    keyword: str | None
    rule: object
    value: object
    schema: object
    context: tuple[Error, ...] = ()


class Dialect(NamedTuple):
    strict_integer: bool  # an integer is an int only, never a float such as 4.0
    matches: Callable[[str, str], bool]  # (pattern, text) -> the pattern is found
    formats: Mapping[
        str, Callable[[str], bool]
    ]  # the formats asserted: format -> check


def _python_search(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


FORMAT: Final = Dialect(strict_integer=False, matches=_python_search, formats={})

# keywords that assert nothing (`$defs` is read through `$ref`)
_ANNOTATIONS: Final = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "$defs",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
_VALUE_TYPES: Final = (str, int, float, bool, type(None), list, dict)


def errors(schema: object, value: object, dialect: Dialect) -> list[Error]:
    """Every error jsonschema's validator would yield for `value`, in its order; raises
    Unknown where this module cannot tell."""
    found: list[Error] = []
    try:
        _Walk(schema, dialect).schema(schema, value, (), found)
    except RecursionError:
        raise Unknown("too deep") from None
    return found


def equal(one: object, two: object) -> bool:
    """jsonschema's equality (`_utils.equal`): True is not 1, 1 is 1.0, lists and objects
    item by item."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(
            equal(a, b) for a, b in zip(one, two, strict=True)
        )
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(
            key in two and equal(item, two[key]) for key, item in one.items()
        )
    if isinstance(one, bool) or isinstance(two, bool):
        return False  # not the same object: True and 1, or True and False
    return one == two


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPES: Final[dict[str, Callable[[object], bool]]] = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _number,
    "integer": lambda v: _is_int(v) or (isinstance(v, float) and v.is_integer()),
}


# keyword -> (the values it applies to, what breaks it: (value, rule) -> bool)
_BOUNDS: Final[
    dict[str, tuple[Callable[[object], bool], Callable[[Any, Any], bool]]]
] = {
    "minimum": (_number, lambda v, r: v < r),
    "maximum": (_number, lambda v, r: v > r),
    "exclusiveMinimum": (_number, lambda v, r: v <= r),
    "exclusiveMaximum": (_number, lambda v, r: v >= r),
    "minLength": (_TYPES["string"], lambda v, r: len(v) < r),
    "maxLength": (_TYPES["string"], lambda v, r: len(v) > r),
    "minItems": (_TYPES["array"], lambda v, r: len(v) < r),
    "maxItems": (_TYPES["array"], lambda v, r: len(v) > r),
}
_COUNTS: Final = frozenset({"minLength", "maxLength", "minItems", "maxItems"})


class _Here(NamedTuple):
    """Where a walk is: one schema object, the value it is applied to, the value's path, and
    the list its errors go to."""

    schema: Schema
    value: object
    path: FieldPath
    out: list[Error]

    def fail(self, keyword: str, rule: object, context: tuple[Error, ...] = ()) -> None:
        self.out.append(
            Error(self.path, keyword, rule, self.value, self.schema, context)
        )


class _Walk:
    """One value against one schema document (`root`, which `$ref` points into)."""

    def __init__(self, root: object, dialect: Dialect) -> None:
        self.root = root
        self.dialect = dialect

    def schema(
        self,
        schema: object,
        value: object,
        path: FieldPath,
        out: list[Error],
        *,
        stepped: bool = False,
    ) -> None:
        """`stepped`: `path` is one step below the schema's holder (a property, an item):
        jsonschema blames a False schema there at the holder's path."""
        if not isinstance(value, _VALUE_TYPES):
            raise Unknown(f"a value of type {type(value).__name__}")
        if schema is True:
            return
        if schema is False:
            out.append(Error(path[:-1] if stepped else path, None, None, value, schema))
            return
        if not isinstance(schema, dict):
            raise Unknown("a schema that is not an object")
        here = _Here(schema, value, path, out)
        for keyword, rule in schema.items():
            if keyword in _ANNOTATIONS:
                continue
            if keyword in _BOUNDS:
                self._bound(keyword, rule, here)
                continue
            check = self._KEYWORDS.get(keyword)
            if check is None:
                raise Unknown(f"the keyword {keyword!r}")
            check(self, rule, here)

    def _bound(self, keyword: str, rule: object, here: _Here) -> None:
        if not (_is_int(rule) if keyword in _COUNTS else _number(rule)):
            raise Unknown(f"{keyword} {rule!r}")
        applies, breaks = _BOUNDS[keyword]
        if applies(here.value) and breaks(here.value, rule):
            here.fail(keyword, rule)

    def _is_type(self, value: object, name: object) -> bool:
        if name == "integer" and self.dialect.strict_integer:
            return _is_int(value)
        test = _TYPES.get(name) if isinstance(name, str) else None
        if test is None:
            raise Unknown(f"the type {name!r}")
        return test(value)

    def _type(self, rule: object, here: _Here) -> None:
        names = [rule] if isinstance(rule, str) else rule
        if not isinstance(names, list):
            raise Unknown("a type that is not a name or a list")
        if not any(self._is_type(here.value, name) for name in names):
            here.fail("type", rule)

    def _enum(self, rule: object, here: _Here) -> None:
        if not isinstance(rule, list):
            raise Unknown("an enum that is not a list")
        if not any(equal(choice, here.value) for choice in rule):
            here.fail("enum", rule)

    def _const(self, rule: object, here: _Here) -> None:
        if not equal(here.value, rule):
            here.fail("const", rule)

    def _pattern(self, rule: object, here: _Here) -> None:
        if not isinstance(rule, str):
            raise Unknown("a pattern that is not a string")
        if isinstance(here.value, str) and not self.dialect.matches(rule, here.value):
            here.fail("pattern", rule)

    def _format(self, rule: object, here: _Here) -> None:
        check = self.dialect.formats.get(rule) if isinstance(rule, str) else None
        if check is not None and isinstance(here.value, str) and not check(here.value):
            here.fail("format", rule)

    def _required(self, rule: object, here: _Here) -> None:
        if not isinstance(rule, list):
            raise Unknown("required that is not a list")
        if isinstance(here.value, dict):
            for name in rule:
                if name not in here.value:
                    here.fail(
                        "required", rule
                    )  # one error a missing name, as jsonschema

    def _properties(self, rule: object, here: _Here) -> None:
        if not isinstance(rule, dict):
            raise Unknown("properties that are not an object")
        value = here.value
        if isinstance(value, dict):
            for name, subschema in rule.items():
                if name in value:
                    step = (*here.path, name)
                    self.schema(subschema, value[name], step, here.out, stepped=True)

    def _additional(self, rule: object, here: _Here) -> None:
        if "patternProperties" in here.schema:
            raise Unknown("patternProperties")
        known = here.schema.get("properties", {})
        if not isinstance(known, dict):
            raise Unknown("properties that are not an object")
        value = here.value
        if not isinstance(value, dict):
            return
        extras = [key for key in value if key not in known]
        if isinstance(rule, dict):
            # jsonschema walks the extras as a set, in no fixed order
            for key in extras:
                step = (*here.path, key)
                self.schema(rule, value[key], step, here.out, stepped=True)
        elif rule is False:
            if extras:
                here.fail("additionalProperties", rule)
        elif rule is not True:
            raise Unknown(f"additionalProperties {rule!r}")

    def _items(self, rule: object, here: _Here) -> None:
        if "prefixItems" in here.schema:
            raise Unknown("prefixItems")
        value = here.value
        if not isinstance(value, list) or not value:
            return
        if rule is False:
            here.fail("items", rule)
            return
        for index, item in enumerate(value):
            self.schema(rule, item, (*here.path, index), here.out, stepped=True)

    def _any_of(self, rule: object, here: _Here) -> None:
        if not isinstance(rule, list):
            raise Unknown("anyOf that is not a list")
        tried: list[Error] = []
        for branch in rule:
            found: list[Error] = []
            self.schema(branch, here.value, here.path, found)
            if not found:
                return
            tried.extend(found)
        here.fail("anyOf", rule, tuple(tried))

    def _ref(self, rule: object, here: _Here) -> None:
        if not isinstance(rule, str) or not rule.startswith("#/"):
            raise Unknown(f"$ref {rule!r}")
        target = self.root
        for part in rule[2:].split("/"):
            key = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or key not in target:
                raise Unknown(f"$ref {rule!r}")
            target = target[key]
        self.schema(target, here.value, here.path, here.out)

    _KEYWORDS: Final[dict[str, Callable[[_Walk, object, _Here], None]]] = {
        "type": _type,
        "enum": _enum,
        "const": _const,
        "pattern": _pattern,
        "format": _format,
        "required": _required,
        "properties": _properties,
        "additionalProperties": _additional,
        "items": _items,
        "anyOf": _any_of,
        "$ref": _ref,
    }
