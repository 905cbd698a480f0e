"""Patterns whose matching can take time exponential in the length of the text (TG127; why
and which shapes: docs/spec.md, "Constraint mistakes the build catches").

The pattern is read once, left to right, into parts that each know the characters they can
start with, and those repeated at their start and end by a repetition of one character
(class) whose count can vary: sets over a sample of ASCII and a few other letters, each
escape and class as `re` reads it (a literal beyond them is one of its own). A part is
*ambiguous* when one text can be matched by it in two ways: such a repetition ending one part
repeats what one starting the next repeats (`\\d+\\d+`), or two alternatives of one character
overlap (`(\\w|\\d)`). A repeated part splits a text into rounds in many ways when it can end
with such a repetition of what it starts with, after it or taking what follows it
(`(\\w+\\s?)+`, `(.+/)+`), when a longer alternative is made of the characters of
one-character ones (`(a|aa)+`), or when alternatives of a fixed length can follow one another
to make one text in two ways (`(aa|aaa)+`, `(ab|ba|a)+`). Either, repeated more than MANY
times, is reported. Of the 1,269 patterns in SchemaStore's schemas (`pattern` and
`patternProperties`), it reports 8, each exponential in `re`, and passes delimited rounds
such as `(\\.[a-z0-9]+)*` and semantic versions.
"""

from __future__ import annotations

import functools
import itertools
import re
import warnings
from dataclasses import dataclass

from toolgen_runtime.schema import python_pattern

