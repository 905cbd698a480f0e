"""The build cache: what the last build of a catalogue kept, so a rebuild does the work of the
change only.

One module owns it, in one format: JSON Lines in the project's cache folder
(`.toolgen-cache/`, never committed), a header line (the format and the code that made the
file) and an entry a line, three files per catalogue (a save removes the catalogue's files of
another format).

- The stamp (`<catalogue>.stamp.jsonl`): the digest of everything the last build read, the
  status (size, modification time, inode) of every file it left in the package, and what it
  reported. A build that finds the same inputs and its files untouched reports the same and
  does nothing else (`Stamp.replays`).
- The tools (`<catalogue>.tools.jsonl`): per tool file, what compiling it gave (`ToolUnit`: its
  summaries, diagnostics, lint findings, token counts, formatted card entries, lockfile pieces
  and the digests of its files), under the key of everything that is a function of.
- The implementation checks (`<catalogue>.implementations.jsonl`): what checking each
  implementation found, under the digest of its bytes and the signature its contract expects
  (`checks.implementations.Checked`).

All are keyed by content and versioned by the code that made them (toolgen's and toolgen_
runtime's, ruff's version, Python's); they hold data only, read back by a reader that checks
the type of every value. A cache file that is missing, damaged, of other code or planted costs
a full build and nothing more, and deleting `.toolgen-cache/` is always safe. `check` and
`build --check` never read it: what CI checks is computed afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from toolgen.build.manifest import walk
from toolgen.codes import Severity
from toolgen.diagnostics import Diagnostic, Hit, Span
from toolgen.paths import CACHE_DIR, cache_key, file_digest, read_regular
from toolgen.spec.ir import PyNames, Reference, ToolSummary
from toolgen.spec.limits import MAX_IMPLEMENTATION_BYTES
from toolgen.spec.load import Sources

FORMAT = 3  # 3: JSON Lines, a header and an entry a line
# a catalogue's kept units are a few megabytes at 5,000 tools: a larger file was not written
# by a build
MAX_CACHE_BYTES = 256 * 1024 * 1024

# a file's size, modification time (ns) and inode
Status = tuple[int, int, int]
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
    # none for a unit no cache keeps (the render of a check's IR, pipeline.render)
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


def _span(span: Span) -> list[object]:
    return [span.file, span.line, span.col]


def _reference(ref: Reference) -> list[object]:
    return [
        ref.name,
        _span(ref.at),
        ref.text,
        None if ref.text_at is None else _span(ref.text_at),
    ]


def _summary(tool: ToolSummary) -> dict[str, object]:
    py = tool.py
    return {
        "name": tool.name,
        "file": tool.file,
        "role": tool.role,
        "py": [
            py.module,
            py.prefix,
            py.args_class,
            py.context_class,
            py.result_class,
            py.error_class,
        ],
        "intent": tool.intent,
        "use_when": tool.use_when,
        "effect": tool.effect,
        "params": list(tool.param_names),
        "context": tool.has_context,
        "returns": tool.returns_annotation,
        "at": _span(tool.name_at),
        "requires": [_reference(r) for r in tool.requires],
        "not_when": [_reference(r) for r in tool.not_when],
        "suppressions": [_reference(r) for r in tool.suppressions],
        "namespace": tool.namespace,
        "deferred": tool.deferred,
        "asks": list(tool.asks),
        "param_texts": list(tool.param_texts),
    }


def _diagnostic(d: Diagnostic) -> list[object]:
    return [d.code, d.severity.value, d.message, *_span(d.span), d.hint]


def _hit(hit: Hit) -> list[object]:
    return [hit.rule, hit.message, hit.hint, *_span(hit.span), list(hit.owners)]


def unit_data(unit: ToolUnit) -> dict[str, object]:
    return {
        "front": unit.front,
        "key": unit.key,
        "broken": unit.broken,
        "tools": [_summary(t) for t in unit.tools],
        "diagnostics": [_diagnostic(d) for d in unit.diagnostics],
        "hits": [_hit(h) for h in unit.hits],
        "tokens": dict(unit.tokens),
        "cards": dict(unit.cards),
        "locks": {name: list(piece) for name, piece in unit.locks.items()},
        "outputs": dict(unit.outputs),
    }


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad
    return value


def _int(value: object) -> int:
    if type(value) is not int:
        raise _Bad
    return value


def _list(value: object, size: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (size is not None and len(value) != size):
        raise _Bad
    return value


def _dict(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad
    return value


def _strs(value: object) -> tuple[str, ...]:
    return tuple(_str(item) for item in _list(value))


def _read_span(value: object) -> Span:
    file, line, col = _list(value, 3)
    return Span(_str(file), _int(line), _int(col))


def _read_reference(value: object) -> Reference:
    name, at, text, text_at = _list(value, 4)
    return Reference(
        _str(name),
        _read_span(at),
        _str(text),
        None if text_at is None else _read_span(text_at),
    )


_ROLES = ("tool", "prepare", "confirm")
_EFFECTS = ("read", "write", "destructive")


def _read_summary(value: object) -> ToolSummary:
    data = _dict(value)
    role, effect = _str(data["role"]), _str(data["effect"])
    if role not in _ROLES or effect not in _EFFECTS:
        raise _Bad
    context, deferred, namespace = data["context"], data["deferred"], data["namespace"]
    if not isinstance(context, bool) or not isinstance(deferred, bool):
        raise _Bad
    return ToolSummary(
        name=_str(data["name"]),
        file=_str(data["file"]),
        role=cast(Any, role),
        py=PyNames(*_strs(_list(data["py"], 6))),
        intent=_str(data["intent"]),
        use_when=_str(data["use_when"]),
        effect=cast(Any, effect),
        param_names=_strs(data["params"]),
        has_context=context,
        returns_annotation=_str(data["returns"]),
        name_at=_read_span(data["at"]),
        requires=tuple(_read_reference(r) for r in _list(data["requires"])),
        not_when=tuple(_read_reference(r) for r in _list(data["not_when"])),
        suppressions=tuple(_read_reference(r) for r in _list(data["suppressions"])),
        namespace=None if namespace is None else _str(namespace),
        deferred=deferred,
        asks=_strs(data["asks"]),
        param_texts=_strs(data["param_texts"]),
    )


def read_diagnostic(value: object) -> Diagnostic:
    code, severity, message, file, line, col, hint = _list(value, 7)
    try:
        level = Severity(_str(severity))
    except ValueError as exc:
        raise _Bad from exc
    return Diagnostic(
        _str(code), level, _str(message), _read_span([file, line, col]), _str(hint)
    )


def _read_hit(value: object) -> Hit:
    rule, message, hint, file, line, col, owners = _list(value, 7)
    return Hit(
        _str(rule),
        _str(message),
        _str(hint),
        _read_span([file, line, col]),
        _strs(owners),
    )


def _read_unit(file: str, value: object) -> ToolUnit:
    data = _dict(value)
    broken = data["broken"]
    locks = {}
    for name, piece in _dict(data["locks"]).items():
        one, two, three = _list(piece, 3)
        locks[name] = (_str(one), _str(two), _str(three))
    return ToolUnit(
        file=file,
        front=_str(data["front"]),
        key=_str(data["key"]),
        broken=None if broken is None else _str(broken),
        tools=tuple(_read_summary(t) for t in _list(data["tools"])),
        diagnostics=tuple(read_diagnostic(d) for d in _list(data["diagnostics"])),
        hits=tuple(_read_hit(h) for h in _list(data["hits"])),
        tokens={k: _int(v) for k, v in _dict(data["tokens"]).items()},
        cards={k: _str(v) for k, v in _dict(data["cards"]).items()},
        locks=locks,
        outputs={k: _str(v) for k, v in _dict(data["outputs"]).items()},
    )


# --- the stamp of the last build ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stamp:
    """What the last build of a catalogue read (`inputs`, a digest, with where it found
    its package and implementations, root-relative), left (the status of each file of the
    package, by root-relative path) and reported."""

    inputs: str
    package: str
    implementation: str
    outputs: Mapping[str, Status]
    diagnostics: tuple[Diagnostic, ...]
    unchanged: int
    max_warnings: int | None

    def replays(self, inputs: str, root: Path) -> bool:
        """Whether a build that read `inputs` would do and say exactly what the last did:
        the same inputs, and every file it left as it left it."""
        # paths joined as text: a Path a file cost as much as its stat (2,000 files)
        base = os.fspath(root)
        return inputs == self.inputs and all(
            status_of(f"{base}/{rel}") == status for rel, status in self.outputs.items()
        )


def status_of(path: str | Path) -> Status | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def _stamp_data(stamp: Stamp) -> dict[str, object]:
    return {
        "inputs": stamp.inputs,
        "package": stamp.package,
        "implementation": stamp.implementation,
        "outputs": {rel: list(status) for rel, status in stamp.outputs.items()},
        "diagnostics": [_diagnostic(d) for d in stamp.diagnostics],
        "unchanged": stamp.unchanged,
        "max_warnings": stamp.max_warnings,
    }


def _read_stamp(value: object) -> Stamp:
    data = _dict(value)
    outputs: dict[str, Status] = {}
    for rel, status in _dict(data["outputs"]).items():
        size, mtime, inode = _list(status, 3)
        outputs[rel] = (_int(size), _int(mtime), _int(inode))
    allowed = data["max_warnings"]
    return Stamp(
        inputs=_str(data["inputs"]),
        package=_str(data["package"]),
        implementation=_str(data["implementation"]),
        outputs=outputs,
        diagnostics=tuple(read_diagnostic(d) for d in _list(data["diagnostics"])),
        unchanged=_int(data["unchanged"]),
        max_warnings=None if allowed is None else _int(allowed),
    )


# --- what a build reads --------------------------------------------------------------------


def digest(parts: Iterable[str]) -> str:
    return file_digest("\0".join(parts).encode("utf-8"))


def _tree(folder: Path, *, contents: bool) -> list[tuple[str, str]]:
    """Every entry below `folder` but Python's caches, without following links, by path
    (`manifest.walk`): with `contents`, the digest of a regular file's bytes (of one no
    larger than an implementation may be; else its status), else what it is (`_KINDS`)."""
    try:
        entries = sorted(walk(folder))
    except OSError:
        return [("", "unreadable")]
    found = []
    base = os.fspath(folder)
    for rel, regular in entries:
        if regular and not contents:
            found.append((rel, "file"))
            continue
        path = f"{base}/{rel}"
        if not regular:
            kind = "link" if os.path.islink(path) else "special"
        else:
            try:
                kind = file_digest(read_regular(path, limit=MAX_IMPLEMENTATION_BYTES))
            except OSError:
                # larger than an implementation may be, or unreadable: its status says
                # whether it changed, at the cost of no read
                kind = f"{_STATUS}{status_of(path)}"
        found.append((rel, kind))
    return found


_KINDS = frozenset({"link", "file", "special", "unreadable"})
_STATUS = "status:"


@dataclass(frozen=True, slots=True)
class Seen:
    """The implementation folder (root-relative) as a build read it, each entry as `_tree`
    gives it. A rebuild reads its files once, for the stamp's check: the implementation
    check (`digests`) and the new stamp take them from here."""

    folder: str
    entries: tuple[tuple[str, str], ...]

    @classmethod
    def read(cls, root: Path, folder: str) -> Seen:
        return cls(folder, tuple(_tree(root / folder, contents=True)))

    def digests(self) -> dict[str, str]:
        """The digest of each regular file's bytes, by root-relative path."""
        return {
            f"{self.folder}/{rel}": found
            for rel, found in self.entries
            if found not in _KINDS and not found.startswith(_STATUS)
        }


