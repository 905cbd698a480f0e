"""A contract's `pattern` means in the generated validator (Python's `re`, as
`python_pattern` writes it) what it means in the model's schema (ECMA-262, run by `regress`):
every pattern here is held to both engines over texts made of the characters where they
differ (Unicode white space, line terminators, digits and letters of other scripts)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolgen_runtime.schema import ecma_pattern, python_pattern

PATTERNS = [
    r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$",  # the e-mail pattern whose fuzz test failed
    r"^.+$",
    r"^a.b$",
    r"^\s*x\s*$",
    r"^\S+$",
    r"^[\s\S]*$",
    r"^[a\S]+$",
    r"^[^\S\n]+$",
    r"^[^a\S]$",
    r"^[\d\s]+$",
    r"^[^\W_]+$",
    r"^\w+\b",
    r"^\d{2,4}$",
    r"^SKU-\d+$",
    r"[$.]",
    r"\$\.",
]
# where ECMA-262 and Python's `re` disagree, and a few where they agree
CHARACTERS = (
    "a_1 \t\n\r\x0b\x0c\x1c\x85\xa0\u1680\u2007\u2028\u2029\u202f\u3000\ufeffé٣$.@x"
)
TEXTS = st.text(st.sampled_from(CHARACTERS), max_size=6)


@pytest.mark.parametrize("pattern", PATTERNS)
@settings(max_examples=300, deadline=None)
@given(text=TEXTS, around=st.sampled_from(["{}", "x@{}.ab", "SKU-{}", "{}x"]))
def test_python_pattern_means_what_ecma_262_means(
    pattern: str, text: str, around: str
) -> None:
    text = around.format(text)
    expected = ecma_pattern(pattern).find(text) is not None
    assert (re.search(python_pattern(pattern), text) is not None) is expected


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("ann@example.org", True),
        ("\ufeffann@example.org", False),
        ("a\xa0n@x.org", False),
    ],
)
def test_the_byte_order_mark_and_no_break_space_are_white_space(
    text: str, matches: bool
) -> None:
    written = python_pattern(PATTERNS[0])
    assert (re.search(written, text) is not None) is matches
