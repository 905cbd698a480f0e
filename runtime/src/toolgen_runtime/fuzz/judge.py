"""Judging one answer of a fuzzed tool (`Judge`): one JSON object with `ok`; success only
after the implementation ran, with the declared result (a page of them; the output contract
applied); the invalid-arguments envelope only when the implementation did not run, naming a
field the contract blames, or a guarded field alone with its guard's code; a declared error
as its envelope; a token pair's answers (`tokens`)."""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, TypeAdapter

from toolgen_runtime.arguments import ArgumentParser
from toolgen_runtime.confirm import TOKEN_ERROR_CODES
from toolgen_runtime.envelope import (
    INVALID_ARGUMENTS,
    MAX_ANSWER_BYTES,
    MAX_PROBLEMS,
    field_name,
)
from toolgen_runtime.errors import DeclaredError, ToolError
from toolgen_runtime.fuzz import FuzzFailure, FuzzReport
from toolgen_runtime.fuzz.contract import Contract, Reading, read_arguments
from toolgen_runtime.fuzz.model import ToolModel
from toolgen_runtime.fuzz.outcomes import Fake
from toolgen_runtime.fuzz.shown import judge_output
from toolgen_runtime.fuzz.texts import Case
from toolgen_runtime.fuzz.tokens import prepared, token_refused
from toolgen_runtime.invoke import Invoker
from toolgen_runtime.pagination import Page

__all__ = ["Answer", "Judge", "cut"]

Loc = tuple[int | str, ...]
# what a page answers besides its items' fields (`Pagination.envelope`)
_PAGE_KEYS = frozenset(
    {"ok", "items", "shown", "total_available", "next_cursor", "note"}
)
_INVALID_KEYS = frozenset({"ok", "error", "problems", "more_problems", "how_to_fix"})
_SHOWN = 400  # characters of an argument text or an answer a failure quotes


def cut(text: str, limit: int = _SHOWN) -> str:
    """`text` quoted, cut to `limit` characters (saying how long it was)."""
    return (
        repr(text)
        if len(text) <= limit
        else repr(text[:limit]) + f"... ({len(text):,} chars)"
    )


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


_ABSENT = object()


def _value_at(value: object, field: str) -> object:
    """What stands at a problem's field (`reports.0`, `cover.sheet`) of the sent
    arguments, or _ABSENT."""
    for part in field.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _ABSENT
    return value


def _put(dumped: Any, loc: Loc, new: object) -> None:
    """Put `new` at `loc` of the dumped arguments (a place `Guarded.found` found in them)."""
    *path, last = loc
    for part in path:
        dumped = dumped[part]
    dumped[last] = new


def _among(value: object, good: Sequence[object]) -> bool:
    """Whether a sent value is one the fuzzer knows its guard passes (not null: a null
    cursor is refused for another field's sake only)."""
    return value is not None and isinstance(value, str) and value in good


def _within(field: str, blamed: str) -> bool:
    """Whether a named field is the blamed one or inside it (`labels.0` in `labels`)."""
    return field == blamed or field.startswith(blamed + ".")


@dataclasses.dataclass(frozen=True, slots=True)
class Answer:
    """One answer being judged, with the call it answers: the case, the answer's text and
    object, how the arguments read, whether the contract allows them, what the fake
    implementation was called with, and what the contract finds wrong with the arguments
    (`problems`: read once, lazily, by the judge of a rejection)."""

    case: Case
    text: str
    output: dict[str, Any]
    reading: Reading
    allowed: bool
    fake: Fake
    problems: Iterator[tuple[Loc, str]]


