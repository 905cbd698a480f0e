"""Formatting generated Python with ruff, in one batch, so output is what `ruff format` keeps.

Templates stay readable and the output is formatted the way the project's own code is: a
generated file never changes under `ruff format`. Ruff runs isolated from any configuration
of the project around it, so the same input gives the same bytes on every machine.

Ruff formats files, so every source is written once into a folder made for it (beside the
project, in its cache folder, where one is given) and read back.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

LINE_LENGTH = 88
# the folders formatting happens in, inside the cache folder (recovery.recover removes any
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


def format_sources(
    sources: Mapping[str, str], workdir: Path | None = None
) -> dict[str, str]:
    """Format many Python sources with one ruff process; keys and order are kept.

    Imports are already in isort order (render computes them), so only the formatter runs.
    """
    python = {path: text for path, text in sources.items() if path.endswith(".py")}
    if not python:
        return dict(sources)
    try:
        formatted = _format_in(python, workdir)
    except OSError as first:
        if workdir is None:
            raise FormattingError(_cannot(first)) from first
        # the cache folder is read-only or full: the system's temporary folder may do
        try:
            formatted = _format_in(python, None)
        except OSError as exc:
            raise FormattingError(_cannot(exc)) from exc
    return {path: formatted.get(path, text) for path, text in sources.items()}


def _cannot(exc: OSError) -> str:
    where = f" in {exc.filename}" if isinstance(exc.filename, str) else ""
    return (
        f"cannot format the generated code{where}: {(exc.strerror or str(exc)).lower()}; "
        "nothing was changed"
    )


def _format_in(python: Mapping[str, str], workdir: Path | None) -> dict[str, str]:
    if workdir is not None:
        # beside the project: its disk, not the system's temporary one (which can be far
        # slower to create thousands of files on)
        workdir.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=FORMAT_PREFIX, dir=workdir))
    try:
        names = {path: root / f"f{index}.py" for index, path in enumerate(python)}
        for path, file in names.items():
            file.write_text(python[path], encoding="utf-8", newline="\n")
        common = [
            "--no-cache",
            "--isolated",
            "--quiet",
            f"--line-length={LINE_LENGTH}",
            "--target-version=py311",
        ]
        _run([_ruff(), "format", *common, str(root)])
        # bytes, not text: reading text would translate line endings
        return {path: file.read_bytes().decode("utf-8") for path, file in names.items()}
    finally:
        shutil.rmtree(root, ignore_errors=True)
