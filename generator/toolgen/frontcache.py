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

The cache is SHARDS files, `.toolgen-cache/front-<folder digest>-<shard>.pickle`, a tool file's
entry in the shard its path hashes to (`_shard_of`, a CRC-32: the same in every process). Every
build reads them all: at 1,000 tools (16 MB in all) 32 files cost no more than one of the same
bytes, while a file per tool would cost more than parsing the specs. A build writes only the
shards whose entries changed (an entry added, removed, or with other bytes: its IR, its lint
record, its pieces), each through a temporary file and a rename, and leaves the others as they
are: after one tool's edit, its shard and those of the tools whose lint records read something
of it (their fingerprints of it are new), two of the 32 in the bench catalogue. Each tool's IR
is in its entry as the bytes it was pickled to, read back only when a stage asks for more of
the tool than the few fields every stage reads of every tool (`KeptTool`): a rebuild after one
tool changed reads back none of the others, and keeps their bytes as it read them. (Keeping
the IR in files of its own, read only on demand, would spare reading 10 of the 16 MB, but
unpickling bytes is a copy: the read's cost is in the lint records and pieces, 6 MB of small
objects, which every build reads. The facts the lint records of one build read are one object
each, `ToolLint.data`, so a shard holds each once: 15,400 facts of 1,000 tools are 1,800
distinct ones.)

Each shard is framed as a whole cache would be (MAGIC, a CRC-32 over the rest, the pickle) and
holds the key it was made under, and each is judged alone: one that is missing, truncated,
corrupt, of another format or made under another key holds nothing, its tools' files are read,
and the build writes it anew (or removes it, when it is to hold nothing). An entry whose file
does not hash to its shard is left out too. The shards on disk may come from different builds
(one killed between two renames, or unable to write the rest): that is safe, because an entry
says no more than "the file with this text digest, under this key, has this IR, lint record
and pieces", and nothing in it refers to another entry or to the build that wrote it. Its IR
and pieces are functions of the file's text and of what the key covers, its lint record holds
the findings that read nothing catalogue-wide and the fingerprints of what the others read
(checked again on every build), and a file is only ever in its one shard, so no two shards
can both speak for it. A shard of an old key is never read; the build that writes its
catalogue's cache writes or removes every shard it could not read under its own key, and
removes the files of this catalogue's cache that are not its shards (the single file of
format 4 and before, shards of another count), so none pile up.

Like the other caches it is written by `build` only (`check` and `build --check` use none),
and it can only cost a build, never change it: a shard that cannot be read is no shard, and an
IR that still cannot be read back (under a checksum that holds, which only other code could
write) starts the build again without the cache.

A shard is a pickle: loading one runs code its author chose, like the generated modules and
implementations the same project holds, which the project's own build imports anyway. It is
never read from anywhere but the project's `.toolgen-cache/`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import operator
import os
import pickle
import re
import zlib
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
FORMAT = 6
# a shard: this, the CRC-32 of the rest (4 bytes, big-endian), the pickle
MAGIC = b"toolgen-front\n"
# the shard files of a catalogue (a change of the count moves entries: bump FORMAT with it)
SHARDS = 32


def _shard_of(file: str) -> int:
    """The shard a tool file's entry is kept in."""
    return zlib.crc32(file.encode()) % SHARDS


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


def _dumps(tool: Tool) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(tool)
    return buffer.getvalue()


def _framed(payload: bytes) -> bytes:
    """A shard file: MAGIC, the CRC-32 of the pickle and the pickle."""
    return MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload


def _checked(data: bytes) -> memoryview:
    """The pickle of a shard file whose checksum holds (ValueError otherwise)."""
    head = len(MAGIC) + 4
    if not data.startswith(MAGIC) or len(data) < head:
        raise ValueError("not a front cache file")
    body = memoryview(data)[head:]
    if zlib.crc32(body) != int.from_bytes(data[len(MAGIC) : head], "big"):
        raise ValueError("the front cache file is damaged")
    return body


class Unreadable(Exception):
    """A kept tool's IR could not be read back (which only a damaged cache can make): the
    build starts again without the front cache (pipeline.build_catalogue)."""


# What a kept tool holds without its IR: the fields and names every stage reads of every
# tool (name, role, Python names, requires, not_when uses, intent, use_when, parameter names,
# suppressed rules). A stage that reads more reads the IR back: only its speed depends on
# this list.
Summary = tuple[
    str, str, tuple[str, ...], tuple[str, ...], tuple[str, ...], str, str,
    tuple[str, ...], tuple[str, ...],
]  # fmt: skip
# text digest, summary, pickled IR, lint record as plain data, pieces by kind
_Entry = tuple[str, Summary, bytes, object, object]


