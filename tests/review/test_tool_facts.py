"""What the review page says beside each contract, without a browser: whether a tool is
implemented or still the stub toolgen created (read with ast, never imported), what the
catalogue silences, and that the two tools of one token contract are not a pair to confuse."""

from __future__ import annotations

import dataclasses
import itertools
import shutil
from pathlib import Path

import pytest

from toolgen import lint
from toolgen.build import pipeline
from toolgen.checks.implementations import implementation_state
from toolgen.cli import main
from toolgen.diagnostics import Diagnostic
from toolgen.lint import words
from toolgen.lint.context import CatalogueContext
from toolgen.review import page
from toolgen.review.silenced import Silenced, silenced
from toolgen.review.similarity import SHOWN_FROM, similarity
from toolgen.spec.ir import Catalogue
from toolgen.spec.snapshot import catalogue_snapshot

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the example catalogue, built: every implementation is the stub the build
    created."""
    project = tmp_path_factory.mktemp("built")
    shutil.copytree(ROOT / "spec/inventory", project / "spec/inventory")
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    assert main(["build", "--root", str(project), str(project / "spec/inventory")]) == 0
    return project


def _catalogue(project: Path) -> Catalogue:
    catalogue = pipeline.check_catalogue(
        project / "spec/inventory", project, implementations=False
    ).catalogue
    assert catalogue is not None
    return catalogue


def _states(project: Path) -> dict[str, str]:
    catalogue = _catalogue(project)
    return {
        t.name: implementation_state(catalogue, t, project) for t in catalogue.tools
    }


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_stub_as_the_build_created_it_is_a_stub(built: Path) -> None:
    states = _states(built)
    assert states.pop("prepare_order") == "derived"
    assert set(states.values()) == {"stub"}


def test_the_example_s_implementations_are_implemented() -> None:
    states = _states(ROOT)
    assert states.pop("prepare_order") == "derived"
    assert set(states.values()) == {"implemented"}


def test_what_each_edit_of_a_stub_makes_of_it(built: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(built, project)
    impl = project / "impl/inventory"
    # a stub whose docstring was rewritten still does nothing
    _edit(
        impl / "read_stock.py", "    Return ReadStockResult", "    Give ReadStockResult"
    )
    # work done, and NotImplementedYet raised on one path only: an implementation
    _edit(
        impl / "next_batch.py",
        "    raise NotImplementedYet(",
        "    if args.batch < 10:\n"
        "        return NextBatchResult(next_batch=args.batch + 1)\n"
        "    raise NotImplementedYet(",
    )
    (impl / "find_customer.py").unlink()
    (impl / "search_orders.py").write_text("def search_orders(:\n", encoding="utf-8")
    (impl / "send_order.py").write_text("def other() -> None: ...\n", encoding="utf-8")
    states = _states(project)
    assert {
        name: states[name]
        for name in (
            "read_stock",
            "next_batch",
            "find_customer",
            "search_orders",
            "send_order",
        )
    } == {
        "read_stock": "stub",
        "next_batch": "implemented",
        "find_customer": "missing",
        "search_orders": "broken",
        "send_order": "broken",
    }
    # and check agrees: next_batch is no longer reported as the stub
    result = pipeline.check_catalogue(project / "spec/inventory", project)
    stubs = " ".join(d.message for d in result.diagnostics if d.code == "TG151")
    assert "read_stock" in stubs and "next_batch" not in stubs


CONFIRM_CANCEL = """\
name: confirm_cancel_appointment
intent: Cancel one of the patient's appointments; the slot is freed for others.
use_when: The patient wants to cancel an appointment they booked.
effect: destructive
confirmation: token
context: [patient_id]
params:
  appointment_id:
    type: string
    pattern: '^APT-\\d{4,8}$'
    example: APT-1234
    description: The appointment to cancel.
returns:
  cancelled: {type: boolean, description: True once the appointment is cancelled.}
examples:
  - args: {appointment_id: APT-1234}
