"""The token pair of a fuzz: a confirm call carries a token its prepare tool issues for the
same arguments just before the call (`with_token`), and the answers of both tools are judged
(`prepared`, `token_refused`)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import TYPE_CHECKING

from agents.tool_context import ToolContext
from pydantic import BaseModel

from toolgen_runtime.confirm import TOKEN_INVALID, Accepted, token_errors
from toolgen_runtime.fuzz.contract import read_arguments
from toolgen_runtime.fuzz.model import PLACEHOLDER
from toolgen_runtime.fuzz.texts import Case
from toolgen_runtime.writes import TOKEN_PARAM, wire_arguments

if TYPE_CHECKING:
    from toolgen_runtime.fuzz.judge import Answer, Judge

__all__ = ["prepared", "token_refused", "with_token"]


def prepared(judge: Judge, judged: Answer) -> None:
    """A prepare tool's success: runs nothing, answers a token its confirm tool takes
    for these arguments and this caller, a summary and how long the token lasts."""
    case, output, answer = judged.case, judged.output, judged.text
    confirmation = judge.model.confirmation
    assert confirmation is not None
    if judged.fake.calls:
        raise judge.fail(case, "a prepare tool ran an implementation", answer)
    if set(output) != {"ok", "token", "summary", "expires_in_s"}:
        raise judge.fail(
            case,
            "a prepare tool answers exactly ok, token, summary, expires_in_s",
            answer,
        )
    if (
        output["expires_in_s"] != confirmation.ttl_s
        or type(output["expires_in_s"]) is not int
    ):
        raise judge.fail(
            case, f"expires_in_s must be the token's {confirmation.ttl_s} s", answer
        )
    summary = output["summary"]
    if not isinstance(summary, str) or confirmation.confirm_tool not in summary:
        raise judge.fail(
            case,
            f"the summary must say what {confirmation.confirm_tool} will do",
            answer,
        )
    if not judge.reads_as_allowed(judged):
        raise judge.fail(case, "accepted arguments the contract does not allow", answer)
    gate = judge.invoker.gate
    assert gate is not None
    boundaries = judge.model.boundaries
    args = judge.parse(case.raw, boundaries.for_call() if boundaries else None)
    assert isinstance(args, BaseModel), args
    ctx = ToolContext(
        context=judge.context,
        tool_name=judge.tool_name,
        tool_call_id="fuzz",
        tool_arguments=case.raw,
    )
    checked = gate.check(
        output["token"],
        wire_arguments(args, without=frozenset({TOKEN_PARAM})),
        judge.invoker.identity(ctx),
    )
    if not isinstance(checked, Accepted):
        raise judge.fail(
            case,
            f"the token is not one {confirmation.confirm_tool} takes for these "
            f"arguments ({checked.code})",
            answer,
        )
    judge.report.accepted += 1


def token_refused(judge: Judge, judged: Answer, token: bool | None) -> None:
    """A confirm tool's refusal of a token: never of one its prepare tool issued for
    these arguments; for any other, only before anything ran, only for arguments the
    contract allows, with the envelope of token_invalid."""
    case, answer = judged.case, judged.text
    confirmation = judge.model.confirmation
    assert confirmation is not None
    if token:
        raise judge.fail(
            case,
            f"refused a token {confirmation.prepare_tool} issued for these arguments",
            answer,
        )
    if judged.fake.calls:
        raise judge.fail(case, "the implementation ran for a refused token", answer)
    if not judge.reads_as_allowed(judged):
        raise judge.fail(
            case,
            "refused the token of arguments the contract does not allow, instead of "
            "naming the field",
            answer,
        )
    expected = token_errors(
        confirmation.confirm_tool, confirmation.prepare_tool, confirmation.ttl_s
    )[TOKEN_INVALID]
    envelope = {
        "ok": False,
        "error": TOKEN_INVALID,
        "how_to_fix": expected.how_to_fix,
        "retryable": expected.retryable,
    }
    if judged.output != envelope:
        raise judge.fail(
            case,
            f"a made-up token must get token_invalid's envelope {envelope!r}",
            answer,
        )
    judge.report.refused_token += 1


def with_token(
    judge: Judge,
    case: Case,
    *,
    tool_name: str,
    context: object,
    loop: asyncio.AbstractEventLoop,
) -> tuple[Case, bool | None]:
    """For a confirm tool, the case with its token placeholder replaced by a token the
    prepare tool issues now for the same arguments, and whether it was (None for any
    other tool): a token is used once, so each call gets its own."""
    model = judge.model
    if not model.confirms:
        return case, None
    prepare = model.prepare_tool
    assert prepare is not None
    reading = read_arguments(case.raw)
    value, quoted = reading.value, json.dumps(PLACEHOLDER)
    if not (
        reading.parsed
        and isinstance(value, dict)
        and value.get(TOKEN_PARAM) == PLACEHOLDER
        and case.raw.count(quoted) == 1
    ):
        return case, False
    text = json.dumps({k: v for k, v in value.items() if k != TOKEN_PARAM})
    ctx = ToolContext(
        context=context,
        tool_name=prepare.name,
        tool_call_id="fuzz-prepare",
        tool_arguments=text,
    )
    answer = loop.run_until_complete(prepare.on_invoke_tool(ctx, text))
    prepared = json.loads(answer)
    token = prepared.get("token") if prepared.get("ok") is True else None
    if not isinstance(token, str):
        if judge.contract.allows(value):
            raise judge.fail(
                case,
                f"{prepare.name} did not issue a token for arguments "
                f"{tool_name}'s contract allows",
                answer,
            )
        return case, False
    return dataclasses.replace(
        case, raw=case.raw.replace(quoted, json.dumps(token))
    ), True
