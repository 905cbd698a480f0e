"""The path guard: a file name from the model, checked to name a regular file inside a root.

`check_path` is the check; `PathGuard` is the same check as pydantic metadata, reading its root
from the validation context. Either gives a `CheckedPath`, which holds the resolved file relative
to the root and opens it safely.

The check resolves symbolic links and then tests that the result stays inside the root, so a link
pointing out is caught however it is spelled. It runs at validation time: between the check and
the moment the implementation opens the file, someone with write access to the folder could swap
a part of the path for a link. `CheckedPath.open_read()` closes that window: it walks from the
root one folder at a time with `O_NOFOLLOW`, never following a link, and compares the file it
opened with the one that was checked. POSIX only (it needs `O_NOFOLLOW` and `dir_fd`).

Whatever the file system answers during the check is one of three things: a problem of the
path the model sent (a `GuardFailure` with a `path_*` code: too long, a loop, not found, not
permitted), a change under the root while it was checked (`PathChanged`), or a failure of the
file system itself (`FileSystemFailed`, an I/O error). No `OSError` leaves the check.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO

from toolgen_runtime.guards.codes import GuardFailure, alternatives, as_pydantic_error

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema
    from pydantic_core.core_schema import ValidationInfo

    from toolgen_runtime.errors import FileSystemFailed, PathChanged

__all__ = [
    "MAX_NAME_BYTES",
    "MAX_PATH_CHARS",
    "CheckedPath",
    "PathGuard",
    "check_path",
    "check_path_text",
]

MAX_PATH_CHARS = 1024
MAX_NAME_BYTES = 255  # NAME_MAX of Linux and macOS filesystems
# PATH_MAX of Linux, with its NUL; a root's own file system may say less
_PATH_MAX = 4096
_SHOWN_CHARS = 80

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _changed(message: str) -> PathChanged:
    # errors.py imports the Agents SDK, which only a run needs (toolgen, the compiler,
    # checks a contract's examples with this module): loaded where the error is made
    from toolgen_runtime.errors import PathChanged

    return PathChanged(message)


def _failed(message: str) -> FileSystemFailed:
    from toolgen_runtime.errors import FileSystemFailed

    return FileSystemFailed(message)


def _shown(text: str) -> str:
    quoted = repr(text)
    return (
        quoted if len(quoted) <= _SHOWN_CHARS else quoted[: _SHOWN_CHARS - 4] + "...'"
    )


def _char_name(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'character')}"


def _bad_character(text: str) -> str | None:
    for char in text:
        if char == "\\":
            return char
        # Cc control, Cf format (zero-width, bidi overrides), Co private use, Cs lone
        # surrogates, Zl/Zp line and paragraph separators
        if unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            return char
    return None


def _compatibility_character(text: str) -> str | None:
    for char in text:
        if unicodedata.normalize("NFKC", char) != unicodedata.normalize("NFC", char):
            return char
    return None


def _suffix_ok(name: str, suffixes: Sequence[str]) -> bool:
    folded = name.casefold()
    return any(
        folded.endswith(suffix.casefold()) and len(folded) > len(suffix)
        for suffix in suffixes
    )


@dataclass(frozen=True, slots=True)
class CheckedPath:
    """A path that passed the guard.

    `relative` is the file it leads to, links resolved at check time, relative to `root`;
    `requested` is what the model sent. Open it with `open_read()` (or `open_new()` for a file
    to create); `path` is there for messages and for libraries that only take a name, which
    then follow links again: see docs/boundaries.md.
    """

    requested: str
    root: Path
    relative: PurePosixPath
    exists: bool
    file_id: tuple[int, int] | None  # (st_dev, st_ino) of the checked file

    @property
    def path(self) -> Path:
        return self.root.joinpath(*self.relative.parts)

    def __str__(self) -> str:
        return self.relative.as_posix()

    def _parent_fd(self) -> int:
        fd = os.open(self.root, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
        try:
            for part in self.relative.parts[:-1]:
                next_fd = os.open(
                    part,
                    os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC,
                    dir_fd=fd,
                )
                os.close(fd)
                fd = next_fd
        except OSError as exc:
            os.close(fd)
            raise _changed(
                f"{self.relative}: a folder on the way changed after the check ({exc.strerror})"
            ) from exc
        return fd

    def open_read(self) -> BinaryIO:
        """The checked file, opened for reading without following any link."""
        parent = self._parent_fd()
        try:
            fd = os.open(
                self.relative.name,
                os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC,
                dir_fd=parent,
            )
        except OSError as exc:
            raise _changed(
                f"{self.relative}: the file changed after the check ({exc.strerror})"
            ) from exc
        finally:
            os.close(parent)
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or (
            self.file_id is not None and (found.st_dev, found.st_ino) != self.file_id
        ):
            os.close(fd)
            raise _changed(
                f"{self.relative}: another file took its place after the check"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")

    def open_new(self) -> BinaryIO:
        """Create the checked file (it must not exist yet), without following any link."""
        parent = self._parent_fd()
        try:
            fd = os.open(
                self.relative.name,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC,
                0o644,
                dir_fd=parent,
            )
        except FileExistsError as exc:
            raise _changed(f"{self.relative}: a file appeared after the check") from exc
        finally:
            os.close(parent)
        return os.fdopen(fd, "wb")

    def read_text(
        self, *, max_chars: int | None = None, encoding: str = "utf-8"
    ) -> str:
        """The file's text (undecodable bytes replaced), at most `max_chars` characters."""
        with self.open_read() as handle:
            # up to 4 bytes per character in UTF-8: never read more than the limit needs
            data = handle.read() if max_chars is None else handle.read(max_chars * 4)
        text = data.decode(encoding, errors="replace")
        return text if max_chars is None else text[:max_chars]


def check_path(
    text: str,
    root: Path,
    *,
    suffixes: Sequence[str] = (),
    must_exist: bool = True,
    allow_hidden: bool = False,
    max_chars: int = MAX_PATH_CHARS,
) -> CheckedPath:
    """Check a path the model sent against a resolved `root`; raise `GuardFailure` for a
    problem of the path, `PathChanged` or `FileSystemFailed` for one of the folder.

    The checks on the text come first (they need no disk and say the most), then the ones
    on the file it leads to. `suffixes` empty allows any name; `must_exist=False` is for a
    file to create, whose folder must exist inside the root.
    """
    limits = {"max_chars": max_chars, "max_bytes": _room_under(root)}
    names = check_path_text(
        text, suffixes=suffixes, allow_hidden=allow_hidden, **limits
    )
    return _check_on_disk(
        text,
        root,
        names,
        suffixes=suffixes,
        must_exist=must_exist,
        allow_hidden=allow_hidden,
        limits=limits,
    )


@functools.lru_cache(maxsize=64)
def _room_under(root: Path) -> int:
    """The bytes a path may take under `root`: the system's longest path, less the root, the
    / after it and the NUL at the end (more would fail with ENAMETOOLONG)."""
    try:
        path_max = os.pathconf(root, "PC_PATH_MAX")
    except (OSError, ValueError):
        path_max = -1
    if path_max <= 0:  # no limit said: the usual one
        path_max = _PATH_MAX
    return max(path_max - len(os.fsencode(root)) - 2, 0)


