"""The suites that run every generated catalogue's tests, and the helpers they use.

A generated test file holds its tool's cases as data, in a subclass of `ToolContract` (and one
of `CatalogueContract` per catalogue); the suites here run them, parametrized by pytest with the
case's label, so a failure names the tool (the class), the case and the field. A fix to a suite
fixes the tests of every catalogue at once. The helpers (a recording fake implementation,
direct invocation) serve hand-written tests as well.

pytest collects the suites through the subclasses; this module does not import pytest.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import importlib
import json
import secrets
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, NoReturn, Protocol

from agents import Agent, FunctionTool, RunConfig, Runner, Tool
from agents.items import ToolCallOutputItem
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from toolgen_runtime.errors import ToolError
from toolgen_runtime.guards.scope import Boundaries
from toolgen_runtime.pagination import Page
from toolgen_runtime.signing import Signer
from toolgen_runtime.store import open_store


@dataclass(frozen=True, slots=True)
class Call:
    args: Any
    context: Any


class Recorder:
    """A fake implementation: records each call, then returns `result` or raises `error`."""

    def __init__(
        self, result: object = None, *, error: BaseException | None = None
    ) -> None:
        self.result = result
        self.error = error
        self.calls: list[Call] = []

    def __call__(self, args: Any, context: Any = None) -> Any:
        self.calls.append(Call(args, context))
        if self.error is not None:
            raise self.error
        return self.result


def invoke_raw(tool: FunctionTool, raw_json: str, context: object) -> Any:
    """Call a tool the way the SDK does, with raw argument text; returns the parsed output."""
    ctx = ToolContext(
        context=context,
        tool_name=tool.name,
        tool_call_id="call-test",
        tool_arguments=raw_json,
    )

    async def call() -> Any:
        return await tool.on_invoke_tool(ctx, raw_json)

    return json.loads(asyncio.run(call()))


def invoke(tool: FunctionTool, args: object, context: object) -> Any:
    return invoke_raw(tool, json.dumps(args), context)


def problem_fields(output: dict[str, Any]) -> list[str]:
    return [str(problem["field"]) for problem in output.get("problems", [])]


def schema_keywords(schema: object) -> set[str]:
    """Every keyword used anywhere in a JSON Schema (property names are not keywords)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.add(key)
                if key == "properties" and isinstance(value, dict):
                    stack.extend(value.values())
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return found


class _Metafunc(Protocol):
    """The part of pytest's Metafunc the suites use."""

    @property
    def fixturenames(self) -> list[str]: ...
    @property
    def cls(self) -> type | None: ...
    def parametrize(
        self, argnames: str, argvalues: Sequence[object], *, ids: Sequence[str]
    ) -> None: ...


Case = tuple[
    str, dict[str, Any], str
]  # label, arguments, the field that must be blamed
ErrorCase = tuple[str, str, bool]  # code, how_to_fix, retryable
# label, the dotted path of the one field changed in the first accepted example, its value
Boundary = tuple[str, str, object]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A boundary case's value for a field left out of the arguments."""


def changed(base: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """A deep copy of `base` with the field at the dotted `path` set to `value` (or left
    out, for `MISSING`); a number in the path is an index into an array (`lines.0.sku`), and
    the index one past its end adds an item (`tags.0` of an empty `tags`)."""
    result = copy.deepcopy(base)
    node: Any = result
    *parents, last = path.split(".")
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is MISSING:
        node.pop(last, None)
    elif isinstance(node, list):
        index = int(last)
        # one past the end of an (empty) array adds the item
        node[index : index + 1] = [value]
    else:
        node[last] = value
    return result


def boundaries_for_tests(files: Mapping[str, Sequence[str]]) -> Boundaries:
    """Boundaries for tests: a new folder per root holding the named files (each a line of
    text), and a cursor signer with a random secret of this process."""
    roots: dict[str, Path] = {}
    for root, names in files.items():
        folder = Path(tempfile.mkdtemp(prefix=f"toolgen-{root}-"))
        for name in names:
            target = folder.joinpath(*name.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"sample {name}\n", encoding="utf-8")
        roots[root] = folder
    signer = Signer([secrets.token_bytes(32)], "cursor")
    return Boundaries(roots=roots, cursor_signer=signer)


# --- writes: the services a write tool is built with in tests (issue 9) --------------------

_STORES = tempfile.TemporaryDirectory(prefix="toolgen-contract-")


def services_for(module: ModuleType) -> dict[str, Any]:
    """A fresh store (an empty SQLite file) and a signer with a random secret, for a tool
    idempotent by key or confirmed by token; nothing for any other tool."""
    if not (hasattr(module, "IDEMPOTENCY") or hasattr(module, "CONFIRMATION")):
        return {}
    url = f"sqlite:///{Path(_STORES.name) / uuid.uuid4().hex}.db"
    return {
        "store": open_store(url),
        "signer": Signer([secrets.token_bytes(32)], "confirm"),
    }


def build(
    module: ModuleType, implementation: object, services: dict[str, Any]
) -> FunctionTool:
    """A tool of `module` with a fake implementation (none for a prepare tool)."""
    confirmation = getattr(module, "CONFIRMATION", None)
    if confirmation is not None and confirmation.role == "prepare":
        tool: FunctionTool = module.build_tool(**services)
    else:
        tool = module.build_tool(implementation, **services)
    return tool


def prepare_module(module: ModuleType) -> ModuleType:
    """The prepare tool's module of a confirm tool's module (a sibling in its package)."""
    name = module.CONFIRMATION.prepare_tool
    return importlib.import_module(f"{module.__package__}.{name}")


def with_token(
    module: ModuleType, args: dict[str, Any], context: object, services: dict[str, Any]
) -> dict[str, Any]:
    """`args` of a confirm tool with the token its prepare tool returns for them, through
    the prepare tool itself (same store and signer); other tools' args unchanged."""
    confirmation = getattr(module, "CONFIRMATION", None)
    if confirmation is None or confirmation.role != "confirm":
        return args
    prepared = invoke(prepare_module(module).build_tool(**services), args, context)
    assert prepared["ok"] is True, prepared
    return {**args, "token": prepared["token"]}


def other_identity(context: object, fields: Sequence[tuple[str, str]]) -> object:
    """The run context with its first identity field changed: another user or session."""
    _, attribute = fields[0]
    value = getattr(context, attribute)
    other = value + 1 if isinstance(value, int) else f"{value}-other"
    return dataclasses.replace(context, **{attribute: other})  # type: ignore[type-var]


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
    rejected: ClassVar[Sequence[Case]] = ()
    boundary: ClassVar[Sequence[Boundary]] = ()
    errors: ClassVar[Sequence[ErrorCase]] = ()
    # a tool with guarded arguments or pages: its calls need boundaries; `files` are the
    # files its accepted examples name, by root
    guarded: ClassVar[bool] = False
    files: ClassVar[Mapping[str, Sequence[str]]] = {}
    paginated: ClassVar[bool] = False
    _boundaries: ClassVar[Boundaries | None] = None

    @classmethod
    def boundaries(cls) -> Boundaries:
        if cls.__dict__.get("_boundaries") is None:
            cls._boundaries = boundaries_for_tests(cls.files)
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

    def pytest_generate_tests(self, metafunc: _Metafunc) -> None:
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

    def test_fuzzing_finds_no_broken_promise(self) -> None:
        """A short property-based fuzz (`toolgen_runtime.fuzz`; TOOLGEN_FUZZ_EXAMPLES sets
        the budget): every answer is the envelope, the implementation never sees arguments
        outside the contract, no call raises or hangs."""
        try:
            from toolgen_runtime.fuzz import fuzz_module, unmodelled

            reason = unmodelled(self.module)
            if reason is not None:
                _skip(reason)
            fuzz_module(
                self.module,
                context=self.context,
                contract_schema=self.contract or self.module.PARAMETERS,
            )
        except ImportError as missing:
            import pytest

            pytest.skip(str(missing))


def _skip(reason: str) -> NoReturn:
    """Skip the running test, saying what the contract lacks (pytest is imported only here:
    this module does not need it otherwise)."""
    import pytest

    pytest.skip(reason)


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
            _skip(
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

    def _refused(self, args: dict[str, Any], context: object, code: str) -> None:
        recorder = Recorder(self.sample)
        out = invoke(self._tool(recorder), args, context)
        assert out["ok"] is False and out["error"] == code, (code, out)
        assert out["how_to_fix"].startswith("Nothing was done"), out
        assert recorder.calls == [], code

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
            _skip(
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
        assert isinstance(out["token"], str) and len(out["token"]) < 200


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
        return Runner.run_sync(
            agent,
            "go",
            context=self.context,
            run_config=RunConfig(tracing_disabled=True),
        )

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
            result = Runner.run_sync(
                agent, state, run_config=RunConfig(tracing_disabled=True)
            )
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
            _skip(
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


class CatalogueContract:
    """The claims every generated catalogue keeps: every tool listed once and found by name,
    cheap tools made from the cards answer as the tools' own modules do, and one run of the
    real Agents SDK Runner calls every tool (with recording fakes) through a scripted model.
    """

    package: ModuleType  # not a ClassVar, as ToolContract.module
    context: ClassVar[object]
    names: ClassVar[Sequence[str]]
    # the ToolContract of each tool: its module, a sample result, its accepted examples
    tools: ClassVar[Sequence[type[ToolContract]]]

    @property
    def calls(self) -> list[tuple[ModuleType, object, dict[str, Any]]]:
        return [(t.module, t.sample, t.accepted[0]) for t in self.tools]

    def test_the_catalogue_lists_every_tool_once(self) -> None:
        assert sorted(self.package.TOOL_NAMES) == list(self.names)
        assert [tool.name for tool in self.package.all_tools()] == list(
            self.package.TOOL_NAMES
        )

    def test_tools_are_found_by_name(self) -> None:
        wanted = list(reversed(self.package.TOOL_NAMES))
        assert [tool.name for tool in self.package.tools(*wanted)] == wanted
        try:
            self.package.tools("not_a_tool")
        except KeyError as exc:
            assert "no tool named not_a_tool" in str(exc)
        else:
            raise AssertionError("tools() accepted an unknown name")

    def test_a_tool_from_its_card_is_its_module_tool(self) -> None:
        for module, _, _ in self.calls:
            [light] = self.package.tools(module.NAME)
            own = module.TOOL
            assert (light.name, light.description, light.params_json_schema) == (
                own.name,
                own.description,
                own.params_json_schema,
            )
            # a call the contract refuses: answered by the tool's module, loaded now
            out = invoke(light, {"not_a_parameter": 1}, self.context)
            assert out["error"] == "invalid_arguments", out

    def test_one_run_calls_every_tool_through_the_runner(self) -> None:
        # one store and signer for the run, so a confirm call can use its prepare's token;
        # every approval asked for is granted
        services: dict[str, Any] = {}
        for module, _, _ in self.calls:
            services = services or services_for(module)
        fakes = [Recorder(sample) for _, sample, _ in self.calls]
        tools: list[Tool] = [
            suite.build(fake, services if services_for_needed(suite.module) else {})
            for suite, fake in zip(self.tools, fakes, strict=True)
        ]
        script = [
            function_call(
                module.NAME,
                with_token(module, args, self.context, services),
                call_id=f"call-{index}",
            )
            for index, (module, _, args) in enumerate(self.calls)
        ]
        model = ScriptedModel([script, [assistant_message("done")]])
        agent: Agent[Any] = Agent(
            name=self.package.__name__.rsplit(".", 1)[-1],
            instructions="Use the tools.",
            tools=tools,
            model=model,
        )
        config = RunConfig(tracing_disabled=True)
        result = Runner.run_sync(
            agent, "Exercise every tool once.", context=self.context, run_config=config
        )
        while result.interruptions:
            state = result.to_state()
            for item in result.interruptions:
                state.approve(item)
            result = Runner.run_sync(agent, state, run_config=config)
        outputs = [
            json.loads(str(item.output))
            for item in result.new_items
            if isinstance(item, ToolCallOutputItem)
        ]
        assert len(outputs) == len(script)
        assert all(out["ok"] is True for out in outputs), outputs
        assert all(
            len(fake.calls) == (0 if is_prepare(module) else 1)
            for (module, _, _), fake in zip(self.calls, fakes, strict=True)
        )
        assert result.final_output == "done"


def services_for_needed(module: ModuleType) -> bool:
    return hasattr(module, "IDEMPOTENCY") or hasattr(module, "CONFIRMATION")


def is_prepare(module: ModuleType) -> bool:
    confirmation = getattr(module, "CONFIRMATION", None)
    return confirmation is not None and confirmation.role == "prepare"
