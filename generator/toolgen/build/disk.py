"""The file system, as the few operations a build makes to it.

Every change a build makes to the disk goes through `FS`, one `FileSystem`, and the modules
that write look it up at each call (`disk.FS`), so a test can put in its place one that fails
or kills the build at any operation. `cause` says an `OSError` in the user's words.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import sys
from pathlib import Path


def cause(exc: OSError) -> str:
    """What went wrong, in a few words for a message: `cannot write X: <cause>`."""
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return (exc.strerror or type(exc).__name__).lower()


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2


def _renameat2() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    # renameat2(olddirfd, oldpath, newdirfd, newpath, flags)
    function.argtypes = (ctypes.c_int, ctypes.c_char_p) * 2 + (ctypes.c_uint,)
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
        with open(fd, "w", encoding="utf-8", newline="\n") as file:
            file.write(text)

    def move_new(self, source: Path | None, target: Path, text: str) -> None:
        """Create `target`, which must not exist yet, holding `text`: by moving `source`
        there, a file that holds exactly that text already (the formatter's copy), or by
        writing it where there is none or it is on another file system."""
        if source is not None:
            try:
                self.rename(source, target)
                return
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.ENOENT):
                    raise
        self.write_new(target, text)

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