"""


def test_a_derived_prepare_and_confirm_pair_is_not_a_pair_to_confuse(
    tmp_path: Path,
) -> None:
    """The clinic of issue 34: confirm_cancel_appointment and the prepare tool made from it
    look alike (0.5) by construction, and were listed as pairs a model may confuse."""
    folder = tmp_path / "spec/clinic"
    (folder / "tools").mkdir(parents=True)
    (folder / "catalogue.yaml").write_text(
        "format: 1\nname: clinic\ndescription: Cancel appointments at the clinic.\n"
        "context:\n  patient_id: {type: integer, description: The patient.}\n",
        encoding="utf-8",
    )
    (folder / "tools/confirm_cancel_appointment.yaml").write_text(
        CONFIRM_CANCEL, encoding="utf-8"
    )
    result = pipeline.check_catalogue(folder, tmp_path, implementations=False)
    assert result.catalogue is not None
    model = page.page_model(
        catalogue_snapshot(result.catalogue),
        result.diagnostics,
        similarity(result.catalogue),
    )
    matrix = model["matrix"]
    assert matrix["pairs"] == []
    assert matrix["token_pairs"] == [
        {
            "a": "confirm_cancel_appointment",
            "b": "prepare_cancel_appointment",
            "score": "0.50",
        }
    ]
    (cell,) = matrix["cells"]
    assert cell["tone"] == "pair"


def test_a_pair_s_similarity_is_the_weighted_jaccard_of_their_words() -> None:
    """The page's scores, held to their definition over the lint's word sets (two tools
    without intent words: two empty sets are alike, as words.jaccard says)."""
    catalogue = _catalogue(ROOT)
    blank = [
        dataclasses.replace(t, intent="", use_when="") for t in catalogue.tools[:2]
    ]
    catalogue = dataclasses.replace(catalogue, tools=(*blank, *catalogue.tools[2:]))
    found = similarity(catalogue)
    ctx = CatalogueContext.of(catalogue)
    names = found["tools"]
    drawn = {(p["a"], p["b"]): p for p in found["pairs"]}
    for a, b in itertools.combinations(range(len(names)), 2):
        one, other = ctx.profile(names[a]), ctx.profile(names[b])
        by_name = words.jaccard(one.name_set, other.name_set)
        by_intent = words.jaccard(one.intent, other.intent)
        both = one.params and other.params
        by_params = words.jaccard(one.params, other.params) if both else 0.0
        score = 0.5 * by_name + 0.35 * by_intent + 0.15 * by_params
        pair = drawn.get((a, b))
        if pair is None:
            assert score < SHOWN_FROM, (names[a], names[b], score)
            continue
        assert (pair["name"], pair["intent"], pair["params"], pair["score"]) == (
            round(by_name, 3),
            round(by_intent, 3),
            round(by_params, 3),
            round(score, 3),
        )
    i, j = sorted(names.index(t.name) for t in blank)
    assert drawn[(i, j)]["intent"] == 1.0


def test_a_catalogue_that_silences_nothing_is_not_linted_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalogue = _catalogue(ROOT)
    quiet = dataclasses.replace(
        catalogue, tools=tuple(t for t in catalogue.tools if not t.suppressions)
    )

    def refuse(_: Catalogue) -> None:
        raise AssertionError("linted again")

    monkeypatch.setattr(lint, "lint", refuse)
    assert silenced(quiet, []) == Silenced((), ())


def test_the_second_lint_runs_only_the_rules_the_catalogue_silences(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    catalogue = _catalogue(
        ROOT
    )  # next_batch suppresses TG203; the lint section is empty
    ignoring = dataclasses.replace(
        catalogue, lint=dataclasses.replace(catalogue.lint, ignore=("TG952",))
    )
    selected: list[tuple[str, ...]] = []
    real = lint.lint

    def recording(bare: Catalogue) -> list[Diagnostic]:
        selected.append(bare.lint.select)
        return real(bare)

    monkeypatch.setattr(lint, "lint", recording)
    found = silenced(ignoring, [])
    assert selected == [("TG203", "TG952")]
    (entry,) = found.suppressions
    assert entry.rule == "TG203" and entry.silenced  # found with the rule run alone
    # a suppression of a rule the lint section turns off silences nothing; the section does
    quiet = dataclasses.replace(
        catalogue, lint=dataclasses.replace(catalogue.lint, ignore=("TG2",))
    )
    selected.clear()
    found = silenced(quiet, [])
    assert selected == [tuple(sorted(o.rule for o in found.turned_off))]
    assert "TG203" in selected[0]
    assert [(e.rule, e.silenced) for e in found.suppressions] == [("TG203", ())]


def test_a_suppression_of_a_pair_finding_is_the_suppressing_tool_s(
    tmp_path: Path,
) -> None:
    """A pair rule's finding is placed in one tool's file; the other tool may be the one that
    suppresses it, and its card shows what it silenced."""
    shutil.copytree(ROOT / "spec/inventory", tmp_path / "spec/inventory")
    tools = tmp_path / "spec/inventory/tools"
    twin = (tools / "search_returns.yaml").read_text(encoding="utf-8")
    (tools / "find_returns.yaml").write_text(
        twin.replace("name: search_returns", "name: find_returns"),
        encoding="utf-8",
    )
    first = pipeline.check_catalogue(
        tmp_path / "spec/inventory", tmp_path, implementations=False
    )
    pair_codes = {
        d.code
        for d in first.diagnostics
        if "find_returns" in d.message and "search_returns" in d.message
    }
    assert pair_codes, [d.format_text() for d in first.diagnostics]
    code = sorted(pair_codes)[0]
    # the finding is placed in search_returns.yaml; find_returns silences it
    assert {d.span.file for d in first.diagnostics if d.code == code} == {
        "spec/inventory/tools/search_returns.yaml"
    }
    with (tools / "find_returns.yaml").open("a", encoding="utf-8") as file:
        file.write(f"suppress:\n  - rule: {code}\n    reason: Kept for a migration.\n")
    result = pipeline.check_catalogue(
        tmp_path / "spec/inventory", tmp_path, implementations=False
    )
    assert result.catalogue is not None
    found = silenced(result.catalogue, result.diagnostics)
    (entry,) = [e for e in found.suppressions if e.tool == "find_returns"]
    assert (entry.tool, entry.rule, entry.reason) == (
        "find_returns",
        code,
        "Kept for a migration.",
    )
    assert entry.silenced and all(d.code == code for d in entry.silenced)
    assert not any(d.code == code for d in result.diagnostics)
