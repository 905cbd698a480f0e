"""Formatting generated Python with ruff, in one batch, so output is what `ruff format` keeps.

Templates stay readable and the output is formatted the way the project's own code is: a
generated file never changes under `ruff format`. Ruff runs isolated from any configuration
of the project around it, so the same input gives the same bytes on every machine.

Ruff formats files, so every source is written once into a folder for it. A build keeps that
folder (`Scratch`) until it has written its output: the write stage then moves the formatted
files into place instead of creating each file a second time (creating a file is what costs on
a disk; a rename is cheap).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from toolgen.paths import Status

LINE_LENGTH = 88
# the folders formatting happens in, inside the cache folder (write.recover removes any
# that a killed build left)
FORMAT_PREFIX = "format-"


class FormattingError(RuntimeError):
    """Ruff could not format a rendered file: a bug in a template, never in a spec."""


def _ruff() -> str:
    # ruff ships no type information; find_ruff_bin locates the binary its wheel installed
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise FormattingError(
            f"ruff failed on generated code:\n{done.stdout}{done.stderr}"
        )


class Scratch:
    """The folders a build's formatting happened in, kept until the build has written its
    output. `files` maps each formatted source's key to the file holding exactly its
    formatted text; whoever takes a file away (a rename) simply leaves a gap there.

    `statuses` holds the status each of those files had when its text was read, for the
    files last modified before the clock tick of that read (`_format_in`): any later write
    gives the file a newer modification time, so a file still of that status (a rename keeps
    it) holds that text. The stamp takes the digest of such a file as the build left it
    without reading it back (stamp.Digests.placed)."""

    def __init__(self) -> None:
        self.folders: list[Path] = []
        self.files: dict[str, Path] = {}
        self.statuses: dict[str, Status] = {}

    def forget(self, keys: Iterable[str]) -> None:
        """Take the files of `keys` off the list (they stay in their folder until
        `close`): formatted for their text only, they are never put in place."""
        for key in keys:
            self.files.pop(key, None)
            self.statuses.pop(key, None)

    def close(self) -> None:
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)
        self.folders.clear()
        self.files.clear()
        self.statuses.clear()


@contextmanager
def scratch() -> Iterator[Scratch]:
    """A `Scratch` removed on exit, whatever happened (a killed build's is removed by the
    next one: write.recover)."""
    kept = Scratch()
    try:
        yield kept
    finally:
        kept.close()


def format_sources(
    sources: Mapping[str, str],
    workdir: Path | None = None,
    keep: Scratch | None = None,
) -> dict[str, str]:
    """Format many Python sources with one ruff process; keys and order are kept.

    Imports are already in isort order (render computes them), so only the formatter runs.
    With `keep`, the formatted files stay on disk in it (see `Scratch`).
    """
    python = {path: text for path, text in sources.items() if path.endswith(".py")}
    if not python:
        return dict(sources)
    try:
        formatted = _format_in(python, workdir, keep)
    except OSError as first:
        if workdir is None:
            raise FormattingError(_cannot(first)) from first
        # the cache folder is read-only or full: the system's temporary folder may do
        try:
            formatted = _format_in(python, None, keep)
        except OSError as exc:
            raise FormattingError(_cannot(exc)) from exc
    return {path: formatted.get(path, text) for path, text in sources.items()}


def _cannot(exc: OSError) -> str:
    where = f" in {exc.filename}" if isinstance(exc.filename, str) else ""
    return (
        f"cannot format the generated code{where}: {(exc.strerror or str(exc)).lower()}; "
        "nothing was changed"
    )


def _format_in(
    python: Mapping[str, str], workdir: Path | None, keep: Scratch | None
) -> dict[str, str]:
    if workdir is not None:
        # beside the project: its disk, not the system's temporary one (which can be far
        # slower to create thousands of files on), and the one the output is renamed onto
        workdir.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=FORMAT_PREFIX, dir=workdir))
    try:
        names = {path: root / f"f{index}.py" for index, path in enumerate(python)}
        for path, file in names.items():
            # the mode a build gives its files (write.FileSystem.write_new): this file may
            # become one of them
            fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with open(fd, "w", encoding="utf-8", newline="\n") as out:
                out.write(python[path])
        common = [
            "--no-cache",
            "--isolated",
            "--quiet",
            f"--line-length={LINE_LENGTH}",
            "--target-version=py311",
        ]
        _run([_ruff(), "format", *common, str(root)])
        since = _tick(root)
        formatted = {}
        statuses: dict[str, Status] = {}
        for path, file in names.items():
            with open(file, encoding="utf-8", newline="") as source:
                formatted[path] = source.read()
                info = os.fstat(source.fileno())
            if info.st_mtime_ns < since:
                statuses[path] = (info.st_size, info.st_mtime_ns, info.st_ino)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    if keep is None:
        shutil.rmtree(root, ignore_errors=True)
    else:
        keep.folders.append(root)
        keep.files.update(names)
        keep.statuses.update(statuses)
    return formatted


def _tick(folder: Path) -> int:
    """The file system's time now, as it stamps a file written now (its clock is coarser
    than the system's): the modification time of a new file in `folder`. A file whose
    modification time is older was not written since this call."""
    fd = os.open(folder / "tick", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        return os.fstat(fd).st_mtime_ns
    finally:
        os.close(fd)
