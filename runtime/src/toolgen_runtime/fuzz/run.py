"""Running the fuzz of one tool: each case sent through `on_invoke_tool`, each answer judged.

The implementation is a recording fake (`outcomes`) that returns a result drawn from the
tool's result class (a page of them) or raises one of its declared errors, so every outcome a
tool has is reached without a database. Each call is judged on its own (`judge.Judge`); a
confirm call carries a token its prepare tool issued just before (`tokens`); a page's
next_cursor is sent back once (`_Caller.next_page`); every call is within the time bound.
"""

from __future__ import annotations

import asyncio
import dataclasses
import faulthandler
import json
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from toolgen_runtime.envelope import field_name
from toolgen_runtime.errors import DeclaredError, ToolError
from toolgen_runtime.fuzz import SEED_ENV, FuzzFailure, FuzzReport
from toolgen_runtime.fuzz.contract import Contract, read_arguments
from toolgen_runtime.fuzz.judge import Judge, cut
from toolgen_runtime.fuzz.model import ToolModel
from toolgen_runtime.fuzz.outcomes import Fake, Outcomes, PageDraw, outcomes, simplest
from toolgen_runtime.fuzz.texts import NEAR_MATCH, Case, case_strategies, sweep
from toolgen_runtime.fuzz.tokens import with_token
from toolgen_runtime.fuzz.values import at_place, values_for
from toolgen_runtime.invoke import Invoker
from toolgen_runtime.pagination import Cursor, Page

__all__ = ["run_fuzz"]


