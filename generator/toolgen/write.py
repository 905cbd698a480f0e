"""Write: put a catalogue's rendered files on disk, changing only what differs, all at once.

What a build guarantees (docs/ownership.md says it for users):

- **Only its own files.** A file is toolgen's when the package's manifest lists it
  (`manifest.py`). Anything else in the generated package stops the build before it writes
  (the layout check reports it as TG163, and this stage checks again); create-once files
  (implementation stubs, package markers) are written only where nothing exists, never over
  anything, links included.
- **All or nothing.** The new package is staged complete in a sibling folder (files that did not
  change are hard links to the current ones, so their inodes and times stay; new ones are the
  formatter's files renamed in, `RenderedFiles.on_disk`, so no file is created twice), then
  switched in with one atomic exchange of the two folders (`renameat2(RENAME_EXCHANGE)` on
  Linux). After an interruption at any point the package is the old tree or the new one, never
  a mix. Where the exchange is not available, two renames are used and a kill between them
  leaves the old tree aside, which the next build puts back.
- **Work as large as the change.** The replaced tree is not removed: it is renamed into the
  cache (`kept_tree`, on the package's file system) and the next build renames it back as its
  stage. Right after a switch it holds a hard link to every file the switch kept, so the next
  stage needs new links only for the files changed in between. Nothing in it is trusted: an
  entry stays only where it is the package's very file (`_refit`), everything else in it is
  removed without following a link, and a kept tree that is missing, damaged or not a folder
  costs the links of an empty stage, never a wrong file. It holds, beyond those links, the
  previous version of each file the last build changed, and the replaced package's Python
  caches, which the next build removes (a cache of a file rewritten within the second it
  was cached could pass for the new file's).
- **Nothing left behind.** Every temporary path is recorded in a journal under
  `.toolgen-cache/` before it is created; the next build removes what an interrupted one left
  (a kept tree taken as a stage is such a path from the moment it is taken). Builds of one
  project take a lock, so they never interleave.
- **Nothing changed on failure.** A full disk or a read-only folder aborts the build before the
  switch: the temporary paths are removed and the error names the path and the cause.
- With `check=True` nothing is written or removed: the report carries a unified diff.

Durability against power loss is not promised: files are not fsynced (a build is repeatable).
"""

from __future__ import annotations

import contextlib
import ctypes
import difflib
import errno
import hashlib
import json
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.formatting import FORMAT_PREFIX
from toolgen.manifest import (
    MANIFEST_NAME,
    PYTHON_CACHES,
    Manifest,
    content_digest,
    owned_text,
    read_package,
)
from toolgen.paths import CACHE_DIR, Status

JOURNAL = f"{CACHE_DIR}/journal.json"
KEPT_PREFIX = "tree-"  # the trees builds replaced, in the cache: kept_tree


class Owned(Mapping[str, str]):
    """The texts of a build's owned files, some of them still on disk: a file the render
    cache vouched for by its status (RenderedFiles.read_back) is read only if its text is
    asked for, which a build never does (it keeps the file as it is)."""

    def __init__(
        self, texts: Mapping[str, str], unread: Iterable[str], root: Path | None
    ) -> None:
        self._texts = dict(texts)
        self._unread = frozenset(unread)
        self._root = root
        self._order = sorted({*self._texts, *self._unread})

    def __getitem__(self, rel: str) -> str:
        text = self._texts.get(rel)
        if text is None:
            if rel not in self._unread or self._root is None:
                raise KeyError(rel)
            data = (self._root / rel).read_bytes()
            text = self._texts[rel] = data.decode("utf-8")
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, rel: object) -> bool:
        return rel in self._texts or rel in self._unread


