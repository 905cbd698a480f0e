"""quickcheck finds the errors jsonschema finds, in jsonschema's order, or says it cannot tell.

A build checks a tool's examples and defaults with quickcheck and asks jsonschema only to word
a problem: a field quickcheck failed to blame would be an example that breaks the contract,
and no one told; a field it blamed wrongly would refuse a good one. So on the contract schemas
of every catalogue the repository holds, and on schemas generated from quickcheck's whole
vocabulary, the fields it blames are held equal to the fields jsonschema's errors blame
(`toolschema._first_issues`), for values the schema allows, values one step from them, and
values of any shape. The format check's side (validate.py, the FORMAT dialect) is held to
jsonschema on every spec document in tests/test_validate_fast.py.
"""

from __future__ import annotations

import copy
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolgen_runtime.fuzz.values import values_for

from toolgen import pipeline, quickcheck, toolschema
from toolgen.ir import Param, Tool

ROOT = Path(__file__).parent.parent
CATALOGUES = [
    (ROOT / "spec" / "inventory", ROOT),
    *(
        (folder, golden)
        for golden in sorted((ROOT / "tests" / "golden").iterdir())
        for folder in sorted((golden / "spec").iterdir())
    ),
]
JUNK: tuple[object, ...] = (
    None, True, False, 0, 1, -1, 1.0, 4.0, 2.5, -0.5, float("inf"), float("nan"), 10**30,
    "", "x", "SKU-1", "SKU-1\n", "2026-10-09", "2026-02-30", "2026-10-09T14:30:00",
    "2026-10-09T14:30:00+02:00", "email", [], [1], ["x"], [None], [{}], {}, {"x": 1},
)  # fmt: skip


def _tools() -> list[Tool]:
    tools: list[Tool] = []
    for folder, root in CATALOGUES:
        checked = pipeline.check_catalogue(folder, root, implementations=False)
        assert checked.catalogue is not None, [
            d.format_text() for d in checked.diagnostics
        ]
        tools.extend(checked.catalogue.tools)
    return tools


TOOLS = _tools()


def _params(params: tuple[Param, ...]) -> list[Param]:
    found = []
    for param in params:
        found.append(param)
        node = param.items if param.items is not None else param
        found.extend(_params(node.properties))
    return found


# every contract schema a build checks values against: each tool's arguments, and each
# parameter's own (first_problem, for defaults and examples), nested ones too
SCHEMAS = [
    *(
        (tool.name, toolschema.parameters_schema(tool.params, full=True))
        for tool in TOOLS
    ),
    *(
        (
            f"{tool.name}.{p.name}",
            toolschema.param_schema(replace(p, optional=False), full=True),
        )
        for tool in TOOLS
        for p in _params(tool.params)
    ),
]


def _by_jsonschema(schema: dict[str, object], value: object) -> list[object]:
    return list(toolschema._first_issues(schema, value))


def _by_quickcheck(schema: dict[str, object], value: object) -> list[object]:
    found = quickcheck.errors(schema, value, toolschema.CONTRACT)  # never Unknown here
    return list(dict.fromkeys(p for err in found for p in toolschema._issue_paths(err)))


def _damaged(value: object, rng: random.Random) -> object:
    """`value` with one thing changed: a value replaced, a key dropped or added, a list
    emptied or grown."""
    copied = copy.deepcopy(value)
    places: list[tuple[Any, Any]] = [(None, None)]
    stack = [copied]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            places.extend((node, key) for key in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            places.extend((node, index) for index in range(len(node)))
            stack.extend(node)
    parent, key = rng.choice(places)
    if parent is None:
        return rng.choice(JUNK)
    how = rng.randrange(4)
    if how == 0 and isinstance(parent, dict):
        del parent[key]
    elif how == 1 and isinstance(parent, dict):
        parent["extra"] = rng.choice(JUNK)
    elif how == 1:
        parent.append(copy.deepcopy(parent[key]))
    elif how == 2 and isinstance(parent, list):
        parent.clear()
    else:
        parent[key] = rng.choice(JUNK)
    return copied


def test_the_catalogues_give_every_kind_of_schema() -> None:
    text = repr([schema for _, schema in SCHEMAS])
    for keyword in (
        "pattern",
        "format",
        "minimum",
        "maxLength",
        "minItems",
        "anyOf",
        "enum",
    ):
        assert f"'{keyword}'" in text, keyword
    assert len(SCHEMAS) > 80


@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[n for n, _ in SCHEMAS])
def test_the_same_fields_on_junk_and_its_damage(
    name: str, schema: dict[str, object]
) -> None:
    rng = random.Random(name)
    blamed = 0
    for value in JUNK:
        for candidate in (value, *(_damaged(value, rng) for _ in range(4))):
            expected = _by_jsonschema(schema, candidate)
            assert _by_quickcheck(schema, candidate) == expected, (name, candidate)
            blamed += bool(expected)
    assert blamed, "no value broke the schema: the test compared nothing that fails"