def check_path_text(
    text: str,
    *,
    suffixes: Sequence[str] = (),
    allow_hidden: bool = False,
    max_chars: int = MAX_PATH_CHARS,
    max_bytes: int = _PATH_MAX - 2,
) -> list[str]:
    """The checks of `check_path` that need no disk (the compiler runs them on a contract's
    examples); the names of the path's parts. `max_bytes` is the room under the root, in
    UTF-8 (the default is the room under `/`)."""
    if text == "":
        raise GuardFailure("path_empty", "is empty")
    if "\x00" in text:
        raise GuardFailure("path_nul_byte", "contains a NUL character (U+0000)")
    bad = _bad_character(text)
    if bad is not None:
        raise GuardFailure(
            "path_bad_character",
            f"contains {_char_name(bad)}, which is not allowed in a path",
        )
    names = [name for name in text.split("/") if name not in ("", ".")]
    limits = {"max_chars": max_chars, "max_bytes": max_bytes}
    if len(text) > max_chars:
        raise GuardFailure(
            "path_too_long", f"has {len(text)} characters, more than allowed", **limits
        )
    longest = max((len(n.encode()) for n in names), default=0)
    if longest > MAX_NAME_BYTES:
        raise GuardFailure(
            "path_too_long", f"has a name of {longest} bytes in UTF-8", **limits
        )
    size = len("/".join(names).encode())
    if size > max_bytes:
        raise GuardFailure(
            "path_too_long",
            f"takes {size} bytes in UTF-8, more than the folder leaves room for",
            **limits,
        )
    odd = _compatibility_character(text)
    if odd is not None:
        plain = unicodedata.normalize("NFKC", odd)
        raise GuardFailure(
            "path_not_normalized",
            f"contains {_char_name(odd)}, which other programs read as {plain!r}",
        )
    if text.startswith("/"):
        raise GuardFailure("path_absolute", f"{_shown(text)} is an absolute path")
    if ".." in names:
        raise GuardFailure("path_traversal", f"{_shown(text)} goes up with ..")
    if not names:
        raise GuardFailure("path_empty", f"{_shown(text)} names no file")
    if not allow_hidden and any(name.startswith(".") for name in names):
        raise GuardFailure(
            "path_hidden", f"{_shown(text)} names a hidden file or folder"
        )
    if suffixes and not _suffix_ok(names[-1], suffixes):
        raise GuardFailure(
            "path_suffix_not_allowed",
            f"{_shown(names[-1])} does not end with {alternatives(suffixes)}",
            suffixes=alternatives(suffixes),
        )
    return names