def _summary(tool: Tool) -> Summary:
    py = tool.py
    names = (
        py.module,
        py.prefix,
        py.args_class,
        py.context_class,
        py.result_class,
        py.error_class,
    )
    return (
        tool.name,
        tool.role,
        names,
        tool.requires,
        tool.not_when_uses,
        tool.intent,
        tool.use_when,
        tool.param_names,
        tool.suppressed_rules,
    )


def _is_summary(data: object) -> bool:
    if not (isinstance(data, tuple) and len(data) == 9):
        return False
    name, role, names, requires, uses, intent, use_when, params, rules = data
    return (
        all(isinstance(text, str) for text in (name, intent, use_when))
        and role in ("tool", "confirm")
        and all(
            isinstance(part, tuple) and all(isinstance(s, str) for s in part)
            for part in (names, requires, uses, params, rules)
        )
        and len(names) == 6
    )


_KEPT_SLOTS = frozenset({"_file", "_pickled", "_uses", "_params", "_rules"})
_TOOL_SLOTS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Tool))


class KeptTool(Tool):
    """A tool of the front cache: the fields of its summary are set (name, role, Python
    names, requires, intent, use_when, digest; its not_when uses, parameter names and
    suppressed rules answer from slots of their own), and the rest of its IR is read back
    from its pickled bytes the first time anything else of it is asked for (`__getattr__`
    runs only for a field not set yet). It then holds every field and behaves as the `Tool`
    it was made from: equal to it, hashed and pickled as it.

    The stages read of every tool only what the summary holds (the checks between tools,
    the lint facts, the render cache and the pieces go by name, file and digest), so a
    rebuild reads back the IR of the tools it needs, not of the catalogue."""

    __slots__ = ("_file", "_params", "_pickled", "_rules", "_uses")
    _file: str
    _pickled: bytes
    _uses: tuple[str, ...]
    _params: tuple[str, ...]
    _rules: tuple[str, ...]

    @classmethod
    def kept(cls, file: str, digest: str, summary: Summary, pickled: bytes) -> KeptTool:
        tool = object.__new__(cls)
        name, role, names, requires, uses, intent, use_when, params, rules = summary
        for slot, value in (
            ("name", name),
            ("role", role),
            ("py", ir.PyNames(*names)),
            ("requires", requires),
            ("intent", intent),
            ("use_when", use_when),
            ("digest", digest),
            ("_file", file),
            ("_pickled", pickled),
            ("_uses", uses),
            ("_params", params),
            ("_rules", rules),
        ):
            object.__setattr__(tool, slot, value)
        return tool

    def __new__(cls, *fields: Any, **named: Any) -> Tool:  # type: ignore[misc]
        # what dataclasses.replace calls: a kept tool with a field replaced is a plain
        # Tool (a KeptTool is only ever made by `kept`, with its summary set)
        return Tool(*fields, **named)

    def __getattr__(self, name: str) -> Any:
        if name in _KEPT_SLOTS or name.startswith("__"):
            raise AttributeError(name)
        self._read_back()
        return object.__getattribute__(self, name)

    def _read_back(self) -> None:
        try:
            pickled = self._pickled
        except AttributeError:  # read back already: every field is set
            return
        try:
            full = pickle.loads(pickled)
        except Exception as exc:  # pickle raises anything
            raise Unreadable(f"cannot read back the IR of {self._file}") from exc
        if not isinstance(full, Tool) or full.file != self._file:
            raise Unreadable(f"the IR kept for {self._file} is of another tool")
        for slot in _TOOL_SLOTS:
            object.__setattr__(self, slot, object.__getattribute__(full, slot))
        object.__delattr__(self, "_pickled")

    def as_tool(self) -> Tool:
        """The plain `Tool` with the same fields."""
        return Tool(*(getattr(self, slot) for slot in _TOOL_SLOTS))

    # the properties of names, answered from the summary
    @property
    def file(self) -> str:
        return self._file

    @property
    def not_when_uses(self) -> tuple[str, ...]:
        return self._uses

    @property
    def param_names(self) -> tuple[str, ...]:
        return self._params

    @property
    def suppressed_rules(self) -> tuple[str, ...]:
        return self._rules

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeptTool):
            other = other.as_tool()
        return self.as_tool() == other

    def __hash__(self) -> int:
        return hash(self.as_tool())

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return (Tool, tuple(getattr(self, slot) for slot in _TOOL_SLOTS))


