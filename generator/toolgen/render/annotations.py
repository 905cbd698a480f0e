"""The Python types of a tool's fields, and the classes they make up.

Arguments and results are one kind of tree (fields with nested items and properties), so one
walker (`classes`) turns either into the classes of a module, nested ones first; what differs is
how one field is annotated: an argument carries its constraints, alias and null handling, a
result field its wire name. Each enum of a tool becomes one `Literal` alias, used wherever those
values are the type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolgen_runtime.schema import python_pattern

from toolgen.names import pascal
from toolgen.render.imports import Imports
from toolgen.render.source import py_literal, py_str
from toolgen.spec.ir import JsonValue, N, Param, ReturnField, Tool, innermost

SCALAR = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "date": "datetime.date",
    "datetime": "datetime.datetime",
}


@dataclass
class EnumAliases:
    """One `Literal` alias per distinct set of choices in a tool, named after the first
    field that has it (SearchOrdersStatus)."""

    prefix: str
    taken: set[str]
    aliases: dict[tuple[JsonValue, ...], str] = field(default_factory=dict)

    def alias(
        self, values: tuple[JsonValue, ...], field_name: str, imports: Imports
    ) -> str:
        found = self.aliases.get(values)
        if found is not None:
            return found
        stem = self.prefix + pascal(field_name)
        name, number = stem, 2
        while name in self.taken:
            name, number = f"{stem}{number}", number + 1
        self.taken.add(name)
        self.aliases[values] = name
        imports.name("typing", "Literal")
        return name

    def lines(self) -> list[str]:
        return [
            f"{name} = Literal[{', '.join(py_literal(v) for v in values)}]"
            for values, name in self.aliases.items()
        ]


def _python_value(param: Param, value: JsonValue, imports: Imports) -> str:
    """A default as the Python value the validated field holds (dates are dates)."""
    if param.type in ("date", "datetime") and isinstance(value, str):
        imports.module("datetime")  # the class is named as the type: datetime.date, ...
        return f"datetime.{param.type}.fromisoformat({py_str(value)})"
    return py_literal(value)


def param_annotation(
    param: Param, imports: Imports, enums: EnumAliases, *, top: bool = True
) -> str:
    """The annotation of one argument field: type, constraints, alias and null handling."""
    guarded = guard_annotation(param, imports)
    if guarded is not None:
        return guarded
    c = param.constraints
    kwargs: list[str] = []
    metadata = []
    base = _base(param, c.enum, imports, enums, param_annotation)
    if param.type == "integer" and c.enum is not None:
        imports.name("toolgen_runtime", "json_integer")
        metadata.append("json_integer")
    if param.type in ("date", "datetime"):  # its ISO 8601 form only, not a Unix time
        imports.name("toolgen_runtime", f"iso_{param.type}")
        metadata.append(f"iso_{param.type}")
    if c.pattern is not None:
        kwargs.append(f"pattern={py_str(python_pattern(c.pattern))}")
    if c.minimum is not None:
        kwargs.append(f"ge={py_literal(c.minimum)}")
    if c.maximum is not None:
        kwargs.append(f"le={py_literal(c.maximum)}")
    low, high = (
        (c.min_items, c.max_items)
        if param.type == "array"
        else (c.min_length, c.max_length)
    )
    if low is not None:
        kwargs.append(f"min_length={low}")
    if high is not None:
        kwargs.append(f"max_length={high}")
    if top and param.aliased:
        kwargs.append(f"alias={py_str(param.name)}")
    if param.optional and not param.has_default:
        base = f"{base} | None"
    if kwargs:
        imports.name("pydantic", "Field")
        metadata.append(f"Field({', '.join(kwargs)})")
    if param.has_default:
        imports.name("toolgen_runtime", "null_means")
        metadata.append(f"null_means({_python_value(param, param.default, imports)})")
    if not metadata:
        return base
    imports.name("typing", "Annotated")
    return f"Annotated[{base}, {', '.join(metadata)}]"


def guard_annotation(param: Param, imports: Imports) -> str | None:
    """The annotation of a guarded argument (a path, a URL, the cursor of a page): the
    runtime's guard checks it and gives the implementation the checked object."""
    if param.path is not None:
        imports.name("toolgen_runtime.guards", "CheckedPath", "PathGuard")
        options = [py_str(param.path.root)]
        if param.path.suffixes:
            options.append(f"suffixes={py_literal(param.path.suffixes)}")
        if not param.path.must_exist:
            options.append("must_exist=False")
        base = f"CheckedPath, PathGuard({', '.join(options)})"
    elif param.url is not None:
        imports.name("toolgen_runtime.guards", "CheckedUrl", "UrlGuard")
        options = [f"hosts={py_literal(param.url.hosts)}"]
        if param.url.schemes != ("https",):
            options.append(f"schemes={py_literal(param.url.schemes)}")
        if param.url.ports:
            options.append(f"ports={py_literal(param.url.ports)}")
        if param.url.hosts_from is not None:
            options.append(f"hosts_from={py_str(param.url.hosts_from)}")
        base = f"CheckedUrl, UrlGuard({', '.join(options)})"
    elif param.is_cursor:
        imports.name("toolgen_runtime.pagination", "Cursor")
        imports.name("typing", "Annotated")
        return "Annotated[Cursor | None, PAGINATION.cursor_argument()]"
    else:
        return None
    imports.name("typing", "Annotated")
    if param.aliased:
        imports.name("pydantic", "Field")
        base += f", Field(alias={py_str(param.name)})"
    annotated = f"Annotated[{base}]"
    return f"{annotated} | None" if param.optional else annotated


