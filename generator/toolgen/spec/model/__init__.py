"""The model stage: documents that passed the format check become the IR (`ir.py`).

Building is interpreting: what a key means depends on the keys beside it (a `pattern` applies to
a string, `items` to an array), so the problems found while reading a value are reported here,
at the value (TG120-TG123, TG126, TG141, TG142, TG170-TG173, TG011). A
`confirmation: token` contract becomes two tools here: itself (the confirm tool) and its derived
prepare tool. Everything the IR then says is checked by the semantic checks (`checks/`), which
the pipeline runs on the result: names, references, context fields, defaults and examples.
Nothing here raises for a problem in a spec.

The package: `reading` (what every reader shares), `params` (parameters and their
constraints), `returns` (return fields), `boundaries` (guards, pagination, output contracts),
`derived` (the prepare tool of a token contract), and here the writes, errors, examples, the
tool and the catalogue.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Literal, cast

from toolgen.diagnostics import Diagnostic
from toolgen.names import is_identifier, pascal, python_name
from toolgen.spec import describe, limits
from toolgen.spec.groups import Namespace, Toolset
from toolgen.spec.ir import (
    CONFIRM_PREFIX,
    DEFAULT_RETENTION_S,
    Budget,
    Catalogue,
    Confirmation,
    ContextField,
    ErrorCode,
    Example,
    Idempotency,
    JsonValue,
    LintConfig,
    NotWhen,
    Param,
    ParamType,
    Suppression,
    Timeout,
    TokenPair,
    Tool,
    prepare_name,
    walk,
)
from toolgen.spec.load import Document
from toolgen.spec.model.derived import parameters, prepare_tool
from toolgen.spec.model.params import ParamsReader
from toolgen.spec.model.reading import (
    duration_s,
    implementation_tests,
    mapping_value,
    sequence_value,
    text_value,
    texts,
    tool_names,
)
from toolgen.spec.model.returns import ReturnsReader
from toolgen.spec.summary import Effect
from toolgen.spec.validate import stem

__all__ = ["build_settings", "build_tools", "default_package"]


def default_package(catalogue_name: str) -> tuple[str, str]:
    """Where a catalogue's build writes when it does not say: (package, implementation)."""
    return f"generated.{catalogue_name}", f"impl.{catalogue_name}"


class _Reader(ParamsReader, ReturnsReader):
    """Reads one document into IR elements, reporting what cannot be read as written: here
    the parts of a tool its bases leave, the writes' idempotency (issue 9) among them."""

    def count_params(self, params: tuple[Param, ...]) -> None:
        counted = sum(1 for top in params for _ in walk(top))
        if counted > limits.MAX_PARAMETERS:
            self.report(
                "TG011",
                f"the tool has {counted:,} parameters (nested ones included), more than "
                f"the {limits.MAX_PARAMETERS:,} a tool may have",
                self.span(("params",), key=True),
                "Split the tool: the model reads every parameter on every turn.",
            )

    def idempotency(self, value: object) -> Idempotency:
        """`none`, `natural`, or a key of named arguments and context fields with a
        retention; what the names refer to is checked in checks/writes.py."""
        origin = self.origin(("idempotency",))
        if isinstance(value, dict):
            d = mapping_value(value)
            retention = d.get("retention")
            return Idempotency(
                "key",
                tuple(str(a) for a in sequence_value(d.get("key"))),
                tuple(str(c) for c in sequence_value(d.get("context"))),
                retention_s=duration_s(retention)
                if isinstance(retention, str)
                else DEFAULT_RETENTION_S,
                origin=origin,
            )
        return Idempotency(cast(Literal["none", "natural"], value), origin=origin)

    def errors(self, raw: Mapping[str, object]) -> tuple[ErrorCode, ...]:
        if "invalid_arguments" in raw:
            self.report(
                "TG142",
                "error code 'invalid_arguments' is reserved for rejected arguments",
                self.span(("errors", "invalid_arguments"), key=True),
                "toolgen reports invalid arguments itself; name the data error after "
                "its cause.",
            )
        kept = {c: mapping_value(e) for c, e in raw.items() if c != "invalid_arguments"}
        return tuple(
            ErrorCode(
                code=code,
                when=text_value(e, "when"),
                how_to_fix=text_value(e, "how_to_fix"),
                retryable=bool(e.get("retryable", False)),
                origin=self.origin(("errors", code)),
            )
            for code, e in kept.items()
        )

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
                args=cast(Mapping[str, JsonValue], mapping_value(item.get("args"))),
                rejected_on=cast("str | None", item.get("rejected_on")),
                note=text_value(item, "note"),
                origin=self.origin(("examples", i)),
            )
            for i, item in enumerate(map(mapping_value, raw[: limits.MAX_EXAMPLES]))
        )


