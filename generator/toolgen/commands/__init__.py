"""The commands of the command line, one module per verb (cli.py parses the arguments and
calls the one named); and what they share: exit statuses, usage errors, the catalogues a
command is about, how findings are printed and when they fail."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from toolgen import report
from toolgen.build import project
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.text import counted, printable

if TYPE_CHECKING:
    from toolgen.build import pipeline

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def print_diagnostics(
    diagnostics: Sequence[Diagnostic], fmt: str, stream: TextIO | None = None
) -> None:
    """On stdout, unless the command's output is there (`stream`: stderr)."""
    (stream or sys.stdout).write(report.render(diagnostics, fmt))


def allowed_warnings(
    result: pipeline.CheckResult, args: argparse.Namespace
) -> int | None:
    """How many warnings the catalogue may have: the flag, else its lint.max_warnings."""
    if args.max_warnings is not None:
        return int(args.max_warnings)
    return result.catalogue.lint.max_warnings if result.catalogue else None


def exit_status(
    diagnostics: Sequence[Diagnostic], allowed: int | None, folder: str
) -> tuple[int, str]:
    """Errors fail; warnings fail only past the number allowed, and then it is said why."""
    if any(d.severity is Severity.ERROR for d in diagnostics):
        return EXIT_FINDINGS, ""
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    if allowed is None or warnings <= allowed:
        return EXIT_CLEAN, ""
    return EXIT_FINDINGS, (
        f"{folder}: failed: {counted(warnings, 'warning')}, more than the {allowed:,} "
        "allowed (--max-warnings, or lint.max_warnings in catalogue.yaml)"
    )


def targets(args: argparse.Namespace, *, alone: bool = False) -> list[project.Target]:
    root = args.root.resolve() if args.root is not None else None
    try:
        return project.targets(args.paths, root, alone=alone)
    except project.ProjectError as exc:
        raise UsageError(str(exc)) from exc


def placements_by_root(
    chosen: Sequence[project.Target],
) -> dict[Path, list[project.Placement]]:
    """Per project root: where each of its catalogues writes."""
    roots: dict[Path, list[Path]] = {}
    for target in chosen:
        roots.setdefault(target.root, []).append(target.folder)
    return {root: project.placements(root, folders) for root, folders in roots.items()}


def say(message: str) -> None:
    """A line for the person at the terminal (stderr): stdout holds only the output."""
    print(printable(message, keep="\n"), file=sys.stderr)


def warn(message: str) -> None:
    say(f"toolgen: warning: {message}")
