"""A key given twice in one object, at any depth, is refused as invalid arguments."""

from __future__ import annotations

import json
import random
from typing import Annotated, Any

import pytest
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field
from recording import recording_tool
from toolgen_runtime import duplicates as duplicates_module
from toolgen_runtime import result_class
from toolgen_runtime.duplicates import (
    count_keys,
    duplicate_keys,
    key_count,
    may_repeat_keys,
)
from toolgen_runtime.testing import Recorder, invoke_raw

from generated.inventory import InventoryContext, create_reorder

CONTEXT = InventoryContext(customer_id=1, run_id="run-1")
REPEATED = "is given more than once in the same object; give each key once"
RESULT = create_reorder.CreateReorderResult(
    proposal_id="RP-1", sku="SKU-11", quantity_units=5, urgency="standard", created=True
)


def reorder(raw: str) -> tuple[dict[str, Any], Recorder]:
    recorder = Recorder(RESULT)
    return invoke_raw(create_reorder.build_tool(recorder), raw, CONTEXT), recorder


def problems(out: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["field"], p["problem"]) for p in out["problems"]]


def test_the_last_of_two_values_does_not_win() -> None:
    out, recorder = reorder(
        '{"sku": 7, "sku": "SKU-11", "quantity": 5, "urgency": null}'
    )
    assert out["error"] == "invalid_arguments"
    assert problems(out) == [("sku", REPEATED)]
    assert recorder.calls == []


def test_the_reverse_order_names_the_repeat_first() -> None:
    out, recorder = reorder(
        '{"sku": "SKU-11", "sku": 7, "quantity": 5, "urgency": null}'
    )
    assert problems(out) == [
        ("sku", REPEATED),
        ("sku", "must be a JSON string, got 7"),
    ]
    assert recorder.calls == []


def test_a_key_spelled_with_an_escape_is_the_same_key() -> None:
    out, _ = reorder(
        '{"sku": "SKU-11", "s\\u006bu": "SKU-12", "quantity": 5, "urgency": null}'
    )
    assert problems(out) == [("sku", REPEATED)]


def test_the_same_repeated_value_is_refused_too() -> None:
    out, recorder = reorder(
        '{"sku": "SKU-11", "quantity": 5, "quantity": 5, "urgency": null}'
    )
    assert problems(out) == [("quantity", REPEATED)]
    assert recorder.calls == []


