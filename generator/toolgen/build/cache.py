"""The build cache: what the last build of a catalogue kept, so a rebuild does the work of the
change only.

One module owns it, in one format: JSON Lines in the project's cache folder
(`.toolgen-cache/`, never committed), a header line (the format and the code that made the
file) and an entry a line, three files per catalogue (a save removes the catalogue's files of
another format).

- The stamp (`<catalogue>.stamp.jsonl`): what the last build reported, the status (size,
  modification and change times, inode) of every file it left in the package, and the digest
  of the status of every file it read or left (the spec files and the implementations, each
  taken before it was read, and the package). A build that finds them all with that status,
  each last changed before the stamp was written, reports the same without reading a file
  and does nothing else (`replay`), as git's index and make judge a file unchanged.
- The tools (`<catalogue>.tools.jsonl`): per tool file, what compiling it gave (`ToolUnit`),
  under the key of everything that is a function of.
- The implementation checks (`<catalogue>.implementations.jsonl`): what checking each
  implementation found, under the digest of its bytes and the signature its contract expects
  (`checks.implementations.Checked`).

All are versioned by the code that made them and hold data only, read back by a reader that
checks the type of every value, and signed with this user's key (`_signature`): a file another
user, machine or clone wrote is not read. What that promises is docs/builds.md's (The build
cache).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import errno
import functools
import hashlib
import json
import os
import secrets
import stat
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

from toolgen.build.manifest import walk
from toolgen.diagnostics import Diagnostic, Hit
from toolgen.paths import CACHE_DIR, cache_folder, cache_key, file_digest, read_regular
from toolgen.spec.summary import ToolSummary
from toolgen.text import json_value

# 3: JSON Lines, a header and an entry a line; 4: a dataclass as the list of its fields;
# 5: a stamp of the status of what a build read, and change times in every status
FORMAT = 5
# a catalogue's kept units are a few megabytes at 5,000 tools: a larger file was not written
# by a build
MAX_CACHE_BYTES = 256 * 1024 * 1024

# a file's size, modification and change times (ns) and inode
Status = tuple[int, int, int, int]
# the status of files as one digest, and the latest time (ns) one of them changed
Read = tuple[str, int]
_T = TypeVar("_T")


class _Bad(ValueError):
    """A cache value of the wrong shape."""


# --- the kept results of one tool file -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolUnit:
    """One tool file compiled: a function of its text, catalogue.yaml, the catalogue's tool
    names and toolgen (`key`; `front`, of the first two, says which names the file gives).

    `tools` are the summaries of the tools it makes (none when it failed the format: `broken`
    is then the name it is known by), `diagnostics` what loading, the format check, the model
    and the checks over one tool found, `hits` its lint findings before suppressions, and the
    rest its share of the build: token counts, formatted entries of the cards module and
    lockfile pieces (by tool name), and the digest of each owned file (by root-relative path).
    """

    file: str
    # none for a unit no cache keeps (the render of a check's IR, tests/loading.py)
    front: str = ""
    key: str = ""
    broken: str | None = None
    tools: tuple[ToolSummary, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    hits: tuple[Hit, ...] = ()
    tokens: Mapping[str, int] = field(default_factory=dict)
    cards: Mapping[str, str] = field(default_factory=dict)
    locks: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    outputs: Mapping[str, str] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)


# --- kept values: a dataclass as the list of its fields, read back by its type hints -------


def encoded(value: object) -> object:
    """A kept value as JSON: a dataclass as the list of its fields in order, a tuple as a
    list, an enum as its value; `decoded` reads it back."""
    if isinstance(value, (str, int, float)) or value is None:
        return value
    kind: Any = type(value)
    names = _field_names(kind)
    if names is not None:
        return [encoded(getattr(value, name)) for name in names]
    if isinstance(value, (tuple, list)):
        return [encoded(item) for item in value]
    if isinstance(value, Mapping):
        return {key: encoded(item) for key, item in value.items()}
    if isinstance(value, enum.Enum):
        return value.value
    return value


@functools.cache
def _field_names(kind: Any) -> tuple[str, ...] | None:
    """The fields of a dataclass, in order; None for any other type."""
    if not dataclasses.is_dataclass(kind):
        return None
    return tuple(f.name for f in dataclasses.fields(kind))


def decoded(kind: Any, value: object) -> Any:
    """`value` (JSON, as `encoded` wrote it) read as the type `kind`; `_Bad` when any part of
    it is not of the type its place says."""
    return _reader(kind)(value)


def _exactly(kind: type) -> Callable[[object], Any]:
    def read(value: object) -> Any:
        if type(value) is not kind:  # a bool is no int, an int no float
            raise _Bad
        return value

    return read


def _list(value: object, size: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (size is not None and len(value) != size):
        raise _Bad
    return value


@functools.cache
def _reader(kind: Any) -> Callable[[object], Any]:
    """The function that reads a value of type `kind` (made once per type)."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind in (str, int, bool):
        return _exactly(kind)
    if origin is Literal:
        return lambda value: value if value in args and type(value) is str else _fail()
    if origin in (Union, types.UnionType):  # `X | None`, the one union kept
        (other,) = (arg for arg in args if arg is not type(None))
        some = _reader(other)
        return lambda value: None if value is None else some(value)
    if origin is tuple and args[1:] == (Ellipsis,):
        item = _reader(args[0])
        return lambda value: tuple(item(one) for one in _list(value))
    if origin is tuple:
        items = [_reader(arg) for arg in args]
        return lambda value: tuple(
            read(one) for read, one in zip(items, _list(value, len(items)), strict=True)
        )
    if origin in (dict, Mapping):
        entry = _reader(args[1])

        def mapping(value: object) -> dict[str, Any]:
            if not isinstance(value, dict):
                raise _Bad
            return {_text(key): entry(one) for key, one in value.items()}

        return mapping
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return lambda value: _member(kind, value)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        parts = [_reader(hints[name]) for name in _field_names(kind) or ()]
        return lambda value: kind(
            *(
                read(one)
                for read, one in zip(parts, _list(value, len(parts)), strict=True)
            )
        )
    raise TypeError(f"the build cache cannot keep a {kind!r}")


