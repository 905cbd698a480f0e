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
import json
import secrets
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Protocol

from agents import Agent, FunctionTool, RunConfig, Runner, Tool
from agents.items import ToolCallOutputItem
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from toolgen_runtime.errors import ToolError
from toolgen_runtime.guards.scope import Boundaries
from toolgen_runtime.pagination import Page
from toolgen_runtime.signing import Signer


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
    def build(cls, implementation: object = None) -> FunctionTool:
        """The tool of the module, with the test boundaries when it needs them."""
        if cls.guarded:
            tool: FunctionTool = cls.module.build_tool(
                implementation, boundaries=cls.boundaries()
            )
        else:
            tool = cls.module.build_tool(implementation)
        return tool

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
        return self.build(recorder)

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
        out = invoke(self._tool(recorder), accepted_args, self.context)
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
            out = invoke(self._tool(recorder), self.accepted[0], self.context)
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
        if self.guarded:
            import pytest

            pytest.skip(
                "the fuzzer does not model guarded arguments (paths, URLs, cursors) or "
                "pages yet; the guard suites and the boundary cases above cover this tool"
            )
        try:
            from toolgen_runtime.fuzz import fuzz_module

            fuzz_module(
                self.module,
                context=self.context,
                contract_schema=self.contract or self.module.PARAMETERS,
            )
        except ImportError as missing:
            import pytest

            pytest.skip(str(missing))


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
        fakes = [Recorder(sample) for _, sample, _ in self.calls]
        tools: list[Tool] = [
            suite.build(fake) for suite, fake in zip(self.tools, fakes, strict=True)
        ]
        script = [
            function_call(module.NAME, args, call_id=f"call-{index}")
            for index, (module, _, args) in enumerate(self.calls)
        ]
        model = ScriptedModel([script, [assistant_message("done")]])
        agent: Agent[Any] = Agent(
            name=self.package.__name__.rsplit(".", 1)[-1],
            instructions="Use the tools.",
            tools=tools,
            model=model,
        )
        result = Runner.run_sync(
            agent,
            "Exercise every tool once.",
            context=self.context,
            run_config=RunConfig(tracing_disabled=True),
        )
        outputs = [
            json.loads(str(item.output))
            for item in result.new_items
            if isinstance(item, ToolCallOutputItem)
        ]
        assert len(outputs) == len(script)
        assert all(out["ok"] is True for out in outputs), outputs
        assert all(len(fake.calls) == 1 for fake in fakes)
        assert result.final_output == "done"
