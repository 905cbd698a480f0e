"""References: tools are distinct, name each other correctly, and read declared context."""

from __future__ import annotations

from collections.abc import Iterator

from toolgen.checks import check
from toolgen.diagnostics import Diagnostic, error
from toolgen.names import is_identifier
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary
from toolgen.text import suggestion


@check(Catalogue, "TG112")
def distinct_tools(
    _: Catalogue, tools: tuple[ToolSummary, ...]
) -> Iterator[Diagnostic]:
    """No two tools share a name, or a Python module. The one in the later file is
    reported."""
    first_seen: dict[str, ToolSummary] = {}
    modules: dict[str, ToolSummary] = {}
    for tool in sorted(tools, key=lambda t: t.file):
        if tool.name in first_seen:
            yield error(
                "TG112",
                f"tool name {tool.name!r} is already used by {first_seen[tool.name].file}",
                tool.name_at,
                "Every tool needs its own name.",
            )
            continue
        if tool.py.module in modules:
            yield error(
                "TG112",
                f"tools {modules[tool.py.module].name!r} and {tool.name!r} would both be "
                f"generated as module {tool.py.module!r}",
                tool.name_at,
                "Rename one of them.",
            )
            continue
        first_seen[tool.name] = tool
        modules[tool.py.module] = tool


@check(Catalogue, "TG113", "TG114")
def tool_references(
    catalogue: Catalogue, tools: tuple[ToolSummary, ...]
) -> Iterator[Diagnostic]:
    """`not_when` and `requires` name other tools of the catalogue. A tool whose file is
    broken is known: a reference to it is not reported (fixing that file is enough), and the
    suggestion for an unknown name is never the referring tool itself."""
    # one index of the names for the whole catalogue: built per tool, it made the check
    # grow with the square of the catalogue
    names = {t.name for t in tools} | set(catalogue.broken_tools)
    for tool in tools:
        if tool.derived:
            continue  # made of its contract's references, which are checked there
        for what, refs in (("not_when", tool.not_when), ("requires", tool.requires)):
            for ref in refs:
                if ref.name == tool.name:
                    yield error(
                        "TG114",
                        f"{what} names the tool itself",
                        ref.at,
                        "Name another tool, or remove it.",
                    )
                elif ref.name not in names:
                    yield error(
                        "TG113",
                        f"{what} names unknown tool {ref.name!r}",
                        ref.at,
                        suggestion(
                            ref.name,
                            names - {tool.name},
                            "Name a tool of this catalogue.",
                        ),
                    )


@check(Tool, "TG115", reads_catalogue=True)
def context_fields(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """The context fields a tool lists are declared by the catalogue, listed once, and
    never also parameters (the model could then send what only the run may set)."""
    declared = {f.name for f in catalogue.context}
    params = {p.name for p in tool.params}
    listed: set[str] = set()
    for index, name in enumerate(tool.context_names):
        span = tool.origin.span("context", index)
        if name not in declared:
            known = ", ".join(sorted(n for n in declared if is_identifier(n))) or "none"
            yield error(
                "TG115",
                f"context field {name!r} is not declared in the catalogue",
                span,
                f"Declare it under context: in catalogue.yaml (declared: {known}).",
            )
        elif not is_identifier(name):
            continue  # TG116 says so at the catalogue's declaration
        elif name in listed:
            yield error(
                "TG115",
                f"context field {name!r} is listed twice",
                span,
                "Remove the repeat.",
            )
        else:
            listed.add(name)
            if name in params:
                yield error(
                    "TG115",
                    f"parameter {name!r} is also a context field of this tool: the model "
                    "could send what only the run context may set",
                    tool.origin.span("params", name, key=True),
                    f"Remove the parameter; the implementation receives {name} from the "
                    "run context.",
                )
