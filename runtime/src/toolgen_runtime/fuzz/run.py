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
import copy
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

from toolgen_runtime.arguments import ArgumentParser
from toolgen_runtime.confirm import (
    TOKEN_ERROR_CODES,
    TOKEN_INVALID,
    Accepted,
    token_errors,
)
from toolgen_runtime.envelope import (
    INVALID_ARGUMENTS,
    MAX_ANSWER_BYTES,
    MAX_PROBLEMS,
    field_name,
)
from toolgen_runtime.errors import DeclaredError, ToolError
from toolgen_runtime.fuzz import SEED_ENV, FuzzFailure, FuzzReport
from toolgen_runtime.fuzz.contract import Contract, Reading, read_arguments
from toolgen_runtime.fuzz.model import PLACEHOLDER, ToolModel
from toolgen_runtime.fuzz.texts import Case, case_strategies, sweep
from toolgen_runtime.fuzz.values import values_for
from toolgen_runtime.invoke import Invoker
from toolgen_runtime.output import ELLIPSIS, REDACTED, TRUNCATED_KEY, OutputContract
from toolgen_runtime.pagination import Cursor, Offset, Page, Pagination
from toolgen_runtime.writes import TOKEN_PARAM, wire_arguments

__all__ = ["run_fuzz"]

Loc = tuple[int | str, ...]
# what a page answers besides its items' fields (`Pagination.envelope`)
_PAGE_KEYS = frozenset(
    {"ok", "items", "shown", "total_available", "next_cursor", "note"}
)
_ENVELOPE_KEYS = frozenset({"ok", "error", "how_to_fix", "retryable"})
_INVALID_KEYS = frozenset({"ok", "error", "problems", "more_problems", "how_to_fix"})
_SHOWN = 400  # characters of an argument text or an answer a failure quotes