_text = _exactly(str)


def _fail() -> Any:
    raise _Bad


def _member(kind: type[enum.Enum], value: object) -> enum.Enum:
    try:
        return kind(value)
    except ValueError as exc:
        raise _Bad from exc


# --- the stamp of the last build ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stamp:
    """What the last build of a catalogue reported, where it found its package and
    implementations (root-relative), the status of each file of the package it left (by
    root-relative path), and `read`, the digest of the status of every file it read or left
    ("": not known, and the stamp never replays)."""

    package: str
    implementation: str
    outputs: Mapping[str, Status]
    diagnostics: tuple[Diagnostic, ...]
    unchanged: int
    max_warnings: int | None
    read: str


@dataclass(frozen=True, slots=True)
class Found:
    """The status of the spec files, taken before a build reads them (a build takes the
    implementations' itself, once it has written the stubs and before it reads them)."""

    specs: Read | None = None
    last: Stamp | None = None  # the last build's stamp, read once


def status_of(path: str | Path) -> Status | None:
    try:
        return _status(os.stat(path, follow_symlinks=False))
    except OSError:
        return None


def _status(info: os.stat_result) -> Status:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def read_status(trees: Iterable[Path], files: Iterable[Path] = ()) -> Read | None:
    """The status of `files` and of every file below `trees` (`manifest.walk`; a link, as
    its target's), as a digest, with the latest time one of them was modified or changed;
    None when one is missing or not a regular file: only a build can say what it makes of
    that."""
    try:
        paths = [os.fspath(path) for path in files]
        for tree in trees:
            paths.extend(f"{tree}/{rel}" for rel, _ in walk(tree))
        infos = [(path, os.stat(path)) for path in sorted(paths)]
    except OSError:
        return None
    if not all(stat.S_ISREG(info.st_mode) for _, info in infos):
        return None
    latest = max((max(i.st_mtime_ns, i.st_ctime_ns) for _, i in infos), default=0)
    return digest(f"{path}:{_status(info)}" for path, info in infos), latest


