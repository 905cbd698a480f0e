"""TG127: the patterns whose matching takes time exponential in the length of a near-match.

Every pattern reported here was timed by hand in Python's re (the generated validator's
engine) on near-matches of growing length: each few characters more multiplied the time
(two to four times for two more); the ones passed are matched one way only. The real ones come from
SchemaStore's JSON schemas (github.com/SchemaStore/schemastore, Apache-2.0).
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolgen.build import pipeline
from toolgen.interop.importers import import_file
from toolgen.spec import backtracking
from toolgen.spec.backtracking import ambiguous_repetition

REPORTED = [
    # the classic shapes
    (r"^(a+)+$", "(a+)+"),
    (r"^(\w+\s?)+$", r"(\w+\s?)+"),
    (r"(\w|\d)+", r"(\w|\d)+"),
    (r"^(\d{1,3})+$", r"(\d{1,3})+"),
    (r"(.*)*", "(.*)*"),
    (r"(x+x+)+y", "(x+x+)+"),
    (r"^(\d+\d+)*$", r"(\d+\d+)*"),
    (r"^(?:a*){2,}$", "(?:a*){2,}"),
    (r"^(a|a){25}$", "(a|a){25}"),
    (r"^(a|aa)+$", "(a|aa)+"),  # a run of a splits into rounds of a and aa every way
    (r"^(\d|\d\d)+$", r"(\d|\d\d)+"),
    (r"^(x|xy|y)*$", "(x|xy|y)*"),
    # alternatives of fixed length that make one text in two ways: a run of a is rounds of
    # aa and aaa every way (1.2 s at 60 letters, 16 times as long as at 50); aba is ab a or
    # a ba (2.9 s at 24 times aba, 16 times as long as at 20)
    (r"^(aa|aaa)+$", "(aa|aaa)+"),
    (r"^(\d{3}|\d{2})+$", r"(\d{3}|\d{2})+"),
    (r"^(?:a{2}|a{3})+$", "(?:a{2}|a{3})+"),
    (r"^(ab|ba|a)+$", "(ab|ba|a)+"),
    ("^(ü|üü)+$", "(ü|üü)+"),  # a literal beyond the sample is a character of its own
    (r"^(?:(a|aa)|b)+$", "(?:(a|aa)|b)+"),
    (r"^[a-z](([\-.]|[_]+)?([a-z0-9]+))*@", r"(([\-.]|[_]+)?([a-z0-9]+))*"),
    (r"^(\w+\d)+$", r"(\w+\d)+"),  # \w+ can take the \d, and the next round
    (r"^(.*,)*$", "(.*,)*"),
    (r"^((?:.?[0-9]+){3,}(?:[-a-z]+)?)$", "(?:.?[0-9]+){3,}"),
    (r"^(.+\/)+(.+)\.(ya?ml)(@.+)?$", r"(.+\/)+"),
    ("^(/)?([^/\x00]+(/)?)+$", "([^/\x00]+(/)?)+"),
    (
        r"^([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)*$",
        r"([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)*",
    ),
    (
        r"^(?:(?:>=|>|<=|<)\d+\.\d+\.\d+(?:[+-]\S+)?\s*)+$",
        r"(?:(?:>=|>|<=|<)\d+\.\d+\.\d+(?:[+-]\S+)?\s*)+",
    ),
]

PASSED = [
    r"^ORD-\d{4,8}$",
    r"^\d+\d+$",  # quadratic at most: nothing repeats it
    r"^(\d{3})+$",  # each round is three digits
    r"^(a|a){5}$",  # 32 ways at most
    r"(ab|ac)*",
    r"(a|ab)*",  # a b is no round of its own
    r"^(\d{2}-|\d{3})+$",  # a round of two digits ends at its -
    "^(ü|ö)+$",
    "^(中文|中)+$",
    r"((a|aa)z)*",  # each round ends at its z
    r"(\w|\.\w)+",
    r"^[a-z0-9]+(-[a-z0-9]+)*$",
    r"^([A-Z][a-z]+ ?)+$",
    r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$",
    r"^(?:\d{1,3}\.){3}\d{1,3}$",
    r"^(?=.*[A-Z])(?=.*\d).{8,}$",
    r"^([a-zA-Z0-9_-]+\.)*[a-zA-Z0-9_-]+$",
    r"^([^,]+,)*$",  # [^,]+ cannot take the comma
    r"^((a+)?b)*$",  # an optional part is one round at most
    r"^(\{[a-z]+\})+$",
    # SchemaStore's: a semantic version, a domain, a Windows path, a duration, a BCP 47
    # language tag's extensions, key chords, quoted text
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
    r"(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?$",
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    r'(\/.*|[a-zA-Z]:\\(?:([^<>:"\/\\|?*]*[^<>:"\/\\|?*.]\\|..\\)*'
    r'([^<>:"\/\\|?*]*[^<>:"\/\\|?*.]\\?|..\\))?)',
    r"^(?:[^a-df-zA-DF-Z\s]+(?:[umUM][sS]|[dhmsDHMS])\s?)+$",
    r"^[+-]?([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$",
    r"^[a-z]{2,3}(-([0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+))*$",
    r"^((Cmd|Ctrl|Opt|Alt|Shift)\+)+[a-zA-Z0-9]$",
    r'^"([^"\\]|\\"|\\\\)*"$',
    # SchemaStore's: `.` stops at \r and \n in ECMA-262, and so in the generated validator,
    # so the two alternatives never match one character (Python's own `.` takes \r)
    "^\\$\\{\\{(.|[\r\n])*\\}\\}$",
]


@pytest.mark.parametrize(("pattern", "part"), REPORTED)
def test_a_repetition_that_can_match_one_text_in_two_ways_is_reported(
    pattern: str, part: str
) -> None:
    assert ambiguous_repetition(pattern) == part


@pytest.mark.parametrize("pattern", PASSED)
def test_a_pattern_matched_one_way_only_passes(pattern: str) -> None:
    assert ambiguous_repetition(pattern) is None


_PIECES = [
    *"()[]{}|*+?.^$\\-,0123456789abdsw:=!<>&~",
    r"\d",
    "(?:",
    "(?=",
    "(?<=",
    "(?<n>",
]
_PIECES += [
    "{2,}",
    "{1,3}",
    r"\k<n>",
    r"\p{L}",
    r"\u0041",
    "[^a]",
    "[[",
    "&&",
    "😀",
    "é",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_any_text_is_read_without_an_exception_or_a_warning(text: str) -> None:
    """The importer asks about a source's patterns before anything has read them."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = ambiguous_repetition(text)
    assert result is None or result in text


