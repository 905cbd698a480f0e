"""Spec YAML as a person would write it: block style, plain words where YAML allows them,
long prose folded, multi-line prose kept as written, comments where they help.

A scalar is written plain only when every YAML reader takes it as the same text (YAML 1.1
readers included: `yes`, `on`, `12:30` and `1_000` are quoted); anything else is a JSON
string, which YAML reads exactly. The importer reads every file it writes back with
toolgen's own loader and compares, so a mistake here cannot reach a spec unseen.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Mapping, Sequence

WIDTH = 92
_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9 _.,;'()/+\-]*[A-Za-z0-9_.)']$|^[A-Za-z]$")
_FLOW_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9 _./+\-]*[A-Za-z0-9_.]$|^[A-Za-z]$")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
# what some YAML reader takes for a boolean or null
_AMBIGUOUS = frozenset(["y", "n", "yes", "no", "on", "off", "true", "false", "null"])


def _plain_ok(text: str, pattern: re.Pattern[str]) -> bool:
    return (
        bool(pattern.fullmatch(text))
        and text.lower() not in _AMBIGUOUS
        and "  " not in text
        # numbers and times in any YAML dialect
        and not re.search(r"\d[._]\d|^\d", text)
    )


def scalar(value: object, *, flow: bool = False) -> str:
    """A scalar on one line: plain when unambiguous, else a JSON string."""
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    text = str(value)
    if _plain_ok(text, _FLOW_PLAIN if flow else _PLAIN):
        return text
    return json.dumps(text, ensure_ascii=not text.isprintable())


def key(name: str) -> str:
    plain = _KEY.fullmatch(name) and name.lower() not in _AMBIGUOUS
    return name if plain else scalar(name)


def _block_text(text: str, indent: str) -> list[str] | None:
    """A long or multi-line text as a folded (>-) or literal (|-) block, when exact."""
    if not text.replace("\n", "").isprintable():
        return None
    if "\t" in text or text != text.strip() or "\r" in text:
        return None
    if "\n" in text:
        lines = text.split("\n")
        if any(line != line.rstrip() for line in lines) or lines[0].startswith(" "):
            return None
        return ["|-", *((indent + line) if line else "" for line in lines)]
    if len(text) + len(indent) <= WIDTH or "  " in text:
        return None
    wrapped = textwrap.wrap(
        text, WIDTH - len(indent), break_long_words=False, break_on_hyphens=False
    )
    if " ".join(wrapped) != text:
        return None
    return [">-", *(indent + line for line in wrapped)]


def _is_flow_list(value: Sequence[object]) -> bool:
    return (
        all(
            item is None or isinstance(item, bool | int | float | str) for item in value
        )
        and len(", ".join(scalar(v, flow=True) for v in value)) < 70
    )


def lines(
    data: Mapping[str, object],
    indent: str = "",
    comments: Mapping[str, str] | None = None,
) -> list[str]:
    """The block-style lines of a mapping; `comments` adds `# ...` after top-level keys."""
    out: list[str] = []
    notes = comments or {}
    for name, value in data.items():
        head = f"{indent}{key(name)}:"
        note = f"  # {notes[name]}" if name in notes else ""
        out.extend(_entry(head, value, indent, note))
    return out


def _entry(head: str, value: object, indent: str, note: str = "") -> list[str]:
    inner = indent + "  "
    if isinstance(value, Mapping):
        if not value:
            return [f"{head} {{}}{note}"]
        return [head + note, *lines(value, inner)]
    if isinstance(value, list):
        if not value:
            return [f"{head} []{note}"]
        if _is_flow_list(value):
            return [f"{head} [{', '.join(scalar(v, flow=True) for v in value)}]{note}"]
        return [head + note, *(line for item in value for line in _item(item, inner))]
    if isinstance(value, str):
        block = _block_text(value, inner)
        if block is not None:
            return [f"{head} {block[0]}{note}", *block[1:]]
    return [f"{head} {scalar(value)}{note}"]


def _item(value: object, indent: str) -> list[str]:
    if isinstance(value, Mapping) and value:
        body = lines(value, indent + "  ")
        return [indent + "- " + body[0].lstrip(), *body[1:]]
    if isinstance(value, list) and value:
        body = [line for item in value for line in _item(item, indent + "  ")]
        return [indent + "- " + body[0].lstrip(), *body[1:]]
    return _entry(indent + "-", value, indent)
