"""Boundary cases derived from a contract: each breaks exactly one named field, and the
whole set is rejected on that field by the contract itself (checked here with the same
JSON Schema semantics the build uses)."""

from __future__ import annotations

from pathlib import Path

import pytest
from loading import tool_named

from toolgen.build import pipeline
from toolgen.render import cases as boundary
from toolgen.spec import toolschema
from toolgen.spec.ir import Catalogue

ROOT = Path(__file__).parent.parent
GOLDEN = ROOT / "tests/golden/kitchen_sink"
EVERY = ROOT / "tests/golden/every_type"
LOOKALIKES = ROOT / "tests/corpus/model_enum_lookalikes"


def catalogue(folder: Path, root: Path) -> Catalogue:
    result = pipeline.check_catalogue(folder, root, implementations=False)
    assert result.catalogue is not None
    return result.catalogue


CATALOGUES = [
    catalogue(ROOT / "spec/inventory", ROOT),
    catalogue(GOLDEN / "spec/kitchen", GOLDEN),
    catalogue(EVERY / "spec/every", EVERY),
]
TOOLS = [(c, t) for c in CATALOGUES for t in c.tools]


@pytest.mark.parametrize(("cat", "tool"), TOOLS, ids=[t.name for _, t in TOOLS])
def test_every_case_is_rejected_on_its_field(cat: Catalogue, tool: object) -> None:
    from toolgen.checks.examples import guard_problems
    from toolgen.spec.ir import Tool

    assert isinstance(tool, Tool)
    schema = toolschema.parameters_schema(tool.params, full=True)
    cases = boundary.cases(tool)
    assert cases, "a tool with an accepted example gets boundary cases"
    cursors = {p.name for p in tool.params if p.is_cursor}
    for case in cases:
        if case.field in cursors and isinstance(case.value, str):
            # only the signer can tell a made-up cursor: the generated tests and
            # tests/test_boundaries_e2e.py run those with test boundaries
            continue
        found = toolschema.problem_fields(schema, case.args)
        found += [
            path for path, _ in guard_problems(tool, case.args, tool.listed_hosts)
        ]
        blamed = {toolschema.dotted(path) for path in found}
        assert case.field in blamed, (case.label, blamed)


def test_cases_cover_the_kinds_the_design_lists() -> None:
    kitchen = tool_named(CATALOGUES[1], "plan_shipment")
    labels = [c.label for c in boundary.cases(kitchen)]
    for expected in (
        "priority: true for the enum value 1",
        "priority: 1.0 for the enum value 1",
        'priority: "1" for the enum value 1',
        "priority: a numeric string instead of integer",
        'labels.0: "COLD", not in the enum',
        "labels.0: a number instead of string",
        "parcels.0.weight_kg: one above the maximum",
        "parcels.0.fragile: missing",
        "priority: 4, not in the enum",
        "from: 'wh-01' misses the pattern",
        "parcels: one item too many",
        "reference: one character too long",
        "from: null where null is not allowed",
        "options.signature: missing",
        "unexpected_field: not a parameter",
        "deliver_by: a time without offset instead of datetime",
    ):
        assert expected in labels


def test_samples_are_valid_results() -> None:
    kitchen = tool_named(CATALOGUES[1], "plan_shipment")
    sample = boundary.sample_result_json(kitchen)
    assert set(sample) == {f.name for f in kitchen.returns}
    assert sample["eta"] == "2026-01-02"
    assert sample["legs"] == [
        {"origin": "sample origin", "destination": "sample destination", "days": 1}
    ]


def test_every_enum_look_alike_is_a_case() -> None:
    """What Python holds equal to an enum member, or what reads like one, is tried for each
    enum-bearing type: integers (true, 1.0, "1"), strings ("1" as 1), and their arrays' items."""
    tool = tool_named(catalogue(LOOKALIKES, LOOKALIKES), "book_seats")
    values = {(c.field, repr(c.value)) for c in boundary.cases(tool)}
    for expected in (
        ("seats", "True"),
        ("seats", "1.0"),
        ("seats", "'1'"),
        ("table", "1"),
        ("courses.0", "True"),
        ("courses.0", "False"),
        ("courses.0", "0.0"),
        ("courses.0", "'0'"),
    ):
        assert expected in values


def test_an_example_missing_many_parameters_is_worded_in_linear_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """jsonschema raises one error a missing name, each holding the whole required list:
    reading the list again for each took 40 s of toolgen check over an example missing
    4,000 parameters (the limit is 10,000). The cost is counted, not timed."""
    names = [f"p{i}" for i in range(1000)]
    schema: dict[str, object] = {
        "type": "object",
        "properties": {name: {"type": "string"} for name in names},
        "required": names,
    }
    looked_up = 0
    nullable = toolschema.nullable

    def counted(node: object) -> bool:
        nonlocal looked_up
        looked_up += 1
        return nullable(node)

    monkeypatch.setattr(toolschema, "nullable", counted)
    assert toolschema.problem_fields(schema, {}) == [(name,) for name in names]
    assert looked_up == len(names)
