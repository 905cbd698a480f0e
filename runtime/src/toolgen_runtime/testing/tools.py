"""The suites of one generated tool: `ToolContract`, which every tool's test class
subclasses, and one more per protocol a tool keeps (idempotency by key, confirmation by token,
a prepare tool, approval)."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar

from agents import Agent, FunctionTool
from agents.items import ToolCallOutputItem
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import ScriptedModel, assistant_message, function_call

from toolgen_runtime.confirm import TOKEN_CHARS
from toolgen_runtime.errors import ToolError
from toolgen_runtime.guards.scope import Boundaries
from toolgen_runtime.output import TRUNCATED_KEY
from toolgen_runtime.pagination import Page
from toolgen_runtime.testing.helpers import (
    PAGE_KEYS,
    Boundary,
    Case,
    ErrorCase,
    FixtureRequest,
    Metafunc,
    Recorder,
    boundaries_for_tests,
    build,
    changed,
    close_services,
    invoke,
    other_identity,
    problem_fields,
    run_agent,
    schema_keywords,
    services_for,
    skip,
    with_token,
)


class ToolContract:
    """The claims every generated tool keeps, run over the data of its test file.

    - its schema is its contract: the declared properties, every one required, no extra keys,
      already what the SDK's strict mode makes of it, without `title` or `default`;
    - each context field is not a parameter, and sending it is refused;
    - each accepted example reaches the implementation, typed, and the model reads the sample
      result exactly;
    - each rejected example and boundary case derived from the contract is refused on the field
      it names, and the implementation never runs;
    - each declared error reaches the model with its how-to-fix and whether to retry;
    - fuzzed near-valid and malformed arguments break none of these promises (with the
      `testing` extra installed; skipped, saying how to install it, without).
    """

    # not a ClassVar: mypy reads a module assigned in a class body as an instance variable
    module: ModuleType
    args_class: ClassVar[type]
    error_class: ClassVar[type[ToolError] | None] = None
    context: ClassVar[object]
    sample: ClassVar[object]
    sample_json: ClassVar[dict[str, Any]]
    properties: ClassVar[Sequence[str]]
    context_fields: ClassVar[Sequence[str]] = ()
    accepted: ClassVar[Sequence[dict[str, Any]]]
    # rejected, boundary and files: the types the generated tests annotate them with, as
    # pyright holds a class variable's type in a subclass to exactly its base's
    rejected: ClassVar[tuple[Case, ...]] = ()
    boundary: ClassVar[tuple[Boundary, ...]] = ()
    errors: ClassVar[Sequence[ErrorCase]] = ()
    # a tool with guarded arguments or pages: its calls need boundaries; `files` are the
    # files its accepted examples name, by root, `hosts` the hosts each list of hosts names
    guarded: ClassVar[bool] = False
    files: ClassVar[dict[str, tuple[str, ...]]] = {}
    hosts: ClassVar[dict[str, tuple[str, ...]]] = {}
    paginated: ClassVar[bool] = False
    _boundaries: ClassVar[Boundaries | None] = None
    # `tests: {implementation: true}` of the spec: the accepted examples also run through
    # the real implementation, with these pytest fixtures (the project's own)
    implementation_tested: ClassVar[bool] = False
    fixtures: ClassVar[Sequence[str]] = ()

    def teardown_method(self) -> None:
        close_services()

    @classmethod
    def boundaries(cls) -> Boundaries:
        if cls.__dict__.get("_boundaries") is None:
            cls._boundaries = boundaries_for_tests(cls.files, cls.hosts)
        assert cls._boundaries is not None
        return cls._boundaries

    @classmethod
    def build(
        cls, implementation: object = None, services: Mapping[str, Any] | None = None
    ) -> FunctionTool:
        """The tool of the module, with the test boundaries and the services (store,
        signer) it needs."""
        keywords = dict(services or {})
        if cls.guarded:
            keywords["boundaries"] = cls.boundaries()
        return build(cls.module, implementation, keywords)

    @classmethod
    def answer(cls) -> dict[str, Any]:
        """What the model reads for the sample result."""
        if not cls.paginated:
            return {"ok": True, **cls.sample_json}
        assert isinstance(cls.sample, Page)
        return {
            "ok": True,
            "items": [cls.sample_json],
            "shown": 1,
            "total_available": cls.sample.total,
            "next_cursor": None,
            "note": cls.sample_note,
        }

    sample_note: ClassVar[str] = "Showing the only result."
    # the argument schema with every constraint, when the strict one leaves some out
    contract: ClassVar[dict[str, Any] | None] = None
    # writes (issue 9): an accepted call with the same key and other arguments
    conflicting: ClassVar[dict[str, Any] | None] = None

    def pytest_generate_tests(self, metafunc: Metafunc) -> None:
        suite = metafunc.cls
        assert suite is not None and issubclass(suite, ToolContract)
        if "accepted_args" in metafunc.fixturenames:
            ids = [f"example {i + 1}" for i in range(len(suite.accepted))]
            metafunc.parametrize("accepted_args", suite.accepted, ids=ids)
        if "rejected_case" in metafunc.fixturenames:
            base = suite.accepted[0] if suite.accepted else {}
            cases = [
                *suite.rejected,
                *(
                    (label, changed(base, path, value), path)
                    for label, path, value in suite.boundary
                ),
            ]
            metafunc.parametrize(
                "rejected_case", cases, ids=[case[0] for case in cases]
            )

    def _tool(self, recorder: Recorder) -> FunctionTool:
        return self.build(recorder, services_for(self.module))

    def _accepted_call(
        self, recorder: Recorder, args: dict[str, Any]
    ) -> tuple[FunctionTool, dict[str, Any]]:
        """A tool and the arguments of an accepted call (with a token, for a confirm tool)."""
        services = services_for(self.module)
        tool = self.build(recorder, services)
        return tool, with_token(self.module, args, self.context, services)

    def test_the_schema_is_the_contract(self) -> None:
        tool = self.build()
        parameters = self.module.PARAMETERS
        assert tool.name == self.module.NAME
        assert tool.params_json_schema == parameters
        assert tool.strict_json_schema
        assert sorted(parameters["properties"]) == list(self.properties)
        assert parameters["required"] == list(parameters["properties"])
        assert parameters["additionalProperties"] is False

    def test_the_schema_is_already_strict_and_has_no_noise(self) -> None:
        parameters = self.module.PARAMETERS
        assert ensure_strict_json_schema(copy.deepcopy(parameters)) == parameters
        assert {"title", "default"}.isdisjoint(schema_keywords(parameters))

    def test_context_fields_are_not_parameters(self) -> None:
        for name in self.context_fields:
            assert name not in self.module.PARAMETERS["properties"], name
            recorder = Recorder(self.sample)
            out = invoke(
                self._tool(recorder), {**self.accepted[0], name: 1}, self.context
            )
            assert out["error"] == "invalid_arguments", (name, out)
            assert name in problem_fields(out), (name, out)
            assert recorder.calls == [], name
        if not self.context_fields:
            assert not hasattr(self.module, "tool_context")

    def test_an_accepted_example_reaches_the_implementation(
        self, accepted_args: dict[str, Any]
    ) -> None:
        recorder = Recorder(self.sample)
        tool, args = self._accepted_call(recorder, accepted_args)
        out = invoke(tool, args, self.context)
        assert out == self.answer()
        assert len(recorder.calls) == 1
        call = recorder.calls[0]
        assert isinstance(call.args, self.args_class)
        if self.context_fields:
            assert call.context == self.module.tool_context(self.context)

    def test_a_rejected_case_fails_on_its_field(self, rejected_case: Case) -> None:
        label, args, field = rejected_case
        recorder = Recorder(self.sample)
        out = invoke(self._tool(recorder), args, self.context)
        assert out["ok"] is False, label
        assert out["error"] == "invalid_arguments"
        assert field in problem_fields(out), out["problems"]
        assert out["how_to_fix"]
        assert recorder.calls == []

    def test_each_declared_error_becomes_its_envelope(self) -> None:
        assert sorted(self.module.ERRORS) == sorted(code for code, _, _ in self.errors)
        for code, how_to_fix, retryable in self.errors:
            assert self.error_class is not None
            recorder = Recorder(error=self.error_class(code, detail="sample"))
            tool, args = self._accepted_call(recorder, self.accepted[0])
            out = invoke(tool, args, self.context)
            assert out == {
                "ok": False,
                "error": code,
                "how_to_fix": how_to_fix,
                "retryable": retryable,
                "detail": "sample",
            }, code

    def test_the_implementation_keeps_the_contract(
        self, accepted_args: dict[str, Any], request: FixtureRequest
    ) -> None:
        """The accepted example through the real implementation, with the fixtures the spec
        names: the answer keeps the contract. A stub fails (`NotImplementedYet`); with
        `tests.implementation` off the test is skipped, saying that nothing ran it."""
        if not self.implementation_tested:
            skip(
                f"{self.module.NAME} is untested: tests.implementation is off, so no "
                "generated test runs its implementation, written or still the stub; turn "
                "it on with tests: {implementation: true} in catalogue.yaml or the tool's "
                "file (Generated tests in toolgen's docs/spec.md)"
            )
        for name in self.fixtures:
            request.getfixturevalue(name)
        services = services_for(self.module)
        args = with_token(self.module, accepted_args, self.context, services)
        self.assert_keeps_contract(
            invoke(self.build(None, services), args, self.context)
        )

    def assert_keeps_contract(self, out: dict[str, Any]) -> None:
        """`out` is what the contract allows: `ok` with exactly the declared fields (for a
        page, each item has exactly them), or a declared error with its how-to-fix; a text
        the output contract cut is listed in `truncated`."""
        fields = set(self.sample_json)
        if out.get("ok") is True:
            keys = set(out) - {TRUNCATED_KEY}
            if self.paginated:
                assert keys == PAGE_KEYS, f"the page has {sorted(keys)}: {out}"
                for item in out["items"]:
                    assert set(item) == fields, f"an item has {sorted(item)}: {out}"
            else:
                assert keys == {"ok", *fields}, f"the answer has {sorted(keys)}: {out}"
            return
        assert out.get("ok") is False, out
        declared = self.module.ERRORS.get(out.get("error"))
        assert declared is not None, (
            f"not a declared error of {self.module.NAME}: {out}"
        )
        assert out["how_to_fix"] == declared.how_to_fix, out
        assert out["retryable"] is declared.retryable, out

    def test_fuzzing_finds_no_broken_promise(self) -> None:
        """A short property-based fuzz (`toolgen_runtime.fuzz`; TOOLGEN_FUZZ_EXAMPLES sets
        the budget): every answer is the envelope, the implementation never sees arguments
        outside the contract, no call raises or hangs. A guarded tool is fuzzed with the
        test boundaries (`files` under their roots), a token pair with its own store and
        signer (`fuzz_module`)."""
        try:
            from toolgen_runtime.fuzz import fuzz_module, unmodelled

            reason = unmodelled(self.module)
            if reason is not None:
                skip(reason)
            fuzz_module(
                self.module,
                context=self.context,
                contract_schema=self.contract or self.module.PARAMETERS,
                boundaries=self.boundaries() if self.guarded else None,
            )
        except ImportError as missing:
            import pytest

            pytest.skip(str(missing))


class IdempotentToolContract(ToolContract):
    """A tool idempotent by key also keeps: a repeat of a call does not run the
    implementation again and answers the first outcome, marked duplicate; the same key with
    other arguments is refused with idempotency_conflict, and runs nothing."""

    def test_a_repeat_returns_the_first_outcome(self) -> None:
        recorder = Recorder(self.sample)
        tool = self._tool(recorder)
        first = invoke(tool, self.accepted[0], self.context)
        again = invoke(tool, self.accepted[0], self.context)
        assert first == {"ok": True, **self.sample_json}
        assert again == {"ok": True, "duplicate": True, **self.sample_json}
        assert len(recorder.calls) == 1

    def test_the_same_key_with_other_arguments_is_refused(self) -> None:
        if self.conflicting is None:
            skip(
                "no two accepted examples differ in an argument outside the idempotency "
                "key: add one to test that the same key with other arguments is refused"
            )
        assert self.conflicting is not None
        recorder = Recorder(self.sample)
        tool = self._tool(recorder)
        invoke(tool, self.accepted[0], self.context)
        out = invoke(tool, self.conflicting, self.context)
        assert out["error"] == "idempotency_conflict", out
        assert out["retryable"] is False and "Nothing was done" in out["how_to_fix"]
        assert len(recorder.calls) == 1


class ConfirmToolContract(ToolContract):
    """A confirm tool also keeps: it acts only with a token its prepare tool issued for
    these arguments and this identity, once; a made-up, altered, replayed or other-identity
    token gets its own error and the implementation never runs."""

    def test_a_token_is_used_once(self) -> None:
        recorder = Recorder(self.sample)
        tool, args = self._accepted_call(recorder, self.accepted[0])
        assert invoke(tool, args, self.context)["ok"] is True
        replay = invoke(tool, args, self.context)
        assert replay["error"] == "token_used", replay
        assert len(recorder.calls) == 1

    def test_a_made_up_or_altered_token_is_refused(self) -> None:
        services = services_for(self.module)
        args = with_token(self.module, self.accepted[0], self.context, services)
        token = str(args["token"])
        middle = len(token) // 2
        altered = (
            token[:middle]
            + ("A" if token[middle] != "A" else "B")
            + token[middle + 1 :]
        )
        for made_up in ("tok_1f2e3d", altered, ""):
            recorder = Recorder(self.sample)
            out = invoke(
                self.build(recorder, services),
                {**args, "token": made_up},
                self.context,
            )
            assert out["error"] == "token_invalid", (made_up, out)
            assert recorder.calls == []

    def test_another_identity_cannot_use_the_token(self) -> None:
        services = services_for(self.module)
        args = with_token(self.module, self.accepted[0], self.context, services)
        other = other_identity(self.context, self.module.CONFIRMATION.identity)
        recorder = Recorder(self.sample)
        out = invoke(self.build(recorder, services), args, other)
        assert out["error"] == "token_other_identity", out
        assert recorder.calls == []

    def test_a_token_for_other_arguments_is_refused(self) -> None:
        others = [a for a in self.accepted if a != self.accepted[0]]
        if not others:
            skip(
                "the contract has one accepted example: add a second one to test that a "
                "token for other arguments is refused"
            )
        services = services_for(self.module)
        token = with_token(self.module, self.accepted[0], self.context, services)[
            "token"
        ]
        recorder = Recorder(self.sample)
        out = invoke(
            self.build(recorder, services),
            {**others[0], "token": token},
            self.context,
        )
        assert out["error"] == "token_mismatch", out
        assert recorder.calls == []


class PrepareToolContract(ToolContract):
    """A prepare tool has no implementation: an accepted call answers a summary and a token
    for its confirm tool, and changes nothing."""

    def test_an_accepted_example_reaches_the_implementation(
        self, accepted_args: dict[str, Any]
    ) -> None:
        confirmation = self.module.CONFIRMATION
        out = invoke(self._tool(Recorder()), accepted_args, self.context)
        assert out["ok"] is True, out
        assert sorted(out) == ["expires_in_s", "ok", "summary", "token"]
        assert out["summary"].startswith(confirmation.confirm_tool)
        assert out["expires_in_s"] == confirmation.ttl_s
        # a token's length does not depend on the tool's name or the arguments
        assert isinstance(out["token"], str) and len(out["token"]) == TOKEN_CHARS


class ApprovalToolContract(ToolContract):
    """A tool a person approves also keeps, through the real Runner: a valid call waits for
    approval and runs only once approved; a rejected one never runs and the model is told
    nothing was done; invalid arguments are answered at once, without asking anyone."""

    def _run(self, args: dict[str, Any], recorder: Recorder) -> Any:
        tool = self._tool(recorder)
        model = ScriptedModel(
            [
                [function_call(tool.name, args, call_id="call-1")],
                [assistant_message("done")],
            ]
        )
        agent: Agent[Any] = Agent(
            name="approval", instructions="", tools=[tool], model=model
        )
        return run_agent(agent, "go", self.context)

    def test_a_valid_call_waits_for_approval(self) -> None:
        from toolgen_runtime.approval import reject

        for approve in (True, False):
            recorder = Recorder(self.sample)
            first = self._run(self.accepted[0], recorder)
            assert [i.tool_name for i in first.interruptions] == [self.module.NAME]
            assert recorder.calls == []
            state = first.to_state()
            if approve:
                state.approve(first.interruptions[0])
            else:
                reject(state, first.interruptions[0])
            agent = first.last_agent
            result = run_agent(agent, state)
            outputs = [
                json.loads(str(item.output))
                for item in result.new_items
                if isinstance(item, ToolCallOutputItem)
            ]
            if approve:
                assert outputs == [{"ok": True, **self.sample_json}]
                assert len(recorder.calls) == 1
            else:
                assert outputs[0]["error"] == "not_approved", outputs
                assert outputs[0]["how_to_fix"].startswith("Nothing was done")
                assert recorder.calls == []

    def test_invalid_arguments_are_answered_without_asking(self) -> None:
        if not self.rejected:
            skip(
                "the contract has no rejected example: add one to test that invalid "
                "arguments are answered without asking for approval"
            )
        label, args, field = self.rejected[0]
        recorder = Recorder(self.sample)
        result = self._run(args, recorder)
        assert result.interruptions == [], label
        outputs = [
            json.loads(str(item.output))
            for item in result.new_items
            if isinstance(item, ToolCallOutputItem)
        ]
        assert outputs[0]["error"] == "invalid_arguments", outputs
        assert field in problem_fields(outputs[0]), outputs
        assert recorder.calls == []
