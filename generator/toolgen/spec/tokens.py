"""Token counts of what the model sees on every turn, with a tokenizer that works offline.

Each tool reaches the Responses API as `{"type": "function", "name", "description",
"parameters", "strict": true}` (see SDK-NOTES), serialised as compact JSON like the OpenAI
client does; that text is counted with o200k_base, the encoding of the GPT-4o and later
families. The tokenizer is rs-bpe's (GitHub's linear BPE, in Rust): its wheel holds the
encoding, so nothing is downloaded, and it loads in a tenth of a second, once per process,
on first use. (bpe-openai, the same Rust crate, decodes three vocabularies in Python when its
package is imported: a second on this machine, on every `toolgen check`.)
tests/lint/test_tokens.py holds its counts to tiktoken's reference ones.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from toolgen.spec.ir import Tool

ENCODING = "o200k_base"


@functools.cache
def _counter() -> Callable[[str], int]:
    """The count of the tokenizer of this process, loaded on first use."""
    from rs_bpe.bpe import openai  # type: ignore[import-not-found]

    counter: Callable[[str], int] = openai.o200k_base().count
    return counter


@functools.lru_cache(maxsize=16384)
def count(text: str) -> int:
    """Tokens in `text`; special-token markers in spec text count as ordinary text."""
    return _counter()(text)


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


def tool_tokens(tool: Tool) -> int:
    """Tokens of one tool's definition as the model receives it."""
    return count(payload_text(tool_payload(tool)))


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

    def most_expensive(self, n: int = 5) -> tuple[ToolTokens, ...]:
        return tuple(sorted(self.tools, key=lambda t: (-t.tokens, t.name))[:n])
