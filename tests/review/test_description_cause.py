"""TD104 on real contracts: each key a description is composed from, edited alone in a copy of
the example's send_order, is the cause the change names and the line it is placed on. A key
missing from `toolgen.spec.describe.description_keys` would show here as a change with no cause."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolgen.commands import versions as sources
from toolgen.review import diff, diff_report

ROOT = Path(__file__).resolve().parents[2]
SEND = "spec/inventory/tools/send_order.yaml"

# (the key, the text of the contract, what replaces it, the reason TD104 gives)
EDITS = [
    ("intent", "to restock the\n  warehouse.", "to restock.", "intent changed"),
    ("use_when", "not just\n  to propose a reorder.", "today.", "use_when changed"),
    ("not_when", "someone reviews", "a person reviews", "not_when changed"),
    ("requires", "requires: [read_stock]", "requires: [find_customer]",
     "requires changed"),
    ("effect", "effect: write", "effect: destructive",
     "effect is destructive, was write"),
    ("idempotency", "key: [order_ref]", "key: [order_ref, sku]", "idempotency changed"),
    ("confirmation", "effect: write", "effect: write\nconfirmation: approval",
     "confirmation is approval, was none"),
]  # fmt: skip


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> sources.Version:
    project = tmp_path_factory.mktemp("before")
    shutil.copytree(ROOT / "spec/inventory", project / "spec/inventory")
    return sources.build(project / "spec/inventory", project, "before")


@pytest.mark.parametrize("edit", EDITS, ids=[e[0] for e in EDITS])
def test_each_description_key_is_named_as_the_cause(
    edit: tuple[str, str, str, str], before: sources.Version, tmp_path: Path
) -> None:
    key, old, new, reason = edit
    shutil.copytree(ROOT / "spec/inventory", tmp_path / "spec/inventory")
    path = tmp_path / SEND
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    after = sources.build(tmp_path / "spec/inventory", tmp_path, "after")
    comparison = diff.compare(before.snapshot, after.snapshot)
    (change,) = [c for c in comparison.changes if c.rule.id == "TD104"]
    assert change.message.endswith(f"characters): {reason}")
    found = diff_report.diagnostics(comparison, tmp_path)
    span = next(d.span for d in found if d.code == "TD104")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[span.line - 1].startswith(f"{key}:"), lines[span.line - 1]
