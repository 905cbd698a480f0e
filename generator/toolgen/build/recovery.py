"""Nothing left behind: the journal of a build's temporary paths, the recovery of what an
interrupted build left, and the lock that keeps the builds of one project apart.

Every temporary path is recorded in the journal (under `.toolgen-cache/`) before it is
created; the next build, under the lock, removes what an interrupted one left and puts back a
package tree a kill left aside between the two renames of a switch (write.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from toolgen.build import disk
from toolgen.paths import (
    CACHE_DIR,
    FORMAT_PREFIX,
    cache_folder,
    read_regular,
    safe_relative,
)
from toolgen.text import json_value

JOURNAL = f"{CACHE_DIR}/journal.json"
MAX_JOURNAL_BYTES = 1024 * 1024
# the names of a build's temporary paths (`temporary`), the only ones recovery touches: a
# planted or stale journal names nothing else
_TEMPORARY = re.compile(
    r"\.(?P<target>.+)\.toolgen-(?:(?P<role>new|old)-\d+-[0-9a-f]+|\d+-[0-9a-f]+\.tmp)"
)


def temporary(target: Path, role: str, nonce: str) -> Path:
    """The temporary sibling of `target` a build makes: its package tree staged (`new`) or
    replaced (`old`), or (`file`) a create-once file before its rename (`*.toolgen-*.tmp`,
    which the .gitignore of `toolgen init` lists)."""
    if role == "file":
        return target.with_name(f".{target.name}.toolgen-{nonce}.tmp")
    return target.with_name(f".{target.name}.toolgen-{role}-{nonce}")


class Journal:
    """The temporary paths of the build in progress, on disk before they exist."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / JOURNAL
        self.paths: list[str] = []
        # (package, old) during a two-rename switch
        self.aside: tuple[str, str] | None = None
        self.usable = cache_folder(root) is not None

    def record(self, *paths: Path, aside: tuple[Path, Path] | None = None) -> None:
        self.paths.extend(p.relative_to(self.root).as_posix() for p in paths)
        if aside is not None:
            package, old = (p.relative_to(self.root).as_posix() for p in aside)
            self.aside = (package, old)
        if not self.usable:
            return
        payload = {"leftovers": self.paths, "aside": self.aside}
        temp = self.path.with_name(f"journal-{os.getpid()}.tmp")
        try:
            disk.FS.mkdir(self.path.parent)
            disk.FS.unlink(temp)
            disk.FS.write_new(temp, json.dumps(payload) + "\n")
            disk.FS.replace(temp, self.path)
        except OSError:
            # a cache that cannot be written only costs the clean-up of an interrupted build
            self.usable = False
            with contextlib.suppress(OSError):
                disk.FS.unlink(temp)

    def close(self) -> None:
        if self.usable:
            with contextlib.suppress(OSError):
                disk.FS.unlink(self.path)


def _temporary_path(root: Path, rel: object, role: str | None = None) -> Path | None:
    """A journal entry as the temporary path of a build (of `role`, any when None) inside
    the project with no link on the way to it, else None."""
    if not isinstance(rel, str) or not safe_relative(rel):
        return None
    found = _TEMPORARY.fullmatch(rel.rsplit("/", 1)[-1])
    if found is None or (role is not None and found["role"] != role):
        return None
    path = root / rel
    real = Path(os.path.realpath(path.parent))
    return path if real == Path(os.path.realpath(root), rel).parent else None


def recover(root: Path) -> list[str]:
    """Undo what an interrupted build left; returns what was removed. Call it under the
    build lock: every temporary path then belongs to a build that is no longer running."""
    removed = _cache_leftovers(root)
    if cache_folder(root) is None:
        return removed
    path = root / JOURNAL
    try:
        data = json_value(read_regular(path, limit=MAX_JOURNAL_BYTES))
    except (OSError, ValueError):
        return removed
    if not isinstance(data, dict):
        return removed
    aside, leftovers = data.get("aside"), data.get("leftovers")
    old = None
    if isinstance(aside, list) and len(aside) == 2:  # [package, where it was put aside]
        old = _temporary_path(root, aside[1], "old")
    if old is not None:
        found = _TEMPORARY.fullmatch(old.name)
        package = old.with_name(found["target"]) if found else None
        if package and not os.path.lexists(package) and old.is_dir():
            # killed between the two renames: the old tree back
            disk.FS.rename(old, package)
    for rel in leftovers if isinstance(leftovers, list) else []:
        leftover = _temporary_path(root, rel)
        if leftover is None or not os.path.lexists(leftover):
            continue
        if leftover.is_dir() and not leftover.is_symlink():
            disk.FS.rmtree(leftover)
        else:
            disk.FS.unlink(leftover)
        removed.append(str(rel))
    disk.FS.unlink(path)
    return removed


def _cache_leftovers(root: Path) -> list[str]:
    """What a killed build left in toolgen's own cache folder: the folders ruff formats in
    (formatting.py) and half-written `*.tmp` files (the journal's, the caches'). Under the
    build lock no other build is running, so every one of them is a leftover."""
    cache = cache_folder(root)
    if cache is None or not cache.is_dir():
        return []
    found = []
    for entry in sorted(cache.iterdir()):
        if entry.is_symlink():
            continue
        if entry.name.startswith(FORMAT_PREFIX) and entry.is_dir():
            disk.FS.rmtree(entry)
        elif entry.name.endswith(".tmp") and entry.is_file():
            disk.FS.unlink(entry)
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


def clean_up(journal: Journal) -> None:
    """After a failure before the switch: remove every temporary path recorded so far."""
    for rel in journal.paths:
        path = journal.root / rel
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink():
                disk.FS.rmtree(path)
            elif os.path.lexists(path):
                disk.FS.unlink(path)
    journal.close()