def stamped_status(root: Path, package: str, *found: Read | None) -> Read | None:
    """The status `Stamp.read` keeps: of the files `found` (the spec files and the
    implementations, each taken before they were read) and of the package now."""
    parts = [*found, read_status([root / package])]
    known = [part for part in parts if part is not None]
    if len(known) < len(parts):
        return None
    return digest(d for d, _ in known), max(latest for _, latest in known)


def digest(parts: Iterable[str]) -> str:
    return file_digest("\0".join(parts).encode("utf-8"))


def replay(
    root: Path, folder: Path, shown: str, catalogues: Sequence[Path]
) -> tuple[Stamp | None, Found]:
    """The last build's stamp when every file it read or left has the status it recorded,
    each last changed before the stamp was written (then a build would do and say what it
    did), else None; with the status of the files a build reads (`catalogues`: the project's
    catalogue folders, whose catalogue.yaml says where each writes). A file changed in the
    moment the stamp was written may not show it in its status: it is read, as git's index
    does."""
    yamls = [folder / "catalogue.yaml", *(c / "catalogue.yaml" for c in catalogues)]
    specs = read_status([folder / "tools"], yamls)
    cache = BuildCache(root, shown)
    stamp = cache.stamp()
    if stamp is None:
        return None, Found(specs)
    found = Found(specs, stamp)
    now = stamped_status(
        root, stamp.package, specs, read_status([root / stamp.implementation])
    )
    written = status_of(cache._stamp)
    if now and written and now[0] == stamp.read and now[1] < written[1]:
        return stamp, found
    return None, found


# --- the files ---------------------------------------------------------------------------