@dataclass(frozen=True, slots=True)
class RenderedFiles:
    """What a build of one catalogue produces, by path relative to the project root.

    `owned` files make up the generated package (`package`, a folder): they are rewritten when
    they change and removed when their tool goes. `create_once` files belong to people once
    created (implementation stubs, package markers): written only when missing.
    """

    package: str
    catalogue: str
    owned: Mapping[str, str]
    create_once: Mapping[str, str]
    cache: tuple[str, str] | None = None  # (path, text) of the render cache, not output
    # files already on disk holding exactly the text of an output (what the formatter
    # wrote): a build renames them into place rather than creating each file again
    on_disk: Mapping[str, Path] = field(default_factory=dict)
    # of those, the ones whose status (size, modification time, inode) vouches for their
    # text as it was read (formatting.Scratch.statuses): the stamp's read-back trusts a
    # file the write stage renamed into place by it (a rename keeps all three)
    on_disk_status: Mapping[str, Status] = field(default_factory=dict)
    # owned files whose text was read in this build from that very path (the render cache
    # reused them), with their manifest digest: the disk held that text when it was read, so
    # the write stage neither reads nor digests them again
    read_back: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WriteReport:
    written: tuple[str, ...]  # owned files created or changed
    created: tuple[str, ...]  # create-once files that were missing
    removed: tuple[str, ...]  # owned files whose tool is gone
    unchanged: int
    diff: str  # check mode: what a build would change
    warnings: tuple[str, ...] = field(default=())
    manifest: str = ""  # the manifest's text the build wrote (or would write)
    # owned files (root-relative) this build linked anew from the old tree into the new one:
    # the build read each in this run and found the text it wanted, and the link changed
    # only their change time (the stamp vouches for them by that: stamp.Digests). A file the
    # kept tree already held as a link to the package's is not among them: nothing of it
    # changed, not even that time
    linked: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return bool(self.written or self.created or self.removed)


class WriteError(Exception):
    """The build could not write; nothing was changed. One line for the user."""

    def __init__(self, path: str, cause: str) -> None:
        super().__init__(f"cannot write {path}: {cause}; nothing was changed")
        self.path = path