def test_a_pattern_of_many_classes_compiles_a_bounded_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each escape or class is read by compiling it: a pattern of a hundred thousand
    different ones (a spec file holds one) compiles MAX_CLASSES, and those past it may
    match anything, on the side of a report."""
    compiled: list[str] = []
    real = re.compile

    def counted(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(backtracking.re, "compile", counted)
    backtracking._characters.cache_clear()
    many = "".join(f"[{chr(0x4E00 + i)}]" for i in range(100_000))
    assert ambiguous_repetition(many + "x") is None
    assert len(compiled) == backtracking.MAX_CLASSES
    assert ambiguous_repetition(many + "([ab]+)+") == "([ab]+)+"


def test_alternatives_past_max_words_characters_are_not_read() -> None:
    """Whether alternatives make one text in two ways costs the square of their number: past
    MAX_WORDS characters in all (a hostile pattern's thousands), they are not read."""
    a = (1,)
    assert backtracking._two_ways([a + a, a + a + a])
    assert not backtracking._two_ways([a] * (backtracking.MAX_WORDS + 1))


def test_an_import_keeps_the_pattern_and_drops_the_example_it_would_hang_on(
    tmp_path: Path,
) -> None:
    """Judging an example by such a pattern took years: the import now carries the pattern
    without the example, and `toolgen check` names the pattern."""
    near_match = "ab " * 20 + "!"
    properties = {
        "text": {"type": "string", "pattern": r"^(\w+\s?)+$", "examples": [near_match]}
    }
    tool = {"name": "find_note", "inputSchema": {"properties": properties}}
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([tool]), encoding="utf-8")
    [draft] = import_file("mcp", source, tmp_path / "notes").drafts
    params = draft.document["params"]
    assert isinstance(params, dict)
    assert params["text"]["pattern"] == r"^(\w+\s?)+$"
    assert "example" not in params["text"]
    checked = pipeline.check_catalogue(
        tmp_path / "notes", tmp_path, implementations=False
    )
    [found] = [x for x in checked.diagnostics if x.code == "TG127"]
    assert r"repeats '(\w+\s?)+'" in found.message