def _build_tool(
    document: Document, catalogue: Catalogue
) -> tuple[Tool, list[Diagnostic]]:
    d = mapping_value(document.data)
    context_fields = {f.name: f for f in catalogue.context}
    reader = _Reader(document)
    name = str(d.get("name", ""))
    py = tool_names(name, stem(document.file))
    if isinstance(d.get("pagination"), dict):
        # the implementation returns a page of these: one item, not the whole result
        py = replace(py, result_class=py.prefix + "Item")
    params = reader.params(mapping_value(d.get("params")), ("params",), py.prefix)
    context_names = tuple(str(item) for item in sequence_value(d.get("context")))
    pagination, params = reader.pagination(d.get("pagination"), params, context_names)
    reader.count_params(params)
    # a declared name that is not an identifier has no Python field (TG116 says so)
    resolved = dict.fromkeys(
        context_fields[n]
        for n in context_names
        if n in context_fields and is_identifier(n)
    )
    tool = Tool(
        name=name,
        intent=text_value(d, "intent"),
        use_when=text_value(d, "use_when"),
        not_when=tuple(
            NotWhen(
                text_value(mapping_value(item), "when"),
                str(mapping_value(item).get("use", "")),
                reader.origin(("not_when", i)),
            )
            for i, item in enumerate(sequence_value(d.get("not_when")))
        ),
        requires=tuple(str(r) for r in sequence_value(d.get("requires"))),
        effect=cast(Effect, d.get("effect", "read")),
        open_world=bool(d.get("open_world", False)),
        idempotency=reader.idempotency(d.get("idempotency", "none")),
        confirmation=cast(Confirmation, d.get("confirmation", "none")),
        params=params,
        context_names=context_names,
        context=tuple(resolved),
        returns=reader.returns(
            mapping_value(d.get("returns")), ("returns",), py.prefix
        ),
        errors=reader.errors(mapping_value(d.get("errors"))),
        examples=reader.examples(sequence_value(d.get("examples"))),
        suppressions=tuple(
            Suppression(
                str(mapping_value(item).get("rule", "")),
                text_value(mapping_value(item), "reason"),
                reader.origin(("suppress", i)),
            )
            for i, item in enumerate(sequence_value(d.get("suppress")))
        ),
        py=py,
        origin=reader.origin(()),
        digest=document.digest,
        texts=texts(document),
        pagination=pagination,
        tests=implementation_tests(d.get("tests")),
    )
    tool = _grouped(tool, d, catalogue)
    if tool.confirmation == "token":
        identity = tuple(f.name for f in tool.context)
        pair = TokenPair(prepare_name(tool.name), tool.name, identity)
        tool = replace(tool, role="confirm", token_pair=pair)
    tool = replace(
        tool,
        description=describe.tool_description(tool),
        parameters=parameters(tool),
    )
    return tool, reader.diagnostics


def _grouped(tool: Tool, d: Mapping[str, object], catalogue: Catalogue) -> Tool:
    """`tool` with its namespace, deferral (its own, else its namespace's, else false),
    asks and timeout; whether the namespace exists is checked in checks/groups.py."""
    namespace = d.get("namespace")
    named = [n for n in catalogue.namespaces if n.name == namespace]
    deferred = d.get("deferred", named[0].deferred if named else False)
    timeout = mapping_value(d.get("timeout"))
    seconds = timeout.get("seconds")
    return replace(
        tool,
        namespace=namespace if isinstance(namespace, str) else None,
        deferred=bool(deferred),
        asks=tuple(str(a).strip() for a in sequence_value(d.get("asks"))),
        timeout=Timeout(float(seconds), text_value(timeout, "how_to_fix"))
        if isinstance(seconds, int | float)
        else None,
    )


