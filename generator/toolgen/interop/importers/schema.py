"""JSON Schema, as tool sources write it, into the parameters and returns of a contract.

What the format can say is carried over exactly: types (a `date` or `date-time` format
becomes `date` or `datetime`), descriptions, enums and consts, patterns, bounds, lengths,
item counts, required or optional (a `null` type or an `anyOf` with null is optional too),
defaults of optional parameters and examples. Local `$ref`s into `$defs` are inlined. Anything
else is a `Loss`, named with its place and the reason, and a parameter the format cannot
hold at all (a free-form object, a union of types) is left out with its reason: the importer
reports it rather than write a contract that says something else.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator, Mapping
from typing import cast

import regress
from toolgen_runtime.schema import validator

from toolgen.interop.importers.source import Losses
from toolgen.names import ENVELOPE_KEYS, MODEL_NAME_RE
from toolgen.spec.backtracking import ambiguous_repetition
from toolgen.spec.limits import MAX_PARAMETERS
from toolgen.spec.model.reading import fits_type, is_number, whole_number
from toolgen.text import clipped

Node = Mapping[str, object]
ParamDoc = dict[str, object]

_MAX_DEPTH = 32
# an infinite bound (YAML's .inf, JSON's Infinity) is refused like a word: the format's
# bounds are finite numbers
_INFINITE = "only finite numeric bounds are read"
_NAME_RULE = "a name is 1 to 64 letters, digits, '_' or '-'"
# Keywords that say nothing the model or the validator acts on: dropping them loses nothing.
_SILENT = frozenset({"$schema", "$id", "$comment", "$defs", "definitions"})
_ANNOTATION_ONLY = frozenset({"title", "deprecated", "readOnly", "writeOnly"})
# a property that goes one way only (OpenAPI): left out where it never goes
_ONE_WAY = {
    "parameter": ("readOnly", "the server sets it, a request does not send it"),
    "return field": ("writeOnly", "a request sends it, an answer does not hold it"),
}
# what an object's schema says of its fields
_OBJECT_KEYS = frozenset({"properties", "required", "additionalProperties"})
# what every parameter and return field reads of its schema
_READ = frozenset(
    {"type", "description", "enum", "const", "format", "anyOf", "oneOf", "allOf"}
)


class Converter:
    """Converts the schemas of one tool, collecting what it cannot carry."""

    def __init__(self) -> None:
        self.losses = Losses()
        self.lose = self.losses.add
        self._defs: dict[str, object] = {}
        # schemas read: $refs that each point twice at the next multiply them
        self._nodes = 0

    def _read_defs(self, root: Node | None) -> None:
        """The `$defs` (or `definitions`) of the document about to be read: a `$ref` in the
        input schema or the output schema points into its own document's."""
        self._defs = {}
        for key in ("$defs", "definitions"):
            found = None if root is None else root.get(key)
            if isinstance(found, dict):
                self._defs.update({f"#/{key}/{name}": v for name, v in found.items()})

    # -- shared steps ------------------------------------------------------------------------

    def _resolve(self, node: object, where: str, depth: int = 0) -> Node | None:
        if not isinstance(node, dict):
            self.lose(where, "its schema", "the schema is not an object")
            return None
        ref = node.get("$ref")
        if ref is None:
            return node
        target = self._defs.get(ref) if isinstance(ref, str) else None
        if target is None or depth > _MAX_DEPTH:
            why = (
                "a reference outside $defs, or back into a schema it is in, is not read"
            )
            if target is not None:
                why = f"a chain of more than {_MAX_DEPTH} references is not followed"
            self.lose(where, f"$ref {ref!r}", why)
            return None
        resolved = self._resolve(target, where, depth + 1)
        if resolved is None:
            return None
        # keywords beside $ref (a description) win over the referenced schema's
        return {**resolved, **{k: v for k, v in node.items() if k != "$ref"}}

    def _node(
        self, raw: object, where: str, depth: int
    ) -> tuple[Node, str, bool] | None:
        """The schema at `where`, resolved and without its null alternative, with its type
        and whether it takes null; None when it cannot be read (a loss says why)."""
        if depth > _MAX_DEPTH:
            self.lose(where, "its nesting", "nested too deep")
            return None
        self._nodes += 1
        if self._nodes > MAX_PARAMETERS:
            if self._nodes == MAX_PARAMETERS + 1:
                why = f"the tool has more than {MAX_PARAMETERS:,} parameters and fields"
                self.lose(where, "the schema", why)
            return None
        resolved = self._resolve(raw, where)
        node, nullable = (
            (None, False) if resolved is None else self._unwrap(resolved, where)
        )
        kind = None if node is None else self._type(node, where)
        return None if node is None or kind is None else (node, kind, nullable)

    def _unwrap(self, node: Node, where: str) -> tuple[Node | None, bool]:
        """The schema without its null alternative, and whether null is allowed."""
        nullable = False
        kind = node.get("type")
        if isinstance(kind, list):
            others = [k for k in kind if k != "null"]
            nullable = len(others) < len(kind)
            if len(others) != 1:
                self.lose(where, f"type {kind!r}", "a parameter has exactly one type")
                return None, nullable
            node = {**node, "type": others[0]}
        for key in ("anyOf", "oneOf", "allOf"):
            branches = node.get(key)
            if not isinstance(branches, list):
                continue
            real = [
                b
                for b in branches
                if key == "allOf"
                or not (isinstance(b, dict) and b.get("type") == "null")
            ]
            nullable = nullable or len(real) < len(branches)
            if len(real) != 1:
                why = "only an allOf of one schema can be read"
                if key != "allOf":
                    why = "a union of several types cannot be written"
                self.lose(where, key, why)
                return None, nullable
            branch = self._resolve(real[0], where)
            if branch is None:
                return None, nullable
            outer = {k: v for k, v in node.items() if k != key}
            merged, inner_null = self._unwrap({**branch, **outer}, where)
            return merged, nullable or inner_null
        return node, nullable

    def _type(self, node: Node, where: str) -> str | None:
        kind = node.get("type")
        if kind is None:
            values = [node["const"]] if "const" in node else node.get("enum")
            if isinstance(values, list) and values:
                for name in ("string", "integer", "boolean"):
                    if all(fits_type(name, v) for v in values if v is not None):
                        return name
            self.lose(where, "its type", "the schema does not say the type")
            return None
        if kind not in ("string", "integer", "number", "boolean", "array", "object"):
            self.lose(where, f"type {kind!r}", "the format has no such type")
            return None
        if kind == "string":
            fmt = node.get("format")
            if fmt == "date":
                return "date"
            if fmt == "date-time":
                return "datetime"
            if fmt is not None:
                self.lose(
                    where,
                    f"format {fmt!r}",
                    "only date and date-time formats exist; the value stays a plain string",
                )
        return str(kind)

    def _leftovers(self, node: Node, used: set[str], where: str) -> None:
        for key in sorted(set(node) - used - _SILENT):
            value = node[key]
            if key == "additionalProperties" and value is False:
                continue  # every object of the format is closed
            if key in _ANNOTATION_ONLY:
                self.lose(
                    where, f"{key} {value!r}", "the format has no such annotation"
                )
            else:
                self.lose(
                    where, f"{key} {_short(value)}", "the format cannot express it"
                )

    # -- parameters --------------------------------------------------------------------------

    def params(self, schema: Node | None) -> dict[str, ParamDoc]:
        """The top-level parameters of an input schema (an object)."""
        self._read_defs(schema)
        root = None if schema is None else self._resolve(schema, "the arguments")
        if root is None:
            return {}
        if root.get("type", "object") != "object":
            props = root.get("properties")
            lost = [  # named, not read: a few hundred characters of them at most
                repr(n) + (" (required)" if _required(root, n) else "")
                for n in itertools.islice(props if isinstance(props, dict) else (), 60)
            ]
            why = "arguments are an object"
            if lost:
                why += f", so none of the parameters is read: {', '.join(lost)}"
            self.lose("the arguments", f"type {root.get('type')!r}", clipped(why, 500))
            return {}
        self._leftovers(root, {"type", *_OBJECT_KEYS}, "the arguments")
        extra = root.get("additionalProperties")
        if extra not in (None, False):
            self.lose(
                "the arguments",
                "additionalProperties",
                "the model may send only the declared arguments",
            )
        return self._properties(root, "")

    def _named(
        self, node: Node, prefix: str, noun: str
    ) -> Iterator[tuple[str, object, str]]:
        """Each property of an object schema with a name the format takes, its schema and
        where it is; a return field at the top may not take a key of the envelope."""
        properties = node.get("properties")
        for name, sub in properties.items() if isinstance(properties, dict) else ():
            where = f"{noun} {prefix + str(name)!r}"
            why = "" if MODEL_NAME_RE.fullmatch(str(name)) else _NAME_RULE
            if noun == "return field" and not prefix and name in ENVELOPE_KEYS:
                why = "the envelope every answer comes in has a key of that name"
            one_way, never = _ONE_WAY[noun]
            if why:
                self.lose(where, "the name", why)
            elif isinstance(sub, dict) and sub.get(one_way) is True:
                self.lose(where, f"the {noun}", f"it is {one_way}: {never}")
            else:
                yield str(name), sub, where

    def _properties(self, node: Node, prefix: str) -> dict[str, ParamDoc]:
        found: dict[str, ParamDoc] = {}
        for name, sub, where in self._named(node, prefix, "parameter"):
            doc = self.param(
                sub, where, required=_required(node, name), depth=prefix.count(".")
            )
            if doc is not None:
                found[name] = doc
        return found

    def param(
        self,
        raw: object,
        where: str,
        *,
        required: bool,
        depth: int = 0,
        item: bool = False,
    ) -> ParamDoc | None:
        read_node = self._node(raw, where, depth)
        if read_node is None:
            return None
        node, kind, nullable = read_node
        doc: ParamDoc = {"type": kind}
        used = {*_READ, "default", "examples", "example"}
        nullable = self._enum(node, kind, doc, where) or nullable
        read = self._kind_keywords(node, kind, doc, where, depth)
        if read is None:
            return None
        used |= read
        if kind in ("date", "datetime"):
            # a string's keywords (an enum or const is _enum's to report)
            for key in sorted({"pattern", "minLength", "maxLength"} & set(node)):
                self.lose(
                    where,
                    f"{key} {_short(node[key])}",
                    f"a {kind} parameter takes no {key}",
                )
                used.add(key)
        self._leftovers(node, used, where)
        if item:
            if nullable:
                self.lose(where, "null", "array items cannot be null")
            if "default" in node:
                self.lose(where, "default", "array items have no default")
        else:
            self._optional(node, doc, where, required=required, nullable=nullable)
        self._example(node, doc, where)
        return _ordered(node, doc)

    def _kind_keywords(
        self, node: Node, kind: str, doc: ParamDoc, where: str, depth: int
    ) -> set[str] | None:
        """Read into `doc` the keywords of the parameter's own type; returns the keywords
        read, or None when the parameter is left out (its loss said why)."""
        if kind == "string":
            if isinstance(node.get("pattern"), str):
                doc["pattern"] = node["pattern"]
            for key, name in (("minLength", "min_length"), ("maxLength", "max_length")):
                if whole_number(node.get(key)) is not None:
                    doc[name] = node[key]
            return {"pattern", "minLength", "maxLength"}
        if kind in ("integer", "number"):
            return self._bounds(node, kind, doc, where)
        if kind == "array":
            return self._items(node, doc, where, depth)
        if kind == "object":
            return self._object(node, doc, where)
        return set()

    def _items(
        self, node: Node, doc: ParamDoc, where: str, depth: int
    ) -> set[str] | None:
        """An array parameter's items and item counts, or None when it is left out."""
        items = node.get("items")
        if not isinstance(items, dict):
            self.lose(where, "its items", "an array must say the type of its items")
            return None
        inner = self.param(
            items, f"items of {where}", required=True, depth=depth + 1, item=True
        )
        if inner is None:
            self.lose(
                where,
                "the parameter",
                "its items cannot be written, so it is left out",
            )
            return None
        for key, name in (("minItems", "min_items"), ("maxItems", "max_items")):
            if whole_number(node.get(key)) is not None:
                doc[name] = node[key]
        doc["items"] = inner
        return {"items", "minItems", "maxItems"}

    def _object(self, node: Node, doc: ParamDoc, where: str) -> set[str] | None:
        """An object parameter's properties, or None when it has none to write."""
        extra = node.get("additionalProperties")
        if extra not in (None, False):
            self.lose(
                where,
                "additionalProperties",
                "an object holds only declared fields",
            )
        props = self._properties(node, where_prefix(where))
        if not props:
            self.lose(
                where,
                "the parameter",
                "an object without properties cannot be validated, so it is left out",
            )
            return None
        doc["properties"] = props
        return set(_OBJECT_KEYS)

    def _enum(self, node: Node, kind: str, doc: ParamDoc, where: str) -> bool:
        """Read the enum (or const) into `doc`, null left out; whether it lists null."""
        values: object = [node["const"]] if "const" in node else node.get("enum")
        if values is None:
            return False
        listed = values if isinstance(values, list) else []
        kept = [v for v in listed if v is None or fits_type(kind, v)]
        why = ""
        if not listed:
            why = "an enum is a non-empty list"
        elif kind == "number":
            why = "the format has no enum of numbers"
        elif kind not in ("string", "integer"):
            why = f"a {kind} parameter takes no enum"
        elif len(kept) < len(listed) or len(set(map(repr, kept))) < len(kept):
            why = "values of another type or repeated"
        if why:
            self.lose(where, f"enum {_short(values)}", why)
            return False
        if any(v is not None for v in kept):
            doc["enum"] = [v for v in kept if v is not None]
        return None in kept

    def _bounds(self, node: Node, kind: str, doc: ParamDoc, where: str) -> set[str]:
        for key, name in (("minimum", "min"), ("maximum", "max")):
            value = node.get(key)
            fractional = isinstance(value, float) and not value.is_integer()
            if key in node and not _finite(value):
                self.lose(where, f"{key} {value!r}", _INFINITE)
            elif kind == "integer" and fractional:
                self.lose(where, f"{key} {value}", "an integer bound is a whole number")
            elif is_number(value):
                doc[name] = int(cast(float, value)) if kind == "integer" else value
        for key, name, step in (
            ("exclusiveMinimum", "min", 1),
            ("exclusiveMaximum", "max", -1),
        ):
            value = node.get(key)
            if not _finite(value):
                if key in node:
                    self.lose(where, f"{key} {value!r}", _INFINITE)
                continue
            number = cast(float, value)
            if kind == "integer" and (isinstance(number, int) or number.is_integer()):
                # the same integers: above 0 exclusive is from 1 inclusive; of this and an
                # inclusive bound, the one that admits fewer values holds
                bound = int(number) + step
                current = cast(int | None, doc.get(name))
                tighter = max if step > 0 else min
                doc[name] = bound if current is None else tighter(bound, current)
            else:
                self.lose(
                    where, f"{key} {number}", "the format's bounds include the bound"
                )
        return {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}

    def _optional(
        self, node: Node, doc: ParamDoc, where: str, *, required: bool, nullable: bool
    ) -> None:
        default = node.get("default")
        if not required or nullable:
            doc["optional"] = True
        if default is None:
            return
        if required and not nullable:
            self.lose(
                where,
                f"default {_short(default)}",
                "the parameter is required, and in the format a default makes it optional",
            )
            return
        if doc["type"] in ("array", "object") or not _fits(doc, default):
            self.lose(
                where, f"default {_short(default)}", "it does not fit the parameter"
            )
            return
        doc.pop("optional", None)  # a default says it already
        doc["default"] = default

    def _example(self, node: Node, doc: ParamDoc, where: str) -> None:
        examples = node.get("examples")
        candidates = list(examples) if isinstance(examples, list) else []
        if "example" in node:
            candidates.append(node["example"])
        scalar = doc["type"] not in ("array", "object")
        for value in candidates:
            if scalar and value is not None and _fits(doc, value):
                doc["example"] = value
                break
        rest = len(candidates) - (1 if "example" in doc else 0)
        if rest:
            self.lose(
                where,
                f"{rest} example value(s)",
                "a parameter has one example that fits it",
            )

    # -- returns -----------------------------------------------------------------------------

    def returns(self, schema: Node | None) -> dict[str, ParamDoc]:
        self._read_defs(schema)
        root = None if schema is None else self._resolve(schema, "the result")
        if root is None:
            return {}
        if root.get("type", "object") != "object" or not isinstance(
            root.get("properties"), dict
        ):
            self.lose(
                "the result",
                "outputSchema",
                "only a result object with properties is read",
            )
            return {}
        self._leftovers(root, {"type", *_OBJECT_KEYS}, "the result")
        return self._fields(root, "")

    def _fields(self, node: Node, prefix: str) -> dict[str, ParamDoc]:
        found: dict[str, ParamDoc] = {}
        for name, sub, where in self._named(node, prefix, "return field"):
            field = self.field(
                sub, where, prefix + name + ".", required=_required(node, name)
            )
            if field is not None:
                found[name] = field
        return found

    def field(
        self,
        raw: object,
        where: str,
        prefix: str,
        *,
        required: bool,
        item: bool = False,
    ) -> ParamDoc | None:
        read_node = self._node(raw, where, prefix.count("."))
        if read_node is None:
            return None
        node, kind, nullable = read_node
        doc: ParamDoc = {"type": kind}
        used = set(_READ)
        if kind in ("string", "integer"):
            nullable = self._enum(node, kind, doc, where) or nullable
        if kind == "array":
            inner = self.field(
                node.get("items"), f"items of {where}", prefix, required=True, item=True
            )
            if inner is None:
                return None
            doc["items"] = inner
            used.add("items")
        elif kind == "object":
            fields = self._fields(node, prefix)
            if not fields:
                self.lose(
                    where, "the field", "an object without properties is left out"
                )
                return None
            doc["properties"] = fields
            used |= _OBJECT_KEYS
        self._leftovers(node, used, where)
        if (nullable or not required) and not item:
            doc["optional"] = True
        return _ordered(node, doc)


