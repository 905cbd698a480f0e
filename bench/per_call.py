"""Per-call cost of a generated tool against the Agents SDK's own `@function_tool`, in one run.

Run: .venv/bin/python bench/per_call.py [--quick]

Every figure is a ratio to a baseline measured in the same run, so results from a noisy, shared
machine can still be compared. What is measured:

- valid call: `create_reorder` with a trivial body, called as the SDK calls a tool
  (`await tool.on_invoke_tool(ctx, raw_json)`). The body returns a prebuilt result and does
  nothing else, the same for both tools. Overhead is the time of one call minus the time of
  awaiting the body directly with already-parsed arguments (measured the same way), so it is
  what the tool machinery adds: parsing, validation, the duplicate-key check, building the
  context, calling, checking and serialising the result. toolgen answers with a JSON text;
  the decorator returns the body's dict, which the SDK turns into text later (not counted).
- invalid call: the same tools with three invalid fields; no body runs, so the whole call is
  overhead. toolgen answers with its envelope, the decorator with its fixed error text.
- sync body: the valid call with a plain `def` body, which both run in a worker thread.
- concurrency: 20 concurrent calls of a sync body that sleeps 50 ms, against 20 plain threads
  that each sleep 50 ms (started and joined), and against the decorator's sync tool.
- duplicate keys: the check a valid call goes through, for a text that counting colons
  clears and for one whose strings hold colons (then the exact check runs), against
  validating the same text.
- bounded answers: calls with 100,000 extra keys, with a key of 0.9 MB, and with a value of
  10 MB (longer than the arguments may be), against `json.loads` of the same text.
- import cost: what `import toolgen_runtime` adds once the SDK and pydantic are imported
  (generated code imports both anyway), against importing the SDK.

Timings are medians over batches of calls; the variants take turns batch by batch, so a burst
of load from elsewhere on the machine hits all of them alike.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents import RunContextWrapper, function_tool  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402
from pydantic import AwareDatetime, BaseModel, ConfigDict  # noqa: E402
from toolgen_runtime.duplicates import may_repeat_keys  # noqa: E402

from generated.inventory import InventoryContext, create_reorder  # noqa: E402

# the decorator logs every failed call it turns into text; that is not what is measured
logging.getLogger("openai.agents").setLevel(logging.CRITICAL)

QUICK = "--quick" in sys.argv
ROUNDS = 30 if QUICK else 200
BATCH = 100
SLEEP_S = 0.05
CONCURRENT = 20

RUN = InventoryContext(customer_id=1, run_id="run-1")
VALID = '{"sku": "SKU-11", "quantity": 5, "urgency": null}'
INVALID = '{"sku": "sku-11", "quantity": 0, "urgency": "asap"}'

RESULT = create_reorder.CreateReorderResult(
    proposal_id="RP-000001",
    sku="SKU-11",
    quantity_units=5,
    urgency="standard",
    created=True,
)
RESULT_DICT = {
    "proposal_id": "RP-000001",
    "sku": "SKU-11",
    "quantity_units": 5,
    "urgency": "standard",
    "created": True,
}


def tool_context(raw: str) -> ToolContext[Any]:
    return ToolContext(
        context=RUN, tool_name="create_reorder", tool_call_id="c1", tool_arguments=raw
    )


# --- the two bodies, identical in what they do --------------------------------------------


async def toolgen_body(
    args: create_reorder.CreateReorderArgs, context: create_reorder.CreateReorderContext
) -> create_reorder.CreateReorderResult:
    return RESULT


def toolgen_sync_body(
    args: create_reorder.CreateReorderArgs, context: create_reorder.CreateReorderContext
) -> create_reorder.CreateReorderResult:
    return RESULT


def toolgen_sleeping_body(
    args: create_reorder.CreateReorderArgs, context: create_reorder.CreateReorderContext
) -> create_reorder.CreateReorderResult:
    time.sleep(SLEEP_S)
    return RESULT


Urgency = Literal["standard", "urgent"] | None


async def sdk_body(
    ctx: RunContextWrapper[InventoryContext], sku: str, quantity: int, urgency: Urgency
) -> dict[str, object]:
    """Create a reorder proposal.

    Args:
        sku: The product code.
        quantity: Pieces to order.
        urgency: How soon.
    """
    return RESULT_DICT


def sdk_sync_body(
    ctx: RunContextWrapper[InventoryContext], sku: str, quantity: int, urgency: Urgency
) -> dict[str, object]:
    """Create a reorder proposal."""
    return RESULT_DICT


def sdk_sleeping_body(
    ctx: RunContextWrapper[InventoryContext], sku: str, quantity: int, urgency: Urgency
) -> dict[str, object]:
    """Create a reorder proposal."""
    time.sleep(SLEEP_S)
    return RESULT_DICT


TOOLGEN = create_reorder.build_tool(toolgen_body)
TOOLGEN_SYNC = create_reorder.build_tool(toolgen_sync_body)
TOOLGEN_SLEEPING = create_reorder.build_tool(toolgen_sleeping_body)
SDK = function_tool(sdk_body, name_override="create_reorder")
SDK_SYNC = function_tool(sdk_sync_body, name_override="create_reorder")
SDK_SLEEPING = function_tool(sdk_sleeping_body, name_override="create_reorder")
PARSED_ARGS = create_reorder.CreateReorderArgs.model_validate_json(VALID)
PARSED_CONTEXT = create_reorder.CreateReorderContext(run_id=RUN.run_id)


# --- measuring ------------------------------------------------------------------------------

Batch = Callable[[], Awaitable[None]]


def calls(tool: Any, raw: str) -> Batch:
    ctx = tool_context(raw)
    invoke = tool.on_invoke_tool

    async def batch() -> None:
        for _ in range(BATCH):
            await invoke(ctx, raw)

    return batch


async def _toolgen_direct() -> None:
    for _ in range(BATCH):
        await toolgen_body(PARSED_ARGS, PARSED_CONTEXT)


async def _sdk_direct() -> None:
    wrapper = RunContextWrapper(RUN)
    for _ in range(BATCH):
        await sdk_body(wrapper, "SKU-11", 5, None)


async def per_call_us(batches: dict[str, Batch], rounds: int) -> dict[str, float]:
    """Median time of one call per variant, in microseconds; variants take turns."""
    for batch in batches.values():
        await batch()  # warm up: the first calls build validators and load modules
    times: dict[str, list[float]] = {name: [] for name in batches}
    clock = time.perf_counter
    for _ in range(rounds):
        for name, batch in batches.items():
            start = clock()
            await batch()
            times[name].append((clock() - start) / BATCH * 1e6)
    return {name: statistics.median(values) for name, values in times.items()}


async def concurrent_s(tool: Any, raw: str) -> float:
    ctx = tool_context(raw)
    start = time.perf_counter()
    await asyncio.gather(*(tool.on_invoke_tool(ctx, raw) for _ in range(CONCURRENT)))
    return time.perf_counter() - start


def threads_s() -> float:
    workers = [threading.Thread(target=time.sleep, args=(SLEEP_S,)) for _ in range(20)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start


async def concurrency(rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {"threads": [], "toolgen": [], "sdk": []}
    for _ in range(rounds):
        times["threads"].append(threads_s())
        times["toolgen"].append(await concurrent_s(TOOLGEN_SLEEPING, VALID))
        times["sdk"].append(await concurrent_s(SDK_SLEEPING, VALID))
    return {name: statistics.median(values) for name, values in times.items()}


def key_name(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 62)
        digits = (
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[digit]
            + digits
        )
        if not number:
            return "x" + digits


def attack_texts() -> dict[str, str]:
    extra = ",".join(f'"{key_name(i)}":0' for i in range(100_000))
    return {
        "100,000 extra keys (0.9 MB)": "{" + VALID[1:-1] + "," + extra + "}",
        "a key of 0.9 MB": '{"' + "k" * 900_000 + '":0,' + VALID[1:],
        "a value of 10 MB (over the limit)": '{"sku":"' + "S" * 10_000_000 + '"}',
    }


def import_cost_ms(rounds: int, *, cached: bool) -> tuple[float, float]:
    """What importing toolgen_runtime adds once the SDK and pydantic are imported, and what
    importing the SDK costs, in milliseconds (`python -X importtime`, medians). `cached`:
    with compiled bytecode from a previous run (as a deployed agent has it), else compiling
    every source as it is imported."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="toolgen-bench-pyc-") as cache:
        if cached:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        code = "import agents, pydantic, pydantic_core; import toolgen_runtime"
        # the first run writes the bytecode cache, when there is one
        reports = [
            subprocess.run(
                [sys.executable, "-X", "importtime", "-c", code],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            ).stderr
            for _ in range(rounds + 1)
        ][1:]
    own: list[float] = []
    sdk: list[float] = []
    for report in reports:
        total_own = 0
        for line in report.splitlines():
            # import time: self [us] | cumulative | imported package
            parts = [part.strip() for part in line.split("|")]
            if len(parts) != 3 or not parts[0].startswith("import time:"):
                continue
            name = parts[2]
            if name.startswith("toolgen_runtime"):
                total_own += int(parts[0].removeprefix("import time:"))
            elif name == "agents":
                sdk.append(int(parts[1]) / 1000)
        own.append(total_own / 1000)
    return statistics.median(own), statistics.median(sdk)


