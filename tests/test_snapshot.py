"""The snapshot: a catalogue as stable data (what the lockfile, the review page, diff and
export read)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from toolgen.build import pipeline
from toolgen.render import cases as boundary
from toolgen.spec import snapshot, tokens

ROOT = Path(__file__).parent.parent


def _inventory() -> pipeline.CheckResult:
    result = pipeline.check_catalogue(ROOT / "spec/inventory", ROOT)
    assert result.catalogue is not None
    return result


def test_each_tool_carries_what_the_model_sees_and_its_digest() -> None:
    catalogue = _inventory().catalogue
    assert catalogue is not None
    data = snapshot.catalogue_snapshot(catalogue)
    assert [t["name"] for t in data["tools"]] == [t.name for t in catalogue.tools]
    for tool, shot in zip(catalogue.tools, data["tools"], strict=True):
        assert shot["model"] == tokens.tool_payload(tool)
        assert shot["digest"] == snapshot.digest(shot["model"])
    assert data["tokens"] == sum(map(tokens.tool_tokens, catalogue.tools))


def test_the_returns_schema_accepts_a_real_answer_and_refuses_a_wrong_one() -> None:
    catalogue = _inventory().catalogue
    assert catalogue is not None
    for tool, shot in zip(
        catalogue.tools, snapshot.catalogue_snapshot(catalogue)["tools"], strict=True
    ):
        sample = boundary.sample_result_json(tool)
        jsonschema.validate(sample, shot["returns"])
        wrong = {**sample, "not_declared": 1}
        assert not jsonschema.Draft202012Validator(shot["returns"]).is_valid(wrong)


def test_the_snapshot_is_plain_json_and_stable() -> None:
    catalogue = _inventory().catalogue
    assert catalogue is not None
    first = snapshot.canonical_json(snapshot.catalogue_snapshot(catalogue))
    again = snapshot.canonical_json(snapshot.catalogue_snapshot(_inventory().catalogue))  # type: ignore[arg-type]
    assert first == again
    assert json.loads(first)["snapshot_format"] == snapshot.SNAPSHOT_FORMAT


def test_every_guard_is_in_the_snapshot_wherever_its_parameter_stands() -> None:
    """A path in an array's items, in an object, or at the top: each guard is reviewed and
    diffed (TD511 saw no guard of an array's items before)."""
    folder = ROOT / "tests/golden/every_type/spec/every"
    result = pipeline.check_catalogue(folder, folder.parents[1], implementations=False)
    assert result.catalogue is not None
    [tool] = [t for t in result.catalogue.tools if t.name == "read_visit_files"]
    guards = snapshot.guards_snapshot(tool)
    assert sorted(guards) == ["copy_to", "cover.sheet", "reports"]
    assert guards["reports"]["root"] == "visit_files"
    assert guards["reports"]["suffixes"] == [".txt"]
    assert guards["copy_to"]["must_exist"] is False
