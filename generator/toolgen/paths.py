"""Names and digests every stage shares: where the caches live, how a dotted package maps to
a folder, how a path is shown, and the digest of toolgen itself. A leaf: it imports nothing of
toolgen, so any stage can use it without loading another."""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
from pathlib import Path

from toolgen import __version__

# toolgen's own folder beside the project (never committed): the build cache (cache.py) and
# the journal of a build in progress. Losing it costs only a full build.
CACHE_DIR = ".toolgen-cache"
# the folders ruff formats a build's files in, inside the cache folder (a build removes any
# that a killed one left)
FORMAT_PREFIX = "format-"


def cache_folder(root: Path) -> Path | None:
    """The project's cache folder; None when it is a link (one a repository or an archive
    carried in): what a build wrote or removed there would be elsewhere, so it uses none."""
    folder = root / CACHE_DIR
    return None if folder.is_symlink() else folder


def file_digest(data: bytes) -> str:
    """The digest of a file's bytes (load's of a spec file's text: its bytes without a
    byte-order mark)."""
    return hashlib.sha256(data).hexdigest()[:32]


def package_dir(dotted: str) -> str:
    """generated.inventory -> generated/inventory."""
    return dotted.replace(".", "/")


def safe_relative(path: str) -> bool:
    """A path written in a file toolgen reads back (a manifest, the journal) names a file
    inside its folder, never outside it: no part of it is empty (as in an empty path, or
    one with a leading or doubled slash), `.` or `..`."""
    return (
        all(part not in ("", ".", "..") for part in path.split("/"))
        and "\\" not in path
        and "\0" not in path
    )


def display_path(path: Path, root: Path) -> str:
    """A path as the user reads it: relative to the project root when inside it."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return os.path.relpath(path, root).replace(os.sep, "/")


def _tree_digest(top: Path, suffixes: tuple[str, ...], seed: str = "") -> str:
    """A digest of the files of a folder with these suffixes, each with its path in the
    folder. Walked with os.scandir: importlib.resources would cost more to import than the
    walk (a rebuild with nothing to do starts with these digests)."""
    digest = hashlib.sha256(seed.encode())
    stack = [str(top)]
    while stack:
        base = stack.pop()
        for entry in sorted(os.scandir(base), key=lambda e: e.name):
            if entry.is_dir() and entry.name != "__pycache__":
                stack.append(entry.path)
            elif entry.is_file() and entry.name.endswith(suffixes):
                with open(entry.path, "rb") as file:
                    name = os.path.relpath(entry.path, top).encode()
                    digest.update(name + b"\0" + file.read())
    return digest.hexdigest()[:16]


@functools.cache
def toolgen_digest() -> str:
    """A digest of toolgen's own code, templates and schemas: output made by other code is
    never reused from a cache."""
    top = Path(__file__).resolve().parent
    return _tree_digest(top, (".py", ".jinja", ".json"), __version__)


@functools.cache
def runtime_digest() -> str:
    """A digest of toolgen_runtime's code, found and read, not imported (importing it
    imports the Agents SDK, which a build does not need)."""
    import importlib.util  # only a build that keeps caches needs it

    spec = importlib.util.find_spec("toolgen_runtime")
    if spec is None or spec.origin is None:
        return "none"
    return _tree_digest(Path(spec.origin).parent, (".py",))


def _ruff_install() -> str:
    """The name of ruff's installed distribution (`ruff-0.17.6.dist-info`), beside its
    package: importlib.metadata would cost 20-45 ms to import, and a rebuild with nothing to
    do waits for this key."""
    import importlib.util

    spec = importlib.util.find_spec("ruff")
    if spec is None or spec.origin is None:
        return "none"
    site = Path(spec.origin).parent.parent
    found = [
        e.name
        for e in os.scandir(site)
        if e.name.startswith("ruff-") and e.name.endswith(".dist-info")
    ]
    return max(found, default="none")


def cache_key(*parts: str) -> str:
    """The key of what the build cache keeps: `parts` (what the kept value was made from)
    with the code that made it: Python's version, toolgen's code (`toolgen_digest`),
    toolgen_runtime's (the URL and path guards a contract is checked with,
    `runtime_digest`) and the version of ruff, which formats the output."""
    code = (sys.version, toolgen_digest(), runtime_digest(), _ruff_install())
    return hashlib.sha256("\n".join((*code, *parts)).encode()).hexdigest()


class NotRegular(OSError):
    """The path is not a regular file (a folder, a FIFO, a device, a link when refused)."""


def read_regular(path: str | Path, *, limit: int, follow_links: bool = True) -> bytes:
    """The bytes of a regular file, at most `limit` of them (OSError with EFBIG beyond).

    Opened without blocking, so a FIFO in place of a file never stalls a build, and checked
    on the open descriptor, so what is checked is what is read.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(0, "not a regular file", str(path))
        with open(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(27, f"larger than {limit} bytes", str(path))  # EFBIG
    return data
