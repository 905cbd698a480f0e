"""Human approval of a tool call, through the SDK's `needs_approval` (docs/writes.md).

A tool with `confirmation: approval` interrupts the run before it acts: `result.interruptions`
lists the pending calls, a person approves or rejects each through the `RunState`
(`state.approve(item)`, `reject(state, item)`), and `Runner.run(agent, state)` resumes, also
after `state.to_string()` and `RunState.from_string` in another process.

Validate first: the policy (`ValidFirst`) parses the call's arguments with the tool's own
validator, and only a valid call asks the person. Invalid arguments run straight through to
the tool, which answers with the invalid-arguments envelope: a person is never asked to
approve a call that cannot run.

A rejection reaches the model as an envelope that says nothing was done (`rejection_message`):
pass it to `state.reject`, use `reject(state, item)`, or give the run
`RunConfig(tool_error_formatter=approval_error_formatter)`, which says it for every rejection
that brings no message of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agents.items import ToolApprovalItem
from agents.run_config import ToolErrorFormatterArgs
from agents.run_context import RunContextWrapper
from agents.run_state import RunState

from toolgen_runtime.envelope import dumps

__all__ = [
    "NOT_APPROVED",
    "ValidFirst",
    "approval_error_formatter",
    "reject",
    "rejection_message",
]

NOT_APPROVED = "not_approved"


def rejection_message(tool: str, reason: str | None = None) -> str:
    """What the model receives for a rejected call of `tool`: nothing was done, and what to
    do instead. `reason` (the person's words) is passed on when given."""
    envelope: dict[str, object] = {
        "ok": False,
        "error": NOT_APPROVED,
        "how_to_fix": (
            f"Nothing was done: the person reviewing this {tool} call declined it. Tell the "
            "user it was not done; do not call it again unless the user asks for it anew."
        ),
        "retryable": False,
    }
    if reason:
        envelope["reason"] = reason
    return dumps(envelope)


def reject(
    state: RunState[Any, Any], item: ToolApprovalItem, reason: str | None = None
) -> None:
    """Reject a pending call, telling the model that nothing was done."""
    state.reject(
        item, rejection_message=rejection_message(item.tool_name or "tool", reason)
    )


def approval_error_formatter(args: ToolErrorFormatterArgs) -> str | None:
    """`RunConfig(tool_error_formatter=...)`: a rejection without a message of its own gets
    ours; every other error keeps the SDK's text."""
    if args.kind == "approval_rejected":
        return rejection_message(args.tool_name)
    return None


class ValidFirst:
    """`needs_approval` of a tool: ask the person only when the arguments are valid."""

    __slots__ = ("_is_valid",)

    def __init__(self, is_valid: Callable[[str, object], bool]) -> None:
        self._is_valid = is_valid

    async def __call__(
        self, run_context: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        return self._is_valid(json.dumps(params), getattr(run_context, "context", None))
