"""Diff rules of where a tool is grouped (issue 36): its toolsets, its namespace, its deferral.

A tool's toolsets are declared in catalogue.yaml, not in its file, so `group_pair` reads them
from both catalogue snapshots (declared toolsets only: with none declared, every tool is in
the implicit `all`, which no agent names). Each rule sees one `GroupPair`, for a tool present
in both versions (a removed or renamed tool is reported by TD101 and TD102).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from toolgen.review.elements import Json, ToolPair
from toolgen.review.registry import Found, Group, Level, diff_rules


@dataclass(frozen=True, slots=True)
class GroupPair:
    """Where `tool` is grouped, old and new: the declared toolsets holding it, its
    namespace (None: in none) and whether it is deferred."""

    tool: str
    old_toolsets: tuple[str, ...]
    new_toolsets: tuple[str, ...]
    old_namespace: str | None
    new_namespace: str | None
    old_deferred: bool
    new_deferred: bool


def _toolsets(shot: Json, tool: str) -> tuple[str, ...]:
    return tuple(
        name
        for name, toolset in sorted((shot.get("toolsets") or {}).items())
        if toolset.get("members") and tool in toolset.get("tools", ())
    )


def group_pair(pair: ToolPair, old: Json, new: Json) -> Iterator[GroupPair]:
    """The grouping of `pair`'s tool in the `old` and `new` catalogue snapshots."""
    both = pair.both
    if both is None:
        return
    before, after = both
    yield GroupPair(
        pair.name,
        _toolsets(old, pair.renamed_from or pair.name),
        _toolsets(new, pair.name),
        before.get("namespace"),
        after.get("namespace"),
        bool(before.get("deferred")),
        bool(after.get("deferred")),
    )


group_rule = diff_rules(GroupPair, Group.TOOLS)


@group_rule("TD107", "tool-left-toolset", Level.BREAKING)
def tool_left_toolset(pair: GroupPair) -> Iterator[Found]:
    """A tool is no longer in a toolset that held it.

    ## Why breaking
    The agents built from that toolset (`toolset("support")`, an export or an MCP server of
    it) no longer have the tool: their prompts, saved runs and evaluations that call it fail.

    ## Example
    `toolsets: {support: {tools: [orders, read_stock]}}` becomes `tools: [orders]`.
    """
    for name in pair.old_toolsets:
        if name not in pair.new_toolsets:
            yield Found(
                f"tool {pair.tool!r} is no longer in toolset {name!r}: the agents given "
                "that toolset lose it",
                ("name",),
            )


@group_rule("TD108", "tool-left-namespace", Level.BREAKING)
def tool_left_namespace(pair: GroupPair) -> Iterator[Found]:
    """A tool moved out of its namespace.

    ## Why breaking
    A namespace is what a toolset names and what a search shows: the toolsets that hold the
    namespace lose the tool, and the model looks for it under the old namespace's
    description.

    ## Example
    `namespace: orders` becomes `namespace: returns`, or is removed.
    """
    old, new = pair.old_namespace, pair.new_namespace
    if old is not None and new != old:
        into = f" into {new!r}" if new is not None else ""
        yield Found(
            f"tool {pair.tool!r} moved out of namespace {old!r}{into}", ("namespace",)
        )


@group_rule("TD109", "tool-made-deferred", Level.BREAKING)
def tool_made_deferred(pair: GroupPair) -> Iterator[Found]:
    """A tool loaded up front became deferred.

    ## Why breaking
    The model no longer sees the tool until a search loads it: a prompt, a `requires` or an
    evaluation that expects it on the first turn finds it missing.

    ## Example
    `deferred: true` added to the tool, or to its namespace.
    """
    if pair.new_deferred and not pair.old_deferred:
        yield Found(
            f"tool {pair.tool!r} is now deferred: the model sees it only once a search "
            "loads it",
            ("deferred",),
        )
