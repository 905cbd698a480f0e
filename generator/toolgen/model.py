"""The model stage: documents that passed the format check become the IR (`ir.py`).

Building is interpreting: what a key means depends on the keys beside it (a `pattern` applies to
a string, `items` to an array), so the problems found while reading a value are reported here,
at the value (TG120-TG123, TG126, TG127, TG141, TG142, TG170-TG173, TG011). A
`confirmation: token` contract becomes two tools here: itself (the confirm tool) and its derived
prepare tool. Everything the IR then says is checked by the semantic checks (`checks/`), which
the pipeline runs on the result: names, references, context fields, defaults and examples.
Nothing here raises for a problem in a spec.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, cast

from toolgen import describe, limits, reserved, toolschema
from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.ir import (
    CONFIRM_PREFIX,
    CURSOR_PARAM,
    DEFAULT_RETENTION_S,
    PAGE_SIZE_PARAM,
    TOKEN_PARAM,
    Budget,
    Catalogue,
    Confirmation,
    Constraints,
    ContextField,
    Effect,
    ErrorCode,
    Example,
    Idempotency,
    JsonValue,
    LintConfig,
    NotWhen,
    Origin,
    PaginationSpec,
    Param,
    ParamType,
    PathSpec,
    PyNames,
    ReturnField,
    Suppression,
    TextAt,
    TokenPair,
    Tool,
    UrlSpec,
    prepare_name,
    walk,
)
from toolgen.load import Document, PathKey
from toolgen.names import (
    ENVELOPE_KEYS,
    is_identifier,
    item_class,
    module_name,
    pascal,
    python_name,
)
from toolgen.text import article, listing, shown

__all__ = [
    "ModelResult",
    "build_model",
    "default_package",
]

_TYPE_KEYS: Mapping[str, frozenset[str]] = {
    "string": frozenset({"enum", "pattern", "min_length", "max_length"}),
    "integer": frozenset({"enum", "min", "max"}),
    "number": frozenset({"enum", "min", "max"}),
    "boolean": frozenset(),
    "date": frozenset(),
    "datetime": frozenset(),
    "array": frozenset({"items", "min_items", "max_items"}),
    "object": frozenset({"properties"}),
    "path": frozenset(),
    "url": frozenset(),
}
_CONSTRAINT_KEYS = frozenset().union(*_TYPE_KEYS.values())
# the keys of the guarded types, which apply to theirs only
_GUARD_KEYS: Mapping[str, frozenset[str]] = {
    "path": frozenset({"root", "suffixes", "must_exist"}),
    "url": frozenset({"hosts", "hosts_from", "schemes", "ports"}),
}
_ROOT_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_SUFFIX = re.compile(r"^\.[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")
_PAIRS = (("min", "max"), ("min_length", "max_length"), ("min_items", "max_items"))


def default_package(catalogue_name: str) -> tuple[str, str]:
    """Where a catalogue's build writes when it does not say: (package, implementation)."""
    return f"generated.{catalogue_name}", f"impl.{catalogue_name}"


def _text(data: Mapping[str, object], key: str) -> str:
    value = data.get(key, "")
    return value.strip() if isinstance(value, str) else ""


def _mapping(value: object) -> Mapping[str, object]:
    return cast(Mapping[str, object], value) if isinstance(value, dict) else {}


def _sequence(value: object) -> Sequence[object]:
    return cast(Sequence[object], value) if isinstance(value, list) else ()


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


_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration_s(text: str) -> int | None:
    """Seconds of a duration as the format writes it (24h, 7d, 90s); None if unreadable
    (the format check has reported it)."""
    match = re.fullmatch(r"([1-9][0-9]{0,9})([smhd])", text.strip())
    if match is None:
        return None
    return int(match.group(1)) * _DURATION_UNITS[match.group(2)]


