"""The YAML 1.2 core schema: the tags of plain data, and how a scalar's text becomes a value.

PyYAML resolves plain scalars with YAML 1.1 rules (``no`` becomes ``False``, ``2026-10-09`` a
date, ``0777`` an octal number). A spec is read with the core schema instead: null, true and
false in their three spellings, decimal, octal (``0o``) and hexadecimal (``0x``) integers,
floats with ``.inf`` and ``.nan``, and text for everything else.
"""

from __future__ import annotations

import contextlib
import math
import re
from typing import Final

_CORE: Final = "tag:yaml.org,2002:"
STR_TAG: Final = _CORE + "str"
INT_TAG: Final = _CORE + "int"
FLOAT_TAG: Final = _CORE + "float"
BOOL_TAG: Final = _CORE + "bool"
NULL_TAG: Final = _CORE + "null"
MAP_TAG: Final = _CORE + "map"
SEQ_TAG: Final = _CORE + "seq"
SCALAR_TAGS: Final = frozenset({STR_TAG, INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG})

_NULL_WORDS: Final = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE_WORDS: Final = frozenset({"true", "True", "TRUE"})
_FALSE_WORDS: Final = frozenset({"false", "False", "FALSE"})
_DECIMAL: Final = re.compile(r"[-+]?[0-9]+")
_OCTAL: Final = re.compile(r"0o[0-7]+")
_HEX: Final = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT_TEXT: Final = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
)
_INF: Final = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN: Final = re.compile(r"\.(?:nan|NaN|NAN)")
# Only these first characters can start a non-string core value; checking it
# first lets ordinary words skip every regex.
SPECIAL_START: Final = frozenset("0123456789+-.~nNtTfF")


class Misfit:
    """The text does not fit the type its tag (or its shape) asks for."""


_MISFIT: Final = Misfit()


def _as_int(text: str) -> int | Misfit:
    # Python refuses to parse integers longer than 4300 digits; a spec's have at most 100,
    # so that any of them, and one more or less (the generated tests' cases), prints and
    # is a float too
    with contextlib.suppress(ValueError):
        if _OCTAL.fullmatch(text) or _HEX.fullmatch(text):
            value = int(text[2:], 8 if text[1] == "o" else 16)
        elif _DECIMAL.fullmatch(text):
            value = int(text)
        else:
            return _MISFIT
        return value if abs(value) < 10**100 else _MISFIT
    return _MISFIT


def _as_float(text: str) -> float | Misfit:
    if _FLOAT_TEXT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return _MISFIT


def _as_bool(text: str) -> bool | Misfit:
    if text in _TRUE_WORDS:
        return True
    if text in _FALSE_WORDS:
        return False
    return _MISFIT


def plain_value(text: str) -> object:
    """The value of an untagged plain scalar: null, true or false, a number, or the text."""
    if text in _NULL_WORDS:
        return None
    flag = _as_bool(text)
    if not isinstance(flag, Misfit):
        return flag
    if _DECIMAL.fullmatch(text) or _OCTAL.fullmatch(text) or _HEX.fullmatch(text):
        return _as_int(text)
    number = _as_float(text)
    return text if isinstance(number, Misfit) else number


def tagged_value(tag: str, text: str) -> object:
    """The value of a scalar written with a core tag (`!!int 5`), a `Misfit` when its text
    does not fit the tag."""
    if tag == STR_TAG:
        return text
    if tag == INT_TAG:
        return _as_int(text)
    if tag == FLOAT_TAG:
        return _as_float(text)
    if tag == BOOL_TAG:
        return _as_bool(text)
    return None if text in _NULL_WORDS else _MISFIT


def show_tag(tag: str) -> str:
    """A tag as written in YAML: `!!int` for the core schema's, any other as it is."""
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag
