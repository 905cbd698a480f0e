"""The boundary readers of the model stage: guarded parameters (`path`, `url`), pagination
and the output contract of return fields (TG170-TG173). The runtime enforces them
(`toolgen_runtime.guards`, `.pagination`, `.output`); here they are read and checked as
written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, cast

from toolgen.spec.ir import (
    CURSOR_PARAM,
    PAGE_SIZE_PARAM,
    Constraints,
    PaginationSpec,
    Param,
    PathSpec,
    UrlSpec,
)
from toolgen.spec.load import PathKey
from toolgen.spec.model.derived import derived_param
from toolgen.spec.model.reading import (
    Reader,
    items_of,
    mapping_value,
    sequence_value,
    text_value,
    whole_number,
)
from toolgen.text import article, shown

_ROOT_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_SUFFIX = re.compile(r"^\.[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")


class BoundaryReader(Reader):
    """The guards, pagination and output contract of a tool's document."""

    def path_spec(self, name: str, d: Mapping[str, object], path: PathKey) -> PathSpec:
        root = d.get("root")
        declared = isinstance(root, str)
        root_name = root if isinstance(root, str) else name
        if not _ROOT_NAME.match(root_name):
            self.report(
                "TG170",
                f"root {shown(root_name)} is not a root name"
                + ("" if declared else " (the parameter's name stands for its root)"),
                self.span((*path, "root") if declared else path, key=not declared),
                "Name the root in snake_case (archive, documents): the deployment sets its "
                "folder with TOOLGEN_ROOT_<NAME>.",
            )
        suffixes: list[str] = []
        for index, suffix in enumerate(sequence_value(d.get("suffixes"))):
            text = str(suffix)
            if not _SUFFIX.match(text):
                self.report(
                    "TG170",
                    f"suffix {shown(text)} is not a file suffix",
                    self.span((*path, "suffixes", index)),
                    "Write each suffix with its dot and no slash, such as .md.",
                )
            elif text.casefold() in (s.casefold() for s in suffixes):
                self.report(
                    "TG170",
                    f"suffix {shown(text)} is listed twice",
                    self.span((*path, "suffixes", index)),
                    "Remove the repeated suffix.",
                )
            else:
                suffixes.append(text)
        return PathSpec(
            root=root_name,
            root_declared=declared,
            suffixes=tuple(suffixes),
            must_exist=d.get("must_exist", True) is not False,
        )

    def url_spec(self, d: Mapping[str, object], path: PathKey) -> UrlSpec:
        # imported here: toolgen_runtime imports the Agents SDK (over a second), which only
        # a contract with a url parameter needs
        from toolgen_runtime.guards.hosts import host_problem

        hosts: list[str] = []
        for index, entry in enumerate(sequence_value(d.get("hosts"))):
            text = str(entry)
            problem = host_problem(text)
            if problem is not None:
                self.report(
                    "TG171",
                    f"allowed host {shown(text)} {problem}",
                    self.span((*path, "hosts", index)),
                    "List host names (api.example.com), *.example.com for the names under "
                    "example.com, or an IP address to allow that address.",
                )
            elif text.lower() in hosts:
                self.report(
                    "TG171",
                    f"allowed host {shown(text)} is listed twice",
                    self.span((*path, "hosts", index)),
                    "Remove the repeated host.",
                )
            else:
                hosts.append(text.lower())
        hosts_from = d.get("hosts_from")
        if isinstance(hosts_from, str) and not _ROOT_NAME.match(hosts_from):
            self.report(
                "TG171",
                f"hosts_from {shown(hosts_from)} is not a list name",
                self.span((*path, "hosts_from")),
                "Name the list in snake_case: the deployment sets it with "
                "TOOLGEN_HOSTS_<NAME>.",
            )
            hosts_from = None
        schemes = tuple(
            dict.fromkeys(str(s) for s in sequence_value(d.get("schemes")))
        ) or ("https",)
        ports = tuple(
            dict.fromkeys(
                n
                for p in sequence_value(d.get("ports"))
                if (n := whole_number(p)) is not None
            )
        )
        return UrlSpec(
            hosts=tuple(hosts),
            hosts_from=hosts_from if isinstance(hosts_from, str) else None,
            schemes=schemes,
            ports=ports,
        )

    def output_contract(
        self, name: str, ftype: str, d: Mapping[str, object], path: PathKey
    ) -> tuple[int | None, bool]:
        """A return field's `max_length` (texts, or arrays of texts) and `sensitive`."""
        if items_of(name, path):
            # the output contract names fields, and an array's items have no name of
            # their own: what is written on them would apply to nothing
            for key in ("max_length", "sensitive"):
                if key in d:
                    self.report(
                        "TG173",
                        f"the items of array field {name!r} take no {key}",
                        self.span((*path, key), key=True),
                        "Put max_length on the array field; to hide values, return "
                        "objects and mark their field sensitive.",
                    )
            return None, False
        limit = d.get("max_length")
        texts_only = ftype == "string" or (
            ftype == "array" and mapping_value(d.get("items")).get("type") == "string"
        )
        if "max_length" in d and not texts_only:
            self.report(
                "TG173",
                f"return field {name!r} is {article(ftype)}, and max_length applies to "
                "texts",
                self.span((*path, "max_length"), key=True),
                "Remove max_length, or put it on a string field (or an array of strings).",
            )
            limit = None
        sensitive = d.get("sensitive") is True
        if sensitive and ftype in ("object", "array"):
            self.report(
                "TG173",
                f"return field {name!r} is {article(ftype)}: sensitive applies to a value",
                self.span((*path, "sensitive"), key=True),
                "Mark the fields inside it that must not be shown.",
            )
            sensitive = False
        if sensitive and isinstance(limit, int):
            self.report(
                "TG173",
                f"return field {name!r} is sensitive, so its length never shows",
                self.span((*path, "max_length"), key=True),
                "Remove max_length: a sensitive field reaches the model as [redacted].",
            )
            limit = None
        return whole_number(limit), sensitive

    def pagination(
        self, value: object, params: tuple[Param, ...], context_names: tuple[str, ...]
    ) -> tuple[PaginationSpec | None, tuple[Param, ...]]:
        """The pagination contract, and the parameters with the two it adds (`cursor`,
        `page_size`) last."""
        if not isinstance(value, dict):
            return None, params
        d = mapping_value(value)
        where = ("pagination",)
        taken = [p for p in params if p.name in (CURSOR_PARAM, PAGE_SIZE_PARAM)]
        for param in taken:
            self.report(
                "TG172",
                f"parameter {param.name!r} is one pagination adds itself",
                param.origin.key_span,
                f"Remove it (or rename it): a paginated tool takes {CURSOR_PARAM} and "
                f"{PAGE_SIZE_PARAM} from its pagination block.",
            )
        # the format check has refused a size below 1
        cap = whole_number(d.get("max_page_size")) or 1
        default = whole_number(d.get("default_page_size")) or min(cap, 10)
        if default > cap:
            self.report(
                "TG172",
                f"default_page_size ({default}) is greater than max_page_size ({cap})",
                self.span((*where, "default_page_size")),
                "Make the default at most the cap.",
            )
            default = cap
        identity = context_names
        if "identity" in d:
            identity = tuple(str(n) for n in sequence_value(d["identity"]))
        for index, field_name in enumerate(identity):
            if field_name not in context_names:
                self.report(
                    "TG172",
                    f"identity names {field_name!r}, which is not one of the tool's context "
                    "fields",
                    self.span((*where, "identity", index)),
                    "List context fields the tool receives (its context:): a cursor is bound "
                    "to who calls, which only the run context knows.",
                )
        origin = self.origin(where)
        spec = PaginationSpec(
            max_page_size=cap,
            default_page_size=default,
            total=cast(
                Literal["counted", "unknown", "expensive"], d.get("total", "counted")
            ),
            noun=text_value(d, "noun") or "result",
            identity=tuple(n for n in identity if n in context_names),
            ttl_s=whole_number(d.get("cursor_ttl_s", 24 * 3600)),
            origin=origin,
        )
        added = (
            derived_param(
                CURSOR_PARAM,
                "string",
                "Null for the first page; for the next one, next_cursor exactly as the "
                "previous answer gave it, with the same other arguments.",
                origin,
                is_cursor=True,
            ),
            derived_param(
                PAGE_SIZE_PARAM,
                "integer",
                f"How many {spec.noun}s one page shows.",
                origin,
                constraints=Constraints(minimum=1, maximum=cap),
                default=default,
            ),
        )
        return spec, tuple(p for p in params if p not in taken) + added
