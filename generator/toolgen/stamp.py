"""The stamp of a catalogue's last build: what it was made from, what it left on disk, and what
it reported, so a build with nothing to do finds that out by reading digests.

A build is a function of its inputs: the bytes of every file of the catalogue folder, the
catalogue files of the project's other catalogues (where they write), the implementation
folder (the implementation check reads it), toolgen's own code, and the installed environment
(which modules a package would shadow). After a build that wrote its package, the stamp records
a digest of all of those, the digest of the manifest it wrote, and its diagnostics. The next
build computes the same digest before importing any stage; when it is the same and the disk
still holds exactly what the build left (the package's files match the manifest, nothing else
is in the package, the implementation folder is as it was, every create-once file exists), the
build has nothing to do: it prints the recorded diagnostics and writes nothing, not even a
cache. Any difference, or anything the stamp cannot vouch for (a symbolic link, an unreadable
file), means a full build, so the stamp can only ever cost a build, never skip a needed one.

The stamp lives in `.toolgen-cache/` beside the other caches; losing it costs one full build.
`build --check` neither reads nor writes it (it must find a hand edit every time).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from toolgen.diagnostics import Diagnostic, from_plain, plain
from toolgen.manifest import MANIFEST_NAME, PYTHON_CACHES
from toolgen.paths import (
    CACHE_DIR,
    Status,
    Vouched,
    file_digest,
    read_regular,
    toolgen_digest,
)

# 2: marshal, not JSON (reading and writing the stamp of 1,000 tools: 13-20 ms to 4 ms)
FORMAT = 2
# the catalogue folder is read whole to digest it; the loader refuses far smaller files
MAX_FILE_BYTES = 16 * 1024 * 1024


class Unvouched(Exception):
    """Something the stamp cannot vouch for: the build must run."""


class Digests:
    """Digests of files, read or vouched for by their status.

    Reading every file of a large catalogue and its output costs more than the rest of a
    build with nothing to do, so, as git's index does, a file whose status (size, times,
    inode) is what it was when its digest was taken is not read again. A write changes the
    status (the change time cannot be set back), except within the file system clock's
    tick: a file whose change time is not older than the stamp itself is read anyway.

    A build keeps the files it did not change as hard links into its new package tree
    (write.py), and a new link changes the file's change time too. `relinked` names the files
    it linked anew (the write report's `linked`; a file its staging base held as a link
    already is untouched): the build read each of them in this run and found the text it
    wanted, so one whose size, modification time and inode are still what the last stamp saw,
    when that status was trusted, is not read again for the change time alone.

    `placed` are the files the build put in place from the formatter's folder, each with
    the digest of the text the build read from it and the status it had then, taken when its
    modification time was older than the file system's clock (formatting.Scratch.statuses):
    any write since would have made that time newer. One whose size, modification time and
    inode are still those holds that text, and is not read back (a first build of 1,000 tools
    would read its 3,000 files again). As for a relinked file, the change time is not
    compared: the rename into place moved it.
    """

    def __init__(
        self,
        root: Path,
        known: Mapping[str, list[object]] | None = None,
        trusted_before_ns: int = 0,
    ) -> None:
        self.root = root
        self.known = known or {}
        self.trusted_before_ns = trusted_before_ns
        self.seen: dict[str, list[object]] = {}  # root-relative -> [*status, digest]
        self.read = 0
        self.relinked: frozenset[str] = frozenset()  # root-relative
        self.placed: dict[str, tuple[int, int, int, str]] = {}  # root-relative
        self._plain: dict[str, bool] = {}  # root-relative folder -> no link on its way

    def file(self, rel: str, info: os.stat_result | None = None) -> str:
        if info is None:
            info = os.stat(self.root / rel, follow_symlinks=False)
        status = [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
        old = self.known.get(rel)
        placed = self.placed.get(rel)
        if isinstance(old, list) and self._vouched(rel, old, status):
            digest = str(old[4])
        elif placed is not None and placed[:3] == (status[0], status[1], status[3]):
            digest = placed[3]
        else:
            path = self.root / rel
            data = _read(path)
            self.read += 1
            if _status(os.stat(path, follow_symlinks=False)) != status:
                raise Unvouched(f"{path} changed while it was read")
            digest = file_digest(data)
        self.seen[rel] = [*status, digest]
        return digest

    def vouched(self, rel: str) -> Vouched | None:
        """The digest and size of the regular file `rel` when its status vouches for it,
        without reading it; None when it would have to be read (or is not a regular file, or
        a folder on its way from the root is a link: `tree` would refuse it).

        A file this run has digested already (the catalogue folder's and the implementation
        folder's, before the build) is taken as it was then, without a second look: that
        is what the stamp records the build was made from. So `vouched` is for what the
        build reads, never for a file it wrote since."""
        here = self.seen.get(rel)
        if here is not None:
            size, digest = here[0], here[4]
            if isinstance(size, int) and isinstance(digest, str):
                return Vouched(digest, size)
        folder, _, _ = rel.rpartition("/")
        if not self._plain_folder(folder):
            return None
        try:
            info = os.stat(os.path.join(self.root, rel), follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        status = _status(info)
        old = self.known.get(rel)
        if not (isinstance(old, list) and self._vouched(rel, old, status)):
            return None
        digest = str(old[4])
        self.seen[rel] = [*status, digest]
        return Vouched(digest, info.st_size)

    def _plain_folder(self, rel: str) -> bool:
        """Whether the root-relative folder `rel` and every folder above it (below the
        root) are folders, not links (asked once per folder)."""
        if not rel:
            return True
        known = self._plain.get(rel)
        if known is None:
            parent, _, _ = rel.rpartition("/")
            try:
                info = os.stat(os.path.join(self.root, rel), follow_symlinks=False)
            except OSError:
                known = False
            else:
                known = stat.S_ISDIR(info.st_mode) and self._plain_folder(parent)
            self._plain[rel] = known
        return known

    def _vouched(self, rel: str, old: list[object], status: list[int]) -> bool:
        if len(old) != 5:
            return False
        if old[:4] == status:
            return status[2] < self.trusted_before_ns
        # relinked: only the change time moved, and the status it had was trusted
        return (
            rel in self.relinked
            and old[0] == status[0]
            and old[1] == status[1]
            and old[3] == status[3]
            and isinstance(old[2], int)
            and old[2] < self.trusted_before_ns
        )

    def tree(self, base: str, *, skip: frozenset[str] = frozenset()) -> dict[str, str]:
        """Every file below the root-relative folder `base` (path inside it -> digest),
        without following links; a link or anything but a regular file or folder raises
        Unvouched. A missing `base` is empty."""
        top = self.root / base
        if not os.path.lexists(top):
            return {}
        if top.is_symlink() or not top.is_dir():
            raise Unvouched(str(top))
        found: dict[str, str] = {}
        known, seen, trusted = self.known, self.seen, self.trusted_before_ns
        stack = [""]
        while stack:
            rel = stack.pop()
            inside = f"{rel}/" if rel else ""
            with os.scandir(top / rel if rel else top) as entries:
                for entry in entries:
                    name = entry.name
                    info = entry.stat(follow_symlinks=False)
                    mode = info.st_mode
                    if stat.S_ISDIR(mode):
                        if name not in skip:
                            stack.append(inside + name)
                    elif stat.S_ISREG(mode):
                        key = f"{base}/{inside}{name}"
                        old = known.get(key)
                        # `file`'s first case, inline: most files of a tree are unchanged
                        if (
                            type(old) is list
                            and len(old) == 5
                            and old[0] == info.st_size
                            and old[1] == info.st_mtime_ns
                            and old[2] == info.st_ctime_ns
                            and old[3] == info.st_ino
                            and info.st_ctime_ns < trusted
                            and type(old[4]) is str
                        ):
                            seen[key] = old
                            found[inside + name] = old[4]
                        else:
                            found[inside + name] = self.file(key, info)
                    else:
                        raise Unvouched(entry.path)
        return found


def _placed(
    statuses: Mapping[str, Status],
    package: str,
    listed: Mapping[str, str],
    prefix: str,
    expected: Mapping[str, str],
) -> dict[str, tuple[int, int, int, str]]:
    """`Digests.placed` of the root-relative files with those statuses: the digest of a
    package file is its manifest's, of an implementation file the one it was created with."""
    found: dict[str, tuple[int, int, int, str]] = {}
    inside = package + "/"
    for rel, (size, mtime, inode) in statuses.items():
        if rel.startswith(inside):
            digest = listed.get(rel.removeprefix(inside))
        elif rel.startswith(prefix):
            digest = expected.get(rel.removeprefix(prefix))
        else:
            continue  # a package marker above the package: not among the stamp's files
        if digest is not None:
            found[rel] = (size, mtime, inode, digest)
    return found


def _status(info: os.stat_result) -> list[int]:
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _read(path: Path) -> bytes:
    # not `file.read(MAX_FILE_BYTES + 1)`, which allocates that much for every small file
    # (a first build's digest of 1,000 spec files: 55 ms to 17 ms); never opens a FIFO
    # for blocking, nor follows a link
    return read_regular(path, limit=MAX_FILE_BYTES, follow_links=False)


def _environment() -> list[str]:
    """The installed environment as far as a build sees it: where Python finds installed
    modules (sys.path from the standard library on, as layout.py reads it: the entries
    before it are the script's folder or the current one, which differ from run to run), and
    when each of those folders last changed (installing a package changes its folder)."""
    stdlib = os.path.dirname(os.__file__)
    entries = [p for p in sys.path if p]
    real = [os.path.realpath(p) for p in entries]
    start = (
        real.index(os.path.realpath(stdlib)) if os.path.realpath(stdlib) in real else 0
    )
    shown = [sys.executable]
    for entry in entries[start:]:
        try:
            shown.append(f"{entry}:{os.stat(entry).st_mtime_ns}")
        except OSError:
            shown.append(f"{entry}:-")
    return shown


def inputs_digest(digests: Digests, shown: str, catalogues: Iterable[Path]) -> str:
    """The digest of everything a build of the catalogue folder `shown` (relative to the
    root) reads, but the implementation folder (whose place the last build's stamp tells).
    `catalogues` are the project's catalogue folders whose placement the build checks
    against."""
    parts = [str(FORMAT), toolgen_digest(), str(digests.root), shown, *_environment()]
    for rel, digest in sorted(digests.tree(shown).items()):
        parts.append(f"spec:{rel}:{digest}")
    for other in sorted({c.resolve() for c in catalogues}):
        try:
            parts.append(f"other:{other}:{digests.file(str(other / 'catalogue.yaml'))}")
        except FileNotFoundError:
            parts.append(f"other:{other}:-")
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Replay:
    """What the last build reported, to report again."""

    diagnostics: tuple[Diagnostic, ...]
    unchanged: int  # the package's files (the manifest aside), as a build counts them


class Stamp:
    """The stamp of one catalogue folder of a project."""

    def __init__(
        self, root: Path, folder: Path, shown: str, catalogues: Iterable[Path]
    ) -> None:
        self.root = root
        name = hashlib.sha256(shown.encode()).hexdigest()[:12]
        self.path = root / CACHE_DIR / f"built-{name}.marshal"
        self._legacy = root / CACHE_DIR / f"built-{name}.json"  # format 1's
        self.recorded = self._recorded()
        known = self.recorded.get("seen") if self.recorded is not None else None
        self.digests = Digests(
            root, known if isinstance(known, dict) else None, self._written_ns()
        )
        self.inputs: str | None
        try:
            self.inputs = inputs_digest(self.digests, shown, catalogues)
        except (OSError, Unvouched):
            self.inputs = None
        self._implementation: dict[str, str] | None = None

    def _written_ns(self) -> int:
        try:
            return os.stat(self.path).st_mtime_ns
        except OSError:
            return 0

    def _recorded(self) -> dict[str, object] | None:
        try:
            data = marshal.loads(self.path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return data

    def replay(self) -> Replay | None:
        """The last build's report when this build would change nothing; else None."""
        data = self.recorded
        if self.inputs is None or data is None or data.get("inputs") != self.inputs:
            return None
        try:
            return self._verified(data)
        except (OSError, Unvouched, ValueError, TypeError, KeyError):
            return None

    def _verified(self, data: dict[str, object]) -> Replay | None:
        package, implementation = str(data["package"]), str(data["implementation"])
        for rel, real in dict(data["real"]).items():  # type: ignore[call-overload]
            if os.path.realpath(self.root / rel) != real:
                return None
        found = self.digests.tree(package, skip=PYTHON_CACHES)
        if found.get(MANIFEST_NAME) != data["manifest"]:
            return None
        manifest = _read(self.root / package / MANIFEST_NAME)
        if file_digest(manifest) != data["manifest"]:
            return None
        listed: dict[str, str] = json.loads(manifest)["files"]
        if found != {**listed, MANIFEST_NAME: data["manifest"]}:
            return None
        made = self.digests.tree(implementation, skip=PYTHON_CACHES)
        if made != data["implementation_files"]:
            return None
        create_once = data["create_once"]
        assert isinstance(create_once, list)
        if not all(os.path.lexists(self.root / str(rel)) for rel in create_once):
            return None
        diagnostics = data["diagnostics"]
        assert isinstance(diagnostics, list)
        return Replay(tuple(from_plain(d) for d in diagnostics), len(listed))

    def observe_implementation(self, implementation: str) -> None:
        """Digest the implementation folder before the build (what the build's check reads
        is what it was then, or the stamp will not match)."""
        try:
            self._implementation = self.digests.tree(implementation, skip=PYTHON_CACHES)
        except (OSError, Unvouched):
            self._implementation = None

    def record(
        self,
        *,
        package: str,
        implementation: str,
        manifest_text: str,
        created: Mapping[str, str],
        create_once: Iterable[str],
        diagnostics: Iterable[Diagnostic],
        relinked: Iterable[str] = (),
        placed: Mapping[str, Status] | None = None,
    ) -> None:
        """Remember a build that completed; `created` are the create-once files it wrote
        (path -> text), `relinked` the package files it kept as links, `placed` the status
        of the files it renamed into place from the formatter's folder where that status
        vouches for the text (see `Digests`). The disk is read back first: the stamp
        vouches only for what is there, as the build left it. Failing to write the stamp
        costs the next build time."""
        if self.inputs is None or self._implementation is None:
            self.forget()
            return
        self.digests.relinked = frozenset(relinked)
        prefix = implementation + "/"
        expected = dict(self._implementation)
        for rel, text in created.items():
            if rel.startswith(prefix):
                expected[rel.removeprefix(prefix)] = file_digest(text.encode("utf-8"))
        listed: dict[str, str] = json.loads(manifest_text)["files"]
        manifest = file_digest(manifest_text.encode("utf-8"))
        self.digests.placed = _placed(placed or {}, package, listed, prefix, expected)
        try:
            on_disk = self.digests.tree(package, skip=PYTHON_CACHES)
            made = self.digests.tree(implementation, skip=PYTHON_CACHES)
        except (OSError, Unvouched):
            self.forget()
            return
        if on_disk != {**listed, MANIFEST_NAME: manifest} or made != expected:
            self.forget()  # changed by someone else during the build
            return
        payload = {
            "format": FORMAT,
            "inputs": self.inputs,
            "package": package,
            "implementation": implementation,
            "real": {
                rel: os.path.realpath(self.root / rel)
                for rel in (package, implementation)
            },
            "manifest": manifest,
            "implementation_files": made,
            "create_once": sorted(create_once),
            "diagnostics": [plain(d) for d in diagnostics],
            "seen": self.digests.seen,
        }
        temp = self.path.with_name(f"{self.path.stem}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp.write_bytes(marshal.dumps(payload))
            temp.replace(self.path)
            self._legacy.unlink(missing_ok=True)
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)

    def forget(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
            self._legacy.unlink(missing_ok=True)