def _cause(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return (exc.strerror or type(exc).__name__).lower()


# --- the file system, as the few operations a build makes ---------------------------------


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2


def _renameat2() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    return function


class FileSystem:
    """Every change a build makes to the disk goes through one of these methods, so the
    tests can interrupt a build at each of them."""

    _AT_FDCWD = -100

    def __init__(self) -> None:
        self._renameat2 = _renameat2()

    def mkdir(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)

    def write_new(self, path: Path, text: str) -> None:
        """Create a file that must not exist yet."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n", closefd=False) as f:
                f.write(text)
        finally:
            os.close(fd)

    def link(self, source: Path, target: Path) -> None:
        """`target` becomes the same file as `source` (a copy where links are refused)."""
        try:
            os.link(source, target, follow_symlinks=False)
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EMLINK, errno.EXDEV, errno.ENOTSUP):
                raise
            shutil.copy2(source, target, follow_symlinks=False)

    def link_new(self, source: Path, target: Path) -> bool:
        """Give `source` the name `target` unless something has it: False when taken."""
        try:
            os.link(source, target, follow_symlinks=False)
        except FileExistsError:
            return False
        return True

    def _rename2(self, source: Path, target: Path, flags: int) -> bool:
        if self._renameat2 is None:
            return False
        done = self._renameat2(  # type: ignore[operator]
            self._AT_FDCWD,
            os.fsencode(source),
            self._AT_FDCWD,
            os.fsencode(target),
            flags,
        )
        if done == 0:
            return True
        code = ctypes.get_errno()
        if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            return False  # not offered by this file system: the caller falls back
        raise OSError(code, os.strerror(code), str(target))

    def exchange(self, first: Path, second: Path) -> bool:
        """Swap two folders atomically; False where the system cannot."""
        return self._rename2(first, second, _RENAME_EXCHANGE)

    def rename(self, source: Path, target: Path) -> None:
        """Rename onto a name that must be free."""
        if not self._rename2(source, target, _RENAME_NOREPLACE):
            if os.path.lexists(target):
                raise FileExistsError(errno.EEXIST, "exists", str(target))
            os.rename(source, target)

    def replace(self, source: Path, target: Path) -> None:
        """Rename over a file toolgen owns (the journal, the caches)."""
        os.replace(source, target)

    def unlink(self, path: Path) -> None:
        path.unlink(missing_ok=True)

    def rmtree(self, path: Path) -> None:
        shutil.rmtree(path, ignore_errors=False)


FS = FileSystem()


# --- what changes ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Plan:
    package: Path
    exists: bool
    files: Mapping[str, str]  # inside the package -> text (the manifest included)
    unchanged: frozenset[str]  # inside the package: same text on disk
    # inside the package: the device and inode of each unchanged file as the plan found it
    ids: Mapping[str, tuple[int, int]]
    # inside the package: the files of it the plan found toolgen's (the manifest included)
    ours: frozenset[str]
    written: tuple[str, ...]  # root-relative
    removed: tuple[str, ...]  # root-relative
    create: dict[str, str]  # root-relative -> text
    diffs: tuple[str, ...]
    manifest: str


def _diff(rel: str, old: str | None, new: str | None) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=f"a/{rel}" if old is not None else "/dev/null",
        tofile=f"b/{rel}" if new is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class _Inside(Mapping[str, str]):
    """A build's owned files by path inside the package (texts asked for as needed)."""

    def __init__(self, files: RenderedFiles) -> None:
        self._prefix = files.package + "/"
        self._owned = files.owned
        self.manifest: str | None = None

    def __getitem__(self, rel: str) -> str:
        if rel == MANIFEST_NAME and self.manifest is not None:
            return self.manifest
        return self._owned[self._prefix + rel]

    def __iter__(self) -> Iterator[str]:
        yield from (rel.removeprefix(self._prefix) for rel in self._owned)
        if self.manifest is not None:
            yield MANIFEST_NAME

    def __len__(self) -> int:
        return len(self._owned) + (self.manifest is not None)

    def __contains__(self, rel: object) -> bool:
        if rel == MANIFEST_NAME and self.manifest is not None:
            return True
        return isinstance(rel, str) and self._prefix + rel in self._owned


def manifest_text(files: RenderedFiles) -> str:
    """The manifest a build of `files` writes into the package."""
    return _manifest(files).text()


def _manifest(files: RenderedFiles) -> Manifest:
    prefix = files.package + "/"
    known = files.read_back
    return Manifest(
        files.catalogue,
        {
            rel.removeprefix(prefix): known.get(rel) or content_digest(files.owned[rel])
            for rel in files.owned
        },
    )


def _plan(files: RenderedFiles, root: Path, *, check: bool) -> _Plan:
    package = root / files.package
    try:
        # a build compares the files it did not read back itself; a check diffs them all
        state = read_package(package, contents=check)
    except OSError as exc:
        raise WriteError(files.package, _cause(exc)) from exc
    if state.unknown or state.manifest_problem is not None:
        # the layout check reports these with locations; here the build only refuses
        first = state.unknown[0] if state.unknown else MANIFEST_NAME
        raise WriteError(
            f"{files.package}/{first}" if first != "." else files.package,
            "it was not written by toolgen (it is not in the package's manifest)",
        )
    prefix = files.package + "/"
    inside = _Inside(files)
    wanted = _manifest(files)
    manifest = inside.manifest = wanted.text()
    old_manifest = state.manifest.text() if state.manifest is not None else None
    listed = state.manifest.files if state.manifest is not None else {}
    unchanged: set[str] = set()
    written: list[str] = []
    diffs: list[str] = []
    for rel in sorted(inside):
        if (
            not check
            and rel != MANIFEST_NAME
            and rel in state.owned
            and prefix + rel in files.read_back
        ):
            # read, or vouched for by its status, at this path in this build: the file
            # holds the text wanted (which need not be read for that)
            unchanged.add(rel)
            continue
        text = inside[rel]
        if rel == MANIFEST_NAME:
            old = old_manifest
        elif rel not in state.owned:
            old = None
        elif check:
            old = state.owned[rel]
        elif listed.get(rel, wanted.files[rel]) != wanted.files[rel]:
            # the last build left other text here, its manifest says: it is written without
            # being read (the cards module and the lockfile of 1,000 tools are 5 MB)
            old = None
        else:
            old = owned_text(package / rel)
        if old == text:
            unchanged.add(rel)
            continue
        if rel != MANIFEST_NAME:
            written.append(prefix + rel)
        if check:
            diffs.append(_diff(prefix + rel, old, text))
    removed = sorted(prefix + rel for rel in state.owned if rel not in inside)
    if check:
        diffs.extend(
            _diff(rel, state.owned[rel.removeprefix(prefix)], None) for rel in removed
        )
    create: dict[str, str] = {}
    for rel, text in sorted(files.create_once.items()):
        if not os.path.lexists(root / rel):
            create[rel] = text
            if check:
                diffs.append(_diff(rel, None, text))
    return _Plan(
        package=package,
        exists=state.exists,
        files=inside,
        unchanged=frozenset(unchanged),
        ids={rel: state.ids[rel] for rel in unchanged if rel in state.ids},
        ours=frozenset([*state.owned, MANIFEST_NAME] if state.exists else []),
        written=tuple(written),
        removed=tuple(removed),
        create=create,
        diffs=tuple(diffs),
        manifest=manifest,
    )


def _report(
    plan: _Plan,
    created: tuple[str, ...] | None = None,
    warnings: tuple[str, ...] = (),
    linked: tuple[str, ...] = (),
) -> WriteReport:
    return WriteReport(
        plan.written,
        tuple(plan.create) if created is None else created,
        plan.removed,
        len(plan.unchanged - {MANIFEST_NAME}),
        "".join(plan.diffs),
        warnings,
        plan.manifest,
        linked,
    )


def check_outputs(files: RenderedFiles, root: Path) -> WriteReport:
    """What a build would change, as a report with a diff; nothing is written."""
    return _report(_plan(files, root, check=True))


# --- the journal of temporary paths ---------------------------------------------------------


class _Journal:
    """The temporary paths of the build in progress, on disk before they exist."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / JOURNAL
        self.paths: list[str] = []
        self.aside: tuple[str, str] | None = (
            None  # (package, old) during a two-rename switch
        )
        self.usable = True

    def record(self, *paths: Path, aside: tuple[Path, Path] | None = None) -> None:
        self.paths.extend(p.relative_to(self.root).as_posix() for p in paths)
        if aside is not None:
            package, old = aside
            self.aside = (
                package.relative_to(self.root).as_posix(),
                old.relative_to(self.root).as_posix(),
            )
        if not self.usable:
            return
        payload = {"leftovers": self.paths, "aside": self.aside}
        temp = self.path.with_name(f"journal-{os.getpid()}.tmp")
        try:
            FS.mkdir(self.path.parent)
            FS.unlink(temp)
            FS.write_new(temp, json.dumps(payload) + "\n")
            FS.replace(temp, self.path)
        except OSError:
            # a cache that cannot be written only costs the clean-up of an interrupted build
            self.usable = False
            with contextlib.suppress(OSError):
                FS.unlink(temp)

    def close(self) -> None:
        if self.usable:
            with contextlib.suppress(OSError):
                FS.unlink(self.path)


def _under(root: Path, rel: object) -> Path | None:
    """A journal entry as a path inside the project, or None for anything else."""
    if (
        not isinstance(rel, str)
        or not rel
        or rel.startswith("/")
        or ".." in rel.split("/")
    ):
        return None
    return root / rel


def recover(root: Path) -> list[str]:
    """Undo what an interrupted build left; returns what was removed. Call it under the
    build lock: every temporary path then belongs to a build that is no longer running."""
    removed = _cache_leftovers(root)
    path = root / JOURNAL
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return removed
    if not isinstance(data, dict):
        return removed
    aside = data.get("aside")
    if isinstance(aside, list) and len(aside) == 2:
        package, old = (_under(root, p) for p in aside)
        if (
            package is not None
            and old is not None
            and not os.path.lexists(package)
            and old.is_dir()
        ):
            FS.rename(old, package)  # killed between the two renames: the old tree back
    for rel in data.get("leftovers", []):
        leftover = _under(root, rel)
        if leftover is None or not os.path.lexists(leftover):
            continue
        if leftover.is_dir() and not leftover.is_symlink():
            FS.rmtree(leftover)
        else:
            FS.unlink(leftover)
        removed.append(str(rel))
    FS.unlink(path)
    return removed


def _cache_leftovers(root: Path) -> list[str]:
    """What a killed build left in toolgen's own cache folder: the folders ruff formats in
    (formatting.py) and half-written `*.tmp` files (the journal's, the caches'). Under the
    build lock no other build is running, so every one of them is a leftover."""
    cache = root / CACHE_DIR
    if not cache.is_dir():
        return []
    found = []
    for entry in sorted(cache.iterdir()):
        if entry.is_symlink():
            continue
        if entry.name.startswith(FORMAT_PREFIX) and entry.is_dir():
            FS.rmtree(entry)
        elif entry.name.endswith(".tmp") and entry.is_file():
            FS.unlink(entry)
        else:
            continue
        found.append(entry.relative_to(root).as_posix())
    return found


@contextlib.contextmanager
def build_lock(root: Path) -> Iterator[None]:
    """Builds of one project, one at a time: an exclusive lock on the root folder itself
    (it needs no write permission), released when the build ends or its process dies."""
    try:
        import fcntl
    except ImportError:  # not on POSIX: builds are not serialised
        yield
        return
    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


# --- writing --------------------------------------------------------------------------------


def _sibling(package: Path, role: str, nonce: str) -> Path:
    return package.with_name(f".{package.name}.toolgen-{role}-{nonce}")


def _put(target: Path, text: str, source: Path | None) -> None:
    """Create `target` holding `text`: by renaming `source` (a file that holds exactly
    that text, see RenderedFiles.on_disk) where there is one, else by writing it."""
    if source is not None:
        try:
            FS.rename(source, target)
        except OSError:
            pass  # on another file system, or gone: the text is at hand
        else:
            return
    FS.write_new(target, text)


def _stage(
    plan: _Plan, stage: Path, on_disk: Mapping[str, Path], prefix: str
) -> list[str]:
    """Stage the new package in the empty folder `stage`; returns the files linked."""
    FS.mkdir(stage)
    return _fill(plan, stage, on_disk, prefix, frozenset(), {stage})


def _fill(
    plan: _Plan,
    stage: Path,
    on_disk: Mapping[str, Path],
    prefix: str,
    kept: frozenset[str],
    made: set[Path],
) -> list[str]:
    """Give `stage` every file of the plan but the `kept` ones it holds already: a hard link
    to the package's file where it is unchanged, else the new text. `made` are the folders
    that exist. Returns the files linked (inside the package)."""
    linked = []
    for rel in plan.files:  # keys only: a text is fetched where it is put
        if rel in kept:
            continue
        target = stage / rel
        if target.parent not in made:
            FS.mkdir(target.parent)
            made.add(target.parent)
        if rel in plan.unchanged and rel != MANIFEST_NAME:
            FS.link(plan.package / rel, target)
            linked.append(rel)
        else:
            _put(target, plan.files[rel], on_disk.get(prefix + rel))
    return linked


# --- the replaced tree, kept as the next build's staging base -------------------------------


def kept_tree(root: Path, package: str) -> Path:
    """Where the tree the last build of `package` (root-relative) replaced is kept."""
    name = hashlib.sha256(package.encode()).hexdigest()[:12]
    return root / CACHE_DIR / f"{KEPT_PREFIX}{name}"


def _keeping(plan: _Plan, root: Path, kept: Path) -> bool:
    """Whether a build may keep the tree it replaces at `kept`: there is a package to
    replace, and toolgen's cache is a folder (not a link) on the package's file system, so
    the tree moves there and back by renames."""
    if not plan.exists:
        return False
    try:
        cache = os.lstat(kept.parent)
        package = os.lstat(plan.package)
    except OSError:
        return False
    return stat.S_ISDIR(cache.st_mode) and cache.st_dev == package.st_dev


def _take_kept(kept: Path, stage: Path) -> bool:
    """Rename the kept tree to the (journaled) stage path; False when there is none to take
    (what is at `kept` and not a folder is removed), and then nothing is at `stage`."""
    try:
        info = os.lstat(kept)
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(info.st_mode):
            # a link, a file, a FIFO: only the name goes, never what a link points to
            FS.unlink(kept)
            return False
        FS.rename(kept, stage)
    except OSError:
        # a kept tree that cannot be taken costs the links; the next one is not kept there
        return False
    if not stat.S_ISDIR(os.lstat(stage).st_mode):
        # it became a link between the look and the rename: only the name goes (an error
        # here fails the build, which removes the stage path as it removes any)
        FS.unlink(stage)
        return False
    return True


def _refit(
    plan: _Plan, stage: Path, on_disk: Mapping[str, Path], prefix: str
) -> list[str]:
    """Bring `stage`, a kept tree, to the plan; returns the files linked anew.

    Nothing in it is trusted. An entry stays only where the plan keeps a file unchanged and
    the entry is that very file: a regular file with the device and inode the package's file
    had (a hard link to it, left by the build that replaced the tree). A folder stays where
    the plan has files below it. Every other entry is removed, without following links and
    only inside the stage; then the missing files are linked or put as in an empty stage.
    Each entry's status is read: the inode a folder's listing gives is not the file's own on
    every file system (overlayfs), and a listing alone would cost a fifth as much.
    """
    folders = {""}
    for rel in plan.files:
        parent = rel.rpartition("/")[0]
        while parent not in folders:
            folders.add(parent)
            parent = parent.rpartition("/")[0]
    kept: set[str] = set()
    made = {stage}
    stack = [""]
    while stack:
        base = stack.pop()
        folder = stage / base if base else stage
        with os.scandir(folder) as listing:
            entries = list(listing)
        for entry in entries:
            rel = f"{base}/{entry.name}" if base else entry.name
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                if rel in folders:
                    stack.append(rel)
                    made.add(folder / entry.name)
                    continue
                FS.rmtree(folder / entry.name)
            elif (
                rel in plan.unchanged
                and rel != MANIFEST_NAME
                and stat.S_ISREG(info.st_mode)
                and plan.ids.get(rel) == (info.st_dev, info.st_ino)
            ):
                kept.add(rel)
            else:
                FS.unlink(folder / entry.name)
    return _fill(plan, stage, on_disk, prefix, frozenset(kept), made)


def _temporary(target: Path, nonce: str) -> Path:
    return target.with_name(f".{target.name}.toolgen-{nonce}.tmp")


def _stage_create_once(
    plan: _Plan, root: Path, journal: _Journal, nonce: str, on_disk: Mapping[str, Path]
) -> None:
    """Put each missing create-once file as a temporary sibling (the part that needs
    space); `_place_create_once` gives them their names after the switch. The journal
    lists them all before the first is made."""
    temps = {rel: _temporary(root / rel, nonce) for rel in plan.create}
    if temps:
        journal.record(*temps.values())
    made: set[Path] = set()
    for rel, text in plan.create.items():
        temp = temps[rel]
        if temp.parent not in made:
            FS.mkdir(temp.parent)
            made.add(temp.parent)
        _put(temp, text, on_disk.get(rel))


def _place_create_once(plan: _Plan, root: Path, nonce: str) -> tuple[str, ...]:
    created = []
    for rel in plan.create:
        target = root / rel
        temp = _temporary(target, nonce)
        if FS.link_new(temp, target):  # never over anything, even a file made meanwhile
            created.append(rel)
        FS.unlink(temp)
    return tuple(created)


def _switch(plan: _Plan, stage: Path, old: Path, journal: _Journal) -> Path | None:
    """Put the staged tree in place; returns where the replaced tree now is."""
    if not plan.exists:
        FS.rename(stage, plan.package)
        return None
    if FS.exchange(stage, plan.package):
        return stage  # the two folders swapped names: the old tree is at the stage path
    journal.record(aside=(plan.package, old))
    FS.rename(plan.package, old)
    FS.rename(stage, plan.package)
    return old


def _discard(
    replaced: Path, kept: Path | None, ours: frozenset[str]
) -> tuple[str, ...]:
    """Move the replaced tree to `kept` as the next build's staging base (or remove it where
    it cannot be kept), unless something appeared in it that toolgen did not write (a file
    saved into the package during the build): then leave it where it is and say so."""
    unknown = _foreign(replaced, ours)
    if unknown:
        shown = ", ".join(unknown[:3])
        return (
            f"{replaced} was kept: it holds files toolgen did not write ({shown}); move "
            "them back into the package if they are yours",
        )
    if kept is not None:
        try:
            FS.rename(replaced, kept)
        except OSError:
            pass  # taken meanwhile, or the cache refuses it: the tree goes
        else:
            return ()
    FS.rmtree(replaced)
    return ()


def _foreign(tree: Path, ours: frozenset[str]) -> list[str]:
    """The entries of the replaced tree that are not the files the plan found toolgen's
    (`read_package`'s unknown ones, and any the manifest lists that were not there): a
    listing without a status of each, the entry's type as the folder gives it."""
    found = []
    stack = [""]
    while stack:
        base = stack.pop()
        with os.scandir(tree / base if base else tree) as entries:
            for entry in entries:
                rel = f"{base}/{entry.name}" if base else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in PYTHON_CACHES:
                        stack.append(rel)
                elif rel not in ours or not entry.is_file(follow_symlinks=False):
                    found.append(rel)
    return sorted(found)


def write_outputs(files: RenderedFiles, root: Path) -> WriteReport:
    """Bring the disk to `files`, as described in the module docstring. Call it under
    `build_lock(root)`, after `recover(root)`."""
    plan = _plan(files, root, check=False)
    warnings: list[str] = []
    created: tuple[str, ...] = ()
    linked: tuple[str, ...] = ()
    if (
        plan.written
        or plan.removed
        or plan.create
        or MANIFEST_NAME not in plan.unchanged
    ):
        journal = _Journal(root)
        nonce = f"{os.getpid()}-{secrets.token_hex(4)}"
        stage = _sibling(plan.package, "new", nonce)
        old = _sibling(plan.package, "old", nonce)
        prefix = files.package + "/"
        kept = kept_tree(root, files.package)
        try:
            FS.mkdir(plan.package.parent)
            journal.record(stage, old)
            if not journal.usable:
                warnings.append(
                    f"cannot keep a journal in {CACHE_DIR}/: an interrupted build may "
                    f"leave {_shown(stage, root)} behind"
                )
            keep = journal.usable and _keeping(plan, root, kept)
            if keep and _take_kept(kept, stage):
                fresh = _refit(plan, stage, files.on_disk, prefix)
            else:
                fresh = _stage(plan, stage, files.on_disk, prefix)
            _stage_create_once(plan, root, journal, nonce, files.on_disk)
            replaced = _switch(plan, stage, old, journal)
            linked = tuple(prefix + rel for rel in sorted(fresh))
        except OSError as exc:
            _clean_up(journal)
            where = (
                Path(exc.filename) if isinstance(exc.filename, str) else plan.package
            )
            if where.is_relative_to(
                stage
            ):  # say where it was going, not the staging name
                where = plan.package / where.relative_to(stage)
            raise WriteError(_shown(where, root), _cause(exc)) from exc
        try:
            created = _place_create_once(plan, root, nonce)
            if replaced is not None:
                warnings.extend(_discard(replaced, kept if keep else None, plan.ours))
        except OSError as exc:
            warnings.append(
                f"the build is complete, but cleaning up failed: {_cause(exc)}"
            )
        else:
            journal.close()
    if files.cache is not None:
        warnings.extend(_write_cache(root, *files.cache))
    return _report(plan, created, tuple(warnings), linked)


def _clean_up(journal: _Journal) -> None:
    """After a failure before the switch: remove every temporary path recorded so far."""
    for rel in journal.paths:
        path = journal.root / rel
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink():
                FS.rmtree(path)
            elif os.path.lexists(path):
                FS.unlink(path)
    journal.close()


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _write_cache(root: Path, rel: str, text: str) -> tuple[str, ...]:
    target = root / rel
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        FS.mkdir(target.parent)
        FS.unlink(temp)
        FS.write_new(temp, text)
        FS.replace(temp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            FS.unlink(temp)
        return (
            f"cannot write the build cache {rel}: {_cause(exc)} (the next build renders "
            "everything again)",
        )
    return ()
