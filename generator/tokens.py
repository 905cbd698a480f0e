"""Token counts of what the model sees on every turn, with a tokenizer that works offline.

Each tool reaches the Responses API as `{"type": "function", "name", "description",
"parameters", "strict": true}` (see SDK-NOTES), serialised as compact JSON like the OpenAI
client does; that text is counted with o200k_base, the encoding of the GPT-4o and later
families. The encoding ships inside the `bpe_openai` wheel (no download at run time) and is
loaded once per process, on first use, because it is large.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from toolgen.model import Catalogue, Tool

ENCODING = "o200k_base"


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@functools.cache
def _encoding() -> _Encoding:
    import bpe_openai

    return cast(_Encoding, bpe_openai.get_encoding(ENCODING))


@functools.lru_cache(maxsize=16384)
def count(text: str) -> int:
    """Tokens in `text`; special-token markers in spec text count as ordinary text."""
    return len(_encoding().encode_ordinary(text))


def tool_payload(tool: Tool) -> dict[str, object]:
    """The function tool exactly as the Responses API receives it."""
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": True,
    }


def payload_text(payload: Mapping[str, object]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class ToolTokens:
    name: str
    tokens: int


@dataclass(frozen=True, slots=True)
class TokenReport:
    encoding: str
    tools: tuple[ToolTokens, ...]  # in catalogue order

    @property
    def total(self) -> int:
        return sum(t.tokens for t in self.tools)

    def by_name(self) -> dict[str, int]:
        return {t.name: t.tokens for t in self.tools}

    def most_expensive(self, n: int = 5) -> tuple[ToolTokens, ...]:
        return tuple(sorted(self.tools, key=lambda t: (-t.tokens, t.name))[:n])


def measure(catalogue: Catalogue) -> TokenReport:
    """Tokens per tool and in all (counts are cached per text, so a second call is cheap)."""
    return TokenReport(
        ENCODING,
        tuple(
            ToolTokens(t.name, count(payload_text(tool_payload(t)))) for t in catalogue.tools
        ),
    )
