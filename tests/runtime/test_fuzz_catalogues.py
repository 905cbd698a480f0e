"""Every tool of the example catalogue and of the golden kitchen-sink catalogue, fuzzed.

A short budget here (TOOLGEN_FUZZ_EXAMPLES, default 50 calls a tool, deterministic), a long
one with `make fuzz` (random seeds). The contract schema of each tool comes from the
compiler's model of its spec, with every constraint (`parameters_schema(params, full=True)`).
Each run must also have reached every outcome the tool has, so a pass means the answers
were judged, not that nothing was sent.
"""

from __future__ import annotations

import datetime
import importlib
from pathlib import Path
from typing import Any

import pytest
from toolgen_runtime.fuzz import FuzzFailure, fuzz_module, fuzz_tool, unmodelled
from toolgen_runtime.store.sqlite import SQLiteStore

from generated.inventory import InventoryContext
from toolgen.build import pipeline
from toolgen.spec.model import Catalogue
from toolgen.spec.toolschema import parameters_schema

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
KITCHEN = ROOT / "tests" / "golden" / "kitchen_sink"


def _catalogue(folder: Path, root: Path) -> Catalogue:
    checked = pipeline.check_catalogue(folder, root, implementations=False)
    assert checked.catalogue is not None, [d.format_text() for d in checked.diagnostics]
    return checked.catalogue


INVENTORY = _catalogue(ROOT / "spec" / "inventory", ROOT)
KITCHEN_SINK = _catalogue(KITCHEN / "spec" / "kitchen", KITCHEN)
CASES = [("generated.inventory", tool) for tool in INVENTORY.tools] + [
    ("ks_generated.kitchen", tool) for tool in KITCHEN_SINK.tools
]
# Bugs the fuzz found outside the runtime, until they are fixed (strict: a fix shows here)
KNOWN: dict[str, str] = {}


def _param(package: str, tool: Any) -> Any:
    marks = (
        [pytest.mark.xfail(strict=True, raises=FuzzFailure, reason=KNOWN[tool.name])]
        if tool.name in KNOWN
        else []
    )
    return pytest.param(
        package, tool, marks=marks, id=f"{package.split('.')[-1]}.{tool.name}"
    )


def _context(package: str) -> object:
    if package == "generated.inventory":
        return InventoryContext(customer_id=1, run_id="run-1")
    from ks_generated.kitchen.context import KitchenContext

    return KitchenContext(tenant_id=1, requested_on=datetime.date(2026, 10, 9))


@pytest.fixture(autouse=True)
def _golden_package_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    # the kitchen-sink catalogue's generated package lives in the golden tree
    monkeypatch.syspath_prepend(str(KITCHEN / "expected"))


@pytest.mark.parametrize(("package", "tool"), [_param(p, t) for p, t in CASES])
def test_every_answer_keeps_the_contract(package: str, tool: Any) -> None:
    module = importlib.import_module(f"{package}.{tool.name}")
    reason = unmodelled(module)
    if reason is not None:
        pytest.skip(reason)
    report = fuzz_module(
        module,
        context=_context(package),
        contract_schema=parameters_schema(tool.params, full=True),
    )
    print(report.summary())
    assert {"valid", "mutated", "text"} <= set(report.kinds), report.summary()
    assert report.swept > 0 and report.calls > report.swept, report.summary()
    assert report.accepted > 0 and report.rejected > 0, report.summary()
    assert report.allowed > 0, report.summary()
    if module.ERRORS:
        assert report.declared_errors > 0, report.summary()


def test_an_idempotent_tool_is_fuzzed_with_an_empty_store_for_every_call(
    tmp_path: Path,
) -> None:
    """One store for the whole run answers the sweep's repeats of a key as duplicates,
    which the fuzzer counts as broken promises; `fuzz_module` gives every call its own
    store, so each is judged as a first call."""
    from generated.inventory import send_order

    assert unmodelled(send_order) is None
    context = _context("generated.inventory")
    report = fuzz_module(
        send_order, context=context, contract_schema=send_order.PARAMETERS
    )
    assert report.accepted > 0 and report.declared_errors > 0, report.summary()
    store = SQLiteStore(tmp_path / "one.db")
    try:
        with pytest.raises(FuzzFailure, match='"duplicate":true'):
            fuzz_tool(
                lambda implementation: send_order.build_tool(
                    implementation, store=store
                ),
                send_order.PARAMETERS,
                context=context,
                errors=send_order.ERRORS,
            )
    finally:
        store.close()