class _Caller:
    """Sends one case through the tool and has its answer judged: the fake implementation
    gives the outcome chosen for the case, and a call over the time bound fails (after a
    second try, as the machine may have been busy)."""

    def __init__(
        self,
        tool: FunctionTool,
        invoker: Invoker[Any, Any, Any],
        fake: Fake,
        judge: Judge,
        *,
        context: object,
        deadline: float,
        hang_after: float | None,
        build_tool: Callable[[Any], FunctionTool] | None = None,
    ) -> None:
        self.tool, self.invoker, self.fake, self.judge = tool, invoker, fake, judge
        self.context, self.deadline, self.hang_after = context, deadline, hang_after
        self.build_tool = build_tool  # when given, each call goes to a new tool
        self.loop = asyncio.new_event_loop()

    def call(self, raw: str) -> tuple[object, float]:
        self.fake.calls.clear()
        if self.build_tool is not None:
            self.invoker = _invoker(self.build_tool(self.fake))
        ctx = ToolContext(
            context=self.context,
            tool_name=self.tool.name,
            tool_call_id="fuzz",
            tool_arguments=raw,
        )
        if self.hang_after is not None:
            # Python's re holds the GIL while it backtracks, so no thread can interrupt a
            # pattern that never ends: faulthandler's watchdog (in C) prints where it is
            # stuck and ends the process instead of letting CI hang.
            faulthandler.dump_traceback_later(
                self.hang_after, exit=True, file=sys.stderr
            )
        started = time.perf_counter()
        try:
            answer = self.loop.run_until_complete(self.invoker(ctx, raw))
        finally:
            seconds = time.perf_counter() - started
            if self.hang_after is not None:
                faulthandler.cancel_dump_traceback_later()
        return answer, seconds

    def _attempt(self, case: Case) -> tuple[Case, bool | None, object, float]:
        """One call of `case` (a confirm tool's with a fresh token): what was sent, whether
        it carried a real token, the answer and how long it took."""
        sent, token = with_token(
            self.judge,
            case,
            tool_name=self.tool.name,
            context=self.context,
            loop=self.loop,
        )
        answer, seconds = self.call(sent.raw)
        return sent, token, answer, seconds

    def one_call(self, case: Case, outcome: object) -> None:
        judge, report, deadline = self.judge, self.judge.report, self.deadline
        self.fake.outcome = outcome
        try:
            sent, token, answer, seconds = self._attempt(case)
            if seconds > deadline:  # once more: the machine may have been busy
                sent, token, answer, seconds = self._attempt(case)
        except FuzzFailure:
            raise
        except Exception as exc:
            raise judge.fail(
                case, f"raised {type(exc).__name__}: {cut(str(exc))[1:-1]}"
            ) from exc
        case = sent
        report.calls += 1
        report.kinds[case.kind.split(":")[0]] += 1
        if seconds > report.slowest_seconds:
            report.slowest_seconds, report.slowest_case = seconds, case.kind
        if seconds > deadline:
            raise judge.fail(
                case,
                f"took {seconds:.3f} s, over the bound of {deadline} s{_slow(case)}",
            )
        judge.judge(case, answer, self.fake, token)
        if judge.model.pagination is not None and isinstance(outcome, PageDraw):
            self.next_page(case, answer, outcome)

    def next_page(self, case: Case, answer: object, outcome: PageDraw) -> None:
        """After a page with a next_cursor, the same arguments with that cursor: the tool
        must take it back, and the implementation receive where the page ended."""
        pagination, judge = self.judge.model.pagination, self.judge
        assert pagination is not None and isinstance(answer, str)
        output = json.loads(answer)
        cursor = output.get("next_cursor") if output.get("ok") is True else None
        reading = read_arguments(case.raw)
        page = self.fake.returned
        if not (
            isinstance(cursor, str)
            and reading.parsed
            and isinstance(reading.value, dict)
            and isinstance(page, Page)
            and self.fake.calls
        ):
            return
        started = getattr(self.fake.calls[0][0], pagination.cursor_field)
        before = started.shown_before if isinstance(started, Cursor) else 0
        follow = Case(
            f"{case.kind}, then its next_cursor",
            json.dumps(
                {**reading.value, pagination.cursor_field: cursor}, ensure_ascii=False
            ),
        )
        try:
            again, _ = self.call(follow.raw)
        except Exception as exc:
            raise judge.fail(
                follow, f"raised {type(exc).__name__}: {cut(str(exc))[1:-1]}"
            ) from exc
        self.judge.report.calls += 1
        self.judge.report.kinds["next page"] += 1
        reply = read_arguments(again) if isinstance(again, str) else None
        if (
            reply is None
            or not isinstance(reply.value, dict)
            or reply.value.get("ok") is not True
        ):
            raise judge.fail(
                follow,
                "refused the next_cursor it answered, with the same filters",
                again,
            )
        received = getattr(self.fake.calls[0][0], pagination.cursor_field, None)
        shown = before + len(page.items)
        if (
            not isinstance(received, Cursor)
            or received.position != page.next
            or received.shown_before != shown
        ):
            where = (
                f"{received.position} after {received.shown_before} rows"
                if isinstance(received, Cursor)
                else repr(received)
            )
            raise judge.fail(
                follow,
                f"the next_cursor leads to {where}, not where the page ended "
                f"({page.next} after {shown} rows)",
                again,
            )
        judge.judge(follow, again, self.fake)


def _slow(case: Case) -> str:
    """Why a slow case was slow, when the case says: a near-match of a pattern is slow only
    where the pattern backtracks."""
    if not case.kind.endswith(NEAR_MATCH) or case.field is None:
        return ""
    return (
        f"; the pattern of {field_name(case.field)} backtracks: on a run it almost "
        "matches, Python's re tries every way to split the run, and a longer run, which a "
        "model may send, holds the call up for years. Write the pattern so that each "
        "character can be matched one way only (^(a+)+$ as ^a+$, ^(\\w+\\s?)+$ as "
        "^\\w+(\\s\\w+)*\\s?$)"
    )


def _sweep(
    caller: _Caller,
    contract_schema: Mapping[str, Any],
    drawn: Outcomes,
    errors: Mapping[str, DeclaredError],
    context_keys: list[str],
) -> int:
    """Every mutation of every field of the simplest valid arguments (with the first value
    that passes each guard) and every probe of a guard, which reach the implementation with
    the simplest results (a long text, a page) and each declared error in turn; how many
    were sent."""
    model = caller.judge.model
    # an item in every array, so that the fields inside items are swept too
    base = simplest(values_for(contract_schema, filled=True))
    for place, values in model.good.items():
        if values:
            base = at_place(base, place, values[0])
    swept = sweep(contract_schema, base, context_keys=context_keys, probes=model.probes)
    turns = [
        *drawn.swept,
        *(ToolError(code, detail="sample") for code in sorted(errors)),
    ]
    for index, case in enumerate(swept):
        caller.one_call(case, turns[index % len(turns)])
    return len(swept)


