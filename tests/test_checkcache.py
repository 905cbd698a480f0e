"""The check cache of `build` skips work, never findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolgen import pipeline, validate
from toolgen.checkcache import CheckCache

ROOT = Path(__file__).parent.parent


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(ROOT / "impl", tmp_path / "impl")
    return tmp_path


def check(project: Path) -> list[str]:
    result = pipeline.check_catalogue(project / "spec/inventory", project, cache=True)
    return [d.code for d in result.diagnostics if d.code < "TG200"]


def test_a_clean_build_remembers_every_tool(project: Path) -> None:
    assert check(project) == []
    record = CheckCache(project, "spec/inventory")
    assert len(record.passed) == len(
        list((ROOT / "spec/inventory/tools").glob("*.yaml"))
    )


def test_remembered_documents_skip_the_schema_check(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check(project)
    checked: list[str] = []
    real = validate.check_document

    def spy(document: object, kind: validate.SchemaKind, **options: bool) -> object:
        checked.append(kind)
        return real(document, kind, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(validate, "check_document", spy)
    assert check(project) == []
    assert checked == ["catalogue"]  # the six tools were not checked again


def test_a_changed_document_is_checked_again(project: Path) -> None:
    check(project)
    tool = project / "spec/inventory/tools/next_batch.yaml"
    tool.write_text(
        tool.read_text().replace("rejected_on: batch", "rejected_on: bach", 1)
    )
    assert "TG133" in check(project)
    assert "TG133" in check(project)  # and a failing document is never remembered


def test_a_damaged_record_is_ignored(project: Path) -> None:
    check(project)
    record = CheckCache(project, "spec/inventory")
    record.path.write_text("{not json")
    assert CheckCache(project, "spec/inventory").passed == frozenset()
    assert check(project) == []


def test_check_without_cache_reads_and_writes_nothing(project: Path) -> None:
    pipeline.check_catalogue(project / "spec/inventory", project)
    assert not (project / ".toolgen-cache").exists()
