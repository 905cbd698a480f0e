"""Render details that the golden tree shows but does not explain."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from loading import tool_named
from toolgen_runtime import FieldHint, hints_from_schema
from toolgen_runtime.guards import CheckedPath
from toolgen_runtime.guards.fetch import fetch

from toolgen.build import pipeline, recovery
from toolgen.render import formatting
from toolgen.render.annotations import EnumAliases
from toolgen.render.imports import Imports
from toolgen.render.modules import examples_of, render_stub, render_tool_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import catalogue as bench_catalogue

GOLDEN = Path(__file__).parent / "golden" / "kitchen_sink"


def test_array_items_share_their_hint_with_the_array() -> None:
    result = pipeline.check_catalogue(
        GOLDEN / "spec/kitchen", GOLDEN, implementations=False
    )
    assert result.catalogue is not None
    tool = tool_named(result.catalogue, "plan_shipment")
    hints = hints_from_schema(tool.parameters, examples_of(tool))
    # the runtime looks hints up without list indexes: labels.1 -> labels
    assert hints["labels"] == FieldHint(one_of=("cold", "heavy"), nullable=True)
    assert "parcels.weight_kg" not in hints  # nothing to tell there


def test_patterns_are_translated_for_python_but_shown_as_written() -> None:
    result = pipeline.check_catalogue(
        GOLDEN / "spec/kitchen", GOLDEN, implementations=False
    )
    assert result.catalogue is not None
    tool = tool_named(result.catalogue, "plan_shipment")
    text = render_tool_module(result.catalogue, tool)
    assert 'Field(pattern="(?a)^WH-[0-9]{2}\\\\Z", alias="from")' in text
    assert (
        tool.parameters["properties"]["from"]["pattern"] == "^WH-[0-9]{2}$"
    )  # as seen
    assert (
        '"from": "WH-01"' in text
    )  # the example the model is shown when it is rejected
    hints = hints_from_schema(tool.parameters, examples_of(tool))
    assert hints["from"] == FieldHint(example="WH-01", pattern="^WH-[0-9]{2}$")


def _count_ruff(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The runs of ruff from here on (one per batch the formatter starts)."""
    runs: list[str] = []
    real = formatting._ruff
    monkeypatch.setattr(formatting, "_ruff", lambda: (runs.append("ruff"), real())[1])
    return runs


def test_a_build_formats_in_batches_and_writes_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ruff formats a batch while the next tools are compiled; the files are the same as
    # when every file is formatted in one run
    trees = {}
    for batch in (5, formatting.BATCH):
        monkeypatch.setattr(formatting, "BATCH", batch)
        runs = _count_ruff(monkeypatch)
        root = tmp_path / str(batch)
        folder = bench_catalogue.write_catalogue(root, 12)
        with recovery.build_lock(root):
            assert pipeline.build_catalogue(folder, root).failure is None
        assert (len(runs) > 5) == (batch == 5)
        trees[batch] = {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*.py"))
            if "__pycache__" not in p.parts
        }
    assert trees[5] == trees[formatting.BATCH] and len(trees[5]) > 30


def test_a_rebuild_after_one_edit_runs_the_formatter_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the edited tool's entry of the cards module is formatted in the batch of its module
    # and tests, not in a run of the formatter of its own
    folder = bench_catalogue.write_catalogue(tmp_path, 30)
    with recovery.build_lock(tmp_path):
        assert pipeline.build_catalogue(folder, tmp_path).failure is None
    tool = sorted((folder / "tools").iterdir())[3]
    text = tool.read_text(encoding="utf-8")
    tool.write_text(text.replace("intent: ", "intent: Now, ", 1), encoding="utf-8")
    runs = _count_ruff(monkeypatch)
    with recovery.build_lock(tmp_path):
        built = pipeline.build_catalogue(folder, tmp_path)
    assert built.failure is None and built.report is not None
    assert len(runs) == 1
    cards = (tmp_path / built.report.written[0]).parent / "_cards.py"
    assert "Now, " in cards.read_text(encoding="utf-8")
    written = sorted(p.rsplit("/", 1)[1] for p in built.report.written)
    # the tool's module (its tests do not show the intent), the cards module, the lockfile
    assert len(written) == 3 and {"_cards.py", "toolgen.lock.json"} <= set(written)


def test_the_formatter_copies_are_deleted_after_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the build writes its files while ruff's copies are still there and deletes them
    # after: on some disks, files created just after a mass deletion cost ten times more
    from toolgen.build import write
    from toolgen.paths import CACHE_DIR, FORMAT_PREFIX

    folder = bench_catalogue.write_catalogue(tmp_path, 12)
    copies = tmp_path / CACHE_DIR
    seen: list[int] = []
    real = write.write_outputs

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(len(list(copies.glob(f"{FORMAT_PREFIX}*/*.py"))))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(write, "write_outputs", spy)
    with recovery.build_lock(tmp_path):
        assert pipeline.build_catalogue(folder, tmp_path).failure is None
    assert len(seen) == 1 and seen[0] > 30
    assert not list(copies.glob(f"{FORMAT_PREFIX}*"))


def test_an_enum_alias_is_a_python_name_whatever_the_field_name() -> None:
    # a model name may hold '-': the alias is named as the classes are (names.pascal)
    enums = EnumAliases("FindOrders", set())
    assert enums.alias(("new", "old"), "sort-order", Imports()) == "FindOrdersSortOrder"
    assert enums.alias(("a",), "sort_order", Imports()) == "FindOrdersSortOrder2"


def test_a_stub_says_how_to_open_a_checked_path_and_request_a_checked_url() -> None:
    root = Path(__file__).resolve().parents[1]
    result = pipeline.check_catalogue(root / "spec" / "inventory", root)
    assert result.catalogue is not None
    document, notice = (
        render_stub(result.catalogue, tool_named(result.catalogue, name))
        for name in ("read_document", "read_supplier_notice")
    )
    assert (
        "`args.name` is a CheckedPath inside the root archive: use "
        "`args.name.open_read()`,\n" in document
    )
    assert "`toolgen_runtime.guards.fetch.fetch(args.url)`" in notice
    # what they name is there to call
    assert callable(CheckedPath.open_read) and callable(fetch)
    # a tool without a path or URL says nothing of them
    other = render_stub(result.catalogue, tool_named(result.catalogue, "read_stock"))
    assert "Checked" not in other
