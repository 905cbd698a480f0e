"""The suite of a generated catalogue as a whole: `CatalogueContract`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import ModuleType
from typing import Any, ClassVar

from agents import Agent, Tool
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call

from toolgen_runtime.testing.helpers import (
    Recorder,
    close_services,
    invoke,
    is_prepare,
    run_agent,
    services_for,
    services_for_needed,
    with_token,
)
from toolgen_runtime.testing.tools import ToolContract


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

    def teardown_method(self) -> None:
        close_services()

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
        result = run_agent(agent, "Exercise every tool once.", self.context)
        while result.interruptions:
            state = result.to_state()
            for item in result.interruptions:
                state.approve(item)
            result = run_agent(agent, state)
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