# --- the catalogue -----------------------------------------------------------------------


def _context_fields(c: Mapping[str, object], reader: _Reader) -> Iterator[ContextField]:
    for field_name, spec in mapping_value(c.get("context")).items():
        f = mapping_value(spec)
        yield ContextField(
            name=field_name,
            py_name=python_name(field_name),
            type=cast(ParamType, f.get("type")),
            description=text_value(f, "description"),
            origin=reader.origin(("context", field_name)),
        )


def build_tools(
    document: Document, catalogue: Catalogue
) -> tuple[tuple[Tool, ...], list[Diagnostic]]:
    """The tools one tool file that passed the format check makes, in catalogue.yaml's
    settings: its contract and, for a token contract, the derived prepare tool."""
    tool, found = _build_tool(document, catalogue)
    if tool.role == "confirm" and tool.name.startswith(CONFIRM_PREFIX):
        return (tool, prepare_tool(tool)), found
    return (tool,), found


def build_settings(
    catalogue_doc: Document,
    folder: str,
    *,
    trusted: bool = True,
) -> tuple[Catalogue, tuple[Diagnostic, ...]]:
    """catalogue.yaml's settings as a catalogue without tools, and what building it found;
    untrusted (a catalogue file with format errors), nothing of the catalogue file is read
    but its name."""
    c = mapping_value(catalogue_doc.data)
    if not trusted:
        c = {"name": text_value(c, "name")}
    reader = _Reader(catalogue_doc)
    name = str(c.get("name", ""))
    default, default_impl = default_package(name)
    budget = mapping_value(c.get("budget"))
    lint = mapping_value(c.get("lint"))
    catalogue = Catalogue(
        name=name,
        description=text_value(c, "description"),
        folder=folder,
        package=str(c.get("package", default)),
        implementation=str(c.get("implementation", default_impl)),
        context=tuple(_context_fields(c, reader)),
        context_class=pascal(name) + "Context",
        targets=tuple(str(t) for t in sequence_value(c.get("targets"))) or ("openai",),
        budget=Budget(
            tokens=cast("int | None", budget.get("tokens")),
            tool_tokens=cast("int | None", budget.get("tool_tokens")),
        ),
        lint=LintConfig(
            select=tuple(str(s) for s in sequence_value(lint.get("select"))),
            ignore=tuple(str(s) for s in sequence_value(lint.get("ignore"))),
            severity={
                str(k): str(v) for k, v in mapping_value(lint.get("severity")).items()
            },
            preview=bool(lint.get("preview", False)),
            max_warnings=cast("int | None", lint.get("max_warnings")),
        ),
        broken_tools=(),
        origin=reader.origin(()),
        digest=catalogue_doc.digest,
        package_at=reader.span(("package" if "package" in c else "name",)),
        implementation_at=reader.span(
            ("implementation" if "implementation" in c else "name",)
        ),
        texts=texts(catalogue_doc),
        tests=implementation_tests(c.get("tests")),
        namespaces=tuple(
            Namespace(
                name,
                text_value(mapping_value(spec), "description"),
                bool(mapping_value(spec).get("deferred", False)),
                reader.origin(("namespaces", name)),
            )
            for name, spec in sorted(mapping_value(c.get("namespaces")).items())
        ),
        toolsets=tuple(
            Toolset(
                name,
                text_value(mapping_value(spec), "description"),
                tuple(str(m) for m in sequence_value(mapping_value(spec).get("tools"))),
                (),
                cast("int | None", mapping_value(spec).get("budget")),
                reader.origin(("toolsets", name)),
            )
            for name, spec in sorted(mapping_value(c.get("toolsets")).items())
        ),
    )
    return catalogue, tuple(reader.diagnostics)
