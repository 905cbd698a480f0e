"""The intermediate model: a catalogue with every reference resolved and every default explicit.

This is the IR between the spec files and everything downstream (lint, render). It is built
from documents that passed the format check (`validate`), and the building itself makes the
semantic checks a JSON Schema cannot: references resolve, constraints are consistent, examples
satisfy their own contract, names are safe for the model and for Python. Problems are returned as
diagnostics; nothing here raises for a problem in a spec.

Names the generated code uses (class names, Python attribute names) are computed here, once, so
templates only lay them out.
"""

from __future__ import annotations

import difflib
import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, cast

from toolgen import limits
from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.load import Document, PathKey

JsonValue: TypeAlias = (
    "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
)
ParamType = Literal[
    "string", "integer", "number", "boolean", "date", "datetime", "array", "object"
]
Effect = Literal["read", "write", "destructive"]

MODEL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
IDENTIFIER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DOTTED_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

# Module names the generated package uses itself (context.py, tests/, the functions of its
# __init__) or that generated modules import at their top level beside the tool modules: a
# tool named like one is generated under the name with "_" appended (tools -> tools_.py).
RESERVED_MODULES = frozenset(
    {
        "context", "tests", "tools", "all_tools", "importlib", "json", "datetime", "copy",
        "pytest", "agents", "pydantic", "toolgen_runtime", "typing", "collections",
        "dataclasses", "module", "builtins", "annotations", "tool_names",
    }
)  # fmt: skip

# Names a generated class body or function uses for something else: a field with one of these
# names would shadow a type in the annotations after it, or the instance itself.
_SHADOWING_NAMES = frozenset(
    {
        "self", "cls", "str", "int", "float", "bool", "list", "dict", "object", "type",
        "datetime", "Literal", "Annotated", "Field", "AwareDatetime", "Any", "Final",
    }
)  # fmt: skip

# Return fields the envelope itself uses: a result field with one of these names would
# overwrite what the model reads first.
ENVELOPE_KEYS = frozenset({"ok", "error", "how_to_fix", "retryable", "problems"})

