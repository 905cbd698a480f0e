"""What every reader of the model stage shares: plain views of loaded values, the strings of a
document, a tool's Python names, and the reader's base (reporting at a place of the document).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import cast

from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.names import item_class, module_name, pascal
from toolgen.spec.ir import ImplementationTests, Origin, TextAt
from toolgen.spec.load import Document, PathKey
from toolgen.spec.summary import PyNames


def text_value(data: Mapping[str, object], key: str) -> str:
    value = data.get(key, "")
    return value.strip() if isinstance(value, str) else ""


def mapping_value(value: object) -> Mapping[str, object]:
    return cast(Mapping[str, object], value) if isinstance(value, dict) else {}


def sequence_value(value: object) -> Sequence[object]:
    return cast(Sequence[object], value) if isinstance(value, list) else ()


def is_number(value: object) -> bool:
    """An int or a float, never a bool (which Python counts as an int)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def whole_number(value: object) -> int | None:
    """The value if it is an int (never a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def fits_type(kind: str, value: object) -> bool:
    """Whether a value is of a contract type (`integer`, `date`, ...); a bool is no number."""
    if kind in ("string", "date", "datetime"):
        return isinstance(value, str)
    if kind == "integer":
        return whole_number(value) is not None
    if kind == "number":
        return is_number(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return False


_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration_s(text: str) -> int:
    """Seconds of a duration as the format writes it (24h, 7d, 90s): the format check lets
    nothing else through but a final line break, which JSON Schema's `$` allows."""
    text = text.strip()
    return int(text[:-1]) * _DURATION_UNITS[text[-1]]


def duration_text(seconds: int) -> str:
    """`seconds` as the format writes a duration, in the largest unit that holds it whole:
    172800 -> 2d, 5400 -> 90m."""
    for unit in ("d", "h", "m"):
        if seconds % _DURATION_UNITS[unit] == 0:
            return f"{seconds // _DURATION_UNITS[unit]}{unit}"
    return f"{seconds}s"


def texts(document: Document) -> tuple[TextAt, ...]:
    """Every string of a document, keys included, with its path (iterative: documents of
    thousands of nodes make recursive generators slow), then the importer's TODO comments
    (comments.py), each at the value it stands beside."""
    found: list[TextAt] = []
    stack: list[tuple[PathKey, object]] = [((), document.data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                here = (*path, key)
                found.append(TextAt(here, key, True))
                if isinstance(value, str):
                    found.append(TextAt(here, value, False))
                elif isinstance(value, dict | list):
                    stack.append((here, value))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, str):
                    found.append(TextAt((*path, index), value, False))
                elif isinstance(value, dict | list):
                    stack.append(((*path, index), value))
    found.extend(TextAt(path, text, False) for path, text in document.import_todos)
    return tuple(found)


class Reader:
    """Reads one document, reporting what cannot be read as written (the model's readers
    share this)."""

    def __init__(self, document: Document) -> None:
        self.source = document.source
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, message: str, span: Span, hint: str = "") -> None:
        self.diagnostics.append(error(code, message, span, hint))

    def origin(self, path: PathKey) -> Origin:
        return Origin(self.source, path)

    def span(self, path: PathKey, *, key: bool = False) -> Span:
        return self.source.span(path, key=key)

    def fields(
        self, raw: Mapping[str, object], path: PathKey, stem: str
    ) -> Iterator[tuple[str, Mapping[str, object], PathKey, str, str]]:
        """Each parameter or return field of `raw` (the mapping at `path`): its name, keys
        and path, and the class names of it and of its items (`param`, `return_field`)."""
        siblings = frozenset(raw)
        for name, spec in raw.items():
            where, items_class = (*path, name), item_class(stem, name, siblings)
            yield name, mapping_value(spec), where, stem + pascal(name), items_class

    def no_items(self, noun: str, name: str, path: PathKey) -> None:
        """TG126 for an array `noun` ("parameter", "field") that does not say its items."""
        self.report(
            "TG126",
            f"array {noun} {name!r} does not say the type of its items",
            self.span(path, key=True),
            "Add items: {type: string} (or the items' type).",
        )

    def no_properties(self, noun: str, name: str, path: PathKey, hint: str) -> None:
        """TG126 for an object `noun`, or the object items of an array one, without
        properties."""
        self.report(
            "TG126",
            f"the object items of array {noun} {name!r} have no properties"
            if items_of(name, path)
            else f"object {noun} {name!r} has no properties",
            self.span(path, key=True),
            hint,
        )


def items_of(name: str, path: PathKey) -> bool:
    """Whether the element at `path` is the items of the array `name`: under the array's
    path (`name`, then `items`; `items` twice for an array of arrays), where a field named
    items is under its collection's key (`params`, `returns`, `properties`)."""
    return len(path) > 1 and path[-1] == "items" and path[-2] in (name, "items")


def tool_names(name: str, stem: str) -> PyNames:
    prefix = pascal(name)  # a class name starts with a letter (1read: Tool1read)
    prefix = prefix if prefix[:1].isalpha() else "Tool" + prefix
    return PyNames(
        module=module_name(name or stem),
        prefix=prefix,
        args_class=prefix + "Args",
        context_class=prefix + "Context",
        result_class=prefix + "Result",
        error_class=prefix + "Error",
    )


def implementation_tests(value: object) -> ImplementationTests:
    """`tests:` as written (the format check made sure of its types): None for a key it
    leaves out."""
    d = mapping_value(value)
    fixtures = d.get("fixtures")
    return ImplementationTests(
        run=cast("bool | None", d.get("implementation")),
        fixtures=None
        if fixtures is None
        else tuple(map(str, sequence_value(fixtures))),
    )
