"""Token counts of what the model sees on every turn, with a tokenizer that works offline.

Each tool reaches the Responses API as `{"type": "function", "name", "description",
"parameters", "strict": true}` (see SDK-NOTES), serialised as compact JSON like the OpenAI
client does; that text is counted with o200k_base, the encoding of the GPT-4o and later
families. The encoding ships inside the `bpe_openai` wheel (no download at run time) and is
loaded once per process, on first use, because it is large.

Importing the `bpe_openai` package decodes three vocabularies in Python (one to two seconds)
only to read their special tokens; the counting itself is done by its Rust extension, which
builds o200k_base in about a tenth of that. So the extension module is loaded directly, and the
public API is the fallback if that ever fails. tests/lint/test_tokens.py checks both agree.

Loading o200k_base takes about 45 ms, and it holds the interpreter's lock, so a thread would not
overlap it. A rebuild after a few tools changed counts only those (the others' counts are kept,
pieces.py), so `prefetch` loads the tokenizer in a forked child (parallel.serve) while the
build goes on, and `count` asks it; `finish` ends it. A child that fails costs only the load
here.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

from toolgen import parallel
from toolgen.ir import Catalogue, Tool
from toolgen.pieces import TOKENS, ToolPieces

ENCODING = "o200k_base"


class _Counter(Protocol):
    def count(self, text: str) -> int: ...


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


@dataclass(frozen=True, slots=True)
class _PublicCounter:
    encoding: _Encoding

    def count(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))


def _extension() -> _Counter:
    name = "bpe_openai._bindings"
    module = sys.modules.get(name)
    if module is None:
        package = importlib.util.find_spec("bpe_openai")
        folders = package.submodule_search_locations if package else None
        found = [
            f
            for folder in folders or ()
            for f in Path(folder).iterdir()
            if f.name.startswith("_bindings.") and f.suffix in (".so", ".pyd")
        ]
        spec = importlib.util.spec_from_file_location(name, found[0])
        if spec is None or spec.loader is None:
            raise ImportError(name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return cast(_Counter, module.tokenizer_for_encoding(ENCODING))


def public_counter() -> _Counter:
    """The tokenizer through bpe_openai's public API (slow to import, the reference)."""
    import bpe_openai  # type: ignore[import-untyped]

    return _PublicCounter(cast(_Encoding, bpe_openai.get_encoding(ENCODING)))


_loaded: _Counter | None = None


def _counter() -> _Counter:
    """The tokenizer of this process, loaded on first use."""
    global _loaded
    if _loaded is None:
        try:
            _loaded = _extension()
        except Exception:  # any layout change of the wheel: take the documented way
            _loaded = public_counter()
    return _loaded


def _answers() -> Callable[[bytes], bytes]:
    counter = _counter()
    return lambda text: counter.count(text.decode("utf-8")).to_bytes(8, "big")


_server: parallel.Server | None = None


def prefetch() -> None:
    """Start loading the tokenizer in a forked child, for the counts this process asks for
    later; nothing where it is loaded already or forking does not pay."""
    global _server
    if _server is not None or _loaded is not None:
        return
    if not parallel.worth_it(1, 1):
        return
    try:
        _server = parallel.serve(_answers)
    except OSError:
        _server = None


def finish() -> None:
    """End the child `prefetch` started, if any."""
    global _server
    if _server is not None and _server.owner == os.getpid():
        _server.stop()
        _server = None


def _counted(text: str) -> int | None:
    """The count from the prefetching child; None when there is none (or it failed)."""
    global _server
    server = _server
    if server is None or server.owner != os.getpid():
        return None
    try:
        return int.from_bytes(server.ask(text.encode("utf-8")), "big")
    except parallel.ChildFailed:
        _server = None
        return None


@functools.lru_cache(maxsize=16384)
def count(text: str) -> int:
    """Tokens in `text`; special-token markers in spec text count as ordinary text."""
    found = _counted(text)
    return found if found is not None else _counter().count(text)


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


def tool_tokens(tool: Tool) -> int:
    """Tokens of one tool's definition as the model receives it."""
    return count(payload_text(tool_payload(tool)))


def _is_count(value: object) -> bool:
    return type(value) is int and value >= 0


def measure(catalogue: Catalogue, pieces: ToolPieces | None = None) -> TokenReport:
    """Tokens per tool and in all (counts are cached per text, so a second call is cheap;
    with `pieces`, the count of a tool unchanged since the last build is the one kept)."""
    held = pieces if pieces is not None else ToolPieces()
    return TokenReport(
        ENCODING,
        tuple(
            ToolTokens(t.name, held.get(t, TOKENS, tool_tokens, _is_count))
            for t in catalogue.tools
        ),
    )
