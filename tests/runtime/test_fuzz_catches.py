"""The fuzzer fails on planted bugs: each is a real way a tool can break its contract.

Every case builds `create_reorder` again around its real contract, result class and errors,
with one thing changed (a lax argument model, a Python-flavoured pattern, an over-strict
bound, an envelope that loses its problems...), and expects `FuzzFailure` with a message that
names the broken promise. The unchanged tool passes, so each failure comes from its bug.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from agents import FunctionTool
from agents.tool_context import ToolContext
from pydantic import BaseModel, ConfigDict, Field, field_validator
from toolgen_runtime import Invoker, make_tool, null_means
from toolgen_runtime.fuzz import FuzzFailure, fuzz_tool

from generated.inventory import InventoryContext, create_reorder
from toolgen.build import pipeline
from toolgen.spec.toolschema import parameters_schema

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = InventoryContext(customer_id=1, run_id="run-1")
_TOOL = next(
    t
    for t in pipeline.check_catalogue(ROOT / "spec" / "inventory", ROOT).catalogue.tools  # type: ignore[union-attr]
    if t.name == "create_reorder"
)
CONTRACT = parameters_schema(_TOOL.params, full=True)
_CONFIG = ConfigDict(extra="forbid", strict=True, frozen=True, regex_engine="python-re")
SKU = Annotated[str, Field(pattern="(?a)^SKU-\\d{2,6}\\Z")]
QUANTITY = Annotated[int, Field(ge=1, le=1000)]
URGENCY = Annotated[Literal["standard", "urgent"], null_means("standard")]


def _builder(
    args_model: type[BaseModel], invoker_class: type[Invoker[Any, Any, Any]] = Invoker
) -> Callable[[Any], FunctionTool]:
    def build(implementation: Any) -> FunctionTool:
        invoker = invoker_class(
            tool_name="create_reorder",
            args_model=args_model,
            result_type=create_reorder.CreateReorderResult,
            errors=create_reorder.ERRORS,
            load_implementation=lambda: implementation,
            catalogue_context=InventoryContext,
            build_context=create_reorder.tool_context,
            schema=create_reorder.PARAMETERS,
            examples=create_reorder.EXAMPLES,
        )
        return make_tool(
            name="create_reorder",
            description="",
            parameters=create_reorder.PARAMETERS,
            invoker=invoker,
        )

    return build


def _fuzz(build: Callable[[Any], FunctionTool], **options: Any) -> None:
    fuzz_tool(
        build,
        CONTRACT,
        context=CONTEXT,
        errors=create_reorder.ERRORS,
        max_examples=options.pop("max_examples", 100),
        **options,
    )


class Lax(BaseModel):  # pydantic's default: "5" and 5.0 become 5
    model_config = ConfigDict(extra="forbid", frozen=True, regex_engine="python-re")
    sku: SKU
    quantity: QUANTITY
    urgency: URGENCY


class PythonPattern(BaseModel):  # `$` before a final newline, `\d` any Unicode digit
    model_config = _CONFIG
    sku: Annotated[str, Field(pattern="^SKU-\\d{2,6}$")]
    quantity: QUANTITY
    urgency: URGENCY


class IgnoresExtra(BaseModel):
    model_config = ConfigDict(
        strict=True, frozen=True, extra="ignore", regex_engine="python-re"
    )
    sku: SKU
    quantity: QUANTITY
    urgency: URGENCY


class TooNarrow(BaseModel):  # the contract allows 1000
    model_config = _CONFIG
    sku: SKU
    quantity: Annotated[int, Field(ge=1, le=999)]
    urgency: URGENCY


class Crashes(BaseModel):
    model_config = _CONFIG
    sku: SKU
    quantity: QUANTITY
    urgency: URGENCY

    @field_validator("quantity")
    @classmethod
    def _look_up(cls, value: int) -> int:
        if value > 500:
            raise KeyError(value)  # not a ValueError: pydantic lets it out
        return value


class Slow(BaseModel):
    model_config = _CONFIG
    sku: SKU
    quantity: QUANTITY
    urgency: URGENCY

    @field_validator("urgency")
    @classmethod
    def _wait(cls, value: str) -> str:
        if value == "urgent":
            time.sleep(0.12)
        return value


class Strict(BaseModel):
    model_config = _CONFIG
    sku: SKU
    quantity: QUANTITY
    urgency: URGENCY


class _Rewriting(Invoker[Any, Any, Any]):
    """An invoker whose answers are edited on their way out."""

    edit: Callable[[str], str] = staticmethod(lambda text: text)

    async def __call__(self, ctx: ToolContext[Any], raw_json: str) -> str:
        return type(self).edit(await super().__call__(ctx, raw_json))


class LosesProblems(_Rewriting):
    edit = staticmethod(lambda text: text.replace('"problems":', '"issues":'))


class BlamesTheWrongField(_Rewriting):
    edit = staticmethod(
        lambda text: text.replace('"field":"quantity"', '"field":"sku"')
    )


class LeaksAField(_Rewriting):
    edit = staticmethod(
        lambda text: text.replace('{"ok":true,', '{"ok":true,"debug":1,', 1)
    )


class ForgetsRetryable(_Rewriting):
    edit = staticmethod(lambda text: text.replace(',"retryable":false', "", 1))


def test_the_unchanged_tool_passes() -> None:
    _fuzz(_builder(Strict))


@pytest.mark.parametrize(
    ("args_model", "invoker_class", "message"),
    [
        (
            Lax,
            Invoker,
            "received other values than the model sent|accepted arguments the",
        ),
        (PythonPattern, Invoker, "received arguments that break the contract"),
        (IgnoresExtra, Invoker, "received other values than the model sent"),
        (TooNarrow, Invoker, "rejected arguments the contract allows"),
        (Crashes, Invoker, "raised KeyError"),
        (Strict, LosesProblems, "a malformed invalid-arguments envelope"),
        (Strict, BlamesTheWrongField, "the rejection names"),
        (Strict, LeaksAField, "a success must hold ok and exactly"),
        (Strict, ForgetsRetryable, "the declared error's envelope should be"),
    ],
    ids=[
        "lax-types",
        "python-pattern",
        "ignores-extra-keys",
        "too-narrow",
        "crashes",
        "loses-problems",
        "blames-the-wrong-field",
        "leaks-a-field",
        "forgets-retryable",
    ],
)
def test_a_planted_bug_fails_the_fuzz(
    args_model: type[BaseModel],
    invoker_class: type[Invoker[Any, Any, Any]],
    message: str,
) -> None:
    with pytest.raises(FuzzFailure, match=message) as failure:
        _fuzz(_builder(args_model, invoker_class))
    assert "arguments: " in str(failure.value)  # the case is shown, to reproduce it


def test_a_slow_call_fails_with_the_case_that_was_slow() -> None:
    with pytest.raises(
        FuzzFailure, match=r"took 0\.\d+ s, over the bound of 0.1 s"
    ) as slow:
        _fuzz(_builder(Slow), deadline=0.1, max_examples=30)
    assert '"urgent"' in str(slow.value)


_BACKTRACKING = """
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from toolgen_runtime import Invoker, make_tool, result_class
from toolgen_runtime.fuzz import fuzz_tool

