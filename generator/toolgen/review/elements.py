"""The element pairs diff rules see: one thing of a catalogue in its old and its new version.

Everything here reads catalogue snapshots (plain JSON data, see `toolgen.spec.snapshot`). A schema
node of the exposed parameters or of the returns is read into a `Node` that states its type,
whether it takes null, its enum and its bounds once, so rules compare meanings rather than
the strict-mode spelling (`"type": ["string", "null"]`, `null` in an enum, the `anyOf` of an
optional object or array and null).

Where a change is, is given as a path of keys in the tool's contract file: a parameter `sku`
is `("params", "sku")`, a property of an object parameter `("params", "options",
"properties", "insured")`, array items add `"items"`, a return field is under `"returns"`. The
command line turns that path into a line and column of the YAML file.

The snapshot keys of the writes and boundaries features are read in this shape (missing keys
read as "not declared"):

- `idempotency`: `{"kind": "none" | "natural" | "key", "arguments": [...], "context": [...],
  "retention_s": N}`;
- `confirmation`: `"none" | "approval" | "token"`, or `{"kind": ..., ...settings}`;
- `guards`: `{"<param path>": {"kind": "path", "root", "suffixes", "must_exist"} |
  {"kind": "url", "hosts", "schemes", "ports", "hosts_from"}}`, the path dotted
  (`options.site`);
- `pagination`: `{"max_page_size", "cursor_field", "size_field", "ttl_seconds", ...}` or
  absent;
- `output`: `{"max_chars": {"<return field>": N}, "sensitive": ["<return field>", ...]}`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from toolgen.spec.snapshot import canonical_json

Where = tuple[str | int, ...]
Json = Mapping[str, Any]
T = TypeVar("T")

# the bounds of a value, by schema keyword, with the contract file's key for each (for
# locations); a larger min... bound accepts fewer values, a larger max... bound more
BOUNDS: Mapping[str, str] = {
    "minimum": "min",
    "exclusiveMinimum": "min",
    "minLength": "min_length",
    "minItems": "min_items",
    "maximum": "max",
    "exclusiveMaximum": "max",
    "maxLength": "max_length",
    "maxItems": "max_items",
}
# what a Node reads into its own fields; the other keywords are kept in `other`
_STRUCTURE = frozenset(BOUNDS).union(
    ("type", "enum", "format", "description", "pattern", "properties", "items"),
    ("required", "additionalProperties"),
)


@dataclass(frozen=True, slots=True)
class Node:
    """One value of a schema, read for comparison."""

    type: str  # "string", "integer", ..., or "any" when the schema says no type
    nullable: bool
    format: str | None
    enum: tuple[Any, ...] | None  # without null
    pattern: str | None
    bounds: Mapping[str, float]
    description: str
    other: Mapping[str, Any]  # keywords this module does not interpret

    @property
    def shape(self) -> tuple[str, str | None]:
        """What a value must be, beside its constraints: the type and its format."""
        return (self.type, self.format)


def value_schema(schema: Json) -> tuple[Json, bool]:
    """The schema of a value without the strict-mode wrapper of an optional object or array
    (`{"anyOf": [{...}, {"type": "null"}], "description": ...}`), and whether that wrapper
    lets null through. The description written beside the wrapper stays with the value."""
    branches = schema.get("anyOf")
    if "type" in schema or not isinstance(branches, list):
        return schema, False
    values = [
        b for b in branches if not (isinstance(b, Mapping) and b.get("type") == "null")
    ]
    if len(values) != 1 or len(branches) < 2 or not isinstance(values[0], Mapping):
        return schema, False
    outer = {k: v for k, v in schema.items() if k != "anyOf"}
    return {**values[0], **outer}, True


def read_node(schema: Json) -> Node:
    schema, wrapped = value_schema(schema)
    raw_type = schema.get("type", "any")
    types = list(raw_type) if isinstance(raw_type, list) else [raw_type]
    concrete = [t for t in types if t != "null"]
    enum = schema.get("enum")
    return Node(
        type=str(concrete[0]) if len(concrete) == 1 else "|".join(map(str, concrete)),
        nullable=wrapped or "null" in types,
        format=schema.get("format"),
        enum=tuple(v for v in enum if v is not None)
        if isinstance(enum, list)
        else None,
        pattern=schema.get("pattern"),
        bounds={k: schema[k] for k in BOUNDS if k in schema},
        description=str(schema.get("description", "")),
        other={k: v for k, v in schema.items() if k not in _STRUCTURE},
    )


@dataclass(frozen=True, slots=True)
class Field:
    """A parameter or return field at one path of a schema."""

    where: Where  # ("params", "options", "properties", "insured")
    node: Node
    schema: Json = field(repr=False)

    @property
    def name(self) -> str:
        return str(self.where[-1])

    @property
    def parent(self) -> Where:
        return self.where[:-1]


def shown(where: Where) -> str:
    """The field a path is in, as a reader writes it (`options.insured`,
    `parcels[].weight_kg`), or "" when the path is not in a parameter or return field."""
    if len(where) < 2 or where[0] not in ("params", "returns"):
        return ""
    text = str(where[1])
    rest = list(where[2:])
    while rest:
        if rest[0] == "items":
            text += "[]"
            rest = rest[1:]
        elif rest[0] == "properties" and len(rest) > 1:
            text += f".{rest[1]}"
            rest = rest[2:]
        else:
            break
    return text


def fields(schema: Json | None, root: str) -> dict[Where, Field]:
    """Every named field and array item of an object schema, by its path."""
    found: dict[Where, Field] = {}
    stack: list[tuple[Where, Json]] = []
    for name, sub in reversed(list(_properties(schema))):
        stack.append(((root, name), sub))
    while stack:
        where, sub = stack.pop()
        found[where] = Field(where, read_node(sub), sub)
        value, _ = value_schema(sub)
        items = value.get("items")
        if isinstance(items, Mapping):
            stack.append(((*where, "items"), items))
        for name, prop in reversed(list(_properties(value))):
            stack.append(((*where, "properties", name), prop))
    return found


def _properties(schema: Json | None) -> Iterator[tuple[str, Json]]:
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if isinstance(props, Mapping):
        for name, sub in props.items():
            if isinstance(sub, Mapping):
                yield str(name), sub


def parameters(tool: Json) -> Json:
    model = tool.get("model", {})
    params = model.get("parameters", {}) if isinstance(model, Mapping) else {}
    return params if isinstance(params, Mapping) else {}


@dataclass(frozen=True, slots=True)
class ToolPair:
    """A tool in the old and the new version; one side is None when it was added or
    removed. `committed` is the old version's lockfile entry for the tool, when there is
    one (what the toolgen of that version gave the model)."""

    name: str
    old: Json | None
    new: Json | None
    renamed_from: str | None = None
    committed: Json | None = None

    @property
    def both(self) -> tuple[Json, Json] | None:
        if self.old is None or self.new is None:
            return None
        return self.old, self.new


@dataclass(frozen=True, slots=True)
class ToolChange:
    """A tool in both versions (a renamed one under its new name): what the rules of its
    safety and boundaries compare."""

    name: str
    old: Json
    new: Json

    @property
    def both(self) -> tuple[Json, Json]:
        return self.old, self.new


@dataclass(frozen=True, slots=True)
class FieldPair:
    """A parameter (or a return field) of a tool present in both versions of it."""

    tool: str
    old: Field | None
    new: Field | None
    renamed_from: Field | None = None  # set on the new field of a rename
    noun: ClassVar[str] = "field"  # how messages name it

    @property
    def where(self) -> Where:
        side = self.new or self.old
        assert side is not None
        return side.where

    @property
    def label(self) -> str:
        return shown(self.where)


@dataclass(frozen=True, slots=True)
class ParamPair(FieldPair):
    noun: ClassVar[str] = "parameter"


@dataclass(frozen=True, slots=True)
class ReturnPair(FieldPair):
    noun: ClassVar[str] = "return field"


@dataclass(frozen=True, slots=True)
class ErrorPair:
    tool: str
    code: str
    old: Json | None
    new: Json | None


@dataclass(frozen=True, slots=True)
class GuardPair:
    """What guards one parameter path, in both versions (None: no guard), and `where`
    the parameter is in the spec."""

    tool: str
    path: str  # dotted, as the snapshot keys it
    old: Json | None
    new: Json | None
    where: Where


def _without_descriptions(value: object) -> object:
    if isinstance(value, Mapping):
        return {
            k: _without_descriptions(v) for k, v in value.items() if k != "description"
        }
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value


def _field_key(field_: Field) -> tuple[Where, str]:
    """What a renamed field keeps: its parent, and the values it accepts, nested fields
    included (descriptions aside)."""
    return field_.parent, canonical_json(_without_descriptions(field_.schema))


def _one_to_one(
    gone: Sequence[T], came: Sequence[T], key: Callable[[T], Hashable]
) -> Iterator[tuple[T, T]]:
    """The renames: each gone item and the came one that share a key no other gone or came
    item has."""
    gone_keys, came_keys = Counter(map(key, gone)), Counter(map(key, came))
    came_by_key = {key(item): item for item in came}
    for item in gone:
        if gone_keys[key(item)] == 1 and came_keys[key(item)] == 1:
            yield item, came_by_key[key(item)]


def field_pairs(
    tool: str, old: dict[Where, Field], new: dict[Where, Field], kind: type[FieldPair]
) -> list[FieldPair]:
    """Pairs of fields by path; a field removed and one added beside it that accepts the same
    values are one rename (its nested fields are compared under the new path)."""
    removed = [f for w, f in old.items() if w not in new]
    added = [f for w, f in new.items() if w not in old]
    # only the top of a renamed subtree is a rename; what is under it moved with it
    tops_removed = [f for f in removed if not _under_any(f.where, removed)]
    tops_added = [f for f in added if not _under_any(f.where, added)]
    renames = {
        new.where: old for old, new in _one_to_one(tops_removed, tops_added, _field_key)
    }
    moved_old = {r.where for r in renames.values()}
    pairs: list[FieldPair] = []
    # what is under a removed or an added field is reported with it, not on its own
    gone_tops = {f.where for f in tops_removed}
    new_tops = {f.where for f in tops_added}
    for where, field_ in old.items():
        if where in new:
            pairs.append(kind(tool, field_, new[where]))
        elif where in gone_tops and where not in moved_old:
            pairs.append(kind(tool, field_, None))
    for where, field_ in new.items():
        if where in old:
            continue
        top = next((t for t in renames if _is_under(where, t)), None)
        if top is None:
            if where in new_tops:
                pairs.append(kind(tool, None, field_))
            continue
        before = old.get((*renames[top].where, *where[len(top) :]))
        # a renamed field's nested fields moved with it, unchanged but for descriptions
        pairs.append(
            kind(tool, before, field_, renamed_from=before if where == top else None)
        )
    return pairs


def _is_under(where: Where, top: Where) -> bool:
    return where[: len(top)] == top


def _under_any(where: Where, others: Sequence[Field]) -> bool:
    return any(o.where != where and _is_under(where, o.where) for o in others)


def _tool_signature(tool: Json) -> str:
    # an error by its code and whether it is retryable: its how_to_fix names the tool,
    # and follows a rename (TD404 says so)
    errors = tool.get("errors")
    codes = (
        {code: e.get("retryable") for code, e in errors.items() if isinstance(e, dict)}
        if isinstance(errors, dict)
        else errors
    )
    return canonical_json(
        [parameters(tool), tool.get("returns"), tool.get("effect"), codes]
    )


def tool_pairs(old: Json, new: Json, committed: Json | None = None) -> list[ToolPair]:
    """The tools of both versions by name; a tool removed and one added with the same
    parameters, returns, effect and error codes are one rename."""
    before = {t["name"]: t for t in old.get("tools", ())}
    after = {t["name"]: t for t in new.get("tools", ())}
    locked = committed.get("tools", {}) if committed else {}
    gone = [n for n in before if n not in after]
    came = [n for n in after if n not in before]
    matched = _one_to_one(
        [before[n] for n in gone], [after[n] for n in came], _tool_signature
    )
    renames = {new["name"]: old["name"] for old, new in matched}
    return [
        ToolPair(
            name, before.get(was), after.get(name), renames.get(name), locked.get(was)
        )
        for name in sorted({*before, *after} - set(renames.values()))
        for was in [renames.get(name, name)]
    ]