def _cut(text: str, limit: int = _SHOWN) -> str:
    return (
        repr(text)
        if len(text) <= limit
        else repr(text[:limit]) + f"... ({len(text):,} chars)"
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _PageDraw:
    """A page the fake returns: its items, cut to the page size the call asked for, and how
    many rows come after them (0: the last page); `counted` says whether the total is."""

    items: tuple[object, ...]
    more: int
    counted: bool

    def page(self, pagination: Pagination, args: object) -> Page[object]:
        assert isinstance(args, BaseModel)
        items = self.items[: pagination.page_size(args)]
        cursor = getattr(args, pagination.cursor_field)
        before = cursor.shown_before if isinstance(cursor, Cursor) else 0
        # where this page starts: the cursor's offset (rows shown before, by keyset)
        start = before
        if isinstance(cursor, Cursor) and isinstance(cursor.position, Offset):
            start = cursor.position.value
        more = self.more if items else 0
        counted = pagination.total == "counted" or (
            self.counted and pagination.total == "expensive"
        )
        return Page(
            items=list(items),
            total=before + len(items) + more if counted else None,
            next=Offset(start + len(items)) if more else None,
        )


class _Fake:
    """The implementation: records each call, then returns or raises what it was given (a
    page drawn for a paginated tool is cut to the call's page size: `returned`)."""

    def __init__(self, pagination: Pagination | None = None) -> None:
        self.pagination = pagination
        self.outcome: object = None
        self.returned: object = None
        self.calls: list[tuple[object, object]] = []

    def __call__(self, args: object, context: object = None) -> object:
        self.calls.append((args, context))
        if isinstance(self.outcome, ToolError):
            raise self.outcome
        returned = self.outcome
        if isinstance(returned, _PageDraw):
            assert self.pagination is not None
            returned = returned.page(self.pagination, args)
        self.returned = returned
        return returned


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


@dataclasses.dataclass(frozen=True, slots=True)
class _Outcomes:
    results: st.SearchStrategy[object]  # what the implementation returns
    raised: st.SearchStrategy[object] | None  # its declared errors (None: it has none)
    swept: list[object]  # the results the sweep returns in turn


def _long_texts(model: ToolModel) -> list[tuple[list[str], int]]:
    """The fields of a result (of a page's item) the output contract cuts, with limits."""
    if model.output is None:
        return []
    found = []
    for path, limit in sorted(model.output.max_chars.items()):
        parts = path.split(".")
        if model.pagination is not None:
            if parts[0] != "items" or len(parts) < 2:
                continue
            parts = parts[1:]
        found.append((parts, limit))
    return found


def _stretch(data: object, parts: list[str], text: str) -> None:
    """Put `text` in place of the string(s) at `parts` in the result's data."""
    if isinstance(data, list):
        for item in data:
            _stretch(item, parts, text)
        return
    if not isinstance(data, dict) or parts[0] not in data:
        return
    if len(parts) > 1:
        _stretch(data[parts[0]], parts[1:], text)
    elif isinstance(data[parts[0]], str):
        data[parts[0]] = text
    elif isinstance(data[parts[0]], list):
        data[parts[0]] = [text if isinstance(v, str) else v for v in data[parts[0]]]


def _outcomes(
    result_type: type[object], errors: Mapping[str, DeclaredError], model: ToolModel
) -> _Outcomes:
    """Results of the tool's result class (read back from JSON its schema allows; texts the
    output contract cuts often longer than their limit; for a paginated tool, pages of
    them), and its declared errors with details."""
    adapter: TypeAdapter[object] = TypeAdapter(result_type)
    # what the class is built from: its Python field names, which differ from the names the
    # model reads where a return field is a Python keyword or a reserved name
    schema = adapter.json_schema(mode="validation")
    long_texts = _long_texts(model)

    def build(drawn: tuple[object, bool, str, int]) -> object:
        data, long, seed, extra = drawn
        if long:
            data = copy.deepcopy(data)
            for parts, limit in long_texts:
                _stretch(
                    data, parts, (seed * (limit // len(seed) + 2))[: limit + extra]
                )
        try:
            return adapter.validate_json(json.dumps(data))
        except ValidationError:
            return None  # what JSON Schema cannot say (a naive datetime): drawn again

    def drawn(long: st.SearchStrategy[bool]) -> st.SearchStrategy[object]:
        return (
            st.tuples(
                values_for(schema),
                long,
                st.text(min_size=1, max_size=8),
                st.integers(1, 40),
            )
            .map(build)
            .filter(lambda r: r is not None)
        )

    results = drawn(st.booleans() if long_texts else st.just(False))
    swept = [_simplest(results)]
    if long_texts:
        swept.append(_simplest(drawn(st.just(True))))
    if model.pagination is not None:
        item = swept[0]
        swept = [_PageDraw(tuple(swept), 1, True), _PageDraw((), 0, True)]
        if len(swept) > 1:
            swept.append(_PageDraw((item,), 0, False))
        results = st.builds(
            _PageDraw,
            st.lists(results, max_size=4).map(tuple),
            st.sampled_from((0, 1, 37)),
            st.booleans(),
        )
    if not errors:
        return _Outcomes(results, None, swept)
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
    return _Outcomes(results, raised, swept)


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


def _judge_output(
    expected: Mapping[str, Any], answer: Mapping[str, Any], output: OutputContract
) -> tuple[dict[str, Any], str | None]:
    """Judge an answer against the declared output rules, from their settings: a sensitive
    field is `[redacted]` (null stays null); a text over its limit is cut to a prefix of
    itself ending with `…`, within the limit, and listed in `truncated`, exactly those; a
    text within it is as it was. Returns the answer with the originals back in place and
    without `truncated` (to be judged as an answer without an output contract), and what
    is wrong, if anything."""
    restored = copy.deepcopy(dict(answer))
    listed = restored.pop(TRUNCATED_KEY, None)
    cut: list[str] = []
    problems: list[str] = []

    def text(original: str, shown: object, limit: int, here: str) -> str:
        if len(original) <= limit:
            if shown != original:
                problems.append(f"{here} is within {limit} characters but was changed")
            return original
        if not (
            isinstance(shown, str)
            and shown.endswith(ELLIPSIS)
            and len(shown) <= limit
            and original.startswith(shown[: -len(ELLIPSIS)])
        ):
            problems.append(
                f"{here} has {len(original)} characters: it must be cut to at most "
                f"{limit}, a prefix of it ending with {ELLIPSIS}; it shows "
                f"{_cut(str(shown), 80)}"
            )
        cut.append(here)
        return original

    def walk(
        exp: object,
        got: object,
        parts: list[str],
        where: tuple[str, ...],
        limit: int | None,
    ) -> None:
        here = ".".join(where) or "the answer"
        if isinstance(exp, list):
            if not isinstance(got, list) or len(got) != len(exp):
                problems.append(f"{here} should hold {len(exp)} items")
                return
            for index, (e, g) in enumerate(zip(exp, got, strict=True)):
                walk(e, g, parts, (*where, str(index)), limit)
            return
        if not isinstance(exp, dict) or not isinstance(got, dict):
            return  # judged as any other answer
        key, rest = parts[0], parts[1:]
        if key not in exp or key not in got:
            return
        place = (*where, key)
        if rest:
            walk(exp[key], got[key], rest, place, limit)
            return
        original = exp[key]
        if original is None:
            return
        if limit is None:
            if got[key] != REDACTED:
                problems.append(f"{'.'.join(place)} is sensitive but not {REDACTED}")
            got[key] = original
        elif isinstance(original, str):
            got[key] = text(original, got[key], limit, ".".join(place))
        elif isinstance(original, list) and isinstance(got[key], list):
            if len(got[key]) != len(original):
                problems.append(f"{'.'.join(place)} should hold {len(original)} texts")
                return
            got[key] = [
                text(o, g, limit, ".".join((*place, str(i))))
                if isinstance(o, str)
                else g
                for i, (o, g) in enumerate(zip(original, got[key], strict=True))
            ]

    for path in sorted(output.sensitive):
        walk(expected, restored, path.split("."), (), None)
    for path, limit in sorted(output.max_chars.items()):
        walk(expected, restored, path.split("."), (), limit)
    if problems:
        return restored, problems[0]
    if cut and (
        not isinstance(listed, list)
        or sorted(map(str, listed)) != sorted(cut)
        or len(listed) != len(cut)
    ):
        return (
            restored,
            f"{TRUNCATED_KEY} must list exactly the cut texts {sorted(cut)}",
        )
    if not cut and TRUNCATED_KEY in answer:
        return restored, f"{TRUNCATED_KEY} is there though no text was cut"
    return restored, None


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
            f"  arguments: {_cut(case.raw)}",
        ]
        if answer is not None:
            lines.append(
                f"  answer: {_cut(answer) if isinstance(answer, str) else repr(answer)}"
            )
        return FuzzFailure("\n".join(lines))

    def judge(
        self, case: Case, answer: object, fake: _Fake, token: bool | None = None
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
        allowed = reading.parsed and self.contract.allows(reading.value)
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
        if output["ok"] and self.model.prepares:
            self._prepared(case, reading, allowed, output, answer, fake)
        elif output["ok"]:
            self._success(case, reading, allowed, output, answer, fake)
        elif self.model.confirms and output.get("error") in TOKEN_ERROR_CODES:
            self._token_refused(case, reading, allowed, output, answer, fake, token)
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
        sent = reading.value if reading.parsed else None
        for name, item in self.model.guarded.items():
            assert self.model.boundaries is not None
            given = sent.get(name) if isinstance(sent, dict) else None
            wrong = item.broken(
                getattr(args, item.attribute), given, self.model.boundaries
            )
            if wrong is not None:
                raise self.fail(
                    case,
                    f"the guard of {name} let through what it must refuse: {wrong}",
                    answer,
                )
            if name in dumped and isinstance(sent, dict) and name in sent:
                # a URL is passed on rebuilt from its checked parts; what was sent is
                # compared above
                dumped[name] = sent[name]
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
        if output.get("ok") is not True:
            raise self.fail(case, "ok must be true", answer)
        expected = self._expected(fake.returned)
        shown = output
        if self.model.output is not None:
            shown, problem = _judge_output(expected, output, self.model.output)
            if problem is not None:
                raise self.fail(
                    case, f"the output contract is not kept: {problem}", answer
                )
        if self.model.pagination is not None:
            self._page(case, shown, expected, answer)
        else:
            self._fields(case, shown, expected, answer)
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
        broken = self.result_contract.errors(fields)
        if broken:
            where_broken = ", ".join(
                f"{field_name(loc)}: {message}" for loc, message in broken[:3]
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

    def _prepared(
        self,
        case: Case,
        reading: Reading,
        allowed: bool,
        output: dict[str, Any],
        answer: str,
        fake: _Fake,
    ) -> None:
        """A prepare tool's success: runs nothing, answers a token its confirm tool takes
        for these arguments and this caller, a summary and how long the token lasts."""
        confirmation = self.model.confirmation
        assert confirmation is not None
        if fake.calls:
            raise self.fail(case, "a prepare tool ran an implementation", answer)
        if set(output) != {"ok", "token", "summary", "expires_in_s"}:
            raise self.fail(
                case,
                "a prepare tool answers exactly ok, token, summary, expires_in_s",
                answer,
            )
        if (
            output["expires_in_s"] != confirmation.ttl_s
            or type(output["expires_in_s"]) is not int
        ):
            raise self.fail(
                case, f"expires_in_s must be the token's {confirmation.ttl_s} s", answer
            )
        summary = output["summary"]
        if not isinstance(summary, str) or confirmation.confirm_tool not in summary:
            raise self.fail(
                case,
                f"the summary must say what {confirmation.confirm_tool} will do",
                answer,
            )
        if not allowed and not (
            reading.parsed and self.contract.only_formats_broken(reading.value)
        ):
            raise self.fail(
                case, "accepted arguments the contract does not allow", answer
            )
        gate = self.invoker.gate
        assert gate is not None
        boundaries = self.model.boundaries
        args = self.parse(case.raw, boundaries.for_call() if boundaries else None)
        assert isinstance(args, BaseModel), args
        ctx = ToolContext(
            context=self.context,
            tool_name=self.tool_name,
            tool_call_id="fuzz",
            tool_arguments=case.raw,
        )
        checked = gate.check(
            output["token"],
            wire_arguments(args, without=frozenset({TOKEN_PARAM})),
            self.invoker.identity(ctx),
        )
        if not isinstance(checked, Accepted):
            raise self.fail(
                case,
                f"the token is not one {confirmation.confirm_tool} takes for these "
                f"arguments ({checked.code})",
                answer,
            )
        self.report.accepted += 1

    def _token_refused(
        self,
        case: Case,
        reading: Reading,
        allowed: bool,
        output: dict[str, Any],
        answer: str,
        fake: _Fake,
        token: bool | None,
    ) -> None:
        """A confirm tool's refusal of a token: never of one its prepare tool issued for
        these arguments; for any other, only before anything ran, only for arguments the
        contract allows, with the envelope of token_invalid."""
        confirmation = self.model.confirmation
        assert confirmation is not None
        if token:
            raise self.fail(
                case,
                f"refused a token {confirmation.prepare_tool} issued for these arguments",
                answer,
            )
        if fake.calls:
            raise self.fail(case, "the implementation ran for a refused token", answer)
        if not allowed and not (
            reading.parsed and self.contract.only_formats_broken(reading.value)
        ):
            raise self.fail(
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
        if output != envelope:
            raise self.fail(
                case,
                f"a made-up token must get token_invalid's envelope {envelope!r}",
                answer,
            )
        self.report.refused_token += 1

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
            # a kept promise when every problem is a guarded field's, with its guard's code
            # (and none is left unlisted, which could be any field's)
            if "more_problems" not in output and all(
                self.model.boundary_problem(p)
                for p in problems  # type: ignore[union-attr]
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

    def with_token(self, case: Case) -> tuple[Case, bool | None]:
        """For a confirm tool, the case with its token placeholder replaced by a token the
        prepare tool issues now for the same arguments, and whether it was (None for any
        other tool): a token is used once, so each call gets its own."""
        model = self.judge.model
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
            context=self.context,
            tool_name=prepare.name,
            tool_call_id="fuzz-prepare",
            tool_arguments=text,
        )
        answer = self.loop.run_until_complete(prepare.on_invoke_tool(ctx, text))
        prepared = json.loads(answer)
        token = prepared.get("token") if prepared.get("ok") is True else None
        if not isinstance(token, str):
            if self.judge.contract.allows(value):
                raise self.judge.fail(
                    case,
                    f"{prepare.name} did not issue a token for arguments "
                    f"{self.tool.name}'s contract allows",
                    answer,
                )
            return case, False
        return dataclasses.replace(
            case, raw=case.raw.replace(quoted, json.dumps(token))
        ), True

    def one_call(self, case: Case, outcome: object) -> None:
        judge, report, deadline = self.judge, self.judge.report, self.deadline
        self.fake.outcome = outcome
        try:
            sent, token = self.with_token(case)
            answer, seconds = self.call(sent.raw)
            if seconds > deadline:  # once more: the machine may have been busy
                sent, token = self.with_token(case)
                answer, seconds = self.call(sent.raw)
        except FuzzFailure:
            raise
        except Exception as exc:
            raise judge.fail(
                case, f"raised {type(exc).__name__}: {_cut(str(exc))[1:-1]}"
            ) from exc
        case = sent
        report.calls += 1
        report.kinds[case.kind.split(":")[0]] += 1
        if seconds > report.slowest_seconds:
            report.slowest_seconds, report.slowest_case = seconds, case.kind
        if seconds > deadline:
            raise judge.fail(
                case, f"took {seconds:.3f} s, over the bound of {deadline} s"
            )
        judge.judge(case, answer, self.fake, token)
        if judge.model.pagination is not None and isinstance(outcome, _PageDraw):
            self.next_page(case, answer, outcome)

    def next_page(self, case: Case, answer: object, outcome: _PageDraw) -> None:
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
                follow, f"raised {type(exc).__name__}: {_cut(str(exc))[1:-1]}"
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
    outcomes: _Outcomes,
    errors: Mapping[str, DeclaredError],
    context_keys: list[str],
) -> int:
    """Every mutation of every field of the simplest valid arguments (with the first value
    that passes each guard) and every probe of a guard, which reach the implementation with
    the simplest results (a long text, a page) and each declared error in turn; how many
    were sent."""
    model = caller.judge.model
    base = _simplest(values_for(contract_schema))
    if isinstance(base, dict):
        base.update(
            {
                name: values[0]
                for name, values in model.good.items()
                if name in base and values
            }
        )
    swept = sweep(contract_schema, base, context_keys=context_keys, probes=model.probes)
    turns = [
        *outcomes.swept,
        *(ToolError(code, detail="sample") for code in sorted(errors)),
    ]
    for index, case in enumerate(swept):
        caller.one_call(case, turns[index % len(turns)])
    return len(swept)


_Round = tuple[st.SearchStrategy[Case], st.SearchStrategy[Any], int]


def _rounds(
    cases: Mapping[str, st.SearchStrategy[Case]], outcomes: _Outcomes
) -> list[_Round]:
    """The kinds of case, each with the outcomes it meets and its weight in the budget."""
    results, raised = outcomes.results, outcomes.raised
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
    fake = _Fake(model.pagination)
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
    outcomes = _outcomes(judge.result_type, errors, model)
    rounds = _rounds(cases, outcomes)
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
        report.swept = _sweep(caller, contract_schema, outcomes, errors, context_keys)
        for round_ in rounds:
            examples = max(1, -(-max_examples * round_[2] // weights))
            _run_round(caller, round_, examples, seed)
    finally:
        caller.loop.close()
    return report
