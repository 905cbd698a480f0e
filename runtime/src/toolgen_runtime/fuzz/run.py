"""Running the fuzz of one tool: each case sent through `on_invoke_tool`, each answer judged.

The implementation is a recording fake that returns a result drawn from the tool's result
class or raises one of its declared errors, so every outcome a tool has is reached without a
database. Each call is judged on its own (`Judge`): one JSON object with `ok`; success only
after the implementation ran, with exactly the declared fields; the invalid-arguments envelope
only when the implementation did not run, naming a field the contract blames; a declared
error as its envelope; no exception; and within the time bound.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import faulthandler
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from toolgen_runtime.envelope import (
    INVALID_ARGUMENTS,
    MAX_ANSWER_BYTES,
    MAX_PROBLEMS,
    field_name,
)
from toolgen_runtime.errors import DeclaredError, ToolError
from toolgen_runtime.fuzz import SEED_ENV, FuzzFailure, FuzzReport
from toolgen_runtime.fuzz.contract import Contract, Reading, read_arguments
from toolgen_runtime.fuzz.texts import Case, case_strategies, sweep
from toolgen_runtime.fuzz.values import values_for
from toolgen_runtime.invoke import Invoker

__all__ = ["run_fuzz"]

Loc = tuple[int | str, ...]
_ENVELOPE_KEYS = frozenset({"ok", "error", "how_to_fix", "retryable"})
_INVALID_KEYS = frozenset({"ok", "error", "problems", "more_problems", "how_to_fix"})
_SHOWN = 400  # characters of an argument text or an answer a failure quotes


def _cut(text: str, limit: int = _SHOWN) -> str:
    return (
        repr(text)
        if len(text) <= limit
        else repr(text[:limit]) + f"... ({len(text):,} chars)"
    )


class _Fake:
    """The implementation: records each call, then returns or raises what it was given."""

    def __init__(self) -> None:
        self.outcome: object = None
        self.calls: list[tuple[object, object]] = []

    def __call__(self, args: object, context: object = None) -> object:
        self.calls.append((args, context))
        if isinstance(self.outcome, ToolError):
            raise self.outcome
        return self.outcome


def _json_values() -> st.SearchStrategy[object]:
    scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=6,
    )


def _outcomes(
    result_type: type[object], errors: Mapping[str, DeclaredError]
) -> tuple[st.SearchStrategy[object], st.SearchStrategy[object] | None]:
    """Results of the tool's result class (read back from JSON its schema allows), and its
    declared errors with details (None when it declares none)."""
    adapter: TypeAdapter[object] = TypeAdapter(result_type)
    # what the class is built from: its Python field names, which differ from the names the
    # model reads where a return field is a Python keyword or a reserved name
    schema = adapter.json_schema(mode="validation")

    def build(data: object) -> object:
        try:
            return adapter.validate_json(json.dumps(data))
        except ValidationError:
            return None  # what JSON Schema cannot say (a naive datetime): drawn again

    results = values_for(schema).map(build).filter(lambda r: r is not None)
    if not errors:
        return results, None
    details = st.dictionaries(
        st.text(min_size=1, max_size=12).filter(lambda k: k not in _ENVELOPE_KEYS),
        _json_values(),
        max_size=3,
    )
    raised = st.builds(
        lambda code, more: ToolError(code, **more),
        st.sampled_from(sorted(errors)),
        details,
    )
    return results, raised


def _same(
    sent: object, received: object, schema: Mapping[str, Any], path: Loc
) -> Iterator[Loc]:
    """Where the arguments the implementation received differ from those the model sent
    (null for a field with a default may become the default; dates may be written anew)."""
    if sent is None:
        return
    if isinstance(sent, dict) and isinstance(received, dict):
        for key, value in sent.items():
            yield from _same(value, received.get(key), schema, (*path, key))
        return
    if (
        isinstance(sent, list)
        and isinstance(received, list)
        and len(sent) == len(received)
    ):
        for index, (a, b) in enumerate(zip(sent, received, strict=True)):
            yield from _same(a, b, schema, (*path, index))
        return
    if isinstance(sent, str) and isinstance(received, str) and sent != received:
        try:
            # RFC 3339 allows a lower-case t and z, which fromisoformat does not read
            left = datetime.datetime.fromisoformat(sent.upper())
            right = datetime.datetime.fromisoformat(received.upper())
        except ValueError:
            yield path
            return
        if left != right or left.utcoffset() != right.utcoffset():
            yield path
        return
    # True == 1 in Python: a boolean is only ever the same as a boolean
    if sent != received or isinstance(sent, bool) != isinstance(received, bool):
        yield path


def _within(field: str, blamed: str) -> bool:
    """Whether a named field is the blamed one or inside it (`labels.0` in `labels`)."""
    return field == blamed or field.startswith(blamed + ".")


class Judge:
    """Everything one tool's answers are held to."""

    def __init__(
        self,
        invoker: Invoker[Any, Any, Any],
        contract: Contract,
        errors: Mapping[str, DeclaredError],
        report: FuzzReport,
    ) -> None:
        self.tool_name = invoker.tool_name
        self.args_model: type[BaseModel] = invoker.args_model
        self.result_type: type[object] = invoker.result_type
        self.results: TypeAdapter[object] = TypeAdapter(invoker.result_type)
        self.result_contract = Contract(self.results.json_schema(mode="serialization"))
        # the names the model reads (a field named after a keyword has another in Python)
        self.declared_fields = frozenset(self.result_contract.schema["properties"])
        self.contract = contract
        self.errors = errors
        self.report = report

    def fail(self, case: Case, problem: str, answer: object = None) -> FuzzFailure:
        lines = [
            f"{self.tool_name}: {problem}",
            f"  case: {case.kind}",
            f"  arguments: {_cut(case.raw)}",
        ]
        if answer is not None:
            lines.append(
                f"  answer: {_cut(answer) if isinstance(answer, str) else repr(answer)}"
            )
        return FuzzFailure("\n".join(lines))

    def judge(self, case: Case, answer: object, fake: _Fake) -> None:
        if not isinstance(answer, str):
            raise self.fail(
                case, f"answered a {type(answer).__name__}, not JSON text", answer
            )
        try:
            answer.encode("utf-8")
        except UnicodeEncodeError as err:
            raise self.fail(
                case, f"the answer is not Unicode text ({err})", answer
            ) from err
        parsed = read_arguments(answer)  # the same strict reading: one JSON value
        output = parsed.value
        if (
            not parsed.parsed
            or not isinstance(output, dict)
            or type(output.get("ok")) is not bool
        ):
            raise self.fail(
                case, "the answer is not one JSON object with a boolean ok", answer
            )
        reading = read_arguments(case.raw)
        allowed = reading.parsed and self.contract.allows(reading.value)
        if allowed:
            self.report.allowed += 1
        if output["ok"]:
            self._success(case, reading, allowed, output, answer, fake)
        elif output.get("error") == INVALID_ARGUMENTS:
            self._rejection(case, reading, allowed, output, answer, fake)
        elif output.get("error") in self.errors:
            self._declared(case, output, answer, fake)
        else:
            raise self.fail(case, "the answer is none of the three envelopes", answer)

    def _received(self, case: Case, reading: Reading, fake: _Fake, answer: str) -> None:
        """The implementation ran once, with typed arguments the contract allows, equal to
        what the model sent."""
        if len(fake.calls) != 1:
            raise self.fail(
                case, f"the implementation ran {len(fake.calls)} times", answer
            )
        args = fake.calls[0][0]
        if type(args) is not self.args_model:
            raise self.fail(
                case, f"the implementation got a {type(args).__name__}", answer
            )
        assert isinstance(args, BaseModel)
        dumped = args.model_dump(mode="json", by_alias=True)
        broken = self.contract.errors(dumped)
        if broken:
            where = ", ".join(
                f"{field_name(loc)}: {message}" for loc, message in broken[:3]
            )
            raise self.fail(
                case,
                f"the implementation received arguments that break the contract ({where}); "
                f"received {dumped!r}",
                answer,
            )
        if reading.parsed:
            differ = list(_same(reading.value, dumped, self.contract.schema, ()))
            if differ:
                raise self.fail(
                    case,
                    "the implementation received other values than the model sent, at "
                    f"{', '.join(field_name(loc) for loc in differ)}; received {dumped!r}",
                    answer,
                )

    def _success(
        self,
        case: Case,
        reading: Reading,
        allowed: bool,
        output: dict[str, Any],
        answer: str,
        fake: _Fake,
    ) -> None:
        self._received(case, reading, fake, answer)
        if isinstance(fake.outcome, ToolError):
            raise self.fail(case, "answered ok while the implementation raised", answer)
        fields = {k: v for k, v in output.items() if k != "ok"}
        if set(fields) != self.declared_fields or output.get("ok") is not True:
            raise self.fail(
                case,
                f"a success must hold ok and exactly {sorted(self.declared_fields)}",
                answer,
            )
        broken = self.result_contract.errors(fields)
        if broken:
            where = ", ".join(
                f"{field_name(loc)}: {message}" for loc, message in broken[:3]
            )
            raise self.fail(
                case, f"the success breaks the declared result ({where})", answer
            )
        if fields != json.loads(self.results.dump_json(fake.outcome, by_alias=True)):
            raise self.fail(
                case, f"the success does not read back as {fake.outcome!r}", answer
            )
        if not allowed:
            # what was accepted reads as allowed arguments (checked above); a date written
            # another way may pass, a float for an integer or a string for a choice not
            if not reading.parsed or not self.contract.only_formats_broken(
                reading.value
            ):
                raise self.fail(
                    case, "accepted arguments the contract does not allow", answer
                )
            self.report.note_lenient(case)
        self.report.accepted += 1

    def _rejection(
        self,
        case: Case,
        reading: Reading,
        allowed: bool,
        output: dict[str, Any],
        answer: str,
        fake: _Fake,
    ) -> None:
        if fake.calls:
            raise self.fail(
                case, "the implementation ran for rejected arguments", answer
            )
        problems = output.get("problems")
        well_formed = (
            set(output) <= _INVALID_KEYS
            and isinstance(output.get("how_to_fix"), str)
            and isinstance(problems, list)
            and 0 < len(problems) <= MAX_PROBLEMS
            and all(
                isinstance(p, dict)
                and isinstance(p.get("field"), str)
                and isinstance(p.get("problem"), str)
                for p in problems
            )
            and type(output.get("more_problems", 0)) is int
        )
        if not well_formed:
            raise self.fail(case, "a malformed invalid-arguments envelope", answer)
        size = len(answer.encode("utf-8"))
        if size > MAX_ANSWER_BYTES:
            raise self.fail(
                case,
                f"the envelope is {size:,} bytes, over {MAX_ANSWER_BYTES:,}",
                answer,
            )
        if allowed:
            raise self.fail(case, "rejected arguments the contract allows", answer)
        named = {str(p["field"]) for p in problems}  # type: ignore[union-attr]
        cut_short = "more_problems" in output
        if not reading.parsed:
            # refused as a whole ("$"), or at the field the one mistake is in (a key given
            # twice, a NaN)
            targets = [field_name(case.field)] if case.field is not None else []
            named_right = "$" in named or any(
                _within(f, t) for f in named for t in targets
            )
            if not named_right and not cut_short:
                raise self.fail(case, f"the rejection must name $ or {targets}", answer)
        else:
            blamed = {field_name(loc) for loc, _ in self.contract.errors(reading.value)}
            if not any(_within(f, b) for f in named for b in blamed) and not cut_short:
                raise self.fail(
                    case,
                    f"the rejection names {sorted(named)}; the contract blames {sorted(blamed)}",
                    answer,
                )
        self.report.rejected += 1

    def _declared(
        self, case: Case, output: dict[str, Any], answer: str, fake: _Fake
    ) -> None:
        err = fake.outcome
        if not isinstance(err, ToolError):
            raise self.fail(
                case, "a declared error the implementation did not raise", answer
            )
        self._received(case, read_arguments(case.raw), fake, answer)
        declared = self.errors[err.code]
        expected = {
            "ok": False,
            "error": err.code,
            "how_to_fix": declared.how_to_fix,
            "retryable": declared.retryable,
            **json.loads(json.dumps(err.details)),
        }
        if output != expected:
            raise self.fail(
                case, f"the declared error's envelope should be {expected!r}", answer
            )
        self.report.declared_errors += 1


