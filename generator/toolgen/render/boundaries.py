"""The boundary pieces of a tool module: its pagination contract, its output contract, who
calls (the identity a cursor is bound to) and where the boundaries come from.

The runtime does the work (`toolgen_runtime.guards`, `.pagination`, `.output`); what is
computed here is the literal that configures it, from the contract. A tool without any of
them gets none of these lines, and its module stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgen.render.imports import Imports
from toolgen.render.source import py_literal, py_str
from toolgen.spec.ir import CURSOR_PARAM, PAGE_SIZE_PARAM, Tool
from toolgen.spec.snapshot import boundaries_snapshot


@dataclass(frozen=True, slots=True)
class BoundaryLines:
    """What the template writes for a tool's boundaries (empty strings: nothing)."""

    pagination: str  # `PAGINATION: Final = Pagination(...)`
    output: str  # `OUTPUT: Final = OutputContract(...)`
    # (key literal, context attribute) of `call_identity`
    identity: list[tuple[str, str]]
    invoker_options: list[str]  # extra keywords of the Invoker


def boundary_lines(tool: Tool, imports: Imports) -> BoundaryLines:
    options: list[str] = []
    pagination = output = ""
    identity: list[tuple[str, str]] = []
    page = tool.pagination
    if page is not None:
        imports.name("toolgen_runtime.pagination", "Page", "Pagination")
        settings = [
            "tool=NAME",
            f"max_page_size={page.max_page_size}",
            f"cursor_field={py_str(CURSOR_PARAM)}",
            f"size_field={py_str(PAGE_SIZE_PARAM)}",
            f"ttl_seconds={py_literal(page.ttl_s)}",
            f"noun={py_str(page.noun)}",
            f"item_type={tool.py.result_class}",
            f"total={py_str(page.total)}",
        ]
        pagination = f"PAGINATION: Final = Pagination({', '.join(settings)})"
        options.append("pagination=PAGINATION")
        by_name = {f.name: f for f in tool.context}
        identity = [
            (py_str(name), by_name[name].py_name)
            for name in page.identity
            if name in by_name
        ]
        if identity:
            options.append("identity=call_identity")
    contract = boundaries_snapshot(tool).get("output")
    if contract is not None:
        imports.name("toolgen_runtime.output", "OutputContract")
        limits, sensitive = contract["max_chars"], contract["sensitive"]
        parts = []
        if limits:
            parts.append(f"max_chars={py_literal(dict(sorted(limits.items())))}")
        if sensitive:
            parts.append(f"sensitive=frozenset({py_literal(sensitive)})")
        output = f"OUTPUT: Final = OutputContract({', '.join(parts)})"
        options.append("output=OUTPUT")
    if tool.guarded:
        imports.name("toolgen_runtime.guards", "Boundaries", "configured_boundaries")
        options.append(
            "boundaries=configured_boundaries if boundaries is None else boundaries"
        )
    return BoundaryLines(pagination, output, identity, options)