class Judge:
    """Everything one tool's answers are held to."""

    def __init__(
        self,
        invoker: Invoker[Any, Any, Any],
        contract: Contract,
        errors: Mapping[str, DeclaredError],
        report: FuzzReport,
        model: ToolModel | None = None,
        context: object = None,
    ) -> None:
        self.invoker = invoker
        self.model = model or ToolModel()
        self.context = context
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
        self.parse = ArgumentParser(invoker.args_model, keep=MAX_PROBLEMS).parse

    def fail(self, case: Case, problem: str, answer: object = None) -> FuzzFailure:
        lines = [
            f"{self.tool_name}: {problem}",
            f"  case: {case.kind}",
            f"  arguments: {cut(case.raw)}",
        ]
        if answer is not None:
            lines.append(
                f"  answer: {cut(answer) if isinstance(answer, str) else repr(answer)}"
            )
        return FuzzFailure("\n".join(lines))

    def judge(
        self, case: Case, answer: object, fake: Fake, token: bool | None = None
    ) -> None:
        """Judge one answer; `token` says, for a confirm tool, whether the call carried a
        token its prepare tool issued for these arguments."""
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
        # the contract's validation of the arguments runs once: they are allowed when it
        # finds nothing, and a rejection must name what it finds (`_rejection`)
        found = self.contract.errors(reading.value) if reading.parsed else iter(())
        first = next(found, None)
        allowed = reading.parsed and first is None
        if allowed:
            self.report.allowed += 1
        if token is False and (output["ok"] or fake.calls):
            raise self.fail(
                case,
                "ran without a token "
                f"{self.model.confirmation.prepare_tool if self.model.confirmation else ''} "
                "issued for these arguments",
                answer,
            )
        problems = itertools.chain(() if first is None else (first,), found)
        judged = Answer(case, answer, output, reading, allowed, fake, problems)
        if output["ok"] and self.model.prepares:
            prepared(self, judged)
        elif output["ok"]:
            self._success(judged)
        elif self.model.confirms and output.get("error") in TOKEN_ERROR_CODES:
            token_refused(self, judged, token)
        elif output.get("error") == INVALID_ARGUMENTS:
            self._rejection(judged)
        elif output.get("error") in self.errors:
            self._declared(case, output, answer, fake)
        else:
            raise self.fail(case, "the answer is none of the three envelopes", answer)

    def _received(self, case: Case, reading: Reading, fake: Fake, answer: str) -> None:
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
        sent = reading.value if reading.parsed else None
        for item in self.model.guarded.values():
            assert self.model.boundaries is not None
            for loc, value, given in item.found(args, sent):
                wrong = item.broken(value, given, self.model.boundaries)
                if wrong is not None:
                    raise self.fail(
                        case,
                        f"the guard of {field_name(loc)} let through what it must "
                        f"refuse: {wrong}",
                        answer,
                    )
                if value is not None:
                    # a URL is passed on rebuilt from its checked parts; what was sent
                    # is compared above
                    _put(dumped, loc, given)
        broken = list(itertools.islice(self.contract.errors(dumped), 3))
        if broken:
            where = ", ".join(
                f"{field_name(loc)}: {message}" for loc, message in broken
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

    def reads_as_allowed(self, judged: Answer) -> bool:
        """Whether accepting the arguments keeps the contract: it allows them, or only a
        format is broken (a date written another way may pass; a float for an integer or
        a string for a choice may not)."""
        reading = judged.reading
        return judged.allowed or (
            reading.parsed and self.contract.only_formats_broken(reading.value)
        )

    def _success(self, judged: Answer) -> None:
        case, answer, fake = judged.case, judged.text, judged.fake
        self._received(case, judged.reading, fake, answer)
        if isinstance(fake.outcome, ToolError):
            raise self.fail(case, "answered ok while the implementation raised", answer)
        if judged.output.get("ok") is not True:
            raise self.fail(case, "ok must be true", answer)
        expected = self._expected(fake.returned)
        shown = judged.output
        if self.model.output is not None:
            shown, problem = judge_output(expected, judged.output, self.model.output)
            if problem is not None:
                raise self.fail(
                    case, f"the output contract is not kept: {problem}", answer
                )
        if self.model.pagination is not None:
            self._page(case, shown, expected, answer)
        else:
            self._fields(case, shown, expected, answer)
        if not self.reads_as_allowed(judged):
            raise self.fail(
                case, "accepted arguments the contract does not allow", answer
            )
        if not judged.allowed:
            self.report.note_lenient(case)
        self.report.accepted += 1

    def _expected(self, returned: object) -> dict[str, Any]:
        """What the model should read for what the implementation returned, before the
        output contract (for a page, its items and counts; the cursor and note apart)."""
        if isinstance(returned, Page):
            return {
                "ok": True,
                "items": [
                    json.loads(self.results.dump_json(item, by_alias=True))
                    for item in returned.items
                ],
                "shown": len(returned.items),
                "total_available": returned.total,
                "next_cursor": returned.next is not None,
            }
        dumped: dict[str, Any] = json.loads(
            self.results.dump_json(returned, by_alias=True)
        )
        return {"ok": True, **dumped}

    def _fields(
        self,
        case: Case,
        shown: Mapping[str, Any],
        expected: Mapping[str, Any],
        answer: str,
        where: str = "a success",
    ) -> None:
        fields = {k: v for k, v in shown.items() if k != "ok"}
        if set(fields) != self.declared_fields:
            raise self.fail(
                case,
                f"{where} must hold {'ok and ' if where == 'a success' else ''}exactly "
                f"{sorted(self.declared_fields)}",
                answer,
            )
        broken = list(itertools.islice(self.result_contract.errors(fields), 3))
        if broken:
            where_broken = ", ".join(
                f"{field_name(loc)}: {message}" for loc, message in broken
            )
            raise self.fail(
                case, f"{where} breaks the declared result ({where_broken})", answer
            )
        declared = {k: v for k, v in expected.items() if k != "ok"}
        if fields != declared:
            raise self.fail(
                case, f"{where} does not read back as the declared {declared!r}", answer
            )

    def _page(
        self,
        case: Case,
        shown: Mapping[str, Any],
        expected: Mapping[str, Any],
        answer: str,
    ) -> None:
        """A page holds exactly the page keys; each item exactly the declared fields, as
        returned; the counts of the page returned; a cursor when there is a next page."""
        if set(shown) != _PAGE_KEYS:
            raise self.fail(
                case, f"a page must hold exactly {sorted(_PAGE_KEYS)}", answer
            )
        items = shown["items"]
        if not isinstance(items, list) or len(items) != len(expected["items"]):
            raise self.fail(
                case,
                f"the page must hold the {len(expected['items'])} items returned",
                answer,
            )
        for index, (item, returned) in enumerate(
            zip(items, expected["items"], strict=True)
        ):
            if not isinstance(item, dict):
                raise self.fail(case, f"item {index} is not an object", answer)
            self._fields(case, item, returned, answer, where=f"item {index}")
        for key in ("shown", "total_available"):
            if shown[key] != expected[key] or type(shown[key]) is bool:
                raise self.fail(
                    case, f"{key} must be {expected[key]!r}, as returned", answer
                )
        cursor = shown["next_cursor"]
        if expected["next_cursor"] != (isinstance(cursor, str) and bool(cursor)):
            raise self.fail(
                case,
                "next_cursor must be a cursor exactly when there is a next page "
                f"({'there is' if expected['next_cursor'] else 'there is none'})",
                answer,
            )
        if cursor is not None and not isinstance(cursor, str):
            raise self.fail(case, "next_cursor must be text or null", answer)
        if not isinstance(shown["note"], str) or not shown["note"]:
            raise self.fail(case, "a page's note must be text", answer)

    def _rejection(self, judged: Answer) -> None:
        case, output, answer = judged.case, judged.output, judged.text
        if judged.fake.calls:
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
        if judged.allowed:
            self._allowed_rejection(judged)
            return
        named = {str(p["field"]) for p in problems}  # type: ignore[union-attr]
        cut_short = "more_problems" in output
        if not judged.reading.parsed:
            # refused as a whole ("$"), or at the field the one mistake is in (a key given
            # twice, a NaN)
            targets = [field_name(case.field)] if case.field is not None else []
            named_right = "$" in named or any(
                _within(f, t) for f in named for t in targets
            )
            if not named_right and not cut_short:
                raise self.fail(case, f"the rejection must name $ or {targets}", answer)
        elif not cut_short:
            blamed = (field_name(loc) for loc, _ in judged.problems)
            if not any(_within(f, b) for b in blamed for f in named):
                every = sorted(
                    {
                        field_name(loc)
                        for loc, _ in self.contract.errors(judged.reading.value)
                    }
                )
                raise self.fail(
                    case,
                    f"the rejection names {sorted(named)}; the contract blames {every}",
                    answer,
                )
        self.report.rejected += 1

    def _allowed_rejection(self, judged: Answer) -> None:
        """A refusal of arguments the contract allows: kept only when every problem is a
        guarded field's, with its guard's code, and not of a value the fuzzer knows the
        guard's settings allow."""
        case, output, answer = judged.case, judged.output, judged.text
        problems: list[dict[str, Any]] = output["problems"]
        for problem in problems:
            name = str(problem["field"])
            item = self.model.guard_at(name)
            sent = _value_at(judged.reading.value, name)
            if item is not None and _among(sent, self.model.good.get(item.name, ())):
                raise self.fail(
                    case,
                    f"refused {name} {cut(str(sent), 80)}, which its guard's "
                    "settings allow (a file under the root, a URL on an allowed host)",
                    answer,
                )
        # a kept promise when every problem is a guarded field's, with its guard's code
        # (and none is left unlisted, which could be any field's)
        if "more_problems" not in output and all(
            self.model.boundary_problem(p) for p in problems
        ):
            self.report.refused_at_boundary += 1
            return
        raise self.fail(
            case,
            "rejected arguments the contract allows"
            + (
                " (a guarded field may be refused only with a code of its guard)"
                if self.model.guarded
                else ""
            ),
            answer,
        )

    def _declared(
        self, case: Case, output: dict[str, Any], answer: str, fake: Fake
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