# repeated more often than this, an ambiguous part costs more than a call can wait
MANY = 20
# the longest run of characters, and the most in all alternatives, read as words
MAX_WORD, MAX_WORDS = 32, 256
# the escapes and classes of one pattern read by Python's re (about 70 us each); a pattern
# written by a person has a few dozen at most (27 in the 4,412 of SchemaStore's schemas)
MAX_CLASSES = 2_000
_SAMPLE = (
    "".join(map(chr, range(32, 127))) + "\t\n\r\x0b\x0c\xa0é\u0416\u0663\u4e2d\u2028😀"
)
_ALL = (1 << len(_SAMPLE)) - 1
_BEYOND = 1 << len(_SAMPLE)  # the first of the literals beyond the sample, one bit each
_BIT = {c: 1 << i for i, c in enumerate(_SAMPLE)}
_TOKEN = re.compile(
    r"""\\[pPu]\{[^}]*\}?|\\k<[^>]*>?|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\c[A-Za-z]
    |\\.|\[(?:\\.|[^\\\]])*\]?|\(\?(?:[:=!]|<[=!]|<[^>]*>)|\{(\d+)(?:(,)(\d*))?\}\??
    |[*+?]\??|.""",
    re.DOTALL | re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class _Part:
    first: int  # the characters a match can start with
    nullable: bool  # it can match nothing
    head: int  # what a repetition that can start a match repeats
    tail: int  # what a repetition that can end a match repeats
    ambiguous: bool  # some text can be matched by it in two ways
    # the characters of each place when it matches a fixed number of them (`a\d{2}`)
    word: tuple[int, ...] | None = None
    every: int = 0  # every character it can match
    splits: bool = False  # a text it matches may also be several rounds of it

    @property
    def single(self) -> bool:
        """It matches exactly one character."""
        return self.word is not None and len(self.word) == 1


_EMPTY = _Part(0, True, 0, 0, False, ())


@functools.lru_cache(maxsize=4096)
def _characters(atom: str) -> int:
    """The sample characters an escape, a class or `.` matches, as Python's re reads it; any
    character for one it cannot read alone (a backreference)."""
    try:
        with warnings.catch_warnings():  # `[[`: a nested set some day (TG122 says so)
            warnings.simplefilter("ignore", FutureWarning)
            pattern = re.compile(python_pattern(atom))
    except re.error:
        return _ALL
    return sum(1 << m.start() for m in pattern.finditer(_SAMPLE))


def _sequence(parts: list[_Part]) -> _Part:
    """Parts one after another: ambiguous where a repetition that can end one part repeats
    what a repetition that can start the next repeats (`\\d+\\d+`)."""
    first, head, tail, nullable, ambiguous, every = 0, 0, 0, True, False, 0
    word: tuple[int, ...] | None = ()
    for part in reversed(parts):  # first, head and every: of the parts after this one
        ambiguous = ambiguous or part.ambiguous or bool(part.tail & head)
        first = part.first | (first if part.nullable else 0)
        head = part.head | (head if part.nullable else 0)
        # a repetition can end the sequence where what follows may be left out, or where
        # it can take what follows (`.+/` can end in `.+`, which takes the `/` too)
        if nullable or not every & ~part.tail:
            tail |= part.tail
        nullable = nullable and part.nullable
        every |= part.every
        joined = None if word is None or part.word is None else part.word + word
        word = joined if joined is None or len(joined) <= MAX_WORD else None
    wide = [part for part in parts if part is not _EMPTY]
    splits = len(wide) == 1 and wide[0].splits
    return _Part(first, nullable, head, tail, ambiguous, word, every, splits)


def _alternatives(branches: list[_Part]) -> _Part:
    """Longer alternatives that start alike (`(ab|ac)`) mostly part again a character later,
    which these sets cannot tell: only alternatives of one character are compared."""
    first, head, tail, ambiguous, singles = 0, 0, 0, False, 0
    for branch in branches:
        ambiguous = ambiguous or branch.ambiguous
        if branch.single:
            ambiguous = ambiguous or bool(branch.first & singles)
            singles |= branch.first
        first, head, tail = first | branch.first, head | branch.head, tail | branch.tail
    nullable = any(branch.nullable for branch in branches)
    every = functools.reduce(int.__or__, (branch.every for branch in branches), 0)
    word = branches[0].word if len(branches) == 1 else None
    if all(branch.single for branch in branches):
        word = (first,)
    # a longer alternative of the characters of one-character ones (`aa` in `(a|aa)`), or
    # alternatives that one text is a sequence of in two ways (`aa` and `aaa`)
    splits = any(
        b.splits or (not b.single and b.every and not b.every & ~singles)
        for b in branches
    ) or _two_ways([b.word for b in branches if b.word])
    return _Part(first, nullable, head, tail, ambiguous, word, every, splits)


def _two_ways(words: list[tuple[int, ...]]) -> bool:
    """Whether one text is a sequence of `words` in two ways: the Sardinas-Patterson test,
    two places alike when their characters overlap. Alternatives longer than MAX_WORDS in all
    are not read (a hostile pattern's thousands would cost their square)."""
    if sum(map(len, words)) > MAX_WORDS:
        return False

    def fits(short: tuple[int, ...], long: tuple[int, ...]) -> bool:
        return len(short) <= len(long) and all(map(int.__and__, short, long))

    # what is left of one word after another that it starts like, then of each of those
    # after a word, or of a word after one of those, until one is left with nothing
    found = {w[len(u) :] for u, w in itertools.permutations(words, 2) if fits(u, w)}
    seen: set[tuple[int, ...]] = set()
    while found - seen:
        if () in found:
            return True
        new = found - seen
        seen |= new
        found = {w[len(u) :] for u in new for w in words if fits(u, w)}
        found |= {u[len(w) :] for u in new for w in words if fits(w, u)}
    return False


def _repeated(body: _Part, low: int, high: int | None) -> _Part:
    """`body` repeated. Only a body of one character counts as a repetition at the start and
    end of the result: a longer one alike at both ends (`(-[a-z]{2,8})+` before `-x`) parts
    from what follows a character later, which these sets cannot tell."""
    varies = high is None or high > low
    again = body.first if varies and body.single else 0
    word = body.word if not varies else None
    return _Part(
        body.first,
        low == 0 or body.nullable,
        body.head | again,
        body.tail | again,
        body.ambiguous
        or bool((high is None or high > 1) and (body.splits or body.tail & body.first)),
        word * low if word is not None and len(word) * low <= MAX_WORD else None,
        body.every,
    )


@functools.cache  # a catalogue's patterns repeat from tool to tool
def ambiguous_repetition(pattern: str) -> str | None:
    """The first part of `pattern` (as written) repeated more than MANY times that can match
    one text in two ways, or None."""
    characters: dict[str, int] = {}  # of the escapes and classes read so far
    # the open groups, innermost last: where each starts, whether it is a lookaround, and its
    # branches so far, each a list of (where the part starts, the part)
    groups: list[tuple[int, bool, list[list[tuple[int, _Part]]]]] = [(0, False, [[]])]
    for token in _TOKEN.finditer(pattern):
        text, parts = token.group(), groups[-1][2][-1]
        if text[0] in "*+?{" and parts and (text[0] != "{" or token.group(1)):
            low, high = _bounds(token)
            start, body = parts.pop()
            part = _repeated(body, low, high)
            if part.ambiguous and (high is None or high > MANY):
                return pattern[start : token.end()]
            parts.append((start, part))
        elif text.startswith("("):
            lookaround = text in ("(?=", "(?!", "(?<=", "(?<!")
            groups.append((token.start(), lookaround, [[]]))
        elif text == "|":
            groups[-1][2].append([])
        elif text == ")" and len(groups) > 1:
            start, lookaround, branches = groups.pop()
            group = _alternatives([_sequence([p for _, p in b]) for b in branches])
            groups[-1][2][-1].append((start, _EMPTY if lookaround else group))
        elif text in ("^", "$", "\\b", "\\B"):
            parts.append((token.start(), _EMPTY))
        else:
            literal = len(text) == 1 and text != "."
            if literal and text in _BIT:
                found = _BIT[text]
            elif text in characters or len(characters) < MAX_CLASSES:
                # a literal beyond the sample is a character of its own
                found = characters.get(text) or (
                    _BEYOND << len(characters) if literal else _characters(text)
                )
                characters[text] = found
            else:  # past MAX_CLASSES: cost bounded, on the side of a report
                found = _ALL
            part = _Part(found, False, 0, 0, False, (found,), found)
            parts.append((token.start(), part))
    return None


def _bounds(token: re.Match[str]) -> tuple[int, int | None]:
    """How often a quantifier lets its part repeat: at least, and at most (None: no limit)."""
    low, comma, high = token.group(1, 2, 3)
    if low is None:
        return {"*": (0, None), "+": (1, None), "?": (0, 1)}[token.group()[0]]
    return int(low), None if comma and not high else int(high or low)
