"""Writes: an idempotency key names what exists and something the model does not choose; a
token contract can become its two tools (issue 9)."""

from __future__ import annotations

from collections.abc import Iterator

from toolgen.checks import check
from toolgen.diagnostics import Diagnostic, error
from toolgen.spec.ir import CONFIRM_PREFIX, TOKEN_PARAM, Catalogue, Tool, prepare_name
from toolgen.text import listing

MIN_RETENTION_S = 60
MAX_RETENTION_S = 366 * 86400


def _names(names: list[str]) -> str:
    return listing(names) if names else "none"


@check(Tool, "TG143", "TG144", "TG145", "TG147")
def idempotency_key(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """An idempotency key names parameters of the tool and context fields the tool lists,
    each once; it has at least one context field, so the model alone never chooses the key
    (two runs or two users sending the same arguments would otherwise share one outcome);
    its retention is between a minute and a year; and the tool has an effect to protect."""
    declared = tool.idempotency
    if declared.kind != "key" or declared.origin is None:
        return
    at = declared.origin
    if tool.effect == "read":
        yield error(
            "TG147",
            f"tool {tool.name!r} is effect: read and has idempotency by key",
            at.span(key=True),
            "Remove the key: a read has no effect to run once. Or declare the effect "
            "(write, destructive) it protects.",
        )
    params = [p.name for p in tool.params]
    for where, names, known, what in (
        ("key", declared.arguments, params, "parameter"),
        ("context", declared.context, list(tool.context_names), "context field"),
    ):
        seen: set[str] = set()
        for index, name in enumerate(names):
            if name in seen:
                yield error(
                    "TG143",
                    f"idempotency {where} names {name!r} twice",
                    at.span(where, index),
                    "Name it once.",
                )
            elif name not in known:
                yield error(
                    "TG143",
                    f"idempotency {where} names {name!r}, which is not a {what} of "
                    f"{tool.name!r}",
                    at.span(where, index),
                    f"Name one of its {what}s: {_names(known)}."
                    + (
                        f" List {name!r} under the tool's context first."
                        if where == "context"
                        else ""
                    ),
                )
            seen.add(name)
    if not declared.context:
        fields = [f.name for f in catalogue.context]
        yield error(
            "TG144",
            f"the idempotency key of {tool.name!r} has no context field, so the model "
            "alone chooses it: two runs or two users sending the same "
            f"{_names(list(declared.arguments))} would share one outcome",
            at.span("context") if at.has("context") else at.span(key=True),
            "Add a context field the application sets, such as the run id: "
            f"context: [{fields[-1] if fields else 'run_id'}] (the catalogue declares "
            f"{_names(fields)}).",
        )
    seconds = declared.retention_s
    if seconds is not None and not MIN_RETENTION_S <= seconds <= MAX_RETENTION_S:
        yield error(
            "TG145",
            f"retention of {seconds:,} seconds is "
            + ("under a minute" if seconds < MIN_RETENTION_S else "over a year"),
            at.span("retention"),
            "Choose a retention that covers a run and its retries, such as 24h or 7d.",
        )


@check(Tool, "TG146")
def token_contract(tool: Tool, catalogue: Catalogue) -> Iterator[Diagnostic]:
    """A `confirmation: token` contract is named confirm_<x> (its prepare tool is
    prepare_<x>), acts (effect write or destructive), leaves the parameter name `token`
    to the prepare tool's token, and lists a context field to bind the token to an
    identity."""
    if tool.confirmation != "token":
        return
    at = tool.origin
    if not tool.name.startswith(CONFIRM_PREFIX) or tool.name == CONFIRM_PREFIX:
        stem = tool.name.split("_", 1)[-1] or "order"
        yield error(
            "TG146",
            f"tool {tool.name!r} has confirmation: token, but its name does not start "
            f"with {CONFIRM_PREFIX!r}",
            at.span("name"),
            f"Name it confirm_{stem}: toolgen makes prepare_{stem} from the same contract, "
            "and the model sees the pair.",
        )
    if tool.effect == "read":
        yield error(
            "TG146",
            f"tool {tool.name!r} is effect: read and has confirmation: token",
            at.span("confirmation"),
            "Declare the effect the token protects (write or destructive), or remove the "
            "confirmation.",
        )
    for param in tool.params:
        if param.name == TOKEN_PARAM:
            yield error(
                "TG146",
                f"parameter {TOKEN_PARAM!r} of {tool.name!r} would clash with the token "
                f"{prepare_name(tool.name)} returns",
                param.origin.span(key=True),
                "Rename the parameter: the confirm tool's token parameter is added by "
                "toolgen.",
            )
    if not tool.context:
        fields = [f.name for f in catalogue.context]
        yield error(
            "TG146",
            f"tool {tool.name!r} has confirmation: token but no context field to bind the "
            "token to, so anyone's token would work in any session",
            at.span("confirmation"),
            "List the context fields that identify the user or session, such as "
            f"context: [{fields[0] if fields else 'customer_id'}].",
        )