@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[n for n, _ in SCHEMAS])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_same_fields_on_allowed_values_and_one_step_from_them(
    name: str, schema: dict[str, object], data: st.DataObject
) -> None:
    value = data.draw(values_for(schema), label="allowed")
    assert _by_jsonschema(schema, value) == [], (
        "values_for made a value the schema refuses"
    )
    assert _by_quickcheck(schema, value) == []
    rng = data.draw(st.randoms(use_true_random=False))
    for _ in range(6):
        damaged = _damaged(value, rng)
        assert _by_quickcheck(schema, damaged) == _by_jsonschema(schema, damaged), (
            damaged
        )


# --- schemas of quickcheck's whole vocabulary ----------------------------------------------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([0.0, 1.0, 2.5, -1.5, 4.0]),
    st.sampled_from(["", "a", "ab", "abc", "A1", "2026-10-09", "x\n"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=8,
)
_TYPE_NAMES = st.sampled_from(
    ["string", "integer", "number", "boolean", "null", "array", "object"]
)


def _schemas() -> st.SearchStrategy[object]:
    def keywords(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
        entries = st.one_of(
            st.tuples(
                st.just("type"),
                _TYPE_NAMES | st.lists(_TYPE_NAMES, min_size=1, max_size=2),
            ),
            st.tuples(st.just("enum"), st.lists(_SCALARS, min_size=1, max_size=3)),
            st.tuples(st.just("const"), _VALUES),
            st.tuples(
                st.just("pattern"), st.sampled_from(["^a", "b$", "^[A-Z]\\d$", "\\d"])
            ),
            st.tuples(
                st.just("format"), st.sampled_from(["date", "date-time", "email"])
            ),
            st.tuples(
                st.sampled_from(
                    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
                ),
                st.sampled_from([-1, 0, 1, 2.5]),
            ),
            st.tuples(
                st.sampled_from(["minLength", "maxLength", "minItems", "maxItems"]),
                st.integers(0, 3),
            ),
            st.tuples(
                st.just("required"),
                st.lists(st.sampled_from(["a", "b", "c"]), max_size=2),
            ),
            st.tuples(
                st.just("properties"),
                st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=2),
            ),
            st.tuples(st.just("additionalProperties"), st.booleans() | inner),
            st.tuples(st.just("items"), inner),
            st.tuples(st.just("anyOf"), st.lists(inner, min_size=1, max_size=3)),
            st.tuples(st.just("$ref"), st.just("#/$defs/thing")),
            st.tuples(st.just("description"), st.just("words")),
        )
        return st.lists(entries, max_size=4).map(dict) | st.booleans()

    return st.recursive(st.just({}), keywords, max_leaves=6).map(
        lambda schema: (
            {**schema, "$defs": {"thing": {"type": "string", "minLength": 2}}}
            if isinstance(schema, dict)
            else schema
        )
    )


@settings(
    max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(schema=_schemas(), value=_VALUES)
def test_the_same_errors_as_jsonschema_for_any_schema_of_the_vocabulary(
    schema: Any, value: object
) -> None:
    import jsonschema

    expected = [
        (tuple(e.absolute_path), e.validator, e.validator_value)
        for e in toolschema._validator_class()(
            schema, format_checker=toolschema._format_checker()
        ).iter_errors(value)
    ]
    found = quickcheck.errors(schema, value, toolschema.CONTRACT)
    # the extras under an additionalProperties schema come in jsonschema's set order
    assert sorted(map(repr, ((e.path, e.keyword, e.rule) for e in found))) == sorted(
        map(repr, expected)
    )
    if not isinstance(schema, dict) or not isinstance(
        schema.get("additionalProperties"), dict
    ):
        assert [(e.path, e.keyword, e.rule) for e in found] == expected
    plain = [
        (tuple(e.absolute_path), e.validator)
        for e in jsonschema.Draft202012Validator(schema).iter_errors(value)
    ]
    assert sorted(
        map(
            repr,
            (
                (e.path, e.keyword)
                for e in quickcheck.errors(schema, value, quickcheck.FORMAT)
            ),
        )
    ) == sorted(map(repr, plain))


def test_what_it_cannot_tell_is_unknown() -> None:
    for schema in (
        {"uniqueItems": True},
        {"patternProperties": {"^a": {}}},
        {"$ref": "other.json#/x"},
        {"$ref": "#/$defs/missing"},
        {"type": "thing"},
        {"prefixItems": [{}], "items": {}},
    ):
        with pytest.raises(quickcheck.Unknown):
            quickcheck.errors(
                schema, [1, "a"] if "Items" in repr(schema) else 1, quickcheck.FORMAT
            )
    with pytest.raises(quickcheck.Unknown):
        quickcheck.errors({"type": "string"}, {1, 2}, quickcheck.FORMAT)  # not JSON
    deep: object = "x"
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(quickcheck.Unknown):
        quickcheck.errors({"items": {"$ref": "#"}}, deep, quickcheck.FORMAT)


def test_a_catalogue_that_checks_clean_is_checked_without_jsonschema() -> None:
    """What quickcheck is for: the example catalogue (rejected examples and all) passes the
    format, examples and defaults checks with jsonschema never imported."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from toolgen import pipeline\n"
        f"checked = pipeline.check_catalogue(Path({str(ROOT / 'spec' / 'inventory')!r}),"
        f" Path({str(ROOT)!r}), implementations=False)\n"
        "assert checked.ok, checked.diagnostics\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('jsonschema', 'fastjsonschema')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
