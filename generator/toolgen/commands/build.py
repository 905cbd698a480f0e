"""`toolgen build`: check, render and write every catalogue asked for, under each project's
build lock; a catalogue whose inputs and files are as the last build left them replays its
report (build/cache.py); with `--check`, write nothing and say what is stale."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolgen.build import cache, project, recovery
from toolgen.build.progress import Progress
from toolgen.commands import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    allowed_warnings,
    exit_status,
    print_diagnostics,
    say,
    targets,
    warn,
)
from toolgen.diagnostics import Diagnostic

if TYPE_CHECKING:
    # the stages: imported when a catalogue needs a full build, so that one with nothing
    # to do answers before they would have finished importing
    from toolgen.build import pipeline


def run(args: argparse.Namespace) -> int:
    chosen = targets(args)
    progress = Progress.for_stderr(verbose=args.verbose)
    status = EXIT_CLEAN
    all_diagnostics: list[Diagnostic] = []
    messages: list[str] = []
    try:
        for root in dict.fromkeys(t.root for t in chosen):
            mine = [t for t in chosen if t.root == root]
            status = max(
                status,
                _build_root(root, mine, args, progress, all_diagnostics, messages),
            )
    finally:
        progress.clear()
    print_diagnostics(all_diagnostics, args.format)
    if args.format == "text":
        for message in messages:
            say(message)
    return status


def _build_root(
    root: Path,
    mine: list[project.Target],
    args: argparse.Namespace,
    progress: Progress,
    all_diagnostics: list[Diagnostic],
    messages: list[str],
) -> int:
    """Build the chosen catalogues of one project, under its build lock."""
    status = EXIT_CLEAN
    placements: list[project.Placement] | None = None
    catalogues = [*project.catalogues_under(root), *(t.folder for t in mine)]
    with contextlib.ExitStack() as held:
        if not args.check:
            held.enter_context(recovery.build_lock(root))
            for leftover in recovery.recover(root):
                warn(f"removed {leftover}, left by an interrupted build")
        for target in mine:
            progress.label = target.shown
            found = None
            if not args.check:
                with progress.stage("stamp"):
                    stamp, found = cache.replay(
                        root, target.folder, target.shown, catalogues
                    )
                if stamp is not None:
                    status = max(status, _report_replay(stamp, target, args, messages))
                    all_diagnostics.extend(stamp.diagnostics)
                    continue
            if placements is None:
                placements = project.placements(root, [t.folder for t in mine])
            from toolgen.build import pipeline

            built = pipeline.build_catalogue(
                target.folder,
                target.root,
                check_only=args.check,
                others=placements,
                progress=progress,
                found=found,
            )
            status = max(status, _report_build(built, args, all_diagnostics, messages))
    return status


def _report_replay(
    stamp: cache.Stamp,
    target: project.Target,
    args: argparse.Namespace,
    messages: list[str],
) -> int:
    """What a build with nothing to do says: the last build's findings and its files."""
    allowed = args.max_warnings if args.max_warnings is not None else stamp.max_warnings
    code, why = exit_status(stamp.diagnostics, allowed, target.shown)
    if why:
        messages.append(why)
    messages.append(
        f"{target.shown}: 0 written, 0 created, 0 removed, {stamp.unchanged} unchanged "
        "(nothing changed since the last build)"
    )
    return code


def _report_build(
    built: pipeline.BuildResult,
    args: argparse.Namespace,
    all_diagnostics: list[Diagnostic],
    messages: list[str],
) -> int:
    result = built.check
    for note in result.notes:
        warn(note)
    all_diagnostics.extend(result.diagnostics)
    # warnings never stop a build from writing; past the number allowed, it exits 1
    status, why = exit_status(
        result.diagnostics, allowed_warnings(result, args), result.folder
    )
    if why:
        messages.append(why)
    written = built.report
    if built.failure is not None:
        say(f"toolgen: error: {built.failure}")
        messages.append(f"{result.folder}: not built")
        return EXIT_FINDINGS
    if written is None:
        messages.append(f"{result.folder}: not built, fix the errors above")
        return status
    for warning in written.warnings:
        warn(warning)
    if args.check:
        if written.changed:
            # the diff goes to stdout in text mode only: other formats are machine-read
            (sys.stdout if args.format == "text" else sys.stderr).write(written.diff)
            messages.append(
                f"{result.folder}: generated code is stale ({len(written.written)} "
                f"changed, {len(written.created)} missing, {len(written.removed)} to "
                "remove); run toolgen build"
            )
            return EXIT_FINDINGS
        messages.append(f"{result.folder}: generated code is up to date")
        return status
    messages.append(
        f"{result.folder}: {len(written.written)} written, {len(written.created)} "
        f"created, {len(written.removed)} removed, {written.unchanged} unchanged"
    )
    return status
