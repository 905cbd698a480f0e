"""Reading the `returns` of a tool file: its fields, nested ones included, with their output
contracts (a text's maximum length, a sensitive value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from toolgen.names import ENVELOPE_KEYS, python_name
from toolgen.spec.ir import JsonValue, ParamType, ReturnField
from toolgen.spec.load import PathKey
from toolgen.spec.model.boundaries import BoundaryReader
from toolgen.spec.model.reading import mapping_value, text_value


class ReturnsReader(BoundaryReader):
    """Reads the return fields of one document."""

    def returns(
        self, raw: Mapping[str, object], path: PathKey, stem: str
    ) -> tuple[ReturnField, ...]:
        built = []
        for field in self.fields(raw, path, stem):
            name = field[0]
            if name in ENVELOPE_KEYS and path == ("returns",):  # the answer's own keys
                self.report(
                    "TG141",
                    f"return field name {name!r} is a key of the envelope every result "
                    "comes in",
                    self.span((*path, name), key=True),
                    f"Rename it ({', '.join(sorted(ENVELOPE_KEYS))} are taken): a "
                    "successful result already says ok: true.",
                )
                continue
            built.append(self.return_field(*field))
        return tuple(built)

    def return_field(
        self,
        name: str,
        d: Mapping[str, object],
        path: PathKey,
        class_name: str,
        items_class: str,
    ) -> ReturnField:
        ftype = cast(ParamType, str(d.get("type")))
        items = None
        if ftype == "array":
            if "items" not in d:
                self.no_items("field", name, path)
            else:
                items = self.return_field(
                    name,
                    mapping_value(d["items"]),
                    (*path, "items"),
                    items_class,
                    items_class + "Item",
                )
        properties: tuple[ReturnField, ...] = ()
        if ftype == "object":
            properties = self.returns(
                mapping_value(d.get("properties")), (*path, "properties"), class_name
            )
            if not properties:
                hint = "List its fields under properties."
                self.no_properties("field", name, path, hint)
        enum = d.get("enum")
        max_length, sensitive = self.output_contract(name, ftype, d, path)
        return ReturnField(
            name=name,
            py_name=python_name(name),
            type=ftype,
            description=text_value(d, "description"),
            enum=tuple(cast(list[JsonValue], enum)) if isinstance(enum, list) else None,
            optional=bool(d.get("optional", False)),
            items=items,
            properties=properties,
            class_name=class_name,
            origin=self.origin(path),
            max_length=max_length,
            sensitive=sensitive,
        )