def texts(data: object) -> tuple[TextAt, ...]:
    """Every string of a document, keys included, with its path (iterative: documents of
    thousands of nodes make recursive generators slow)."""
    found: list[TextAt] = []
    stack: list[tuple[PathKey, object]] = [((), data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            found.append(TextAt(path, node, False))
        elif isinstance(node, dict):
            for key, value in node.items():
                here = (*path, key)
                if isinstance(key, str):
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
    return tuple(found)


class _Reader:
    """Reads one document into IR elements, reporting what cannot be read as written."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.source = document.source
        self.diagnostics: list[Diagnostic] = []

    def report(self, code: str, message: str, span: Span, hint: str = "") -> None:
        self.diagnostics.append(error(code, message, span, hint))

    def origin(self, path: PathKey) -> Origin:
        return Origin(self.source, path)

    def span(self, path: PathKey, *, key: bool = False) -> Span:
        return self.source.span(path, key=key)

    # -- parameters -----------------------------------------------------------------------

    def params(
        self, raw: Mapping[str, object], path: PathKey, stem: str
    ) -> tuple[Param, ...]:
        built = []
        siblings = frozenset(raw)
        for name, spec in raw.items():
            param = self.param(
                name,
                _mapping(spec),
                (*path, name),
                stem + pascal(name),
                item_class(stem, name, siblings),
            )
            if param is not None:
                built.append(param)
        return tuple(built)

    def param(
        self,
        name: str,
        d: Mapping[str, object],
        path: PathKey,
        class_name: str,
        items_class: str,
    ) -> Param | None:
        ptype = str(d.get("type"))
        path_spec, url_spec = self.guard_specs(name, ptype, d, path)
        allowed = _TYPE_KEYS[ptype]
        for key in sorted(_CONSTRAINT_KEYS & set(d) - allowed):
            fits = sorted(t for t, keys in _TYPE_KEYS.items() if key in keys)
            self.report(
                "TG120",
                f"{key!r} does not apply to {article(ptype)} parameter",
                self.span((*path, key), key=True),
                f"{key!r} applies to {listing(fits)} parameters; remove it or change "
                "the type.",
            )
        constraints = self.constraints(ptype, d, path, allowed)
        items = None
        if ptype == "array":
            if "items" not in d:
                self.report(
                    "TG126",
                    f"array parameter {name!r} does not say the type of its items",
                    self.span(path, key=True),
                    "Add items: {type: string} (or the items' type).",
                )
            else:
                item_d = _mapping(d["items"])
                for key in ("optional", "default"):
                    if key in item_d:
                        self.report(
                            "TG120",
                            f"{key!r} does not apply to the items of an array",
                            self.span((*path, "items", key), key=True),
                            "Make the array itself optional instead.",
                        )
                items = self.param(
                    name, item_d, (*path, "items"), items_class, items_class + "Item"
                )
        properties: tuple[Param, ...] = ()
        if ptype == "object":
            props = _mapping(d.get("properties"))
            if not props:
                self.report(
                    "TG126",
                    f"the object items of array parameter {name!r} have no properties"
                    if path[-1] == "items"
                    else f"object parameter {name!r} has no properties",
                    self.span(path, key=True),
                    "List its fields under properties (a free-form object cannot be "
                    "validated).",
                )
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
            path=path_spec,
            url=url_spec,
        )

    def constraints(
        self,
        ptype: str,
        d: Mapping[str, object],
        path: PathKey,
        allowed: frozenset[str],
    ) -> Constraints:
        """The constraints that apply to `ptype` (TG120 reports the others)."""
        for low, high in _PAIRS:
            lo, hi = d.get(low), d.get(high)
            if low not in allowed:
                continue
            if _is_number(lo) and _is_number(hi) and cast(float, lo) > cast(float, hi):
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
        pattern = d.get("pattern")
        if isinstance(pattern, str):
            try:
                re.compile(pattern)
            except re.error as exc:
                self.report(
                    "TG122",
                    # as written in the spec: repr would double every backslash
                    f"pattern '{pattern}' is not a valid regular expression: {exc.msg}",
                    self.span((*path, "pattern")),
                    "Fix the expression; remember to anchor it with ^ and $.",
                )
                pattern = None
        enum = d.get("enum")
        if isinstance(enum, list) and ptype == "number":
            self.report(
                "TG123",
                "enum is not supported on number parameters",
                self.span((*path, "enum"), key=True),
                "List whole numbers with type: integer, or words with type: string.",
            )
            enum = None
        if isinstance(enum, list) and "enum" in allowed:
            seen: list[object] = []
            for index, value in enumerate(enum):
                if not _enum_fits(ptype, value):
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

    # -- returns --------------------------------------------------------------------------

    def returns(
        self, raw: Mapping[str, object], path: PathKey, stem: str
    ) -> tuple[ReturnField, ...]:
        built = []
        siblings = frozenset(raw)
        for name, spec in raw.items():
            if name in ENVELOPE_KEYS:
                self.report(
                    "TG141",
                    f"return field name {name!r} is a key of the envelope every result "
                    "comes in",
                    self.span((*path, name), key=True),
                    f"Rename it ({', '.join(sorted(ENVELOPE_KEYS))} are taken): a "
                    "successful result already says ok: true.",
                )
                continue
            built.append(
                self.return_field(
                    name,
                    _mapping(spec),
                    (*path, name),
                    stem + pascal(name),
                    item_class(stem, name, siblings),
                )
            )
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
                self.report(
                    "TG126",
                    f"array field {name!r} does not say the type of its items",
                    self.span(path, key=True),
                    "Add items: {type: string} (or the items' type).",
                )
            else:
                items = self.return_field(
                    name,
                    _mapping(d["items"]),
                    (*path, "items"),
                    items_class,
                    items_class + "Item",
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
                    self.span(path, key=True),
                    "List its fields under properties.",
                )
        enum = d.get("enum")
        max_length, sensitive = self.output_contract(name, ftype, d, path)
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
            max_length=max_length,
            sensitive=sensitive,
        )

    # -- boundaries: guarded parameters, pagination, output contracts -----------------------

    def guard_specs(
        self, name: str, ptype: str, d: Mapping[str, object], path: PathKey
    ) -> tuple[PathSpec | None, UrlSpec | None]:
        """The guard of a `path` or `url` parameter; the keys of a guard on another type are
        reported (TG120) and dropped."""
        for guarded, keys in _GUARD_KEYS.items():
            if guarded == ptype:
                continue
            for key in sorted(keys & set(d)):
                self.report(
                    "TG120",
                    f"{key!r} does not apply to {article(ptype)} parameter",
                    self.span((*path, key), key=True),
                    f"{key!r} applies to {guarded} parameters; remove it or use "
                    f"type: {guarded}.",
                )
        if ptype == "path":
            return self.path_spec(name, d, path), None
        if ptype == "url":
            return None, self.url_spec(d, path)
        return None, None

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
        for index, suffix in enumerate(_sequence(d.get("suffixes"))):
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
        from toolgen_runtime.guards.urls import host_problem

        hosts: list[str] = []
        for index, entry in enumerate(_sequence(d.get("hosts"))):
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
        schemes = tuple(dict.fromkeys(str(s) for s in _sequence(d.get("schemes")))) or (
            "https",
        )
        ports = tuple(
            dict.fromkeys(
                p
                for p in _sequence(d.get("ports"))
                if isinstance(p, int) and not isinstance(p, bool)
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
        limit = d.get("max_length")
        texts_only = ftype == "string" or (
            ftype == "array" and _mapping(d.get("items")).get("type") == "string"
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
        return (
            limit if isinstance(limit, int) and not isinstance(limit, bool) else None,
            sensitive,
        )

    def pagination(
        self, value: object, params: tuple[Param, ...], context_names: tuple[str, ...]
    ) -> tuple[PaginationSpec | None, tuple[Param, ...]]:
        """The pagination contract, and the parameters with the two it adds (`cursor`,
        `page_size`) last."""
        if not isinstance(value, dict):
            return None, params
        d = _mapping(value)
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
        cap = d.get("max_page_size")
        cap = cap if isinstance(cap, int) and not isinstance(cap, bool) else 1
        default = d.get("default_page_size", min(cap, 10))
        if not isinstance(default, int) or isinstance(default, bool):
            default = min(cap, 10)
        if default > cap:
            self.report(
                "TG172",
                f"default_page_size ({default}) is greater than max_page_size ({cap})",
                self.span((*where, "default_page_size")),
                "Make the default at most the cap.",
            )
            default = cap
        listed = d.get("identity")
        identity = (
            tuple(str(n) for n in _sequence(listed))
            if isinstance(listed, list)
            else context_names
        )
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
        ttl = d.get("cursor_ttl_s", 24 * 3600)
        origin = self.origin(where)
        spec = PaginationSpec(
            max_page_size=cap,
            default_page_size=default,
            total=cast(
                Literal["counted", "unknown", "expensive"], d.get("total", "counted")
            ),
            noun=_text(d, "noun") or "result",
            identity=tuple(n for n in identity if n in context_names),
            ttl_s=ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None,
            origin=origin,
        )
        added = (
            Param(
                name=CURSOR_PARAM,
                py_name=CURSOR_PARAM,
                type="string",
                description=(
                    "Null for the first page; for the next one, next_cursor exactly as "
                    "the previous answer gave it, with the same other arguments."
                ),
                constraints=Constraints(),
                optional=True,
                has_default=False,
                default=None,
                has_example=False,
                example=None,
                items=None,
                properties=(),
                class_name="",
                origin=origin,
                is_cursor=True,
            ),
            Param(
                name=PAGE_SIZE_PARAM,
                py_name=PAGE_SIZE_PARAM,
                type="integer",
                description=f"How many {spec.noun}s one page shows.",
                constraints=Constraints(minimum=1, maximum=cap),
                optional=True,
                has_default=True,
                default=default,
                has_example=False,
                example=None,
                items=None,
                properties=(),
                class_name="",
                origin=origin,
            ),
        )
        kept = tuple(p for p in params if p not in taken)
        return spec, kept + added

    # -- the rest of a tool ---------------------------------------------------------------

    # -- writes: idempotency and confirmation (issue 9) ------------------------------------

    def idempotency(self, value: object) -> Idempotency:
        """`none`, `natural`, or a key of named arguments and context fields with a
        retention; what the names refer to is checked in checks/writes.py."""
        origin = self.origin(("idempotency",))
        if isinstance(value, dict):
            d = _mapping(value)
            retention = d.get("retention")
            seconds = (
                _duration_s(retention)
                if isinstance(retention, str)
                else DEFAULT_RETENTION_S
            )
            return Idempotency(
                "key",
                tuple(str(a) for a in _sequence(d.get("key"))),
                tuple(str(c) for c in _sequence(d.get("context"))),
                retention_s=seconds,
                origin=origin,
            )
        kind = value if value in ("none", "natural") else "none"
        return Idempotency(cast(Literal["none", "natural"], kind), origin=origin)

    def confirmation(self, value: object) -> Confirmation:
        if value == "approval" or value == "token":
            return value
        return "none"

    def errors(self, raw: Mapping[str, object]) -> tuple[ErrorCode, ...]:
        built = []
        for code, spec in raw.items():
            e = _mapping(spec)
            if code == "invalid_arguments":
                self.report(
                    "TG142",
                    "error code 'invalid_arguments' is reserved for rejected arguments",
                    self.span(("errors", code), key=True),
                    "toolgen reports invalid arguments itself; name the data error after "
                    "its cause.",
                )
                continue
            built.append(
                ErrorCode(
                    code=code,
                    when=_text(e, "when"),
                    how_to_fix=_text(e, "how_to_fix"),
                    retryable=bool(e.get("retryable", False)),
                    origin=self.origin(("errors", code)),
                )
            )
        return tuple(built)

    def examples(self, raw: Sequence[object]) -> tuple[Example, ...]:
        if len(raw) > limits.MAX_EXAMPLES:
            self.report(
                "TG011",
                f"the tool has {len(raw):,} examples, more than the "
                f"{limits.MAX_EXAMPLES} a tool may have; only the first ones are checked",
                self.span(("examples",), key=True),
                "Keep the examples that each show something new: every one becomes tests.",
            )
        return tuple(
            Example(
                args=cast(
                    Mapping[str, JsonValue], _mapping(_mapping(item).get("args"))
                ),
                rejected_on=cast("str | None", _mapping(item).get("rejected_on")),
                note=_text(_mapping(item), "note"),
                origin=self.origin(("examples", i)),
            )
            for i, item in enumerate(raw[: limits.MAX_EXAMPLES])
        )


def _tool_names(name: str, stem: str) -> PyNames:
    prefix = pascal(name) or "Tool"
    return PyNames(
        module=module_name(name or stem),
        prefix=prefix,
        args_class=prefix + "Args",
        context_class=prefix + "Context",
        result_class=prefix + "Result",
        error_class=prefix + "Error",
    )


def _build_tool(
    document: Document, context_fields: Mapping[str, ContextField]
) -> tuple[Tool, list[Diagnostic]]:
    d = _mapping(document.data)
    reader = _Reader(document)
    name = str(d.get("name", ""))
    stem = document.file.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    py = _tool_names(name, stem)
    if isinstance(d.get("pagination"), dict):
        # the implementation returns a page of these: one item, not the whole result
        py = replace(py, result_class=py.prefix + "Item")
    idempotency = reader.idempotency(d.get("idempotency", "none"))
    confirmation = reader.confirmation(d.get("confirmation", "none"))
    for key, meanwhile in reserved.TOOL_KEYS.items():
        if key in d:
            reader.report(
                "TG127",
                f"{key} is reserved for a later format version",
                reader.span((key,), key=True),
                meanwhile,
            )
    params = reader.params(_mapping(d.get("params")), ("params",), py.prefix)
    context_names = tuple(str(item) for item in _sequence(d.get("context")))
    pagination, params = reader.pagination(d.get("pagination"), params, context_names)
    counted = sum(1 for top in params for _ in walk(top))
    if counted > limits.MAX_PARAMETERS:
        reader.report(
            "TG011",
            f"the tool has {counted:,} parameters (nested ones included), more than the "
            f"{limits.MAX_PARAMETERS:,} a tool may have",
            reader.span(("params",), key=True),
            "Split the tool: the model reads every parameter on every turn.",
        )
    # a declared name that is not an identifier has no Python field (TG116 says so)
    resolved = dict.fromkeys(
        context_fields[n]
        for n in context_names
        if n in context_fields and is_identifier(n)
    )
    tool = Tool(
        name=name,
        intent=_text(d, "intent"),
        use_when=_text(d, "use_when"),
        not_when=tuple(
            NotWhen(
                _text(_mapping(item), "when"),
                str(_mapping(item).get("use", "")),
                reader.origin(("not_when", i)),
            )
            for i, item in enumerate(_sequence(d.get("not_when")))
        ),
        requires=tuple(str(r) for r in _sequence(d.get("requires"))),
        effect=cast(Effect, d.get("effect", "read")),
        open_world=bool(d.get("open_world", False)),
        idempotency=idempotency,
        confirmation=confirmation,
        params=params,
        context_names=context_names,
        context=tuple(resolved),
        returns=reader.returns(_mapping(d.get("returns")), ("returns",), py.prefix),
        errors=reader.errors(_mapping(d.get("errors"))),
        examples=reader.examples(_sequence(d.get("examples"))),
        suppressions=tuple(
            Suppression(
                str(_mapping(item).get("rule", "")),
                _text(_mapping(item), "reason"),
                reader.origin(("suppress", i)),
            )
            for i, item in enumerate(_sequence(d.get("suppress")))
        ),
        py=py,
        origin=reader.origin(()),
        digest=document.digest,
        texts=texts(document.data),
        pagination=pagination,
    )
    if tool.confirmation == "token":
        tool = replace(tool, role="confirm", token_pair=_token_pair(tool))
    tool = replace(
        tool,
        description=describe.tool_description(tool),
        parameters=_parameters(tool),
    )
    return tool, reader.diagnostics


# --- writes: the two tools of a token contract (issue 9) --------------------------------


def _token_pair(tool: Tool) -> TokenPair:
    return TokenPair(
        prepare=prepare_name(tool.name),
        confirm=tool.name,
        identity=tuple(f.name for f in tool.context),
    )


def _parameters(tool: Tool) -> Mapping[str, object]:
    """The schema the model sees; a confirm tool's has the prepare tool's token too."""
    schema = toolschema.parameters_schema(tool.params)
    if tool.role != "confirm" or tool.token_pair is None:
        return schema
    properties = dict(cast(Mapping[str, object], schema["properties"]))
    properties[TOKEN_PARAM] = {
        "type": "string",
        "description": f"The token {tool.token_pair.prepare} returned, copied exactly.",
    }
    return {**schema, "properties": properties, "required": list(properties)}


def _returned(name: str, ftype: ParamType, description: str, at: Origin) -> ReturnField:
    return ReturnField(
        name=name,
        py_name=python_name(name),
        type=ftype,
        description=description,
        enum=None,
        optional=False,
        items=None,
        properties=(),
        class_name="",
        origin=at,
    )


def prepare_tool(confirm: Tool) -> Tool:
    """The prepare tool of a token contract: the contract's parameters, context and
    examples; no effect, no implementation; it answers with a summary and a token."""
    pair = confirm.token_pair
    assert pair is not None
    name = pair.prepare
    at = confirm.origin
    tool = Tool(
        name=name,
        intent=(
            f"Check a call of {pair.confirm} and return its summary and a confirmation "
            f"token; nothing is done until {pair.confirm} is called with the token."
        ),
        use_when=confirm.use_when,
        not_when=(),
        requires=confirm.requires,
        effect="read",
        open_world=False,
        idempotency=Idempotency("none", origin=confirm.idempotency.origin),
        confirmation="none",
        params=confirm.params,
        context_names=confirm.context_names,
        context=confirm.context,
        returns=(
            _returned("token", "string", f"Pass it to {pair.confirm}.", at),
            _returned(
                "summary", "string", "What the call would do, to show the user.", at
            ),
            _returned("expires_in_s", "integer", "Seconds the token stays valid.", at),
        ),
        errors=(),
        examples=confirm.examples,
        suppressions=(),
        py=_tool_names(name, name),
        origin=at,
        digest=confirm.digest,
        texts=(),
        role="prepare",
        token_pair=pair,
    )
    return replace(
        tool,
        description=describe.tool_description(tool),
        parameters=toolschema.parameters_schema(tool.params),
    )


# --- the catalogue -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModelResult:
    catalogue: Catalogue | None
    diagnostics: tuple[Diagnostic, ...]
    # when catalogue.yaml has format errors: its tools, in a catalogue that stands in for
    # it (no context, default settings), for the checks that read the tool files alone
    stand_in: Catalogue | None = None


def _context_fields(c: Mapping[str, object], reader: _Reader) -> Iterator[ContextField]:
    for field_name, spec in _mapping(c.get("context")).items():
        f = _mapping(spec)
        yield ContextField(
            name=field_name,
            py_name=python_name(field_name),
            type=cast(ParamType, f.get("type")),
            description=_text(f, "description"),
            origin=reader.origin(("context", field_name)),
        )


def build_model(
    catalogue_doc: Document | None,
    tool_docs: Sequence[Document],
    *,
    folder: str,
    broken_tools: Sequence[str] = (),
    broken_catalogue: Document | None = None,
    reused: Sequence[Tool] = (),
) -> ModelResult:
    """The IR of a catalogue, from the documents that passed the format check.

    `broken_tools` are the tool names (or, for a file that could not be read, its name
    without suffix) of the tool files that did not pass: the IR keeps them so that nothing
    derived from their absence is said (a reference to one is not an unknown tool).

    `broken_catalogue` is catalogue.yaml when it failed the format check: there is then no
    catalogue, but the tools are built in a stand-in for it (`ModelResult.stand_in`), so
    their own problems are reported too.

    `reused` are tools an earlier build made from files with the same text, in a catalogue
    file with the same text (the front cache): they join the IR as they are.
    """
    if catalogue_doc is None:
        if broken_catalogue is None:
            return ModelResult(None, ())
        stand_in = _catalogue(
            broken_catalogue, tool_docs, folder, broken_tools, trusted=False
        )
        return ModelResult(None, stand_in[1], stand_in=stand_in[0])
    catalogue, diagnostics = _catalogue(
        catalogue_doc, tool_docs, folder, broken_tools, reused
    )
    return ModelResult(catalogue, diagnostics)


def _catalogue(
    catalogue_doc: Document,
    tool_docs: Sequence[Document],
    folder: str,
    broken_tools: Sequence[str],
    reused: Sequence[Tool] = (),
    *,
    trusted: bool = True,
) -> tuple[Catalogue, tuple[Diagnostic, ...]]:
    """The catalogue and what building it found; untrusted (a catalogue file with format
    errors), nothing of the catalogue file is read but its name."""
    c = (
        _mapping(catalogue_doc.data)
        if trusted
        else {"name": _text(_mapping(catalogue_doc.data), "name")}
    )
    reader = _Reader(catalogue_doc)
    span = catalogue_doc.span
    name = str(c.get("name", ""))
    default, default_impl = default_package(name)
    context = tuple(_context_fields(c, reader))
    by_name = {f.name: f for f in context}
    diagnostics: list[Diagnostic] = []
    contracts: list[Tool] = [*reused]
    for document in tool_docs:
        tool, found = _build_tool(document, by_name)
        diagnostics.extend(found)
        contracts.append(tool)
    tools: list[Tool] = []
    for tool in contracts:
        tools.append(tool)
        if tool.role == "confirm" and tool.name.startswith(CONFIRM_PREFIX):
            tools.append(prepare_tool(tool))
    budget = _mapping(c.get("budget"))
    lint = _mapping(c.get("lint"))
    catalogue = Catalogue(
        name=name,
        description=_text(c, "description"),
        folder=folder,
        package=str(c.get("package", default)),
        implementation=str(c.get("implementation", default_impl)),
        context=context,
        context_class=pascal(name) + "Context",
        targets=tuple(str(t) for t in _sequence(c.get("targets"))) or ("openai",),
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
            max_warnings=cast("int | None", lint.get("max_warnings")),
        ),
        tools=tuple(sorted(tools, key=lambda t: t.name)),
        broken_tools=tuple(sorted(set(broken_tools))),
        origin=reader.origin(()),
        digest=catalogue_doc.digest,
        package_at=span(("package" if "package" in c else "name",)),
        implementation_at=span(
            ("implementation" if "implementation" in c else "name",)
        ),
        texts=texts(catalogue_doc.data),
    )
    return catalogue, tuple([*reader.diagnostics, *diagnostics])