def _entries(data: object, key: str, index: int) -> tuple[dict[str, _Entry], bool]:
    """The well-formed entries of shard `index` (`data`, unpickled) made under `key`, and
    whether they are all it holds (False: the shard is to be written anew)."""
    if not isinstance(data, dict) or data.get("key") != key:
        return {}, False
    tools = data.get("tools")
    if not isinstance(tools, dict):
        return {}, False
    found = {
        file: entry
        for file, entry in tools.items()
        if isinstance(file, str)
        and isinstance(entry, tuple)
        and len(entry) == 5
        and isinstance(entry[0], str)
        and _is_summary(entry[1])
        and isinstance(entry[2], bytes)
        and _shard_of(file) == index
    }
    return found, len(found) == len(tools)


class FrontCache:
    """The front cache of one catalogue folder (`folder`, as shown) of the project at
    `root`: `reusable` (for load) names what it holds for a catalogue file, `tools` gives
    the IR of the files load reused, `save` remembers a build's clean tools.

    Each tool is pickled on its own, so that a build re-pickles only the tools it built,
    and each shard is written only when its entries changed (see the module's docstring).
    `path` names the shard files as messages show them (a pattern, not a file)."""

    def __init__(self, root: Path, folder: str) -> None:
        name = hashlib.sha256(folder.encode()).hexdigest()[:12]
        self.folder = folder
        self._dir = root / CACHE_DIR
        self._prefix = f"front-{name}"
        self.path = self._dir / f"{self._prefix}-*.pickle"
        self.key: str | None = None  # of the catalogue file this build read
        # file -> (text digest, summary, pickled IR, lint record as plain data, pieces by kind)
        self._held: dict[str, _Entry] = {}
        self._reused: dict[str, Tool] = {}
        # shard -> its entries, for the shards whose file holds exactly those under `key`
        # (an empty one for a shard without a file): the shards `save` need not write
        self._on_disk: dict[int, dict[str, _Entry]] = {}
        # the pieces made with the IR of the tools made ahead (`adopt`), by file
        self.made_pieces: dict[str, dict[str, object]] = {}

    def shard_path(self, index: int) -> Path:
        """The file of shard `index` (0 to SHARDS - 1)."""
        return self._dir / f"{self._prefix}-{index:02x}.pickle"

    def reusable(self, catalogue: Document | None) -> Mapping[str, str]:
        """Tool file (as shown) -> digest of the text its kept IR was made from, for the
        catalogue file just loaded (nothing when it could not be loaded)."""
        if catalogue is None:
            return {}
        self.key = _key(catalogue.digest, self.folder)
        self._held = self._read(self.key)
        return {file: entry[0] for file, entry in self._held.items()}

    def unread(self, catalogue: Document | None) -> Mapping[str, str]:
        """As `reusable`, for a build that reads nothing of the cache but writes it."""
        if catalogue is not None:
            self.key = _key(catalogue.digest, self.folder)
        return {}

    def _read(self, key: str) -> dict[str, _Entry]:
        held: dict[str, _Entry] = {}
        self._on_disk = {}
        for index in range(SHARDS):
            try:
                data = self.shard_path(index).read_bytes()
            except FileNotFoundError:
                self._on_disk[index] = {}
                continue
            except OSError:
                continue
            # any unreadable shard is no shard (pickle raises anything)
            try:
                entries, whole = _entries(pickle.loads(_checked(data)), key, index)
            except Exception:
                continue
            held.update(entries)
            if whole:
                self._on_disk[index] = entries
        return held

    def tools(self, files: Iterable[str]) -> list[Tool]:
        """The kept tools of `files` (those load reused), each reading its IR back when
        first asked for more than its summary (`KeptTool`)."""
        found: list[Tool] = []
        for file in files:
            digest, summary, pickled, _, _ = self._held[file]
            found.append(KeptTool.kept(file, digest, summary, pickled))
        self._reused = {tool.file: tool for tool in found}
        return found

    def lint_records(self) -> dict[str, ToolLint]:
        """The lint records kept with the tools this build reused (see lint/engine.py);
        a record of another shape is left out (its tool is linted afresh)."""
        found: dict[str, ToolLint] = {}
        for file in self._reused:
            record = ToolLint.from_data(self._held[file][3])
            if record is not None:
                found[file] = record
        return found

    def pieces(self) -> dict[str, dict[str, object]]:
        """The per-tool pieces (pieces.py) kept with the tools this build reused, by file;
        each piece's shape is checked where it is used."""
        found: dict[str, dict[str, object]] = {}
        for file in self._reused:
            held = self._held[file][4]
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
        there are, writing the shards whose entries changed; False when one cannot be
        written (which only costs the next build time)."""
        if self.key is None:
            return True
        blamed = {d.span.file for d in diagnostics}
        records = lint or {}
        shared: dict[object, object] = {}  # equal parts of the lint records, one object
        shards: list[dict[str, _Entry]] = [{} for _ in range(SHARDS)]
        try:
            for tool in tools:
                if tool.file in blamed or tool.derived:
                    # a derived tool (prepare_<x>) is made again from its contract's IR
                    continue
                record = records.get(tool.file)
                lint_data = None if record is None else record.data(shared)
                made = {} if pieces is None else pieces.to_keep(tool.file)
                if self._reused.get(tool.file) is tool:
                    digest, summary, pickled, _, _ = self._held[tool.file]
                    entry = (digest, summary, pickled, lint_data, made)
                else:
                    entry = (tool.digest, _summary(tool), _dumps(tool), lint_data, made)
                shards[_shard_of(tool.file)][tool.file] = entry
            for index, entries in enumerate(shards):
                # (the entries of reused tools are the objects read: most compare by identity)
                if self._on_disk.get(index) != entries:
                    self._write(index, entries)
            self._remove_strays()
        except (OSError, pickle.PicklingError, RecursionError):
            return False
        return True

    def _write(self, index: int, entries: dict[str, _Entry]) -> None:
        """Shard `index` with `entries` (its file removed when there are none)."""
        path = self.shard_path(index)
        self._on_disk.pop(index, None)
        if not entries:
            path.unlink(missing_ok=True)
        else:
            assert self.key is not None
            data = pickle.dumps(
                {"key": self.key, "tools": entries}, protocol=pickle.HIGHEST_PROTOCOL
            )
            # a *.tmp file of the cache folder: the next build removes it if this one dies
            temp = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
            try:
                self._dir.mkdir(parents=True, exist_ok=True)
                temp.write_bytes(_framed(data))
                temp.replace(path)
            except OSError:
                with contextlib.suppress(OSError):
                    temp.unlink(missing_ok=True)
                raise
        self._on_disk[index] = entries

    def _remove_strays(self) -> None:
        """Remove the files named as this catalogue's front cache that are none of its
        shards: the single file of format 4 and before, shards of another count."""
        if not self._dir.is_dir():
            return
        ours = re.compile(rf"{self._prefix}(-[0-9a-f]{{2}})?\.pickle")
        shards = {self.shard_path(index).name for index in range(SHARDS)}
        for entry in os.scandir(self._dir):
            if (
                ours.fullmatch(entry.name)
                and entry.name not in shards
                and entry.is_file(follow_symlinks=False)
            ):
                os.unlink(entry.path)


# What a build made ahead of the pipeline, for the front cache to hold as if an earlier
# build had kept it (ahead.py: the tool files a first build parses in two processes).

# text digest, summary, pickled IR, pieces by kind: what the front cache keeps of a tool
# but its lint record (lint makes that afresh)
Made = tuple[str, Summary, bytes, dict[str, object]]


def made(tool: Tool, pieces: Mapping[str, object] | None = None) -> Made:
    """What the front cache would keep of `tool`'s IR, pickled as `save` pickles it, with
    the pieces made of it (pieces.py)."""
    return (tool.digest, _summary(tool), _dumps(tool), dict(pieces or {}))


def adopt(front: FrontCache, made: Mapping[str, Made]) -> dict[str, str]:
    """Hold `made` (by tool file) in `front`, after its `reusable` read the catalogue file's
    entries: load then reuses those files as it does kept ones, and `save` writes their
    bytes as they are; their pieces are `front.made_pieces`. Tool file -> digest, as
    `reusable` gives it."""
    for file, (digest, summary, pickled, pieces) in made.items():
        front._held[file] = (digest, summary, pickled, None, None)
        front.made_pieces[file] = pieces
    return {file: entry[0] for file, entry in made.items()}


def settle(tools: Iterable[Tool], full: Mapping[str, Tool]) -> None:
    """Give each kept tool of `tools` whose IR this process made (`full`, by file, of the
    same text) the fields of that IR, so that it never reads its bytes back."""
    for tool in tools:
        made_here = full.get(tool.file)
        if not isinstance(tool, KeptTool) or made_here is None:
            continue
        if made_here.digest != tool.digest or not hasattr(tool, "_pickled"):
            continue
        for slot in _TOOL_SLOTS:
            object.__setattr__(tool, slot, object.__getattribute__(made_here, slot))
        object.__delattr__(tool, "_pickled")