CONTRACT = {
    "type": "object",
    "properties": {"word": {"type": "string", "pattern": "^(a+)+$"}},
    "required": ["word"],
    "additionalProperties": False,
}


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, regex_engine="python-re")
    word: Annotated[str, Field(pattern="(?a)^(a+)+\\\\Z")]


@result_class
class Done:
    done: bool


def build(implementation):
    invoker = Invoker(
        tool_name="spell", args_model=Args, result_type=Done, errors={},
        load_implementation=lambda: implementation,
    )
    return make_tool(name="spell", description="", parameters=CONTRACT, invoker=invoker)


fuzz_tool(build, CONTRACT, context=None, max_examples=200, deadline=0.5, hang_after=5)
"""


def test_a_backtracking_pattern_fails_the_fuzz_or_ends_the_process() -> None:
    # `^(a+)+$` on a long run of a's and one other character takes Python's re seconds at
    # 25 characters and years at 40: the first is a slow call, the second never returns,
    # and only faulthandler's watchdog (hang_after) can end it, with every traceback.
    done = subprocess.run(
        [sys.executable, "-c", _BACKTRACKING],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "near-match" in said or "Timeout (0:00:05)!" in said, said[-3000:]
    # the slow call, or the watchdog's traceback stuck in validating the arguments (which a
    # busy machine reaches first: the slow call then takes over the watchdog's 5 s)
    stuck = "validate_json" in said or "toolgen_runtime/arguments.py" in said
    assert "over the bound of 0.5 s" in said or stuck, said[-3000:]
    if not stuck:  # the slow call says why, and how to write the pattern
        assert "the pattern of word backtracks" in said, said[-3000:]
        assert "^(a+)+$ as ^a+$" in said, said[-3000:]