class _Caller:
    """Sends one case through the tool and has its answer judged: the fake implementation
    gives the outcome chosen for the case, and a call over the time bound fails (after a
    second try, as the machine may have been busy)."""

    def __init__(
        self,
        tool: FunctionTool,
        invoker: Invoker[Any, Any, Any],
        fake: _Fake,
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

    def one_call(self, case: Case, outcome: object) -> None:
        judge, report, deadline = self.judge, self.judge.report, self.deadline
        self.fake.outcome = outcome
        try:
            answer, seconds = self.call(case.raw)
            if seconds > deadline:  # once more: the machine may have been busy
                answer, seconds = self.call(case.raw)
        except Exception as exc:
            raise judge.fail(case, f"raised {type(exc).__name__}: {exc}") from exc
        report.calls += 1
        report.kinds[case.kind.split(":")[0]] += 1
        if seconds > report.slowest_seconds:
            report.slowest_seconds, report.slowest_case = seconds, case.kind
        if seconds > deadline:
            raise judge.fail(
                case, f"took {seconds:.3f} s, over the bound of {deadline} s"
            )
        judge.judge(case, answer, self.fake)


def _simplest(values: st.SearchStrategy[Any]) -> Any:
    """The first value hypothesis makes, of its simplest choices, the same on every run.
    Not shrunk: shrinking a contract of twenty fields to its least value took seconds, for
    a base that is no better."""
    return find(
        values,
        lambda _: True,
        settings=settings(database=None, phases=(Phase.generate,), derandomize=True),
    )


def _sweep(
    caller: _Caller,
    contract_schema: Mapping[str, Any],
    results: st.SearchStrategy[Any],
    errors: Mapping[str, DeclaredError],
    context_keys: list[str],
) -> int:
    """Every mutation of every field of the simplest valid arguments, which reach the
    implementation with the simplest result and each declared error; how many were sent."""
    base = _simplest(values_for(contract_schema))
    result = _simplest(results)
    swept = sweep(contract_schema, base, context_keys=context_keys)
    declared = [ToolError(code, detail="sample") for code in sorted(errors)]
    for index, case in enumerate(swept):
        caller.one_call(
            case,
            result
            if index % (len(declared) + 1) == 0
            else declared[index % (len(declared) + 1) - 1],
        )
    return len(swept)


_Round = tuple[st.SearchStrategy[Case], st.SearchStrategy[Any], int]


def _rounds(
    cases: Mapping[str, st.SearchStrategy[Case]],
    results: st.SearchStrategy[Any],
    raised: st.SearchStrategy[Any] | None,
) -> list[_Round]:
    """The kinds of case, each with the outcomes it meets and its weight in the budget."""
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
) -> FuzzReport:
    fake = _Fake()
    tool = build_tool(fake)
    invoker = _invoker(tool)
    contract = Contract(contract_schema)
    report = FuzzReport(tool=tool.name)
    judge = Judge(invoker, contract, errors, report)
    context_keys = (
        [f.name for f in dataclasses.fields(context)]
        if dataclasses.is_dataclass(context)
        else []
    )
    cases = case_strategies(contract_schema, context_keys=context_keys)
    results, raised = _outcomes(judge.result_type, errors)
    rounds = _rounds(cases, results, raised)
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
        report.swept = _sweep(caller, contract_schema, results, errors, context_keys)
        for round_ in rounds:
            examples = max(1, -(-max_examples * round_[2] // weights))
            _run_round(caller, round_, examples, seed)
    finally:
        caller.loop.close()
    return report
