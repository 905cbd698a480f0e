"""The front cache: each tool file's IR, kept from the last build, so a rebuild after one tool
changed parses, checks and models that one file only.

A tool's IR (load -> validate -> model) is a function of its file's text, of catalogue.yaml's
text (its context fields) and of the code that reads them: toolgen's own code and schemas and
toolgen_runtime's (the URL and path guards a contract is checked with), all in the one key
function the check cache uses too (`paths.cache_key`). The cache holds, per tool file, the
digest of its text, its frozen IR tool, its lint record (the findings of the lint checks over
its elements that read nothing catalogue-wide, and the rules whose checks did: lint/engine.py)
and its pieces of the catalogue-wide outputs (card, lockfile entry, token count, the
implementation check with the implementation file's digest: pieces.py), under a key of
everything else. A file is kept only when the stages before lint found nothing in it (load,
format, model and the per-file checks), so a reused tool also stands for "its per-file checks
passed". The checks between tools, the lint rules that read the catalogue, the layout and the
write run over the whole catalogue on every build.

One file (`.toolgen-cache/front-<folder digest>.pickle`), read once and written once a build:
reading a thousand small files would cost more than parsing the specs. Like the other caches
it is written by `build` only (`check` and `build --check` use none), and it can only cost a
build, never change it: a cache that cannot be read, is truncated, corrupt, of another format
or made by other code is ignored, and the build reads every file.

The file is a pickle: loading one runs code its author chose, like the generated modules and
implementations the same project holds, which the project's own build imports anyway. It is
never read from anywhere but the project's `.toolgen-cache/`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import io
import operator
import os
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from toolgen import ir, load
from toolgen.diagnostics import Diagnostic
from toolgen.ir import Tool
from toolgen.lint.engine import ToolLint
from toolgen.load import Document
from toolgen.paths import CACHE_DIR, cache_key
from toolgen.pieces import ToolPieces

# bump when what is stored changes shape (the IR classes are covered by toolgen_digest)
FORMAT = 3


def _key(catalogue_digest: str, folder: str) -> str:
    return cache_key(f"front:{FORMAT}", folder, catalogue_digest)


def _fields_in_order() -> dict[type, tuple[str, ...]]:
    """The IR's frozen dataclasses and their fields, for `_Pickler`."""
    found: dict[type, tuple[str, ...]] = {}
    for module in (ir, load):
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                fields = dataclasses.fields(value)
                if all(f.init and not f.kw_only for f in fields):
                    found[value] = tuple(f.name for f in fields)
    return found


_FIELDS = _fields_in_order()


def _reducer(
    cls: type, fields: tuple[str, ...]
) -> Callable[[Any], tuple[type, tuple[Any, ...]]]:
    if len(fields) == 1:
        one = operator.attrgetter(fields[0])
        return lambda obj: (cls, (one(obj),))
    if not fields:
        return lambda obj: (cls, ())
    every = operator.attrgetter(*fields)
    return lambda obj: (cls, every(obj))


_DISPATCH: dict[type, Callable[[Any], Any]] = {
    cls: _reducer(cls, fields) for cls, fields in _FIELDS.items()
}


class _Pickler(pickle.Pickler):
    """Pickles an IR element as a call of its class with its fields: unpickling it then
    runs the dataclass's own __init__, which costs half what the default (a __setstate__
    that sets each slot in turn) does on the 130,000 elements of a 1,000-tool catalogue.

    The reducers are a dispatch table (looked up by type in C, each reading the fields with
    one attrgetter) rather than a `reducer_override`, which the pickler would call in Python
    for every object it meets: the same bytes in half the time."""

    dispatch_table = _DISPATCH


def _lint_record(data: object) -> ToolLint | None:
    if not (isinstance(data, tuple) and len(data) == 3):
        return None
    hits, live, facts = data
    if not (isinstance(hits, tuple) and isinstance(live, tuple)):
        return None
    if not all(isinstance(rule_id, str) for rule_id in live):
        return None
    if not (isinstance(facts, tuple) and all(_rule_facts(f) for f in facts)):
        return None
    for hit in hits:
        if not (
            isinstance(hit, tuple)
            and len(hit) == 6
            and all(isinstance(part, str) for part in hit[:4])
            and all(type(part) is int for part in hit[4:])
        ):
            return None
    return ToolLint(hits, frozenset(live), facts)


def _rule_facts(data: object) -> bool:
    """(rule id, ((fact key, fingerprint), ...)), as engine.KeptFacts holds them."""
    if not (isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], str)):
        return False
    read = data[1]
    return isinstance(read, tuple) and all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and isinstance(pair[1], str)
        for pair in read
    )


def _dumps(tool: Tool) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(tool)
    return buffer.getvalue()


