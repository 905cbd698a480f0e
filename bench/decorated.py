"""The same tools written by hand with `@function_tool`: the baseline of the import figures.

One module, one decorated function per tool, as a careful user of the Agents SDK writes them:
the docstring is the description the model reads, each parameter is `Annotated` with a pydantic
`Field` carrying its description and constraints (pattern, bounds, lengths, item counts), an
enum is a `Literal`, an object a `BaseModel`, an optional parameter `T | None`. Every
parameter is required, as in the strict schema toolgen exposes (the model always sends every
field, null for the optional ones), so the two schemas list the same properties in the same
order. The description strings are toolgen's own (the tool description and each parameter's
exposed description), so both sides carry the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SCALARS = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "date": "datetime.date",
    "datetime": "datetime.datetime",
}


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


class _Module:
    def __init__(self) -> None:
        self.classes: list[str] = []

    def field_args(self, spec: Mapping[str, Any], description: str | None) -> list[str]:
        args = []
        if description:
            args.append(f"description={description!r}")
        if "pattern" in spec:
            args.append(f"pattern={spec['pattern']!r}")
        if "min" in spec:
            args.append(f"ge={spec['min']!r}")
        if "max" in spec:
            args.append(f"le={spec['max']!r}")
        for ours, theirs in (
            ("min_length", "min_length"),
            ("max_length", "max_length"),
            ("min_items", "min_length"),
            ("max_items", "max_length"),
        ):
            if ours in spec:
                args.append(f"{theirs}={spec[ours]!r}")
        return args

    def annotation(
        self,
        spec: Mapping[str, Any],
        schema: Mapping[str, Any],
        class_name: str,
    ) -> str:
        """The annotation of one parameter (or item or object field)."""
        kind = spec["type"]
        if "enum" in spec:
            base = f"Literal[{', '.join(repr(v) for v in spec['enum'])}]"
        elif kind == "array":
            item_schema = _non_null(schema).get("items", {})
            item = self.annotation(spec["items"], item_schema, class_name + "Item")
            base = f"list[{item}]"
        elif kind == "object":
            self.model(class_name, spec["properties"], _non_null(schema))
            base = class_name
        else:
            base = _SCALARS[kind]
        if spec.get("optional") or "default" in spec:
            base = f"{base} | None"
        args = self.field_args(spec, schema.get("description"))
        if not args:
            return base
        return f"Annotated[{base}, Field({', '.join(args)})]"

    def model(
        self, name: str, properties: Mapping[str, Any], schema: Mapping[str, Any]
    ) -> None:
        exposed = schema.get("properties", {})
        lines = [f"class {name}(BaseModel):"]
        for field, spec in properties.items():
            annotation = self.annotation(
                spec, exposed.get(field, {}), name + _pascal(field)
            )
            lines.append(f"    {field}: {annotation}")
        self.classes.append("\n".join(lines))


def _non_null(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """An optional object is exposed as anyOf [object, null]: the object part."""
    for option in schema.get("anyOf", ()):
        if option.get("type") != "null":
            return dict(option)
    return schema


def decorated_source(
    specs: list[dict[str, Any]], exposed: Mapping[str, tuple[str, Mapping[str, Any]]]
) -> str:
    """The module: `exposed` maps each tool name to (description, exposed parameter schema)."""
    module = _Module()
    functions = []
    for spec in specs:
        name = spec["name"]
        description, parameters = exposed[name]
        properties = parameters.get("properties", {})
        params = [
            f"    {param}: "
            + module.annotation(
                param_spec,
                properties.get(param, {}),
                _pascal(name) + _pascal(param),
            )
            + ","
            for param, param_spec in spec.get("params", {}).items()
        ]
        functions.append(
            "\n".join(
                [
                    "@function_tool",
                    f"def {name}(",
                    *params,
                    ") -> dict[str, Any]:",
                    f"    {description!r}",
                    '    raise NotImplementedError("a benchmark tool: imported, never called")',
                ]
            )
        )
    header = [
        '"""The benchmark catalogue written with @function_tool (bench/decorated.py)."""',
        "",
        "import datetime",
        "from typing import Annotated, Any, Literal",
        "",
        "from agents import function_tool",
        "from pydantic import BaseModel, Field",
    ]
    names = ", ".join(spec["name"] for spec in specs)
    return "\n\n\n".join(
        ["\n".join(header), *module.classes, *functions, f"TOOLS = [{names}]\n"]
    )