def _disk_problem(
    exc: OSError, text: str, limits: dict[str, int]
) -> GuardFailure | FileSystemFailed:
    """What an error of the file system met while checking `text` means: a problem of the
    path (its code), or a failure of the file system (the run stops)."""
    shown = _shown(text)
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return GuardFailure("path_not_found", f"{shown} does not exist")
    if exc.errno == errno.ELOOP:
        return GuardFailure(
            "path_symlink_loop", f"{shown} goes through a loop of links"
        )
    if exc.errno == errno.ENAMETOOLONG:
        return GuardFailure(
            "path_too_long", f"{shown} leads to a path longer than allowed", **limits
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return GuardFailure(
            "path_not_permitted",
            f"{shown} is not open to this tool (permission denied)",
        )
    # the server's side, not the model's: said to the operator, never to the model
    return _failed(f"checking {shown} failed: {exc.strerror} (errno {exc.errno})")


def _resolve(text: str, joined: Path, limits: dict[str, int]) -> Path:
    """`joined` with every link followed, as far as they lead (a loop is left in place and
    shows when the file is looked at)."""
    try:
        return Path(os.path.realpath(joined))
    except OSError as exc:
        # realpath lets only readlink's errors out, and readlink fails on what lstat has
        # just called a link only if it was replaced or removed in between
        if exc.errno in (errno.EINVAL, errno.ENOENT, errno.ENOTDIR):
            raise _changed(
                f"{_shown(text)}: a link changed while the path was checked"
            ) from exc
        raise _disk_problem(exc, text, limits) from exc


def _look_up(
    text: str, resolved: Path, must_exist: bool, limits: dict[str, int]
) -> os.stat_result | None:
    """The file's status; None for a new file whose folder exists."""
    try:
        return os.stat(resolved)
    except OSError as exc:
        if must_exist or exc.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise _disk_problem(exc, text, limits) from None
    try:
        folder = os.stat(resolved.parent)
    except OSError as exc:
        raise _disk_problem(exc, text, limits) from None
    if not stat.S_ISDIR(folder.st_mode):
        raise GuardFailure("path_not_found", f"{_shown(text)} does not exist")
    if not _may(resolved.parent, os.W_OK | os.X_OK):
        raise GuardFailure(
            "path_not_permitted", f"{_shown(text)} cannot be created by this tool"
        )
    return None


def _may(path: Path, mode: int) -> bool:
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _check_on_disk(
    text: str,
    root: Path,
    names: list[str],
    *,
    suffixes: Sequence[str],
    must_exist: bool,
    allow_hidden: bool,
    limits: dict[str, int],
) -> CheckedPath:
    resolved = _resolve(text, root.joinpath(*names), limits)
    if resolved != root and not resolved.is_relative_to(root):
        raise GuardFailure(
            "path_outside_root", f"{_shown(text)} leads outside the folder"
        )
    relative = PurePosixPath(resolved.relative_to(root).as_posix())
    if resolved == root:
        raise GuardFailure("path_is_directory", f"{_shown(text)} is the folder itself")
    found = _look_up(text, resolved, must_exist, limits)
    if found is None:
        return CheckedPath(text, root, relative, exists=False, file_id=None)
    if stat.S_ISDIR(found.st_mode):
        raise GuardFailure("path_is_directory", f"{_shown(text)} is a folder")
    if not stat.S_ISREG(found.st_mode):
        raise GuardFailure(
            "path_device_file", f"{_shown(text)} is a device, a pipe or a socket"
        )
    # a link inside the root may lead to a file the name alone would not allow
    if not allow_hidden and any(part.startswith(".") for part in relative.parts):
        raise GuardFailure("path_hidden", f"{_shown(text)} leads to a hidden file")
    if suffixes and not _suffix_ok(relative.name, suffixes):
        raise GuardFailure(
            "path_suffix_not_allowed",
            f"{_shown(text)} leads to a file that does not end with {alternatives(suffixes)}",
            suffixes=alternatives(suffixes),
        )
    if not _may(resolved, os.R_OK):
        raise GuardFailure(
            "path_not_permitted", f"{_shown(text)} is not readable by this tool"
        )
    return CheckedPath(
        text, root, relative, exists=True, file_id=(found.st_dev, found.st_ino)
    )


@dataclass(frozen=True, slots=True)
class PathGuard:
    """`Annotated[CheckedPath, PathGuard("documents", suffixes=(".md", ".txt"))]`: the field
    takes a JSON string and gives a `CheckedPath` under the root the validation context
    configures for that name (never one the model chooses)."""

    root: str
    suffixes: tuple[str, ...] = ()
    must_exist: bool = True
    allow_hidden: bool = False
    max_chars: int = MAX_PATH_CHARS

    def check(self, value: object, context: Any) -> CheckedPath:
        from toolgen_runtime.guards.scope import scope_of  # a run's: it loads the SDK

        scope = scope_of(context, f"the path guard of root {self.root!r}")
        root = scope.boundaries.root(self.root)
        if not isinstance(value, str):
            from pydantic_core import PydanticKnownError  # on this error only

            raise PydanticKnownError("string_type")
        try:
            return check_path(
                value,
                root,
                suffixes=self.suffixes,
                must_exist=self.must_exist,
                allow_hidden=self.allow_hidden,
                max_chars=self.max_chars,
            )
        except GuardFailure as failure:
            raise as_pydantic_error(failure) from None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic_core import core_schema

        def validate(value: object, info: ValidationInfo) -> CheckedPath:
            return self.check(value, info.context)

        return core_schema.with_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda checked: checked.requested
            ),
        )
