"""Human approval of a tool call, through the SDK's `needs_approval` (docs/writes.md).

A tool with `confirmation: approval` interrupts the run before it acts: `result.interruptions`
lists the pending calls, a person approves or rejects each through the `RunState`
(`state.approve(item)`, `reject(state, item)`), and `Runner.run(agent, state)` resumes, also
after `state.to_string()` and `RunState.from_string` in another process.

Validate first, on the text the tool will run on (`ValidFirst`). The SDK asks the policy
(`needs_approval`) with its own parse of the arguments (`json.loads`: the last of two equal keys
wins, the text's length is lost), so the policy alone cannot see every call that cannot run.
The tool's input guardrail (`ValidFirst.guardrail`) can: it reads the call's exact argument
text (`ToolContext.tool_arguments`, what `on_invoke_tool` receives) and checks it with the
tool's own validator, answering an invalid call with the tool's invalid-arguments envelope.
With `RunConfig(tool_execution=ToolExecutionConfig(pre_approval_tool_input_guardrails=True))`
the SDK runs it before it interrupts the run, so a person is never asked to approve a call that
cannot run; without it, it runs after the approval, and only what the policy sees is caught
before (docs/writes.md).

The policy skips the person only for a call that cannot run whatever its text: a rejection that
depends on how the values are written (the text's length) still asks.

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
from agents.tool_guardrails import (
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)

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


# What the tool answers for an argument text and a run context: its invalid-arguments
# envelope, or None when the text passes its checks.
Check = Callable[[str, object], "str | None"]
# Whether the SDK's parse of the arguments may be a call that runs (see ValidFirst).
MayRun = Callable[[str, object], bool]


class ValidFirst:
    """`needs_approval` of a tool (the policy) and its input guardrail (`guardrail`): a
    person is asked only about a call whose arguments pass the tool's own checks."""

    __slots__ = ("_check", "_may_run", "guardrail")

    def __init__(self, may_run: MayRun, check: Check) -> None:
        self._may_run = may_run
        self._check = check
        self.guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._check_text, name="toolgen_valid_first"
        )

    async def __call__(
        self, run_context: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        # compact: the shortest usual spelling of these values (a longer one is not asked
        # about less: the length is never a reason to skip the person)
        text = json.dumps(params, ensure_ascii=False, separators=(",", ":"))
        return self._may_run(text, getattr(run_context, "context", None))

    def _check_text(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        tool_context = data.context
        answer = self._check(tool_context.tool_arguments, tool_context.context)
        if answer is None:
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(answer)