class Visit(BaseModel):
    """A model whose valid arguments hold colons in strings (a time, a URL), so the cheap
    duplicate-key count cannot clear them and the exact check runs."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    site: str
    at: AwareDatetime
    note: str | None


WITH_COLONS = (
    '{"site": "https://example.com:8443/a", "at": "2026-10-09T14:30:00+02:00", '
    + ('"note": "gate 3: north"}')
)


def duplicate_check_us(rounds: int) -> dict[str, tuple[float, float]]:
    """The duplicate-key check of a valid call and the validation of the same text, in
    microseconds, for a text the cheap count clears and for one it cannot."""
    cases = {
        "no colon in any string (create_reorder)": (
            create_reorder.CreateReorderArgs,
            VALID,
        ),
        "colons in strings (a URL, a time)": (Visit, WITH_COLONS),
    }
    found: dict[str, tuple[float, float]] = {}
    for label, (model, raw) in cases.items():
        args = model.model_validate_json(raw)
        fields = len(args.model_fields_set)

        def check(raw: str = raw, fields: int = fields) -> None:
            if raw.count(":") > fields:  # as ArgumentParser.parse does
                may_repeat_keys(raw, fields)

        def validate(model: type[BaseModel] = model, raw: str = raw) -> None:
            model.model_validate_json(raw)

        times: dict[str, list[float]] = {"check": [], "validate": []}
        for _ in range(rounds):
            for name, step in (("check", check), ("validate", validate)):
                start = time.perf_counter()
                for _ in range(BATCH):
                    step()
                times[name].append((time.perf_counter() - start) / BATCH * 1e6)
        found[label] = (
            statistics.median(times["check"]),
            statistics.median(times["validate"]),
        )
    return found


async def bounded(rounds: int) -> list[tuple[str, int, float, float]]:
    rows = []
    for label, raw in attack_texts().items():
        ctx = tool_context(raw)
        answer = await TOOLGEN.on_invoke_tool(ctx, raw)
        call_times, parse_times = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            await TOOLGEN.on_invoke_tool(ctx, raw)
            call_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            json.loads(raw)
            parse_times.append(time.perf_counter() - start)
        rows.append(
            (
                label,
                len(answer.encode()),
                statistics.median(call_times),
                statistics.median(parse_times),
            )
        )
    return rows


async def main() -> None:
    body = await per_call_us(
        {"toolgen body": _toolgen_direct, "sdk body": _sdk_direct}, ROUNDS
    )
    valid = await per_call_us(
        {"toolgen": calls(TOOLGEN, VALID), "sdk": calls(SDK, VALID)}, ROUNDS
    )
    invalid = await per_call_us(
        {"toolgen": calls(TOOLGEN, INVALID), "sdk": calls(SDK, INVALID)}, ROUNDS
    )
    sync = await per_call_us(
        {"toolgen": calls(TOOLGEN_SYNC, VALID), "sdk": calls(SDK_SYNC, VALID)},
        max(ROUNDS // 10, 5),
    )
    together = await concurrency(5 if QUICK else 15)
    attacks = await bounded(3 if QUICK else 7)
    duplicates = duplicate_check_us(ROUNDS)
    imports = {
        cached: import_cost_ms(3 if QUICK else 9, cached=cached)
        for cached in (True, False)
    }

    toolgen_overhead = valid["toolgen"] - body["toolgen body"]
    sdk_overhead = valid["sdk"] - body["sdk body"]
    print(f"create_reorder, {ROUNDS} batches of {BATCH} calls, medians\n")
    print("| what | toolgen | SDK `@function_tool` | ratio toolgen / SDK |")
    print("| --- | ---: | ---: | ---: |")
    print(
        f"| valid call, async trivial body: overhead above the body | "
        f"{toolgen_overhead:.2f} us | {sdk_overhead:.2f} us | "
        f"{toolgen_overhead / sdk_overhead:.2f} |"
    )
    print(
        f"| valid call, async trivial body: whole call | {valid['toolgen']:.2f} us | "
        f"{valid['sdk']:.2f} us | {valid['toolgen'] / valid['sdk']:.2f} |"
    )
    print(
        f"| invalid call (3 bad fields), whole call | {invalid['toolgen']:.2f} us | "
        f"{invalid['sdk']:.2f} us | {invalid['toolgen'] / invalid['sdk']:.2f} |"
    )
    print(
        f"| valid call, sync trivial body (worker thread) | {sync['toolgen']:.2f} us | "
        f"{sync['sdk']:.2f} us | {sync['toolgen'] / sync['sdk']:.2f} |"
    )
    print(
        f"\n{CONCURRENT} concurrent calls of a sync body sleeping {SLEEP_S * 1000:.0f} ms, "
        "medians\n"
    )
    print("| what | wall time | ratio to 20 plain threads |")
    print("| --- | ---: | ---: |")
    for name, label in (
        ("threads", "20 plain threads"),
        ("toolgen", "toolgen"),
        ("sdk", "SDK `@function_tool`"),
    ):
        seconds = together[name]
        print(f"| {label} | {seconds:.3f} s | {seconds / together['threads']:.2f} |")
    print("\nThe duplicate-key check of a valid call, medians\n")
    print("| arguments | check | validating the same text | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for label, (check_us, validate_us) in duplicates.items():
        print(
            f"| {label} | {check_us:.2f} us | {validate_us:.2f} us | "
            f"{check_us / validate_us:.2f} |"
        )
    print("\nInvalid calls that try to make the answer big, medians\n")
    print("| arguments | answer | time | ratio to `json.loads` of the text |")
    print("| --- | ---: | ---: | ---: |")
    for label, size, call_s, parse_s in attacks:
        print(
            f"| {label} | {size:,} bytes | {call_s * 1000:.1f} ms | "
            f"{call_s / parse_s:.2f} |"
        )
    print("\nImport cost (`python -X importtime`), medians\n")
    print("| what | with bytecode cache | compiling the sources |")
    print("| --- | ---: | ---: |")
    print(
        f"| the SDK (`import agents`) | {imports[True][1]:.0f} ms | "
        f"{imports[False][1]:.0f} ms |"
    )
    print(
        "| toolgen_runtime's own modules, after the SDK and pydantic | "
        f"{imports[True][0]:.1f} ms ({imports[True][0] / imports[True][1]:.2%} of the SDK) | "
        f"{imports[False][0]:.1f} ms ({imports[False][0] / imports[False][1]:.2%}) |"
    )


if __name__ == "__main__":
    asyncio.run(main())
