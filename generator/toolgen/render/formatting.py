"""Formatting generated Python with ruff, in one batch, so output is what `ruff format` keeps.

Templates stay readable and the output is what `ruff format` keeps. Ruff runs isolated from
the project's configuration, so the same input gives the same bytes on every machine; the
package's ruff.toml, written with it, has the project's own ruff use these settings there.

Ruff formats files, so every source is written once into a folder made for it (beside the
project, in its cache folder, where one is given) and read back; a build then moves each copy
into the package instead of creating the file again (`copies`). A build hands its files to a
`Formatter` as it renders them, which starts ruff on every `BATCH` of them, so ruff formats on
the other core while the build renders the next ones; a build that renders few files runs ruff
once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from toolgen.paths import FORMAT_PREFIX

LINE_LENGTH = 88
TARGET_VERSION = "py311"
# files per run of ruff: its start-up is a few ms, one tool has about 3 files
BATCH = 600


class FormattingError(RuntimeError):
    """Ruff could not format a rendered file: a bug in a template, never in a spec."""


def _ruff() -> str:
    # ruff ships no type information; find_ruff_bin locates the binary its wheel installed
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


_COMMON = (  # not --quiet, which would keep what ruff says of a failure to itself
    "--no-cache",
    "--isolated",
    f"--line-length={LINE_LENGTH}",
    f"--target-version={TARGET_VERSION}",
)


class Formatter:
    """Ruff formatting sources in the background while the build goes on: `add` keeps
    sources and starts ruff on every `BATCH` of them, each batch in a folder of its own;
    `results` starts the rest, waits for every batch and reads the files back. Use it as a
    context manager: leaving it stops the batches still running and removes the folders
    (why a build writes before it leaves: pipeline._build)."""

    def __init__(self, workdir: Path | None = None) -> None:
        self._workdir = workdir
        self._batches: list[tuple[Path, dict[str, Path], subprocess.Popen[bytes]]] = []
        self._waiting: dict[str, str] = {}  # Python sources not in a batch yet
        self._kept: dict[str, str] = {}  # sources that are not Python, kept as they are
        self._failed: FormattingError | None = None

    def __enter__(self) -> Formatter:
        return self

    def __exit__(self, *exc: object) -> None:
        for folder, _, process in self._batches:
            if process.poll() is None:
                process.kill()
            process.wait()
            shutil.rmtree(folder, ignore_errors=True)
        self._batches.clear()

    def add(self, sources: Mapping[str, str]) -> None:
        for path, text in sources.items():
            (self._waiting if path.endswith(".py") else self._kept)[path] = text
        if len(self._waiting) >= BATCH:
            self._start()

    def _start(self) -> None:
        python, self._waiting = self._waiting, {}
        if not python or self._failed is not None:
            return
        try:
            folder, names = self._write(python, self._workdir)
        except OSError:
            # the cache folder is read-only or full: the system's temporary folder may do
            try:
                if self._workdir is None:
                    raise
                folder, names = self._write(python, None)
            except OSError as exc:
                # said by `results`, so a build that stops earlier says its own reason
                where = f" in {exc.filename}" if isinstance(exc.filename, str) else ""
                self._failed = FormattingError(
                    f"cannot format the generated code{where}: "
                    f"{(exc.strerror or str(exc)).lower()}; nothing was changed"
                )
                return
        command = [_ruff(), "format", *_COMMON, str(folder)]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        self._batches.append((folder, names, process))

    @staticmethod
    def _write(
        python: Mapping[str, str], workdir: Path | None
    ) -> tuple[Path, dict[str, Path]]:
        if workdir is not None:
            # beside the project: its disk, not the system's temporary one (which can be
            # far slower to create thousands of files on)
            workdir.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=FORMAT_PREFIX, dir=workdir))
        try:
            names = {path: folder / f"f{index}.py" for index, path in enumerate(python)}
            for path, file in names.items():
                # as the write creates a file (the copy may be moved into the package)
                fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                with open(fd, "w", encoding="utf-8", newline="\n") as out:
                    out.write(python[path])
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return folder, names

    def copies(self) -> dict[str, Path]:
        """The file each Python source was formatted in, by its key: after `results`, it
        holds what `results` gave for the key, until the formatter is left."""
        return {
            path: file for _, names, _ in self._batches for path, file in names.items()
        }

    def results(self) -> dict[str, str]:
        """Every source added, formatted (the ones that are not Python as they were)."""
        self._start()
        if self._failed is not None:
            raise self._failed
        done = dict(self._kept)
        for _, names, process in self._batches:
            output, _ = process.communicate()
            if process.returncode != 0:
                raise FormattingError(
                    "ruff failed on generated code:\n" + output.decode(errors="replace")
                )
            # bytes, not text: reading text would translate line endings
            done.update(
                (path, file.read_bytes().decode("utf-8"))
                for path, file in names.items()
            )
        return done


def format_sources(sources: Mapping[str, str]) -> dict[str, str]:
    """Format many Python sources with one ruff process; keys are kept (sources that are
    not Python come back as they are).

    Imports are already in isort order (render computes them), so only the formatter runs.
    """
    with Formatter() as formatter:
        formatter.add(sources)
        return formatter.results()
