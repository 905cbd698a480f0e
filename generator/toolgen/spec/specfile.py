"""Reading a spec file safely, before any YAML: a regular file of bounded size, opened
without blocking, links followed only within the project, UTF-8 text.

Every problem is a located diagnostic (TG005 cannot be read, TG011 too big, TG012 not a
regular file or a broken link, TG013 a link out of the project), never an exception, and
nothing is read past the limit: a FIFO, a device or a huge file costs nothing.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path
from typing import Final

from toolgen.diagnostics import Diagnostic, Span, error
from toolgen.paths import NotRegular, read_regular
from toolgen.spec import limits

__all__ = ["read_bytes", "read_text"]


_KINDS: Final = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _resolve_link(
    path: Path, display: str, root: Path | None
) -> tuple[Path | None, Diagnostic | None]:
    """Where a symbolic link leads, when it may be followed: inside the project, to
    something that exists. Links are followed so specs can be shared within a project; a
    link out of it would build a file nobody reviewing this project sees."""
    try:
        target = path.resolve(strict=True)
    except (RuntimeError, OSError) as exc:
        # a loop: RuntimeError up to Python 3.12, OSError (ELOOP) from 3.13
        if isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP:
            return None, error(
                "TG012",
                "the file is a symbolic link that loops back on itself",
                Span(display),
                "Replace the link with the spec file itself.",
            )
        shown = os.readlink(path) if path.is_symlink() else "?"
        return None, error(
            "TG012",
            f"the file is a broken symbolic link (to {shown}, which does not exist)",
            Span(display),
            "Point the link at an existing spec file, or replace it with the file.",
        )
    if root is not None and not target.is_relative_to(root.resolve()):
        return None, error(
            "TG013",
            f"the file is a symbolic link to {target}, outside the project",
            Span(display),
            "Copy the spec into the project: toolgen follows links only within the "
            "project root, so that what is built is what is reviewed.",
        )
    return target, None


def read_bytes(
    path: Path, display: str, root: Path | None
) -> tuple[bytes | None, Diagnostic | None]:
    """The bytes of a spec file, read only when it is a regular file of bounded size (as
    `paths.read_regular` reads it)."""
    try:
        is_link = path.is_symlink()
    except OSError:
        is_link = False
    if is_link:
        target, problem = _resolve_link(path, display, root)
        if target is None:
            return None, problem
        path = target
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # before opening: a socket cannot be opened
            return None, _not_regular(display, info.st_mode)
        if info.st_size > limits.MAX_FILE_BYTES:
            return None, _too_big(display, info.st_size)
        return read_regular(path, limit=limits.MAX_FILE_BYTES), None
    except NotRegular:  # replaced by something else between the stat and the open
        return None, _not_regular(display, _mode(path))
    except OSError as exc:
        if exc.errno == errno.EFBIG:  # it grew past the limit while being read
            return None, _too_big(display, limits.MAX_FILE_BYTES + 1)
        reason = exc.strerror or exc.__class__.__name__
        return None, error(
            "TG005",
            f"cannot read the file: {reason}",
            Span(display),
            "Check that the file exists and that you may read it.",
        )


def _mode(path: Path) -> int:
    try:
        return os.stat(path).st_mode
    except OSError:
        return 0


def _not_regular(display: str, mode: int) -> Diagnostic:
    kind = next((words for test, words in _KINDS if test(mode)), "not a regular file")
    return error(
        "TG012",
        f"the file is {kind}, not a regular file",
        Span(display),
        "A spec is a plain YAML file: replace this entry with one, or move it out of the "
        "folder.",
    )


def _too_big(display: str, size: int) -> Diagnostic:
    return error(
        "TG011",
        f"the file has {limits.size_words(size)}, more than the "
        f"{limits.size_words(limits.MAX_FILE_BYTES)} a spec file may have",
        Span(display),
        "Split the tool, or shorten its texts and lists; a tool contract is read on "
        "every turn and should stay small.",
    )


def read_text(
    path: Path, display: str, root: Path | None = None
) -> tuple[str | None, list[Diagnostic]]:
    raw, problem = read_bytes(path, display, root)
    if raw is None:
        return None, [problem] if problem is not None else []
    # A leading byte-order mark would shift every column on line 1.
    body = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return body.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = body.count(b"\n", 0, exc.start) + 1
        start = body.rfind(b"\n", 0, exc.start) + 1  # of the line: UTF-8 up to the byte
        hint = "Save the file with UTF-8 encoding."
        if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            hint = "The file looks like UTF-16; save it with UTF-8 encoding."
        return None, [
            error(
                "TG005",
                f"the file is not UTF-8 text: byte 0x{body[exc.start]:02x} cannot be "
                "decoded",
                Span(display, line, len(body[start : exc.start].decode()) + 1),
                hint,
            )
        ]