class Stop(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    place: str
    at: AwareDatetime


class Route(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[str, Field(max_length=40)]
    stops: list[Stop]


@result_class
class Planned:
    stops: int


def plan(raw: str) -> tuple[dict[str, Any], Recorder]:
    recorder = Recorder(Planned(stops=1))
    tool = recording_tool("plan_route", Route, Planned, recorder)
    return invoke_raw(tool, raw, CONTEXT), recorder


STOP = '{"place": "Milano: gate 3", "at": "2026-10-09T14:30:00+02:00"}'


def test_colons_in_values_are_not_repeats() -> None:
    out, recorder = plan('{"name": "a:b:c", "stops": [' + STOP + ", " + STOP + "]}")
    assert out == {"ok": True, "stops": 1}
    assert len(recorder.calls) == 1


def test_a_repeat_deep_inside_is_named_by_its_path() -> None:
    raw = (
        '{"name": "r", "stops": ['
        + STOP
        + ', {"place": "x", "at": "2026-10-09T14:30:00+02:00", "place": "y"}]}'
    )
    out, recorder = plan(raw)
    assert problems(out) == [("stops.1.place", REPEATED)]
    assert recorder.calls == []


def test_repeats_in_keys_that_are_not_parameters_are_named_too() -> None:
    out, _ = plan('{"name": "r", "stops": [], "junk": {"a": 1, "a": 2}}')
    assert problems(out) == [
        ("junk.a", REPEATED),
        ("junk", "is not a parameter of this tool"),
    ]


# --- the finder on its own --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "found"),
    [
        ('{"a": 1, "b": 2}', []),
        ('{"a": 1, "a": 2, "a": 3, "b": 1, "b": 1}', [("a",), ("b",)]),
        ('[{"a": 1}, {"a": 1, "a": 1}]', [(1, "a")]),
        ('{"x": {"y": [0, {"z": 1, "z": 2}]}}', [("x", "y", 1, "z")]),
        ('{"": 1, "": 2}', [("",)]),
        # the first "a" is replaced by the second: what was inside it is gone
        ('{"a": {"b": 1, "b": 2}, "a": 0}', [("a",)]),
        ('{"a": 1', []),  # not JSON
        ('"a:b"', []),
    ],
)
def test_duplicate_keys_lists_each_place_in_document_order(
    raw: str, found: list[tuple[int | str, ...]]
) -> None:
    assert duplicate_keys(raw) == found


def test_most_texts_are_cleared_by_counting_colons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_second_parse(raw: str) -> object:
        raise AssertionError("parsed again")

    monkeypatch.setattr(duplicates_module, "from_json", no_second_parse)
    flat = '{"sku": "SKU-11", "quantity": 5, "urgency": null}'
    assert may_repeat_keys(flat, 3) is False
    # colons inside strings are counted out, with escapes in the text and without
    with_colons = (
        '{"site": "https://a.example:8443", "at": "2026-10-09T14:30:00+02:00"}'
    )
    escaped = '{"site": "https://a\\"b:8443", "at": "2026-10-09T14:30:00+02:00"}'
    assert json.loads(escaped)["site"] == 'https://a"b:8443'
    assert may_repeat_keys(with_colons, 2) is False
    assert may_repeat_keys(escaped, 2) is False


# --- against documents whose repeats are known by construction --------------------------

Pairs = list[tuple[str, Any]]


class Obj:
    """A JSON object as written, repeats and all."""

    def __init__(self, pairs: Pairs) -> None:
        self.pairs = pairs


def write(node: object, rng: random.Random) -> str:
    if isinstance(node, Obj):
        return (
            "{"
            + ", ".join(f"{write_key(k, rng)}: {write(v, rng)}" for k, v in node.pairs)
            + "}"
        )
    if isinstance(node, list):
        return "[" + ",".join(write(item, rng) for item in node) + "]"
    return json.dumps(node)


def write_key(key: str, rng: random.Random) -> str:
    text = json.dumps(key)
    if key and rng.random() < 0.3:  # spell one character as an escape
        index = rng.randrange(len(key))
        text = json.dumps(key[:index])[:-1] + f"\\u{ord(key[index]):04x}"
        text += json.dumps(key[index + 1 :])[1:]
    return text


def written_keys(node: object) -> int:
    if isinstance(node, Obj):
        return len(node.pairs) + sum(written_keys(v) for _, v in node.pairs)
    if isinstance(node, list):
        return sum(written_keys(item) for item in node)
    return 0


def expected_repeats(node: object, path: tuple[int | str, ...] = ()) -> list[Any]:
    """What a parser keeping the last of equal keys sees, and the repeats on the way."""
    found: list[Any] = []
    if isinstance(node, Obj):
        seen: set[str] = set()
        for key, _ in node.pairs:
            if key in seen and (*path, key) not in found:
                found.append((*path, key))
            seen.add(key)
        kept = dict(node.pairs)
        for key, value in kept.items():
            found.extend(expected_repeats(value, (*path, key)))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(expected_repeats(item, (*path, index)))
    return found


KEYS = ["a", "b", "c:d", "é", "", 'q"u', "s\\t"]
STRINGS = [
    "",
    "x",
    "a:b",
    "12:30:00",
    'say "hi": now',
    "back\\slash:",
    "\u2028:",
    "{:}",
]


def random_node(rng: random.Random, depth: int) -> object:
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([*STRINGS, 0, -1.5, True, None])
    if roll < 0.6:
        return [random_node(rng, depth + 1) for _ in range(rng.randrange(4))]
    pairs = [
        (rng.choice(KEYS), random_node(rng, depth + 1)) for _ in range(rng.randrange(5))
    ]
    return Obj(pairs)


@pytest.mark.parametrize("seed", range(300))
def test_the_checks_agree_with_the_documents_as_built(seed: int) -> None:
    rng = random.Random(seed)
    node = random_node(rng, 0)
    raw = write(node, rng)
    expected = expected_repeats(node)
    assert duplicate_keys(raw) == expected, raw
    assert may_repeat_keys(raw, 0) is bool(expected), raw
    assert key_count(raw) == written_keys(node), raw
    assert count_keys(json.loads(raw)) <= key_count(raw)
