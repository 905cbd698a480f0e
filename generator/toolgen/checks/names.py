"""Names: valid for the model, and distinct once they are Python names and class names."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from toolgen.checks import check
from toolgen.diagnostics import Diagnostic, error
from toolgen.names import (
    MODEL_NAME_RE,
    MODULE_NAMES,
    is_identifier,
    is_module_path,
    python_name,
)
from toolgen.spec.ir import Catalogue, N, Tool, walk
from toolgen.spec.load import PathKey
from toolgen.spec.summary import ToolSummary
from toolgen.spec.validate import stem


@check(Tool, "TG110", "TG111")
def tool_name(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """The tool's name is one every model API accepts, and its file is named after it."""
    if not MODEL_NAME_RE.fullmatch(tool.name):
        yield error(
            "TG110",
            f"tool name {tool.name!r} is not valid for the model",
            tool.origin.span("name"),
            "Use 1 to 64 letters, digits, '_' or '-', such as create_reorder.",
        )
    if stem(tool.file) != tool.name:
        yield error(
            "TG111",
            f"tool {tool.name!r} is in a file named {stem(tool.file)!r}",
            tool.origin.span("name"),
            f"Rename the file to {tool.name}.yaml so reviewers find it by name.",
        )


def _field_names(fields: Sequence[N], what: str) -> Iterator[Diagnostic]:
    # the fields of one object at a time: the top level, then each nested object's
    groups: list[Sequence[N]] = [fields]
    groups += [node.properties for top in fields for node in walk(top)]
    for group in groups:
        seen: dict[str, str] = {}
        for field in group:
            span = field.origin.key_span
            if not MODEL_NAME_RE.fullmatch(field.name):
                yield error(
                    "TG116",
                    f"{what} name {field.name!r} is not valid for the model",
                    span,
                    "Use 1 to 64 letters, digits, '_' or '-' (snake_case is best).",
                )
            py = python_name(field.name)
            if py in seen:
                yield error(
                    "TG117",
                    f"{what} names {seen[py]!r} and {field.name!r} both become the Python "
                    f"name {py!r}",
                    span,
                    "Rename one of them.",
                )
            seen[py] = field.name


@check(Tool, "TG116", "TG117")
def field_names(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """Parameter and return field names are valid for the model, and no two of one object
    become the same Python attribute."""
    yield from _field_names(tool.params, "parameter")
    yield from _field_names(tool.returns, "return field")


def element_words(path: PathKey) -> str:
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


def _object_classes(fields: Iterable[N]) -> Iterator[tuple[str, PathKey]]:
    """The class of every object field, nested ones first (the order they are generated)."""
    for field in fields:
        if field.items is not None:
            yield from _object_classes((field.items,))
        yield from _object_classes(field.properties)
        if field.type == "object":
            yield field.class_name, field.origin.path


@check(Tool, "TG117", reads_catalogue=True)
def class_names(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """Every class a tool's module defines has a name of its own, none of them a name the
    module imports or the catalogue's context class."""
    claimed: dict[str, PathKey] = {}
    py = tool.py
    own = [
        (c, ("name",))
        for c in (py.args_class, py.context_class, py.result_class, py.error_class)
    ]

    def claim(name: str, path: PathKey) -> Iterator[Diagnostic]:
        if name in MODULE_NAMES:
            taken = "a name the generated module imports"
        elif name in claimed:
            first = claimed[name]
            taken = "one of the tool's own classes"
            if first != ("name",):
                line = tool.origin.source.span(first, key=True).line
                taken = f"the class of {element_words(first)} (line {line})"
        else:
            claimed[name] = path
            return
        yield error(
            "TG117",
            f"{element_words(path)} would generate the class {name}, which is already "
            f"{taken}",
            # a parameter or return field at its key; the tool itself at its name
            tool.origin.source.span(path, key=len(path) > 1),
            "Rename it: a generated class is named after the tool and the field, in "
            "PascalCase.",
        )

    for name, path in [*own, *_object_classes(tool.params)]:
        yield from claim(name, path)
    if tool.context and catalogue.context_class in claimed:
        # the module imports the catalogue's context class to build the tool's own
        path = claimed[catalogue.context_class]
        yield error(
            "TG117",
            f"{element_words(path)} would generate the class {catalogue.context_class}, "
            "which is already the catalogue's context class",
            tool.origin.source.span(path, key=len(path) > 1),
            "Rename the tool (or the catalogue): a generated class is named after the "
            "tool in PascalCase.",
        )
    for name, path in _object_classes(tool.returns):
        yield from claim(name, path)


@check(Catalogue, "TG140", "TG116", reads_catalogue=True)
def catalogue_names(
    catalogue: Catalogue, _: tuple[ToolSummary, ...]
) -> Iterator[Diagnostic]:
    """The catalogue's name, its package and implementation paths and its context field
    names are valid Python names."""
    origin = catalogue.origin
    if not is_identifier(catalogue.name):
        yield error(
            "TG140",
            f"catalogue name {catalogue.name!r} is not a Python identifier",
            origin.span("name"),
            "Use snake_case letters, digits and '_', such as inventory.",
        )
    for key, value, such_as in (
        ("package", catalogue.package, "generated.inventory"),
        ("implementation", catalogue.implementation, "impl.inventory"),
    ):
        # a default built from a bad name is not a second mistake
        if origin.has(key) and not is_module_path(value):
            yield error(
                "TG140",
                f"{key} {value!r} is not a dotted Python module path",
                origin.span(key),
                f"Use names such as {such_as}.",
            )
    for field in catalogue.context:
        if not is_identifier(field.name):
            yield error(
                "TG116",
                f"context field name {field.name!r} is not a Python identifier",
                field.origin.key_span,
                "Use snake_case letters, digits and '_'.",
            )
