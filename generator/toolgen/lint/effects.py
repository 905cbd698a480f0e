"""Rules on effects: what a call does to the world, and the protections a write needs.

A write is protected by idempotency (natural, or by key) or by a confirmation token, which is
single use: a repeat of a confirmed call with the same token does not act again (token_used).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolgen.diagnostics import Severity
from toolgen.lint import words
from toolgen.lint.context import LintContext
from toolgen.lint.registry import LESSON, Finding, rule
from toolgen.spec.ir import Tool


def _segments(name: str) -> list[str]:
    """The words of a name as its author separated them: a CamelCase run inside a snake_case
    name (get_OpenWeatherMap_forecast) is one proper noun, and the leading word of a
    camelCase name (sendReminder) is its verb."""
    return [
        words.name_words(segment)[0]
        if index == 0 and segment[:1].islower()
        else segment.lower()
        for index, segment in enumerate(re.split(r"[^A-Za-z0-9]+", name))
        if segment
    ]


@rule(
    id="TG701",
    severity=Severity.ERROR,
    fix="Declare idempotency: natural when the implementation makes a repeat harmless, or "
    "a key (idempotency: {key: [order_ref], context: [run_id]}) so the runtime runs each "
    "operation once.",
    source=f"{LESSON}, 'The traps you really fall into': non-idempotent tools without a "
    "deduplication key; the model can repeat a call",
)
def write_without_idempotency(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A write or destructive tool without idempotency.

    ## What it does
    Reports a tool with `effect: write` or `destructive` whose `idempotency` is `none` (the
    default), unless it is confirmed by token (a token is single use).

    ## Why is this bad?
    The model repeats calls: because the result was unclear, because of a retry. If the tool
    sends an order, the order goes out twice. The defence is in the code (the same arguments
    give the same outcome), declared in the contract so reviewers see it and the description
    tells the model that repeating a call is safe.

    ## Example
    ```yaml
    name: create_reorder
    effect: write
    ```

    ## Use instead
    ```yaml
    name: create_reorder
    effect: write
    idempotency: natural
    ```
    or, when the runtime must keep the promise, a key:
    ```yaml
    name: send_order
    effect: write
    idempotency: {key: [order_ref], context: [run_id]}
    ```
    """
    once = tool.confirmation == "token"  # a confirmed tool acts at most once per token
    if tool.effect != "read" and tool.idempotency.kind == "none" and not once:
        yield Finding(
            f"tool {tool.name!r} has effect {tool.effect} and no idempotency; expected a "
            "repeated call to be harmless",
            span=tool.origin.span("effect"),
        )


