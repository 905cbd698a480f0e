"""Python source from values: the one place where spec text becomes code.

Spec text is data. It reaches generated modules only through the functions here: as string
literals (`py_str`, `py_literal`, which `ast.literal_eval` reads back exactly) or inside
docstrings escaped so that no text can end them (`docstring`). Layout is ruff's job: every
literal is written on one line, and the formatting pass that follows the render lays it out.
"""

from __future__ import annotations

import functools
import math
import re
import textwrap
from collections.abc import Callable
from typing import Any, cast

from toolgen.render.formatting import LINE_LENGTH


class _EscapeTable(dict[int, str]):
    """`str.translate` table for one quote character, filled in on first use."""

    def __init__(self, quote: str) -> None:
        super().__init__()
        self.quote = quote

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        if ch == self.quote:
            escaped = "\\" + ch
        elif ch.isprintable() and ch != "\\":
            escaped = ch
        else:  # \\, \n, \r, \t, \xNN, \uNNNN or \UNNNNNNNN, as Python writes them
            escaped = ch.encode("unicode_escape").decode("ascii")
        if len(self) < 0x10000:  # bounded: spec text may use any characters
            self[code] = escaped
        return escaped


_ESCAPE_TABLES = {'"': _EscapeTable('"'), "'": _EscapeTable("'")}


# The same keys, enum values and descriptions are written again and again (every tool's
# schema, its tests, its cards): their literals are kept, up to a bound.
@functools.lru_cache(maxsize=1 << 16)
def py_str(text: str) -> str:
    """A string literal for `text` in ruff's quoting, unprintable characters escaped."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    plain = text.isprintable() and "\\" not in text and quote not in text
    return quote + (text if plain else text.translate(_ESCAPE_TABLES[quote])) + quote


def _py_number(value: int | float) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} as a Python literal")
        # ruff normalizes "1e+20" to "1e20"; repr never writes an uppercase "E"
        return float.__repr__(value).replace("e+", "e")
    return int.__repr__(value)


def py_literal(value: object) -> str:
    """A one-line literal of JSON-like data (dict with str keys, list, tuple, str, int,
    float, bool, None). Raises TypeError for other types, ValueError for nan and inf."""
    # the exact types first: nearly every value is one, and one type() test is cheaper
    # than the isinstance chain that subclasses (bool among the ints) need
    kind = type(value)
    if kind is str:
        return py_str(cast(str, value))
    if kind is dict:
        return _py_dict(cast(dict[object, object], value))
    if kind is list:
        return _py_list(cast(list[object], value))
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        return _py_number(value)
    if isinstance(value, str):
        return py_str(value)
    if isinstance(value, dict):
        return _py_dict(value)
    if isinstance(value, list):
        return _py_list(value)
    if isinstance(value, tuple):
        inner = ", ".join([py_literal(item) for item in value])
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    raise TypeError(f"cannot write a {type(value).__name__} as a Python literal")


# a list of one exact type (the search index's numbers and terms) is written without a call
# per item
_ITEM_LITERALS: dict[type, Callable[[Any], str]] = {
    str: py_str,
    int: int.__repr__,
    float: _py_number,
}


def _py_list(value: list[object]) -> str:
    kinds = set(map(type, value))
    one = _ITEM_LITERALS.get(kinds.pop()) if len(kinds) == 1 else None
    return "[" + ", ".join(map(one or py_literal, value)) + "]"


def _py_dict(value: dict[object, object]) -> str:
    items = []
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"dict keys must be str, not {type(key).__name__}")
        items.append(py_str(key) + ": " + py_literal(item))
    return "{" + ", ".join(items) + "}"


def escape_docstring(text: str) -> str:
    """Spec text inside a docstring, escaped so it can never end the string early: every
    backslash, every quote that touches another quote or ends the text, and every character
    that is not printable (zero-width, bidi overrides, controls) as a \\u or \\U escape."""
    escaped = re.sub(r'"(?="|$)', r'\\"', text.replace("\\", "\\\\"))
    # nearly always so: then there is no character to look at
    if escaped.replace("\n", "").isprintable():
        return escaped
    return "".join(
        ch if ch.isprintable() or ch == "\n" else _escape(ch) for ch in escaped
    )


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _sentences(paragraph: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z`(\"'])", paragraph)


def docstring(*paragraphs: str, indent: int = 0, by_sentence: bool = False) -> str:
    """The body of a docstring: escaped paragraphs, each wrapped to the line length; with
    `by_sentence`, each sentence starts a line of its own (a stub's guidance reads better)."""
    width = LINE_LENGTH - indent
    wrapped = []
    for index, paragraph in enumerate(p for p in paragraphs if p):
        text = " ".join(paragraph.split())
        lines: list[str] = []
        for number, part in enumerate(_sentences(text) if by_sentence else [text]):
            # the first line shares its row with the opening quotes
            opening = "   " if index == number == 0 else ""
            found = textwrap.wrap(
                escape_docstring(part),
                width,
                initial_indent=opening,
                break_long_words=False,
                break_on_hyphens=False,
            ) or [""]
            lines += [found[0].removeprefix(opening), *found[1:]]
        wrapped.append(
            "\n".join(lines[:1] + [" " * indent + line for line in lines[1:]])
        )
    return ("\n\n" + " " * indent).join(wrapped)


def assignment(target: str, value: object) -> str:
    """`target = <literal>` on one line; the ruff pass that follows lays it out."""
    return f"{target} = {py_literal(value)}"


def text_expression(text: str) -> str:
    """A multi-line string as parenthesized pieces, each short enough for the line length;
    the pieces concatenate back to exactly `text` (ruff joins them again if they fit)."""
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        current = ""
        for word in re.split(r"(?<= )", line):
            if current and len(py_str(current + word)) > LINE_LENGTH - 8:
                pieces.append(current)
                current = ""
            current += word
        pieces.append(current)
    if len(pieces) <= 1:
        return py_str(text)
    body = "".join(f"    {py_str(piece)}\n" for piece in pieces)
    return f"(\n{body})"
