"""render/source.py, the one place where spec text becomes code: its fast paths give what
the plain ways give (ast reads every literal back exactly; the wrapping is textwrap's)."""

from __future__ import annotations

import ast
import random

import pytest

from toolgen.render.source import py_literal, py_str

# what spec text holds: words of every length, quotes of both kinds, backslashes, controls,
# bidi overrides, zero-width and astral characters, a docstring's own quotes
ALPHABET = "aZ9 _-.,:;!?'\"\\\n\t\r\x00\x1b\u200b\u202e\u00e9\U0001f600`()[]{}"


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 30)))
        for _ in range(count)
    ]


@pytest.mark.parametrize("text", _texts(400, 1))
def test_a_string_literal_reads_back_as_the_text(text: str) -> None:
    literal = py_str(text)
    assert ast.literal_eval(literal) == text
    assert "\n" not in literal
    # written twice (the second from the kept literals), it is the same literal
    assert py_str(text) == literal


def test_a_string_literal_uses_the_quote_the_text_holds_fewer_of() -> None:
    assert py_str("it's") == '"it\'s"'
    assert py_str('say "hi"') == "'say \"hi\"'"
    assert py_str("a\\b") == '"a\\\\b"'


class Text(str):
    pass


def test_a_literal_of_nested_data_reads_back_equal() -> None:
    rng = random.Random(2)
    texts = _texts(50, 3)

    def value(depth: int) -> object:
        kind = rng.randrange(9 if depth < 4 else 6)
        if kind == 0:
            return None
        if kind == 1:
            return rng.choice([True, False])
        if kind == 2:
            return rng.randrange(-(10**20), 10**20)
        if kind == 3:
            return rng.choice([0.5, -1e300, 1e20, 2.0, 1e-7])
        if kind == 4:
            return rng.choice(texts)
        if kind == 5:
            return Text(rng.choice(texts))
        if kind == 6:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        if kind == 7:
            return tuple(value(depth + 1) for _ in range(rng.randrange(3)))
        return {rng.choice(texts): value(depth + 1) for _ in range(rng.randrange(4))}

    for _ in range(300):
        data = value(0)
        literal = py_literal(data)
        assert ast.literal_eval(literal) == data
        assert "\n" not in literal


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), {1: "x"}, {"a": {1, 2}}])
def test_what_no_literal_carries_is_refused(bad: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        py_literal(bad)
