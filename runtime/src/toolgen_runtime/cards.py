"""Cards: what the model sees of a tool (its name, description and schema), apart from the code.

A generated package keeps every card of its catalogue in one module (`_cards.py`), as literals.
`lazy_tool` makes an SDK tool from a card alone: an agent can hold every tool of a catalogue for
the cost of reading the cards, and a tool's module (its classes, its validator, its
implementation) is imported on its first call. What the model sees is the same either way, since
the tool's module reads its name, description and schema from the same card.

A card also says the tool's namespace and whether it is deferred (what `toolsets` groups and
defers), its timeout, and the schema of its answer: `lazy_tool(..., responses=True)` passes the
last two Responses-only features (`defer_loading`, `output_json_schema`) to the SDK, which
refuses them with any other model.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from agents import FunctionTool, RunContextWrapper
from agents.tool_context import ToolContext
from agents.tool_guardrails import (
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)

__all__ = ["Card", "lazy_tool", "require_services", "timeout_options"]


@dataclass(frozen=True, slots=True)
class Card:
    name: str
    description: str
    parameters: dict[str, Any] = field(hash=False)
    # writes (issue 9): a person approves each valid call; the tool needs a store (a key or
    # a token), a signing secret (a token) and the cursor signer (pagination), which
    # `require_services` checks
    approval: bool = False
    needs_store: bool = False
    needs_secret: bool = False
    needs_cursor_signer: bool = False
    # issue 36: where it is grouped, whether it loads only when searched for, how long a
    # call may take (and what the model is told then), and the JSON of its answer
    namespace: str | None = None
    deferred: bool = False
    timeout_s: float | None = None
    timeout_fix: str = ""
    output_schema: dict[str, Any] | None = field(default=None, hash=False)


class TimedOut:
    """`timeout_error_function` of a tool with a timeout: toolgen's envelope, retryable,
    with what the contract tells the model to do."""

    __slots__ = ("text",)

    def __init__(self, how_to_fix: str) -> None:
        self.text = json.dumps(
            {
                "ok": False,
                "error": "timeout",
                "how_to_fix": how_to_fix,
                "retryable": True,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    def __call__(self, ctx: RunContextWrapper[Any], error: Exception) -> str:
        return self.text


def timeout_options(card: Card) -> dict[str, Any]:
    """The FunctionTool keywords of a card's timeout (none without one). When the time is
    up the SDK stops waiting and answers the model; an implementation running in a worker
    thread is not stopped, so its effect may still happen (docs/runtime.md, Timeouts)."""
    if card.timeout_s is None:
        return {}
    return {
        "timeout_seconds": card.timeout_s,
        "timeout_error_function": TimedOut(card.timeout_fix),
    }


class _FirstApproval:
    """`needs_approval` of a lazy tool: the policy of the module's own tool (validate first),
    imported on the first call that asks."""

    __slots__ = ("_policy", "module")

    def __init__(self, module: str) -> None:
        self.module = module
        self._policy: Callable[..., Awaitable[bool]] | None = None

    async def __call__(
        self, run_context: Any, params: dict[str, Any], call_id: str
    ) -> bool:
        policy = self._policy
        if policy is None:
            tool: FunctionTool = importlib.import_module(self.module).TOOL
            assert callable(tool.needs_approval), f"{self.module} asks for no approval"
            policy = self._policy = tool.needs_approval
        return await policy(run_context, params, call_id)


class _FirstGuardrail:
    """The input guardrails of a lazy tool: those of the module's own tool (validate the
    exact argument text before approval), imported on the first call that runs them."""

    __slots__ = ("module",)

    def __init__(self, module: str) -> None:
        self.module = module

    async def __call__(
        self, data: ToolInputGuardrailData
    ) -> ToolGuardrailFunctionOutput:
        tool: FunctionTool = importlib.import_module(self.module).TOOL
        for guardrail in tool.tool_input_guardrails or ():
            checked = await guardrail.run(data)
            if checked.behavior["type"] != "allow":
                return checked
        return ToolGuardrailFunctionOutput.allow()


def require_services(cards: Iterable[Card]) -> None:
    """Raise now when a tool of `cards` needs a store (TOOLGEN_STORE_URL), a signing secret
    (TOOLGEN_SECRET) or a cursor signer that the process does not configure:
    `StoreNotConfigured`, `MissingSecret` or `BoundariesMissing`, saying what to set. What an
    application calls at start-up (a generated package's `check_services()`); without it,
    such a tool raises at its first call."""
    for card in cards:
        if card.needs_store:
            from toolgen_runtime.store import default_store

            default_store()
        if card.needs_secret:
            from toolgen_runtime.signing import secret_from_environment

            secret_from_environment()
        if card.needs_cursor_signer:
            from toolgen_runtime.guards import configured_boundaries

            configured_boundaries().signer()


class _FirstCall:
    """`on_invoke_tool` of a lazy tool: imports the tool's module on the first call, then
    hands every call to the module's own tool."""

    __slots__ = ("_invoke", "module")

    def __init__(self, module: str) -> None:
        self.module = module
        self._invoke: Callable[[ToolContext[Any], str], Awaitable[Any]] | None = None

    async def __call__(self, ctx: ToolContext[Any], raw_json: str) -> Any:
        invoke = self._invoke
        if invoke is None:
            tool: FunctionTool = importlib.import_module(self.module).TOOL
            invoke = self._invoke = tool.on_invoke_tool
        return await invoke(ctx, raw_json)


def lazy_tool(
    card: Card, module: str, *, responses: bool = False, **options: Any
) -> FunctionTool:
    """The SDK tool of a card; `module` is the dotted name of the tool's generated module,
    imported on the first call. `options` go to FunctionTool (such as `needs_approval`);
    with `responses`, the card's deferral and answer schema too (OpenAI Responses only).

    Making the tool needs no configuration: one that needs a store or a secret resolves
    them at its first call (`require_services` checks them at start-up); one a person approves
    asks them, validate first."""
    options = {**timeout_options(card), **options}
    if responses:
        options.setdefault("defer_loading", card.deferred)
        options.setdefault("output_json_schema", card.output_schema)
    if card.approval and "needs_approval" not in options:
        options["needs_approval"] = _FirstApproval(module)
        options.setdefault(
            "tool_input_guardrails",
            [
                ToolInputGuardrail(
                    guardrail_function=_FirstGuardrail(module),
                    name="toolgen_valid_first",
                )
            ],
        )
    return FunctionTool(
        name=card.name,
        description=card.description,
        params_json_schema=card.parameters,
        on_invoke_tool=_FirstCall(module),
        strict_json_schema=True,
        **options,
    )