def return_annotation(
    f: ReturnField, imports: Imports, enums: EnumAliases, *, top: bool = True
) -> str:
    """The annotation of one result field; a field whose Python name differs from the
    name the model reads keeps that name on the wire through its serialization alias."""
    if top and f.py_name != f.name:
        imports.name("pydantic", "Field")
        imports.name("typing", "Annotated")
        inner = return_annotation(f, imports, enums, top=False)
        return f"Annotated[{inner}, Field(serialization_alias={py_str(f.name)})]"
    base = _base(f, f.enum, imports, enums, return_annotation)
    return f"{base} | None" if f.optional else base


def _base(
    field: Param | ReturnField,
    enum: tuple[JsonValue, ...] | None,
    imports: Imports,
    enums: EnumAliases,
    annotate: Callable[..., str],
) -> str:
    """The type of an argument or result field, before its constraints and null; `annotate`
    (`param_annotation` or `return_annotation`) annotates an array's items."""
    if enum is not None and field.type in ("string", "integer"):
        return enums.alias(enum, field.name, imports)
    if field.type == "array":
        assert field.items is not None
        return f"list[{annotate(field.items, imports, enums, top=False)}]"
    if field.type == "object":
        return field.class_name
    if field.type == "datetime":
        # a date-time without its offset is refused, in the arguments and where the result
        # is built, so the model always reads RFC 3339 with the offset
        imports.name("pydantic", "AwareDatetime")
        return "AwareDatetime"
    if field.type == "date":
        imports.module("datetime")
    return SCALAR[field.type]


@dataclass(frozen=True, slots=True)
class FieldView:
    name: str
    annotation: str


@dataclass(frozen=True, slots=True)
class ClassView:
    name: str
    doc: str
    fields: tuple[FieldView, ...]


def _what(element: Param | ReturnField) -> str:
    if element.type == "array":
        return f"one item of {element.name}"
    return f"the {element.name} field"


def classes(
    elements: Sequence[N],
    name: str,
    doc: str,
    part: str,
    annotate: Callable[[N], str],
) -> list[ClassView]:
    """The classes of one tree of arguments or return fields, nested ones first so every
    name is defined before it is used. `part` starts the docstring of a nested class;
    `annotate` gives a field's annotation."""
    found: list[ClassView] = []
    for element in elements:
        node = innermost(element)
        if node.type == "object":
            found += classes(
                node.properties,
                node.class_name,
                f"{part}: {_what(element)}.",
                part,
                annotate,
            )
    fields = tuple(FieldView(e.py_name, annotate(e)) for e in elements)
    found.append(ClassView(name, doc, fields))
    return found


def tool_classes(
    tool: Tool, imports: Imports, enums: EnumAliases
) -> tuple[list[ClassView], list[ClassView]]:
    """The argument classes and the result classes of a tool."""
    arguments = classes(
        tool.params,
        tool.py.args_class,
        f"The arguments of {tool.name}, validated before the implementation runs.",
        f"Part of the {tool.name} arguments",
        lambda p: param_annotation(p, imports, enums),
    )
    results = classes(
        tool.returns,
        tool.py.result_class,
        f"One item of a {tool.name} page: the model receives exactly these fields."
        if tool.pagination is not None
        else f"What {tool.name} returns on success: the model receives exactly these fields.",
        f"Part of a {tool.name} result",
        lambda f: return_annotation(f, imports, enums),
    )
    return arguments, results
