"""Namespaces and toolsets: a tool's namespace exists and holds its deferred tools, toolsets
name what exists, and no two groups or tools share a name (issue 36)."""

from __future__ import annotations

from collections.abc import Iterator

from toolgen.checks import check
from toolgen.diagnostics import Diagnostic, error
from toolgen.names import is_identifier
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary
from toolgen.text import suggestion

MAX_GROUP_NAME = 64


@check(Tool, "TG174", reads_catalogue=True)
def known_namespace(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """A tool's namespace is one catalogue.yaml declares."""
    declared = {n.name for n in catalogue.namespaces}
    if tool.namespace is not None and tool.namespace not in declared:
        listed = ", ".join(sorted(declared)) or "none"
        yield error(
            "TG174",
            f"namespace {tool.namespace!r} is not declared in catalogue.yaml",
            tool.origin.span("namespace"),
            suggestion(
                tool.namespace,
                declared,
                f"Declare it under namespaces: in catalogue.yaml (declared: {listed}).",
            ),
        )


@check(Tool, "TG175")
def deferred_in_namespace(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """A deferred tool is in a namespace: what a tool search loads is a namespace's
    deferred tools."""
    if tool.deferred and tool.namespace is None:
        yield error(
            "TG175",
            "the tool is deferred but in no namespace, so no tool search could load it",
            tool.origin.span("deferred"),
            "Put it in a namespace (namespace: <name>), or load it up front "
            "(deferred: false).",
        )


@check(Catalogue, "TG176", reads_catalogue=True)
def toolset_members(
    catalogue: Catalogue, tools: tuple[ToolSummary, ...]
) -> Iterator[Diagnostic]:
    """Every member of a toolset names a namespace or a tool of the catalogue, once. A
    tool whose file is broken is known: naming it is not reported."""
    known = {n.name for n in catalogue.namespaces}
    known |= {t.name for t in tools} | set(catalogue.broken_tools)
    for toolset in catalogue.toolsets:
        seen: set[str] = set()
        for index, member in enumerate(toolset.members):
            span = toolset.origin.span("tools", index)
            if member in seen:
                yield error(
                    "TG176",
                    f"toolset {toolset.name!r} lists {member!r} twice",
                    span,
                    "Remove the repeat.",
                )
            elif member not in known:
                yield error(
                    "TG176",
                    f"toolset {toolset.name!r} lists {member!r}, which is neither a "
                    "namespace nor a tool of the catalogue",
                    span,
                    suggestion(member, known, "Name a namespace or a tool."),
                )
            seen.add(member)


@check(Catalogue, "TG177", "TG178", reads_catalogue=True)
def group_names(
    catalogue: Catalogue, tools: tuple[ToolSummary, ...]
) -> Iterator[Diagnostic]:
    """Namespace and toolset names are Python identifiers of at most 64 characters; none
    is the name of a tool, and no toolset has the name of a namespace, so what a toolset
    member names is never in doubt (and the SDK reserves a namespace named like its
    tool)."""
    tool_names = {t.name for t in tools} | set(catalogue.broken_tools)
    namespaces = {n.name for n in catalogue.namespaces}
    groups = [
        *(("namespace", n.name, n.origin) for n in catalogue.namespaces),
        *(("toolset", t.name, t.origin) for t in catalogue.toolsets if not t.implicit),
    ]
    for kind, name, origin in groups:
        if not is_identifier(name) or len(name) > MAX_GROUP_NAME:
            yield error(
                "TG177",
                f"{kind} name {name!r} is not a Python identifier of at most "
                f"{MAX_GROUP_NAME} characters",
                origin.key_span,
                "Use snake_case letters, digits and '_', such as orders.",
            )
        elif name in tool_names or (kind == "toolset" and name in namespaces):
            other = "tool" if name in tool_names else "namespace"
            yield error(
                "TG178",
                f"{kind} {name!r} has the name of a {other}",
                origin.key_span,
                f"Rename the {kind}: a toolset member must name one thing.",
            )