class FrontCache:
    """The front cache of one catalogue folder (`folder`, as shown) of the project at
    `root`: `reusable` (for load) names what it holds for a catalogue file, `tools` gives
    the IR of the files load reused, `save` remembers a build's clean tools.

    Each tool is pickled on its own, so that a build re-pickles only the tools it built
    and writes the others' bytes as it read them."""

    def __init__(self, root: Path, folder: str) -> None:
        name = hashlib.sha256(folder.encode()).hexdigest()[:12]
        self.path = root / CACHE_DIR / f"front-{name}.pickle"
        self.folder = folder
        self.key: str | None = None  # of the catalogue file this build read
        # file -> (text digest, pickled IR, lint record as plain data, pieces by kind)
        self._held: dict[str, tuple[str, bytes, object, object]] = {}
        self._reused: dict[str, Tool] = {}

    def reusable(self, catalogue: Document | None) -> Mapping[str, str]:
        """Tool file (as shown) -> digest of the text its kept IR was made from, for the
        catalogue file just loaded (nothing when it could not be loaded)."""
        if catalogue is None:
            return {}
        self.key = _key(catalogue.digest, self.folder)
        self._held = self._read(self.key)
        return {file: entry[0] for file, entry in self._held.items()}

    def _read(self, key: str) -> dict[str, tuple[str, bytes, object, object]]:
        try:
            data = pickle.loads(self.path.read_bytes())
        except Exception:  # any unreadable cache is no cache (pickle raises anything)
            return {}
        if not isinstance(data, dict) or data.get("key") != key:
            return {}
        tools = data.get("tools")
        if not isinstance(tools, dict):
            return {}
        return {
            file: entry
            for file, entry in tools.items()
            if isinstance(file, str)
            and isinstance(entry, tuple)
            and len(entry) == 4
            and isinstance(entry[0], str)
            and isinstance(entry[1], bytes)
        }

    def tools(self, files: Iterable[str]) -> list[Tool] | None:
        """The kept IR of `files` (those load reused); None when one cannot be read back
        (the build must then read every file)."""
        found: list[Tool] = []
        # the collector would rescan the tools already read over and over (as in load):
        # unpickling makes no cycles
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for file in files:
                tool = pickle.loads(self._held[file][1])
                if not isinstance(tool, Tool) or tool.file != file:
                    return None
                found.append(tool)
        except Exception:  # a corrupt entry is no cache (pickle raises anything)
            return None
        finally:
            if was_enabled:
                gc.enable()
        self._reused = {tool.file: tool for tool in found}
        return found

    def lint_records(self) -> dict[str, ToolLint]:
        """The lint records kept with the tools this build reused (see lint/engine.py);
        a record of another shape is left out (its tool is linted afresh)."""
        found: dict[str, ToolLint] = {}
        for file in self._reused:
            record = _lint_record(self._held[file][2])
            if record is not None:
                found[file] = record
        return found

    def pieces(self) -> dict[str, dict[str, object]]:
        """The per-tool pieces (pieces.py) kept with the tools this build reused, by file;
        each piece's shape is checked where it is used."""
        found: dict[str, dict[str, object]] = {}
        for file in self._reused:
            held = self._held[file][3]
            if isinstance(held, dict):
                found[file] = {k: v for k, v in held.items() if isinstance(k, str)}
        return found

    def save(
        self,
        tools: Sequence[Tool],
        diagnostics: Iterable[Diagnostic],
        lint: Mapping[str, ToolLint] | None = None,
        pieces: ToolPieces | None = None,
    ) -> bool:
        """Keep the IR of every tool whose file nothing was found in by the stages before
        lint (`diagnostics`), with its lint record (`lint`, by file) and its pieces when
        there are; False when the cache cannot be written (which only costs the next build
        time)."""
        if self.key is None:
            return True
        blamed = {d.span.file for d in diagnostics}
        records = lint or {}
        kept: dict[str, tuple[str, bytes, object, object]] = {}
        temp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.tmp")
        try:
            for tool in tools:
                if tool.file in blamed or tool.derived:
                    # a derived tool (prepare_<x>) is made again from its contract's IR
                    continue
                record = records.get(tool.file)
                lint_data = (
                    None
                    if record is None
                    else (record.hits, tuple(sorted(record.live)), record.facts)
                )
                made = {} if pieces is None else pieces.to_keep(tool.file)
                if self._reused.get(tool.file) is tool:
                    digest, ir_bytes, _, _ = self._held[tool.file]
                    kept[tool.file] = (digest, ir_bytes, lint_data, made)
                else:
                    kept[tool.file] = (tool.digest, _dumps(tool), lint_data, made)
            data = pickle.dumps(
                {"key": self.key, "tools": kept}, protocol=pickle.HIGHEST_PROTOCOL
            )
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp.write_bytes(data)
            temp.replace(self.path)
        except (OSError, pickle.PicklingError, RecursionError):
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            return False
        return True