_Round = tuple[st.SearchStrategy[Case], st.SearchStrategy[Any], int]


def _rounds(
    cases: Mapping[str, st.SearchStrategy[Case]], drawn: Outcomes
) -> list[_Round]:
    """The kinds of case, each with the outcomes it meets and its weight in the budget."""
    results, raised = drawn.results, drawn.raised
    anything = results if raised is None else results | raised
    # Each kind of case gets its share of the budget, rather than what hypothesis's choices
    # happen to give it: valid arguments with results and, apart, with declared errors; one
    # field wrong, the richest kind, twice as many; texts that are not arguments.
    rounds = [(cases["valid"], results, 1)]
    if raised is not None:
        rounds.append((cases["valid"], raised, 1))
    rounds += [(cases["mutated"], anything, 2), (cases["text"], anything, 1)]
    return rounds


def _run_round(
    caller: _Caller, round_: _Round, max_examples: int, seed: int | None
) -> None:
    """One kind of case through hypothesis, `max_examples` of them (and their shrinking)."""
    case_kind, outcome_kind, _ = round_
    test = settings(
        max_examples=max_examples,
        deadline=None,  # measured per call above, with the slow case in the failure
        database=None,
        derandomize=seed is None,
        report_multiple_bugs=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )(given(case=case_kind, outcome=outcome_kind)(caller.one_call))
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    try:
        test()
    except FuzzFailure as failure:
        again = (
            f"{SEED_ENV}={seed}"
            if seed is not None
            else "the same on every run without a seed"
        )
        failure.args = (f"{failure.args[0]}\n  reproduce: {again}",)
        raise


def _invoker(tool: FunctionTool) -> Invoker[Any, Any, Any]:
    invoker = tool.on_invoke_tool
    if not isinstance(invoker, Invoker):
        raise TypeError(
            f"{tool.name} is not a toolgen tool: its on_invoke_tool is "
            f"{type(invoker).__name__}, not toolgen_runtime.Invoker"
        )
    return invoker


def run_fuzz(
    build_tool: Callable[[Any], FunctionTool],
    contract_schema: Mapping[str, Any],
    *,
    context: object,
    errors: Mapping[str, DeclaredError],
    max_examples: int,
    deadline: float,
    hang_after: float | None,
    seed: int | None,
    build_per_call: bool = False,
    model: ToolModel | None = None,
) -> FuzzReport:
    model = model or ToolModel()
    fake = Fake(model.pagination)
    tool = build_tool(fake)
    invoker = _invoker(tool)
    contract = Contract(contract_schema)
    report = FuzzReport(tool=tool.name)
    judge = Judge(invoker, contract, errors, report, model, context)
    context_keys = (
        [f.name for f in dataclasses.fields(context)]
        if dataclasses.is_dataclass(context)
        else []
    )
    cases = case_strategies(
        contract_schema, context_keys=context_keys, good=model.good, probes=model.probes
    )
    drawn = outcomes(judge.result_type, errors, model)
    rounds = _rounds(cases, drawn)
    weights = sum(weight for _, _, weight in rounds)
    caller = _Caller(
        tool,
        invoker,
        fake,
        judge,
        context=context,
        deadline=deadline,
        hang_after=hang_after,
        build_tool=build_tool if build_per_call else None,
    )
    try:
        report.swept = _sweep(caller, contract_schema, drawn, errors, context_keys)
        for round_ in rounds:
            examples = max(1, -(-max_examples * round_[2] // weights))
            _run_round(caller, round_, examples, seed)
    finally:
        caller.loop.close()
    return report