class BuildCache:
    """The cache of one catalogue (by its folder as shown) of the project at `root`."""

    def __init__(self, root: Path, folder: str) -> None:
        # what kept data is made with: the code, and which catalogue folder (its places)
        self.code = cache_key("build", folder)
        self._name = name = digest([folder])[:16]
        # a cache folder that is a link is none: the files would be read and written elsewhere
        self._folder = cache_folder(root)
        self._stamp = root / CACHE_DIR / f"{name}.stamp.jsonl"
        self._units = root / CACHE_DIR / f"{name}.tools.jsonl"
        self._checked = root / CACHE_DIR / f"{name}.implementations.jsonl"
        self._header = {"format": FORMAT, "code": self.code}
        # each unit the cache gave, with its line: saved again without encoding
        self._lines: dict[str, tuple[ToolUnit, bytes]] = {}

    def stamp(self) -> Stamp | None:
        return self._read(self._stamp, lambda entries: decoded(Stamp, _one(entries)))

    def units(self) -> dict[str, ToolUnit]:
        def read(entries: list[bytes]) -> dict[str, ToolUnit]:
            units, lines = {}, {}
            for line in entries:
                unit = decoded(ToolUnit, json_value(line))
                units[unit.file], lines[unit.file] = unit, (unit, line)
            self._lines = lines
            return units

        return self._read(self._units, read) or {}

    def checked(self) -> dict[str, tuple[Diagnostic, ...]]:
        """What the last build's check of each implementation found, by its key
        (`implementations.Checked`)."""
        checked = self._read(
            self._checked,
            lambda entries: decoded(dict[str, tuple[Diagnostic, ...]], _one(entries)),
        )
        return {} if checked is None else checked

    def save(
        self,
        stamp: Stamp | None,
        units: Sequence[ToolUnit],
        checked: Mapping[str, Sequence[Diagnostic]],
    ) -> str | None:
        """Keep this build's stamp (None: none, the next build checks everything), units
        and implementation checks; None, or the note that says they could not be written.
        A unit the cache gave is written as it was read."""
        if self._folder is None:
            return f"{CACHE_DIR} is a link: the build keeps no cache in another folder"
        lines = []
        for unit in units:
            kept, line = self._lines.get(unit.file, (None, b""))
            lines.append(line if kept is unit else unit_line(unit))
        try:
            self._write(self._units, lines)
            self._write(self._checked, [_line(encoded(checked))])
            if stamp is None:
                self._stamp.unlink(missing_ok=True)
            else:
                self._write(self._stamp, [_line(encoded(stamp))])
            # the catalogue's files of another format (an earlier toolgen's), never read
            ours = {self._stamp, self._units, self._checked}
            for old in self._stamp.parent.glob(f"{self._name}.*"):
                if old not in ours and not old.is_dir():
                    old.unlink(missing_ok=True)
        except OSError as exc:
            with contextlib.suppress(OSError):
                self._stamp.unlink(missing_ok=True)
            reason = (exc.strerror or type(exc).__name__).lower()
            return (
                f"cannot write the build cache in {CACHE_DIR}/ ({reason}); the next build "
                "checks and renders everything"
            )
        return None

    def _read(self, path: Path, reader: Callable[[list[bytes]], _T]) -> _T | None:
        """What `reader` makes of the entries kept at `path` (a line of JSON each, after
        the header's); None when there are none, or they are too large, damaged, of another
        format or code, or of the wrong shape."""
        if self._folder is None:
            return None
        try:  # a FIFO or a device in its place is no cache either
            text = read_regular(path, limit=MAX_CACHE_BYTES)
        except OSError:
            return None
        header, _, body = text.partition(b"\n")
        mark = _signature(body)
        if mark is None:
            return None
        try:
            if json_value(header) != {**self._header, "signature": mark}:
                return None
            return reader(body.split(b"\n"))
        except (_Bad, KeyError, TypeError, ValueError):
            return None

    def _write(self, path: Path, entries: list[bytes]) -> None:
        body = b"\n".join(entries)
        mark = _signature(body)
        if mark is None:
            raise OSError(
                errno.ENOENT, "no key to sign it with in the user's cache folder"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            temp.write_bytes(_line({**self._header, "signature": mark}) + b"\n" + body)
            os.replace(temp, path)
        finally:
            with contextlib.suppress(OSError):
                temp.unlink()


def _signature(body: bytes) -> str | None:
    """The entries' signature with this user's key, which a cache file written elsewhere (a
    planted one, a copy from another machine) lacks; None when there is no key."""
    key = _key()
    return None if key is None else hashlib.blake2b(body, key=key).hexdigest()


@functools.cache
def _key() -> bytes | None:
    """This user's key (`$XDG_CACHE_HOME/toolgen/cache.key`, else `~/.cache/...`), made at
    first use; None when it can be neither read nor made: the build then keeps no cache."""
    try:
        home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        path = Path(home, "toolgen", "cache.key")
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_name(f".cache.key.{os.getpid()}.tmp")
            try:
                temp.touch(0o600)  # only this user may read it
                temp.write_bytes(secrets.token_bytes(32))
                os.replace(temp, path)  # two first builds: the last one's key stays
            finally:
                temp.unlink(missing_ok=True)
        key = read_regular(path, limit=32)
    except (OSError, RuntimeError):  # RuntimeError: no home folder
        return None
    return key if len(key) == 32 else None


def unit_line(unit: ToolUnit) -> bytes:
    return _line(encoded(unit))


def _line(data: object) -> bytes:
    """One entry: JSON on one line (json escapes a newline inside a string)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def _one(entries: list[bytes]) -> object:
    (entry,) = entries
    return json_value(entry)