# the keys of a converted scalar parameter, as the JSON Schema keywords they stand for
_KEYWORDS = {
    "enum": "enum",
    "min": "minimum",
    "max": "maximum",
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
}
_FORMATS = {"date": "date", "datetime": "date-time"}


def _fits(doc: ParamDoc, value: object) -> bool:
    """Whether a value passes the type and constraints of a converted scalar parameter,
    judged as `toolgen check` judges a contract's defaults and examples: by the one validator
    of argument values (`toolgen_runtime.schema`), on the parameter's JSON Schema. A default
    or an example is kept only when it fits (never on an array or an object), so the
    contract the importer writes never contradicts itself."""
    kind = str(doc["type"])
    pattern = doc.get("pattern")
    if isinstance(pattern, str) and ambiguous_repetition(pattern):
        return False  # matching it could take years (TG127)
    schema = {key: doc[name] for name, key in _KEYWORDS.items() if name in doc}
    schema["type"] = "string" if kind in _FORMATS else kind
    if kind in _FORMATS:
        schema["format"] = _FORMATS[kind]
    try:
        return bool(validator(schema).is_valid(value))
    except regress.RegressError:  # a pattern ECMA-262 cannot read fits nothing (TG122)
        return False


def _finite(value: object) -> bool:
    # an int is finite however long (math.isfinite cannot take one past a float's range)
    return whole_number(value) is not None or (
        is_number(value) and math.isfinite(cast(float, value))
    )


def _required(node: Node, name: str) -> bool:
    """Whether an object schema lists `name` as required."""
    listed = node.get("required")
    return isinstance(listed, list) and name in listed


def where_prefix(where: str) -> str:
    """ "parameter 'deliver_to'" -> "deliver_to." (the dotted path of nested names)."""
    found = re.search(r"'([^']*)'", where)
    return (found.group(1) + ".") if found else ""


_ORDER = (
    "type", "enum", "pattern", "min", "max", "min_length", "max_length", "min_items",
    "max_items", "optional", "default", "example", "description", "items", "properties",
)  # fmt: skip


def _ordered(node: Node, doc: ParamDoc) -> ParamDoc:
    """The contract of a parameter or field, with the schema's description, in the order
    a person writes the keys."""
    description = node.get("description")
    if isinstance(description, str) and description.strip():
        doc["description"] = description
    return {key: doc[key] for key in _ORDER if key in doc}


def _short(value: object) -> str:
    return clipped(repr(value), 60)
