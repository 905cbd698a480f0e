"""The lockfile: what the model reads from a catalogue, committed beside the generated code.

`toolgen build` writes it into the generated package (`toolgen.lock.json`) and
`build --check` verifies it like every other output, so a pull request diff shows every change
to a tool definition the model reads, whatever caused it. Each tool keeps two digests:
`digest`, of the definition itself, and `source`, of its contract file's content. A definition
that changed while its `source` did not came from toolgen (a new version composing
descriptions differently), not from a spec edit, and a reviewer sees that in the diff.

The file is small on purpose: exact definitions and digests, no effects or guards (the
contract files say those and `toolgen diff` compares them). One tool per key, in name order,
indented, so a change is a few lines of diff.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolgen.spec import snapshot, tokens
from toolgen.spec.ir import Tool
from toolgen.text import json_document, json_text, json_value

LOCK_NAME = "toolgen.lock.json"
LOCK_FORMAT = 1


# a tool's part of the lockfile: its name, its definition's digest, and its entry as the
# lockfile's text holds it (indented for its place under "tools")
LockPiece = tuple[str, str, str]


def lock_piece(tool: Tool, cost: int) -> LockPiece:
    """A tool's entry of the lockfile (its piece), its definition costing `cost` tokens."""
    model = tokens.tool_payload(tool)
    definition_digest = snapshot.digest(model)
    entry = {
        "digest": definition_digest,
        "source": tool.digest,
        "tokens": cost,
        "definition": model,
    }
    shown = json_document(entry).replace("\n", "\n    ")
    return tool.name, definition_digest, f"    {json_text(tool.name)}: {shown}"


def catalogue_text(name: str, pieces: Sequence[LockPiece], total_tokens: int) -> str:
    """The lockfile's text for the catalogue `name`, assembled from each tool's piece
    (`lock_piece`), the tools in name order; the tools' definitions cost `total_tokens`."""
    made = sorted(pieces, key=lambda piece: piece[0])
    head = {
        "lock_format": LOCK_FORMAT,
        "catalogue": name,
        "encoding": tokens.ENCODING,
        "tokens": total_tokens,
        # one digest for the whole catalogue: equal digests, equal definitions
        "digest": snapshot.digest([[name, digest] for name, digest, _ in made]),
    }
    shown = json_document(head).removesuffix("\n}")
    body = ",\n".join(entry for _, _, entry in made)
    return f'{shown},\n  "tools": {{\n{body}\n  }}\n}}\n'


def read(text_: str) -> dict[str, Any] | None:
    """A lockfile's content, or None when the text is not a lockfile this toolgen reads."""
    try:
        data = json_value(text_)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("lock_format") != LOCK_FORMAT:
        return None
    return data