def inputs(
    code: str,
    sources: Sources,
    root: Path,
    package: str,
    seen: Seen,
    catalogues: Sequence[Path],
) -> str:
    """The digest of everything a build of the catalogue read: its spec files as read,
    the implementations (`seen`, every file of the folder), the names in its generated
    package, and the catalogue.yaml of every catalogue of the project (where each writes)."""
    files = (*((sources.catalogue,) if sources.catalogue else ()), *sources.tools)
    parts = [code, sources.folder, *(d.message for d in sources.diagnostics)]
    parts.extend(f"{f.file}:{f.digest}:{len(f.diagnostics)}" for f in files)
    parts.append("implementation")
    parts.extend(f"{rel}:{found}" for rel, found in seen.entries)
    parts.append("package")
    parts.extend(f"{rel}:{kind}" for rel, kind in _tree(root / package, contents=False))
    for folder in catalogues:
        try:
            parts.append(file_digest((folder / "catalogue.yaml").read_bytes()))
        except OSError:
            parts.append(f"{folder}:?")
    return digest(parts)


def replay(
    root: Path, sources: Sources, catalogues: Sequence[Path]
) -> tuple[Stamp | None, Seen | None]:
    """The last build's stamp when a build of the catalogue read as `sources` would do and
    say exactly what it did (the same inputs, and every file it left as it left it), else
    None; with the implementations as read for the check, when there was a stamp."""
    cache = BuildCache(root, sources.folder)
    stamp = cache.stamp()
    if stamp is None:
        return None, None
    seen = Seen.read(root, stamp.implementation)
    now = inputs(cache.code, sources, root, stamp.package, seen, catalogues)
    return (stamp if stamp.replays(now, root) else None), seen


