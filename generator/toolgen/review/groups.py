"""What the review page shows of namespaces, toolsets and tool search (issue 36), as data.

`groups_model(catalogue)`: each namespace (its description, deferral and tools), each
toolset's tokens loaded up front per turn and left to search (`toolgen.lint.toolsets`, the
count lint holds a toolset's budget to), and, per tool, the asks the catalogue's search sends
to another tool (the same search lint's TG964 runs); `tool_groups`, one tool card's share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgen.lint.context import CatalogueContext
from toolgen.lint.toolsets import toolset_tokens
from toolgen.spec.ir import Catalogue


def groups_model(catalogue: Catalogue) -> dict[str, Any]:
    # the tools' summaries, token counts and misrouted asks, as lint computes them
    ctx = CatalogueContext.of(catalogue)
    toolsets = {t.name: t for t in catalogue.toolsets}
    return {
        "namespaces": [
            {
                "name": n.name,
                "description": n.description,
                "deferred": n.deferred,
                "tools": [t.name for t in catalogue.tools if t.namespace == n.name],
            }
            for n in catalogue.namespaces
        ],
        "toolsets": [
            {
                "name": cost.name,
                "description": toolsets[cost.name].description,
                "tools": len(toolsets[cost.name].tools),
                "up_front": cost.up_front,
                "searchable": cost.searchable,
                "budget": cost.budget,
                "over": cost.budget is not None and cost.up_front > cost.budget,
            }
            for cost in toolset_tokens(catalogue, ctx.tools(), ctx.tool_tokens)
        ],
        "declared": any(not t.implicit for t in catalogue.toolsets),
        "misrouted": {
            name: {m.ask: m for m in found} for name, found in ctx.misrouted.items()
        },
    }


def tool_groups(
    groups: Mapping[str, Any] | None, tool: Mapping[str, Any]
) -> dict[str, Any]:
    """One tool card's grouping, from its snapshot: namespace, deferral, and its asks, each
    with the tool the search sends it to instead (None when it comes to this one)."""
    wrong = (groups or {}).get("misrouted", {}).get(tool["name"], {})
    return {
        "namespace": tool.get("namespace"),
        "deferred": bool(tool.get("deferred")),
        "asks": [
            {
                "text": ask,
                "goes_to": None if found is None else found.goes_to,
                "shared": found is not None and found.shared,
            }
            for ask in tool.get("asks", [])
            for found in [wrong.get(ask)]
        ],
    }
