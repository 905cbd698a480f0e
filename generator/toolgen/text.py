"""The small pieces of wording every stage uses, once: sentences, lists, articles, and how a
spec value is shown in a message or in prose. A leaf: it imports nothing of toolgen."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any


def sentence(text: str, *, fold: bool = True) -> str:
    """A full stop unless the text ends a sentence already (in Chinese and Japanese too,
    with their own full stop and wide ! and ?); whitespace folded (or, without `fold`, only
    stripped at the ends: the author's line breaks kept)."""
    text = " ".join(text.split()) if fold else text.strip()
    return text if not text or text[-1] in ".!?\u3002\uff01\uff1f" else text + "."


def listing(words: Sequence[str], conjunction: str = "and") -> str:
    """ "a"; "a and b"; "a, b and c"."""
    if len(words) < 3:
        return f" {conjunction} ".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


# what a terminal acts on instead of showing: control characters (C0 but the tab, DEL, C1),
# the line and paragraph separators and the bidirectional controls
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
)


LINE_BREAK = "\n"


def printable(text: str, keep: str = "") -> str:
    """`text` for a terminal or a log: what would move the cursor, erase a line, set a title
    or turn the text around written as an escape (`\\x1b`), so spec text, a file name or a
    reason can never fake a line of toolgen's; the characters of `keep` are left as they
    are (a line break toolgen itself writes)."""
    return _UNPRINTABLE.sub(
        lambda m: m.group() if m.group() in keep else repr(m.group())[1:-1], text
    )


def article(word: str) -> str:
    """ "a string", "an integer"."""
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"


def json_value(text: str | bytes, **options: Any) -> object:
    """JSON text read as a value (`options` go to `json.loads`). `ValueError` when it is not
    JSON, and when it nests deeper than json's reader goes (there `json.loads` raises
    `RecursionError`: a file made to stop toolgen)."""
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise ValueError("it is nested too deeply to read") from None


def json_text(value: object) -> str:
    """A value as JSON writes it."""
    return json.dumps(value, ensure_ascii=False)


def json_sorted(value: object) -> str:
    """A value as JSON with its keys in order, so two versions of a setting read alike."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def json_document(value: object) -> str:
    """A value as indented JSON, as the files reviewers read and diff are written (the
    lock file, the package manifest, the reports)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def clipped(text: str, limit: int = 120) -> str:
    """`text` whole up to `limit` characters, else cut to them, "..." last: a message
    quotes this way what may be long (a value, a source's title)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: object) -> str:
    """A spec value in a message: text quoted as Python does, anything else as JSON."""
    return repr(value) if isinstance(value, str) else json_text(value)


def value_text(value: object) -> str:
    """A value as a reader writes it in prose: text bare, anything else as JSON."""
    return value if isinstance(value, str) else json_text(value)


def suggestion(name: str, known: Iterable[str], otherwise: str) -> str:
    """ "Did you mean 'x'?" for the known name closest to `name`, else `otherwise`."""
    close = difflib.get_close_matches(name, sorted(known), n=1)
    return f"Did you mean {close[0]!r}?" if close else otherwise


def counted(count: int, word: str, plural: str = "") -> str:
    """`1 error`, `2 errors`, `1,234 tools`: a count with its noun in the right number."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


# --- the reference pages generated from code (docs/codes.md, rules.md, diff-rules.md) ------


def reference_page(
    intro: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[str]],
    groups: Iterable[tuple[str, Sequence[str]]],
) -> str:
    """The intro, an index table, then each group's sections under its title."""
    lines = [intro, f"| {' | '.join(columns)} |", "|" + " --- |" * len(columns)]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    lines.append("")
    for title, sections in groups:
        if sections:
            lines += [f"## {title}", "", *sections]
    return "\n".join(lines).rstrip() + "\n"


def reference_section(anchor: str, heading: str, *paragraphs: str) -> str:
    """One entry of a reference page: its anchor, its heading and its paragraphs."""
    body = [line for paragraph in paragraphs for line in (paragraph, "")]
    return "\n".join([f'<a id="{anchor}"></a>', f"### {heading}", "", *body])


def deeper_headings(doc: str) -> str:
    """A docstring's `## Section` headings as `####`, under the entry's `###`."""
    return "\n".join(
        "##" + ln if ln.startswith("## ") else ln for ln in doc.splitlines()
    )