# --- the files ---------------------------------------------------------------------------


class BuildCache:
    """The cache of one catalogue (by its folder as shown) of the project at `root`."""

    def __init__(self, root: Path, folder: str) -> None:
        self.root = root
        self.folder = folder
        # what kept data is made with: the code, and which catalogue folder (its places)
        self.code = cache_key("build", folder)
        self._name = name = digest([folder])[:16]
        self._stamp = root / CACHE_DIR / f"{name}.stamp.jsonl"
        self._units = root / CACHE_DIR / f"{name}.tools.jsonl"
        self._checked = root / CACHE_DIR / f"{name}.implementations.jsonl"
        self._header = {"format": FORMAT, "code": self.code}
        # each unit the cache gave, with its line: saved again without encoding
        self._lines: dict[str, tuple[ToolUnit, bytes]] = {}

    def stamp(self) -> Stamp | None:
        return self._read(self._stamp, lambda entries: _read_stamp(_one(entries)))

    def units(self) -> dict[str, ToolUnit]:
        def read(entries: list[bytes]) -> dict[str, ToolUnit]:
            units, lines = {}, {}
            for line in entries:
                file, data = _list(json.loads(line), 2)
                unit = units[_str(file)] = _read_unit(_str(file), data)
                lines[unit.file] = (unit, line)
            self._lines = lines
            return units

        units = self._read(self._units, read)
        return {} if units is None else units

    def checked(self) -> dict[str, tuple[Diagnostic, ...]]:
        """What the last build's check of each implementation found, by its key
        (`implementations.Checked`)."""
        checked = self._read(
            self._checked,
            lambda entries: {
                _str(key): tuple(read_diagnostic(d) for d in _list(found))
                for key, found in _dict(_one(entries)).items()
            },
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
        lines = []
        for unit in units:
            kept, line = self._lines.get(unit.file, (None, b""))
            lines.append(line if kept is unit else _line([unit.file, unit_data(unit)]))
        try:
            self._write(self._units, lines)
            self._write(
                self._checked,
                [
                    _line(
                        {
                            key: [_diagnostic(d) for d in found]
                            for key, found in checked.items()
                        }
                    )
                ],
            )
            if stamp is None:
                self._stamp.unlink(missing_ok=True)
            else:
                self._write(self._stamp, [_line(_stamp_data(stamp))])
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
        try:
            with open(path, "rb") as file:
                text = file.read(MAX_CACHE_BYTES + 1)
        except OSError:
            return None
        if len(text) > MAX_CACHE_BYTES:
            return None
        header, *entries = text.split(b"\n")
        try:
            if json.loads(header) != self._header:
                return None
            return reader(entries)
        except (_Bad, KeyError, TypeError, ValueError):
            return None

    def _write(self, path: Path, entries: list[bytes]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(temp, "wb") as file:
                file.write(b"\n".join([_line(self._header), *entries]))
            os.replace(temp, path)
        finally:
            with contextlib.suppress(OSError):
                temp.unlink()


def _line(data: object) -> bytes:
    """One entry: JSON on one line (json escapes a newline inside a string)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def _one(entries: list[bytes]) -> object:
    (entry,) = entries
    return json.loads(entry)