# Attribute names pydantic's BaseModel already uses: a field with one of these names would shadow
# a method, so it gets an alias like a keyword does.
_BASEMODEL_NAMES = frozenset(
    {
        "construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj",
        "parse_raw", "schema", "schema_json", "update_forward_refs", "validate",
        "model_config", "model_fields", "model_computed_fields", "model_extra",
        "model_fields_set", "model_construct", "model_copy", "model_dump",
        "model_dump_json", "model_json_schema", "model_parametrized_name",
        "model_post_init", "model_rebuild", "model_validate", "model_validate_json",
        "model_validate_strings",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an element was written: the document and the path of its value in it."""

    document: Document = field(repr=False, compare=False)
    path: PathKey

    @property
    def file(self) -> str:
        return self.document.file

    def span(self, *sub: str | int, key: bool = False) -> Span:
        """The span of this element, or of a sub-key of it (`origin.span("pattern")`)."""
        return self.document.span((*self.path, *sub), key=key)

    @property
    def key_span(self) -> Span:
        return self.document.span(self.path, key=True)


@dataclass(frozen=True, slots=True)
class Constraints:
    """The constraints of a value; None where the spec says nothing."""

    enum: tuple[JsonValue, ...] | None = None
    pattern: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None


@dataclass(frozen=True, slots=True)
class Param:
    """One argument the model fills in (or one property of an object argument)."""

    name: str  # as the model sees it
    py_name: str  # the Python attribute; differs for keywords and reserved names
    type: ParamType
    description: str
    constraints: Constraints
    optional: bool  # nullable in the schema; null means "leave it out"
    has_default: bool
    default: JsonValue
    has_example: bool
    example: JsonValue
    items: Param | None
    properties: tuple[Param, ...]
    class_name: str  # for objects (and arrays of objects): the generated model's name
    origin: Origin

    @property
    def aliased(self) -> bool:
        return self.py_name != self.name

    def walk(self) -> list[Param]:
        """This parameter and every nested one (items, properties), depth first."""
        found = [self]
        if self.items is not None:
            found.extend(self.items.walk())
        for prop in self.properties:
            found.extend(prop.walk())
        return found


@dataclass(frozen=True, slots=True)
class ReturnField:
    """One field of a successful result."""

    name: str  # as the model reads it
    py_name: str  # the attribute of the result class; differs for names Python reserves
    type: ParamType
    description: str
    enum: tuple[JsonValue, ...] | None
    optional: bool
    items: ReturnField | None
    properties: tuple[ReturnField, ...]
    class_name: str  # for objects and arrays of objects: the generated dataclass
    origin: Origin

    def walk(self) -> list[ReturnField]:
        found = [self]
        if self.items is not None:
            found.extend(self.items.walk())
        for prop in self.properties:
            found.extend(prop.walk())
        return found


@dataclass(frozen=True, slots=True)
class ContextField:
    name: str  # as the catalogue declares it
    py_name: str  # the attribute of the context classes; differs for reserved names
    type: ParamType
    description: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: str
    when: str
    how_to_fix: str
    retryable: bool
    origin: Origin


@dataclass(frozen=True, slots=True)
class NotWhen:
    when: str
    use: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class Example:
    args: Mapping[str, JsonValue]
    rejected_on: str | None
    note: str
    origin: Origin

    @property
    def accepted(self) -> bool:
        return self.rejected_on is None


@dataclass(frozen=True, slots=True)
class Suppression:
    rule: str
    reason: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class PyNames:
    """The Python names of one tool's generated code."""

    module: str  # module name inside the generated package (find_customer)
    prefix: str  # PascalCase stem (FindCustomer)
    args_class: str
    context_class: str
    result_class: str
    error_class: str


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    intent: str
    use_when: str
    not_when: tuple[NotWhen, ...]
    requires: tuple[str, ...]
    effect: Effect
    open_world: bool
    idempotency: Literal["none", "natural"]
    confirmation: Literal["none"]
    params: tuple[Param, ...]
    context: tuple[ContextField, ...]
    returns: tuple[ReturnField, ...]
    errors: tuple[ErrorCode, ...]
    examples: tuple[Example, ...]
    suppressions: tuple[Suppression, ...]
    py: PyNames
    origin: Origin
    raw: Mapping[str, object] = field(repr=False, compare=False)
    description: str = (
        ""  # what the model reads, composed by templates/description.txt.jinja
    )
    parameters: Mapping[str, object] = field(default_factory=dict)  # the exposed schema

    @property
    def file(self) -> str:
        return self.origin.file

    @property
    def accepted_examples(self) -> tuple[Example, ...]:
        return tuple(e for e in self.examples if e.accepted)

    def all_params(self) -> list[Param]:
        return [p for top in self.params for p in top.walk()]


@dataclass(frozen=True, slots=True)
class Budget:
    tokens: int | None = None
    tool_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class LintConfig:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    preview: bool = False


@dataclass(frozen=True, slots=True)
class Catalogue:
    name: str
    description: str
    folder: str
    package: str  # dotted module of the generated package
    implementation: str  # dotted module of the hand-written implementations
    context: tuple[ContextField, ...]
    context_class: str
    targets: tuple[str, ...]
    budget: Budget
    lint: LintConfig
    tools: tuple[Tool, ...]
    origin: Origin
    # where the catalogue says (or, for a default, where its name is) where the build writes
    package_at: Span
    implementation_at: Span

    def tool(self, name: str) -> Tool | None:
        for tool in self.tools:
            if tool.name == name:
                return tool
        return None


# --- names -------------------------------------------------------------------------------


def pascal(name: str) -> str:
    """find_customer -> FindCustomer; max-results -> MaxResults."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_\-\s]+", name))


def python_name(name: str) -> str:
    """The Python attribute for a name the model sees: keywords and reserved names get `_`."""
    candidate = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if candidate[:1].isdigit() or candidate.startswith("_"):
        # pydantic treats a leading underscore as private, never as a field
        candidate = "f_" + candidate.lstrip("_")
    if (
        keyword.iskeyword(candidate)
        or candidate in _BASEMODEL_NAMES
        or candidate in _SHADOWING_NAMES
    ):
        candidate += "_"
    return candidate


def module_name(tool_name: str) -> str:
    # lower first: "Import" lowered after the keyword check would be the keyword import
    name = python_name(tool_name.replace("-", "_").lower())
    return name + "_" if name in RESERVED_MODULES else name


def is_module_path(value: str) -> bool:
    """generated.inventory: dotted Python names, none of them a keyword."""
    return DOTTED_RE.fullmatch(value) is not None and not any(
        keyword.iskeyword(part) for part in value.split(".")
    )


# --- building ----------------------------------------------------------------------------


class _Builder:
    """Turns format-valid documents into the IR, collecting semantic diagnostics."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, message: str, span: Span, hint: str = "") -> None:
        self.diagnostics.append(error(code, message, span, hint))


def _text(data: Mapping[str, object], key: str) -> str:
    value = data.get(key, "")
    return value.strip() if isinstance(value, str) else ""


def _mapping(value: object) -> Mapping[str, object]:
    return cast(Mapping[str, object], value) if isinstance(value, dict) else {}


def _sequence(value: object) -> Sequence[object]:
    return cast(Sequence[object], value) if isinstance(value, list) else ()


_TYPE_KEYS: Mapping[str, frozenset[str]] = {
    "string": frozenset({"enum", "pattern", "min_length", "max_length"}),
    "integer": frozenset({"enum", "min", "max"}),
    "number": frozenset({"enum", "min", "max"}),
    "boolean": frozenset(),
    "date": frozenset(),
    "datetime": frozenset(),
    "array": frozenset({"items", "min_items", "max_items"}),
    "object": frozenset({"properties"}),
}
_CONSTRAINT_KEYS = frozenset().union(*_TYPE_KEYS.values())
_RESERVED_PARAM_KEYS = ("root", "suffixes", "hosts")
_PAIRS = (("min", "max"), ("min_length", "max_length"), ("min_items", "max_items"))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _enum_fits(param_type: str, value: object) -> bool:
    if param_type == "string":
        return isinstance(value, str)
    if param_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if param_type == "number":
        return _is_number(value)
    return False


def _a(word: str) -> str:
    """ "a string", "an integer"."""
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _listed(words: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _shown(value: object) -> str:
    """A spec value in a message: text quoted, anything else as YAML/JSON writes it."""
    return repr(value) if isinstance(value, str) else value_repr(value)


# The names a generated tool module imports or defines besides the tool's own classes
# (render.render_tool_module); a class generated under one of them would shadow it.
_MODULE_NAMES = frozenset(
    {
        "Annotated", "Any", "Awaitable", "AwareDatetime", "BaseModel", "Callable",
        "ConfigDict", "DeclaredError", "Field", "FieldHint", "Final", "FunctionTool",
        "Implementation", "Invoker", "Literal", "ToolError",
    }
)  # fmt: skip


def _element(path: PathKey) -> str:
    """A reader's name for the parameter or return field at `path`."""
    if len(path) < 2:
        return "the tool"
    what = "parameter" if path[0] == "params" else "return field"
    names = [str(path[1])]
    index, items = 2, False
    while index < len(path):
        if path[index] == "properties" and index + 1 < len(path):
            names.append(str(path[index + 1]))
            items = False
            index += 2
        else:
            items = True
            index += 1
    named = f"{what} {'.'.join(names)!r}"
    return f"the items of {named}" if items else named


class _ToolBuilder(_Builder):
    """Builds one tool; `classes` tracks generated class names to catch collisions."""

    def __init__(self, document: Document, prefix: str) -> None:
        super().__init__()
        self.document = document
        self.prefix = prefix
        self.classes: dict[str, PathKey] = {}

    def origin(self, path: PathKey) -> Origin:
        return Origin(self.document, path)

    def claim_class(self, name: str, path: PathKey) -> None:
        if name in _MODULE_NAMES:
            taken = "a name the generated module imports"
        elif name in self.classes:
            first = self.classes[name]
            taken = "one of the tool's own classes"
            if first != ("name",):
                line = self.document.span(first, key=True).line
                taken = f"the class of {_element(first)} (line {line})"
        else:
            self.classes[name] = path
            return
        self.report(
            "TG117",
            f"{_element(path)} would generate the class {name}, which is already {taken}",
            # a parameter or return field at its key; the tool itself at its name
            self.document.span(path, key=len(path) > 1),
            "Rename it: a generated class is named after the tool and the field, in "
            "PascalCase.",
        )

    def check_names(self, names: Sequence[str], path: PathKey, what: str) -> None:
        seen: dict[str, str] = {}
        for name in names:
            span = self.document.span((*path, name), key=True)
            if not MODEL_NAME_RE.fullmatch(name):
                self.report(
                    "TG116",
                    f"{what} name {name!r} is not valid for the model",
                    span,
                    "Use 1 to 64 letters, digits, '_' or '-' (snake_case is best).",
                )
            py = python_name(name)
            if py in seen:
                self.report(
                    "TG117",
                    f"{what} names {seen[py]!r} and {name!r} both become the Python name "
                    f"{py!r}",
                    span,
                    "Rename one of them.",
                )
            seen[py] = name

    # -- parameters -----------------------------------------------------------------------

    def params(
        self, raw: Mapping[str, object], path: PathKey, stem: str
    ) -> tuple[Param, ...]:
        self.check_names(list(raw), path, "parameter")
        built = []
        for name, spec in raw.items():
            param = self.param(name, _mapping(spec), (*path, name), stem + pascal(name))
            if param is not None:
                built.append(param)
        return tuple(built)

    def param(
        self, name: str, d: Mapping[str, object], path: PathKey, class_name: str
    ) -> Param | None:
        span = self.document.span
        ptype = str(d.get("type"))
        if ptype in ("path", "url"):
            self.report(
                "TG127",
                f"parameter type {ptype!r} is reserved for a later format version",
                span((*path, "type")),
                "Use type: string with a pattern until path and url parameters land.",
            )
            return None
        for key in _RESERVED_PARAM_KEYS:
            if key in d:
                self.report(
                    "TG127",
                    f"{key!r} is reserved for path and url parameters in a later format "
                    "version",
                    span((*path, key), key=True),
                    f"Remove {key!r}.",
                )
        allowed = _TYPE_KEYS[ptype]
        for key in sorted(_CONSTRAINT_KEYS & set(d) - allowed):
            fits = sorted(t for t, keys in _TYPE_KEYS.items() if key in keys)
            self.report(
                "TG120",
                f"{key!r} does not apply to {_a(ptype)} parameter",
                span((*path, key), key=True),
                f"{key!r} applies to {_listed(fits)} parameters; remove it or change "
                "the type.",
            )
        constraints = self.constraints(ptype, d, path, allowed)
        items = None
        if ptype == "array":
            if "items" not in d:
                self.report(
                    "TG126",
                    f"array parameter {name!r} does not say the type of its items",
                    span(path, key=True),
                    "Add items: {type: string} (or the items' type).",
                )
            else:
                item_d = _mapping(d["items"])
                for key in ("optional", "default"):
                    if key in item_d:
                        self.report(
                            "TG120",
                            f"{key!r} does not apply to the items of an array",
                            span((*path, "items", key), key=True),
                            "Make the array itself optional instead.",
                        )
                items = self.param(name, item_d, (*path, "items"), class_name + "Item")
        properties: tuple[Param, ...] = ()
        if ptype == "object":
            props = _mapping(d.get("properties"))
            if not props:
                self.report(
                    "TG126",
                    f"the object items of array parameter {name!r} have no properties"
                    if path[-1] == "items"
                    else f"object parameter {name!r} has no properties",
                    span(path, key=True),
                    "List its fields under properties (a free-form object cannot be "
                    "validated).",
                )
            properties = self.params(props, (*path, "properties"), class_name)
        if ptype == "object":
            self.claim_class(class_name, path)
        has_default = "default" in d and d["default"] is not None
        if has_default and d.get("optional") is False:
            self.report(
                "TG120",
                f"parameter {name!r} has a default but says optional: false",
                span((*path, "optional"), key=True),
                "A default is what null means, so the parameter is optional: remove "
                "optional: false, or remove the default.",
            )
        param = Param(
            name=name,
            py_name=python_name(name),
            type=cast(ParamType, ptype),
            description=_text(d, "description"),
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
        )
        self.check_value(param, "default", "TG124")
        self.check_value(param, "example", "TG125")
        return param

    def constraints(
        self,
        ptype: str,
        d: Mapping[str, object],
        path: PathKey,
        allowed: frozenset[str],
    ) -> Constraints:
        """The constraints that apply to `ptype` (TG120 reports the others)."""
        span = self.document.span
        for low, high in _PAIRS:
            lo, hi = d.get(low), d.get(high)
            if low not in allowed:
                continue
            if _is_number(lo) and _is_number(hi) and cast(float, lo) > cast(float, hi):
                self.report(
                    "TG121",
                    f"{low} ({lo}) is greater than {high} ({hi})",
                    span((*path, low)),
                    f"Make {low} at most {high}.",
                )
        if ptype == "integer":
            for key in ("min", "max"):
                value = d.get(key)
                if isinstance(value, float) and not value.is_integer():
                    self.report(
                        "TG123",
                        f"{key} of an integer parameter must be a whole number, got {value}",
                        span((*path, key)),
                        f"Use {int(value)} or {int(value) + 1}.",
                    )
        pattern = d.get("pattern")
        if isinstance(pattern, str):
            try:
                re.compile(pattern)
            except re.error as exc:
                self.report(
                    "TG122",
                    # as written in the spec: repr would double every backslash
                    f"pattern '{pattern}' is not a valid regular expression: {exc.msg}",
                    span((*path, "pattern")),
                    "Fix the expression; remember to anchor it with ^ and $.",
                )
                pattern = None
        enum = d.get("enum")
        if isinstance(enum, list) and ptype == "number":
            self.report(
                "TG123",
                "enum is not supported on number parameters",
                span((*path, "enum"), key=True),
                "List whole numbers with type: integer, or words with type: string.",
            )
            enum = None
        if isinstance(enum, list) and "enum" in allowed:
            seen: list[object] = []
            for index, value in enumerate(enum):
                if not _enum_fits(ptype, value):
                    self.report(
                        "TG123",
                        f"enum value {_shown(value)} is not {_a(ptype)}",
                        span((*path, "enum", index)),
                        f"Every value of {_a(ptype)} parameter's enum must be "
                        f"{_a(ptype)}.",
                    )
                elif value in seen:
                    self.report(
                        "TG123",
                        f"enum value {_shown(value)} is listed twice",
                        span((*path, "enum", index)),
                        "Remove the repeated value.",
                    )
                seen.append(value)

        def number(key: str) -> int | float | None:
            value = d.get(key)
            return value if _is_number(value) else None  # type: ignore[return-value]

        def count(key: str) -> int | None:
            value = d.get(key)
            return (
                value
                if isinstance(value, int) and not isinstance(value, bool)
                else None
            )

        return Constraints(
            enum=tuple(cast(list[JsonValue], enum)) if isinstance(enum, list) else None,
            pattern=pattern if isinstance(pattern, str) else None,
            minimum=number("min"),
            maximum=number("max"),
            min_length=count("min_length"),
            max_length=count("max_length"),
            min_items=count("min_items"),
            max_items=count("max_items"),
        )

    def check_value(self, param: Param, key: str, code: str) -> None:
        """A default or example must satisfy the parameter's own constraints."""
        if key == "default" and not param.has_default:
            return
        if key == "example" and not param.has_example:
            return
        value = param.default if key == "default" else param.example
        problem = first_problem(param, value)
        if problem is not None:
            self.report(
                code,
                f"{key} {value_repr(value)} of {param.name!r} does not satisfy its own "
                f"contract: {problem}",
                param.origin.span(key),
                f"Change the {key} or the constraints so they agree.",
            )

    # -- returns --------------------------------------------------------------------------

    def returns(
        self, raw: Mapping[str, object], path: PathKey, stem: str
    ) -> tuple[ReturnField, ...]:
        self.check_names(list(raw), path, "return field")
        built = []
        for name, spec in raw.items():
            if name in ENVELOPE_KEYS:
                self.report(
                    "TG141",
                    f"return field name {name!r} is a key of the envelope every result "
                    "comes in",
                    self.document.span((*path, name), key=True),
                    f"Rename it ({', '.join(sorted(ENVELOPE_KEYS))} are taken): a "
                    "successful result already says ok: true.",
                )
                continue
            built.append(
                self.return_field(
                    name, _mapping(spec), (*path, name), stem + pascal(name)
                )
            )
        return tuple(built)

    def return_field(
        self, name: str, d: Mapping[str, object], path: PathKey, class_name: str
    ) -> ReturnField:
        ftype = cast(ParamType, str(d.get("type")))
        items = None
        if ftype == "array":
            if "items" not in d:
                self.report(
                    "TG126",
                    f"array field {name!r} does not say the type of its items",
                    self.document.span(path, key=True),
                    "Add items: {type: string} (or the items' type).",
                )
            else:
                items = self.return_field(
                    name, _mapping(d["items"]), (*path, "items"), class_name + "Item"
                )
        properties: tuple[ReturnField, ...] = ()
        if ftype == "object":
            properties = self.returns(
                _mapping(d.get("properties")), (*path, "properties"), class_name
            )
            if not properties:
                self.report(
                    "TG126",
                    f"the object items of array field {name!r} have no properties"
                    if path[-1] == "items"
                    else f"object field {name!r} has no properties",
                    self.document.span(path, key=True),
                    "List its fields under properties.",
                )
            self.claim_class(class_name, path)
        enum = d.get("enum")
        return ReturnField(
            name=name,
            py_name=python_name(name),
            type=ftype,
            description=_text(d, "description"),
            enum=tuple(cast(list[JsonValue], enum)) if isinstance(enum, list) else None,
            optional=bool(d.get("optional", False)),
            items=items,
            properties=properties,
            class_name=class_name,
            origin=self.origin(path),
        )


def value_repr(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def first_problem(param: Param, value: object) -> str | None:
    """Why `value` breaks the parameter's own constraints (null not allowed), or None."""
    from dataclasses import replace

    from toolgen import toolschema

    schema = toolschema.param_schema(replace(param, optional=False), full=True)
    found = toolschema.problems(schema, value)
    return found[0][1] if found else None


# --- tools -------------------------------------------------------------------------------


def _build_tool(
    document: Document,
    context_fields: Mapping[str, ContextField],
    context_class: str = "",
    misnamed_context: frozenset[str] = frozenset(),
    examples_checked: bool = False,
) -> tuple[Tool | None, list[Diagnostic]]:
    """One tool; `misnamed_context` are declared context fields TG116 already reported."""
    from toolgen import describe

    d = _mapping(document.data)
    name = str(d.get("name", ""))
    prefix = pascal(name) or "Tool"
    b = _ToolBuilder(document, prefix)
    span = document.span
    if not MODEL_NAME_RE.fullmatch(name):
        b.report(
            "TG110",
            f"tool name {name!r} is not valid for the model",
            span(("name",)),
            "Use 1 to 64 letters, digits, '_' or '-', such as create_reorder.",
        )
    stem = document.file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if stem != name:
        b.report(
            "TG111",
            f"tool {name!r} is in a file named {stem!r}",
            span(("name",)),
            f"Rename the file to {name}.yaml so reviewers find it by name.",
        )
    py = PyNames(
        module=module_name(name or stem),
        prefix=prefix,
        args_class=prefix + "Args",
        context_class=prefix + "Context",
        result_class=prefix + "Result",
        error_class=prefix + "Error",
    )
    for cls in (py.args_class, py.context_class, py.result_class, py.error_class):
        b.claim_class(cls, ("name",))

    idempotency = d.get("idempotency", "none")
    if not isinstance(idempotency, str):
        b.report(
            "TG127",
            "key-based idempotency is reserved for a later format version",
            span(("idempotency",)),
            "Use idempotency: natural when the implementation makes repeats harmless.",
        )
        idempotency = "none"
    confirmation = d.get("confirmation", "none")
    if confirmation != "none":
        b.report(
            "TG127",
            f"confirmation {confirmation!r} is reserved for a later format version",
            span(("confirmation",)),
            "Use confirmation: none for now.",
        )
    if "pagination" in d:
        b.report(
            "TG127",
            "pagination is reserved for a later format version",
            span(("pagination",), key=True),
            "Return shown, total_available and a note as plain fields for now.",
        )

    params = b.params(_mapping(d.get("params")), ("params",), prefix)
    counted = sum(len(p.walk()) for p in params)
    if counted > limits.MAX_PARAMETERS:
        b.report(
            "TG011",
            f"the tool has {counted:,} parameters (nested ones included), more than the "
            f"{limits.MAX_PARAMETERS:,} a tool may have",
            span(("params",), key=True),
            "Split the tool: the model reads every parameter on every turn.",
        )
    context: list[ContextField] = []
    for index, item in enumerate(_sequence(d.get("context"))):
        field_ = context_fields.get(str(item))
        if field_ is None and str(item) in misnamed_context:
            continue
        if field_ is None:
            known = ", ".join(sorted(context_fields)) or "none"
            b.report(
                "TG115",
                f"context field {item!r} is not declared in the catalogue",
                span(("context", index)),
                f"Declare it under context: in catalogue.yaml (declared: {known}).",
            )
        elif field_ in context:
            b.report(
                "TG115",
                f"context field {item!r} is listed twice",
                span(("context", index)),
                "Remove the repeat.",
            )
        else:
            context.append(field_)
            if field_.name in _mapping(d.get("params")):
                b.report(
                    "TG115",
                    f"parameter {field_.name!r} is also a context field of this tool: the "
                    "model could send what only the run context may set",
                    span(("params", field_.name), key=True),
                    f"Remove the parameter; the implementation receives {field_.name} "
                    "from the run context.",
                )
    if context and context_class in b.classes:
        # the module imports the catalogue's context class to build the tool's own
        claimed = b.classes[context_class]
        b.report(
            "TG117",
            f"{_element(claimed)} would generate the class {context_class}, which is "
            "already the catalogue's context class",
            span(claimed, key=len(claimed) > 1),
            "Rename the tool (or the catalogue): a generated class is named after the "
            "tool in PascalCase.",
        )
    returns = b.returns(_mapping(d.get("returns")), ("returns",), prefix)
    errors = []
    for code, spec in _mapping(d.get("errors")).items():
        e = _mapping(spec)
        if code == "invalid_arguments":
            b.report(
                "TG142",
                "error code 'invalid_arguments' is reserved for rejected arguments",
                span(("errors", code), key=True),
                "toolgen reports invalid arguments itself; name the data error after its cause.",
            )
            continue
        errors.append(
            ErrorCode(
                code=code,
                when=_text(e, "when"),
                how_to_fix=_text(e, "how_to_fix"),
                retryable=bool(e.get("retryable", False)),
                origin=b.origin(("errors", code)),
            )
        )
    not_when = tuple(
        NotWhen(
            _text(_mapping(item), "when"),
            str(_mapping(item).get("use", "")),
            b.origin(("not_when", i)),
        )
        for i, item in enumerate(_sequence(d.get("not_when")))
    )
    examples = tuple(
        Example(
            args=cast(Mapping[str, JsonValue], _mapping(_mapping(item).get("args"))),
            rejected_on=cast("str | None", _mapping(item).get("rejected_on")),
            note=_text(_mapping(item), "note"),
            origin=b.origin(("examples", i)),
        )
        for i, item in enumerate(_sequence(d.get("examples"))[: limits.MAX_EXAMPLES])
    )
    if len(_sequence(d.get("examples"))) > limits.MAX_EXAMPLES:
        b.report(
            "TG011",
            f"the tool has {len(_sequence(d.get('examples'))):,} examples, more than the "
            f"{limits.MAX_EXAMPLES} a tool may have; only the first ones are checked",
            span(("examples",), key=True),
            "Keep the examples that each show something new: every one becomes tests.",
        )
    suppressions = tuple(
        Suppression(
            str(_mapping(item).get("rule", "")),
            _text(_mapping(item), "reason"),
            b.origin(("suppress", i)),
        )
        for i, item in enumerate(_sequence(d.get("suppress")))
    )
    tool = Tool(
        name=name,
        intent=_text(d, "intent"),
        use_when=_text(d, "use_when"),
        not_when=not_when,
        requires=tuple(str(r) for r in _sequence(d.get("requires"))),
        effect=cast(Effect, d.get("effect", "read")),
        open_world=bool(d.get("open_world", False)),
        idempotency=cast(Literal["none", "natural"], idempotency),
        confirmation="none",
        params=params,
        context=tuple(context),
        returns=returns,
        errors=tuple(errors),
        examples=examples,
        suppressions=suppressions,
        py=py,
        origin=Origin(document, ()),
        raw=d,
        description="",
        parameters={},
    )
    from dataclasses import replace

    from toolgen import toolschema

    tool = replace(
        tool,
        description=describe.tool_description(tool),
        parameters=toolschema.parameters_schema(tool.params),
    )
    if not examples_checked:
        b.diagnostics.extend(_check_examples(tool))
    return tool, b.diagnostics


def _check_examples(tool: Tool) -> list[Diagnostic]:
    from toolgen import toolschema

    found: list[Diagnostic] = []
    if not tool.accepted_examples:
        found.append(
            error(
                "TG130",
                f"tool {tool.name!r} has no accepted example",
                tool.origin.span("examples", key=True)
                if "examples" in tool.raw
                else tool.origin.span("name"),
                "Add an example with args the tool must accept (every parameter, null for "
                "optional ones): it is the base of the generated tests.",
            )
        )
    schema = toolschema.parameters_schema(tool.params, full=True)
    param_paths = _param_paths(tool.params)
    for example in tool.examples:
        found_problems = toolschema.problems(schema, dict(example.args))
        where = example.origin.span("args")
        if example.rejected_on is None:
            if found_problems:
                path, message = found_problems[0]
                found.append(
                    error(
                        "TG131",
                        f"accepted example is rejected on {toolschema.dotted(path)!r}: {message}",
                        where,
                        "Fix the example, or add rejected_on if it is meant to be rejected.",
                    )
                )
            continue
        target = example.rejected_on
        if _strip_indexes(target) not in param_paths and target not in example.args:
            found.append(
                error(
                    "TG133",
                    f"rejected_on names {target!r}, which is neither a parameter nor a key of "
                    "the example",
                    example.origin.span("rejected_on"),
                    f"Name a parameter ({', '.join(sorted(param_paths)) or 'none'}), "
                    "as a dotted path for nested fields.",
                )
            )
            continue
        blamed = [toolschema.dotted(p) for p, _ in found_problems]
        if not found_problems:
            found.append(
                error(
                    "TG132",
                    f"example rejected on {target!r} is accepted by the contract",
                    where,
                    f"Change the example so {target!r} breaks the contract, or tighten the "
                    "parameter.",
                )
            )
        elif target not in blamed:
            known = ", ".join(sorted(set(blamed)))
            found.append(
                error(
                    "TG132",
                    f"example rejected on {target!r} is rejected on {known} instead",
                    example.origin.span("rejected_on"),
                    f"Set rejected_on to the field that is wrong ({known}), or fix the others.",
                )
            )
    return found


def _strip_indexes(path: str) -> str:
    return ".".join(part for part in path.split(".") if not part.isdigit())


def _param_paths(params: tuple[Param, ...], prefix: str = "") -> set[str]:
    paths = set()
    for p in params:
        here = prefix + p.name
        paths.add(here)
        node = p.items if p.items is not None else p
        paths |= _param_paths(node.properties, here + ".")
    return paths


# --- the catalogue -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModelResult:
    catalogue: Catalogue | None
    diagnostics: tuple[Diagnostic, ...]


def build_model(
    catalogue_doc: Document | None,
    tool_docs: Sequence[Document],
    *,
    folder: str,
    known_tool_names: Sequence[str] = (),
    trusted: Callable[[Document], bool] = lambda _: False,
) -> ModelResult:
    """Build the IR from documents that passed the format check.

    `known_tool_names` are the names of every tool file, including those that failed the format
    check, so a reference to a broken tool is not reported twice.
    """
    if catalogue_doc is None:
        return ModelResult(None, ())
    diagnostics: list[Diagnostic] = []
    c = _mapping(catalogue_doc.data)
    span = catalogue_doc.span
    name = str(c.get("name", ""))
    if not IDENTIFIER_RE.fullmatch(name) or keyword.iskeyword(name):
        diagnostics.append(
            error(
                "TG140",
                f"catalogue name {name!r} is not a Python identifier",
                span(("name",)),
                "Use snake_case letters, digits and '_', such as inventory.",
            )
        )
    package = str(c.get("package", f"generated.{name}"))
    implementation = str(c.get("implementation", f"impl.{name}"))
    for key, value, such_as in (
        ("package", package, "generated.inventory"),
        ("implementation", implementation, "impl.inventory"),
    ):
        # a default built from a bad name is not a second mistake
        if key in c and not is_module_path(value):
            diagnostics.append(
                error(
                    "TG140",
                    f"{key} {value!r} is not a dotted Python module path",
                    span((key,)),
                    f"Use names such as {such_as}.",
                )
            )
    context = []
    for field_name, spec in _mapping(c.get("context")).items():
        f = _mapping(spec)
        if not IDENTIFIER_RE.fullmatch(field_name) or keyword.iskeyword(field_name):
            diagnostics.append(
                error(
                    "TG116",
                    f"context field name {field_name!r} is not a Python identifier",
                    span(("context", field_name), key=True),
                    "Use snake_case letters, digits and '_'.",
                )
            )
            continue
        context.append(
            ContextField(
                name=field_name,
                py_name=python_name(field_name),
                type=cast(ParamType, f.get("type")),
                description=_text(f, "description"),
                origin=Origin(catalogue_doc, ("context", field_name)),
            )
        )
    by_name = {f.name: f for f in context}
    misnamed = frozenset(_mapping(c.get("context"))) - set(by_name)
    tools: list[Tool] = []
    first_seen: dict[str, Tool] = {}
    modules: dict[str, Tool] = {}
    for document in tool_docs:
        tool, found = _build_tool(
            document,
            by_name,
            pascal(name) + "Context",
            misnamed,
            examples_checked=trusted(document),
        )
        diagnostics.extend(found)
        if tool is None:
            continue
        if tool.name in first_seen:
            other = first_seen[tool.name]
            diagnostics.append(
                error(
                    "TG112",
                    f"tool name {tool.name!r} is already used by {other.file}",
                    tool.origin.span("name"),
                    "Every tool needs its own name.",
                )
            )
            continue
        if tool.py.module in modules:
            diagnostics.append(
                error(
                    "TG112",
                    f"tools {modules[tool.py.module].name!r} and {tool.name!r} would both be "
                    f"generated as module {tool.py.module!r}",
                    tool.origin.span("name"),
                    "Rename one of them.",
                )
            )
            continue
        first_seen[tool.name] = tool
        modules[tool.py.module] = tool
        tools.append(tool)
    names = set(known_tool_names) | set(first_seen)
    for tool in tools:
        diagnostics.extend(_check_references(tool, names))
    targets = tuple(str(t) for t in _sequence(c.get("targets"))) or ("openai",)
    budget = _mapping(c.get("budget"))
    lint = _mapping(c.get("lint"))
    catalogue = Catalogue(
        name=name,
        description=_text(c, "description"),
        folder=folder,
        package=package,
        implementation=implementation,
        context=tuple(context),
        context_class=pascal(name) + "Context",
        targets=targets,
        budget=Budget(
            tokens=cast("int | None", budget.get("tokens")),
            tool_tokens=cast("int | None", budget.get("tool_tokens")),
        ),
        lint=LintConfig(
            select=tuple(str(s) for s in _sequence(lint.get("select"))),
            ignore=tuple(str(s) for s in _sequence(lint.get("ignore"))),
            severity={
                str(k): str(v) for k, v in _mapping(lint.get("severity")).items()
            },
            preview=bool(lint.get("preview", False)),
        ),
        tools=tuple(sorted(tools, key=lambda t: t.name)),
        origin=Origin(catalogue_doc, ()),
        package_at=span(("package" if "package" in c else "name",)),
        implementation_at=span(
            ("implementation" if "implementation" in c else "name",)
        ),
    )
    return ModelResult(catalogue, tuple(diagnostics))


def _check_references(tool: Tool, names: set[str]) -> list[Diagnostic]:
    found = []

    def check(ref: str, span: Span, what: str) -> None:
        if ref == tool.name:
            found.append(
                error(
                    "TG114",
                    f"{what} names the tool itself",
                    span,
                    "Name another tool, or remove it.",
                )
            )
        elif ref not in names:
            close = difflib.get_close_matches(ref, sorted(names), n=1)
            hint = (
                f"Did you mean {close[0]!r}?"
                if close
                else "Name a tool of this catalogue."
            )
            found.append(
                error("TG113", f"{what} names unknown tool {ref!r}", span, hint)
            )

    for item in tool.not_when:
        check(item.use, item.origin.span("use"), "not_when")
    for index, ref in enumerate(tool.requires):
        check(ref, tool.origin.span("requires", index), "requires")
    return found