@rule(
    id="TG702",
    severity=Severity.ERROR,
    fix="Declare confirmation: approval (a person approves each call) or confirmation: "
    "token (a prepare/confirm pair of tools).",
    source=f"{LESSON}: for truly expensive operations idempotency is not enough, you need a "
    "human confirmation; MCP destructiveHint",
)
def destructive_without_confirmation(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A destructive tool without confirmation.

    ## What it does
    Reports a tool with `effect: destructive` and `confirmation: none`.

    ## Why is this bad?
    The model decides to act with the same lightness as it fills any field. An effect that
    cannot be undone needs a person's yes, enforced by the protocol (a token only the
    preparing tool can produce, or the SDK's approval), not an invitation in the prompt.

    ## Example
    ```yaml
    name: cancel_order
    effect: destructive
    ```

    ## Use instead
    ```yaml
    name: cancel_order
    effect: destructive
    confirmation: approval
    ```
    """
    if tool.effect == "destructive" and tool.confirmation == "none":
        yield Finding(
            f"tool {tool.name!r} is destructive and has no confirmation; expected a person to "
            "approve the call",
            span=tool.origin.span("effect"),
        )


@rule(
    id="TG703",
    severity=Severity.ERROR,
    fix="Declare the real effect (write or destructive), or rename the tool for what it "
    "reads.",
    source="MCP specification: readOnlyHint and destructiveHint; a name is a promise",
)
def read_tool_with_write_name(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A read tool whose name says it changes something.

    ## What it does
    Reports a tool with `effect: read` whose name starts with a write verb or contains
    delete, remove, send, pay, transfer or revoke as a word of its own. A word inside a
    proper noun (`OpenWeatherMap`, `SendGrid`) is not a verb, and neither is a verb whose
    effect depends on its object (`open`, `issue`, `record`, `check`), nor the object after
    a resource's verb (`contacts_get_import` gets an import).

    ## Why is this bad?
    Either the effect is wrong, and the tool gets no idempotency check, no confirmation and a
    readOnlyHint that lets clients run it without asking; or the name is wrong, and the model
    avoids a harmless tool or calls it to do something it does not do.

    ## Example
    ```yaml
    name: send_reminder
    effect: read
    ```

    ## Use instead
    ```yaml
    name: send_reminder
    effect: write
    idempotency: natural
    ```
    """
    if tool.effect != "read":
        return
    prof = ctx.profile_of(tool)
    says = [w for w in _segments(tool.name) if w in words.STRONG_WRITE_VERBS]
    if (
        prof.verb_class in words.WRITE_CLASSES
        and prof.verb not in words.AMBIGUOUS_VERBS
    ):
        says = [prof.verb, *says]
    if says:
        yield Finding(
            f"tool {tool.name!r} is effect: read but its name says {says[0]!r}; expected "
            "effect: write or destructive, or a name that says what it reads"
        )


@rule(
    id="TG704",
    severity=Severity.WARNING,
    fix="Remove the confirmation, or declare the effect the confirmation protects against.",
    source="OpenAI Agents SDK needs_approval; approval fatigue: a person asked for every read "
    "stops reading",
)
def read_tool_with_confirmation(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A read tool that asks for confirmation.

    ## What it does
    Reports a tool with `effect: read` whose `confirmation` is not `none`.

    ## Why is this bad?
    A person asked to approve harmless reads learns to approve everything, including the one
    write that mattered; and a read that needs approval probably is not a read.

    ## Example
    ```yaml
    name: read_stock
    effect: read
    confirmation: approval
    ```

    ## Use instead
    ```yaml
    name: read_stock
    effect: read
    ```
    """
    declared = tool.confirmation
    if tool.effect == "read" and declared != "none":
        yield Finding(
            f"tool {tool.name!r} is effect: read and asks for confirmation ({declared}); "
            "expected confirmation: none for a read",
            span=tool.origin.span("confirmation"),
        )


@rule(
    id="TG705",
    severity=Severity.WARNING,
    fix="Declare effect: destructive.",
    source="MCP specification: destructiveHint; Smithy @idempotent/@readonly traits",
)
def effect_understated(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A write tool whose name says it destroys.

    ## What it does
    Reports a tool with `effect: write` whose verb says the change cannot be undone
    (`delete`, `remove`, `purge`, `revoke`, `wipe`, ...).

    ## Why is this bad?
    `destructive` is what makes clients ask before calling and what the confirmation rules
    check; understating it skips both.

    ## Example
    ```yaml
    name: delete_draft
    effect: write
    ```

    ## Use instead
    ```yaml
    name: delete_draft
    effect: destructive
    ```
    """
    verb = ctx.profile_of(tool).verb
    if tool.effect == "write" and verb in words.DESTRUCTIVE_VERBS:
        yield Finding(
            f"tool {tool.name!r} is effect: write but {verb!r} cannot be undone; expected "
            "effect: destructive",
            span=tool.origin.span("effect"),
        )


@rule(
    id="TG706",
    severity=Severity.WARNING,
    fix="Rename the tool with the verb of what it changes (create_, update_, send_, ...).",
    source="MCP specification: readOnlyHint; a name is a promise",
)
def write_tool_with_read_name(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """A write tool named like a read.

    ## What it does
    Reports a tool with `effect: write` or `destructive` whose name starts with a read verb
    (`get_`, `read_`, `list_`, `find_`, `check_`, ...).

    ## Why is this bad?
    The model calls reads freely, to look around; a `get_token` that issues a token or a
    `check_in` that books a seat changes the world each time it is "just looked at".

    ## Example
    ```yaml
    name: get_discount_code
    effect: write
    ```

    ## Use instead
    ```yaml
    name: create_discount_code
    effect: write
    ```
    """
    prof = ctx.profile_of(tool)
    if (
        tool.effect != "read"
        and prof.verb_class == "lookup"
        and prof.verb not in words.AMBIGUOUS_VERBS
    ):
        yield Finding(
            f"tool {tool.name!r} changes data (effect: {tool.effect}) but its name starts "
            f"with {prof.verb!r}; expected a verb that says what it changes",
        )
