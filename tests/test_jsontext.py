"""jsontext.dumps writes what json.dumps(indent=2, ensure_ascii=False) writes, byte for byte:
the lock file, the manifest and the reports are diffed by reviewers and compared by CI."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgen import jsontext

_KEYS = st.one_of(
    st.text(max_size=6),
    st.integers(-3, 3),
    st.sampled_from([1.5, -0.0, math.inf, True, False, None]),
)
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),  # every code point: controls, quotes, surrogates, non-ASCII
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_KEYS, inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=3000, deadline=None)
@given(_VALUES)
def test_the_same_text_as_json(value: Any) -> None:
    assert jsontext.dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


class Level(enum.IntEnum):
    LOW = 1


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"a": {}, "b": [], "c": [[]]},
        {"é": 'ü\u2028\x00"\\'},
        {Level.LOW: Level.LOW},  # an int subclass is written as the int
        [1e16, 1e-7, 123456789.123456789, -0.0],
    ],
)
def test_the_same_text_on_edge_values(value: Any) -> None:
    assert jsontext.dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_what_json_cannot_write_fails_as_json_fails() -> None:
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        jsontext.dumps({"a": {1, 2}})
    with pytest.raises(TypeError, match="keys must be str"):
        jsontext.dumps({("a",): 1})
    circular: list[object] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference"):
        jsontext.dumps(circular)
