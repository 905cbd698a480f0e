"""Reading the `params` of a tool file: each parameter, nested ones included, with the
constraints that apply to its type (TG120-TG123, TG126). What a key means depends on the type
beside it, so a key that does not apply, bounds that cross, a pattern that does not compile
and an enum value of another type are reported here, at the value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from toolgen.names import python_name
from toolgen.spec.backtracking import ambiguous_repetition
from toolgen.spec.ir import Constraints, JsonValue, Param, ParamType
from toolgen.spec.load import PathKey
from toolgen.spec.model.boundaries import BoundaryReader
from toolgen.spec.model.reading import (
    fits_type,
    is_number,
    mapping_value,
    text_value,
    whole_number,
)
from toolgen.spec.toolschema import pattern_problem
from toolgen.text import article, listing, shown

_TYPE_KEYS: Mapping[str, frozenset[str]] = {
    "string": frozenset({"enum", "pattern", "min_length", "max_length"}),
    "integer": frozenset({"enum", "min", "max"}),
    "number": frozenset({"enum", "min", "max"}),
    "boolean": frozenset(),
    "date": frozenset(),
    "datetime": frozenset(),
    "array": frozenset({"items", "min_items", "max_items"}),
    "object": frozenset({"properties"}),
    # a guard's keys
    "path": frozenset({"root", "suffixes", "must_exist"}),
    "url": frozenset({"hosts", "hosts_from", "schemes", "ports"}),
}
_TYPED_KEYS = frozenset().union(*_TYPE_KEYS.values())
_PAIRS = (("min", "max"), ("min_length", "max_length"), ("min_items", "max_items"))


class ParamsReader(BoundaryReader):
    """Reads the parameters of one document (their guards are `BoundaryReader`'s)."""

    def params(
        self, raw: Mapping[str, object], path: PathKey, stem: str
    ) -> tuple[Param, ...]:
        return tuple(self.param(*field) for field in self.fields(raw, path, stem))

    def param(
        self,
        name: str,
        d: Mapping[str, object],
        path: PathKey,
        class_name: str,
        items_class: str,
    ) -> Param:
        ptype = str(d.get("type"))
        self._keys_of_other_types(ptype, d, path)
        path_spec = self.path_spec(name, d, path) if ptype == "path" else None
        url_spec = self.url_spec(d, path) if ptype == "url" else None
        constraints = self.constraints(ptype, d, path)
        items = self._items(name, d, path, items_class) if ptype == "array" else None
        properties: tuple[Param, ...] = ()
        if ptype == "object":
            props = mapping_value(d.get("properties"))
            if not props:
                hint = (
                    "List its fields under properties (a free-form object cannot be "
                    "validated)."
                )
                self.no_properties("parameter", name, path, hint)
            properties = self.params(props, (*path, "properties"), class_name)
        has_default = "default" in d and d["default"] is not None
        if has_default and d.get("optional") is False:
            self.report(
                "TG120",
                f"parameter {name!r} has a default but says optional: false",
                self.span((*path, "optional"), key=True),
                "A default is what null means, so the parameter is optional: remove "
                "optional: false, or remove the default.",
            )
        return Param(
            name=name,
            py_name=python_name(name),
            type=cast(ParamType, ptype),
            description=text_value(d, "description"),
            constraints=constraints,
            optional=bool(d.get("optional", False)) or "default" in d,
            has_default=has_default,
            default=cast(JsonValue, d.get("default")),
            has_example="example" in d,
            example=cast(JsonValue, d.get("example")),
            items=items,
            properties=properties,
            class_name=class_name,
            origin=self.origin(path),
            path=path_spec,
            url=url_spec,
        )

    def _keys_of_other_types(
        self, ptype: str, d: Mapping[str, object], path: PathKey
    ) -> None:
        """TG120 for each constraint or guard key that applies to other types than
        `ptype` (a guard's to its own type only: the hint names it)."""
        for key in sorted(_TYPED_KEYS & set(d) - _TYPE_KEYS[ptype]):
            fits = sorted(t for t, keys in _TYPE_KEYS.items() if key in keys)
            guard = fits[0] in ("path", "url")
            self.report(
                "TG120",
                f"{key!r} does not apply to {article(ptype)} parameter",
                self.span((*path, key), key=True),
                f"{key!r} applies to {listing(fits)} parameters; remove it or "
                + (f"use type: {fits[0]}." if guard else "change the type."),
            )

    def _items(
        self, name: str, d: Mapping[str, object], path: PathKey, items_class: str
    ) -> Param | None:
        """The items of an array parameter; None when it does not say their type."""
        if "items" not in d:
            self.no_items("parameter", name, path)
            return None
        item_d = mapping_value(d["items"])
        for key in ("optional", "default"):
            if key in item_d:
                self.report(
                    "TG120",
                    f"{key!r} does not apply to the items of an array",
                    self.span((*path, "items", key), key=True),
                    "Make the array itself optional instead.",
                )
        return self.param(
            name, item_d, (*path, "items"), items_class, items_class + "Item"
        )

    def constraints(
        self, ptype: str, d: Mapping[str, object], path: PathKey
    ) -> Constraints:
        """The constraints that apply to `ptype` (TG120 reports the others)."""
        self._check_bounds(ptype, d, path)
        pattern = self._pattern(d, path)
        enum = self._enum(ptype, d, path)
        return Constraints(
            enum=None if enum is None else tuple(cast(list[JsonValue], enum)),
            pattern=pattern,
            # numbers, or left out: the format check refused anything else
            minimum=cast("int | float | None", d.get("min")),
            maximum=cast("int | float | None", d.get("max")),
            min_length=whole_number(d.get("min_length")),
            max_length=whole_number(d.get("max_length")),
            min_items=whole_number(d.get("min_items")),
            max_items=whole_number(d.get("max_items")),
        )

    def _check_bounds(self, ptype: str, d: Mapping[str, object], path: PathKey) -> None:
        """TG121 for a lower bound above its upper one; TG123 for a bound of an integer
        parameter that is not a whole number."""
        for low, high in _PAIRS:
            lo, hi = d.get(low), d.get(high)
            if low not in _TYPE_KEYS[ptype]:
                continue
            if is_number(lo) and is_number(hi) and cast(float, lo) > cast(float, hi):
                self.report(
                    "TG121",
                    f"{low} ({lo}) is greater than {high} ({hi})",
                    self.span((*path, low)),
                    f"Make {low} at most {high}.",
                )
        if ptype == "integer":
            for key in ("min", "max"):
                value = d.get(key)
                if isinstance(value, float) and not value.is_integer():
                    self.report(
                        "TG123",
                        f"{key} of an integer parameter must be a whole number, got {value}",
                        self.span((*path, key)),
                        f"Use {int(value)} or {int(value) + 1}.",
                    )

    def _pattern(self, d: Mapping[str, object], path: PathKey) -> str | None:
        """The pattern, or None when there is none, it does not compile (TG122) or it can
        take years to match (TG127): a value is then judged without it."""
        pattern = d.get("pattern")
        if not isinstance(pattern, str):
            return None
        problem = pattern_problem(pattern)
        if problem is not None:
            self.report(
                "TG122",
                # as written in the spec: repr would double every backslash
                f"pattern '{pattern}' is not a valid regular expression: {problem}",
                self.span((*path, "pattern")),
                "Fix the expression in the syntax both engines read (no inline flags "
                "such as (?i), no \\Z; a class such as [A-Za-z] for the letters); "
                "remember to anchor it with ^ and $.",
            )
            return None
        part = ambiguous_repetition(pattern)
        if part is not None:
            self.report(
                "TG127",
                f"pattern '{pattern}' repeats '{part}', which can match one text in several "
                "ways: a near-match (a long run it matches, then a character it does not) "
                "makes the validator try each way, for years on a few dozen characters",
                self.span((*path, "pattern")),
                "Write it so that each character can be matched one way only: (a+)+ as a+, "
                "(\\w+\\s?)+ as \\w+(\\s\\w+)*.",
            )
            return None
        return pattern

    def _enum(
        self, ptype: str, d: Mapping[str, object], path: PathKey
    ) -> list[object] | None:
        """The enum as written, or None on a number parameter, which takes none (TG123);
        each value of another type, or listed twice, is reported (TG123)."""
        enum = d.get("enum")
        if not isinstance(enum, list):
            return None
        if ptype == "number":
            self.report(
                "TG123",
                "enum is not supported on number parameters",
                self.span((*path, "enum"), key=True),
                "List whole numbers with type: integer, or words with type: string.",
            )
            return None
        if "enum" in _TYPE_KEYS[ptype]:
            # the values that fit, all of one hashable type (str or int): a set, since an
            # enum may hold thousands
            seen: set[object] = set()
            for index, value in enumerate(enum):
                if not fits_type(ptype, value):
                    self.report(
                        "TG123",
                        f"enum value {shown(value)} is not {article(ptype)}",
                        self.span((*path, "enum", index)),
                        f"Every value of {article(ptype)} parameter's enum must be "
                        f"{article(ptype)}.",
                    )
                elif value in seen:
                    self.report(
                        "TG123",
                        f"enum value {shown(value)} is listed twice",
                        self.span((*path, "enum", index)),
                        "Remove the repeated value.",
                    )
                else:
                    seen.add(value)
        return enum
