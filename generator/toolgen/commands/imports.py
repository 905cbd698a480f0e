"""`toolgen import`: draft a catalogue from existing tool definitions, and check the drafts."""

from __future__ import annotations

import argparse
from pathlib import Path

from toolgen.build import pipeline
from toolgen.commands import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    UsageError,
    print_diagnostics,
    say,
)
from toolgen.interop import importers
from toolgen.text import clipped, counted


def run(args: argparse.Namespace) -> int:
    """Exit 0 when everything the source states was carried, 1 when something was not."""
    try:
        done = importers.import_file(args.source_kind, args.file, args.out)
    except (OSError, importers.SourceError, importers.Refused) as exc:
        raise UsageError(f"import {args.file}: {exc}") from exc
    for d in done.drafts:
        lost = "; ".join(f"{x.where}: {x.what} ({x.reason})" for x in d.losses)
        line = f"{args.out / 'tools' / (d.name + '.yaml')}: TODO {', '.join(d.todos)}"
        say(line + (f"; not carried: {lost}" if lost else ""))
    for name, why in done.skipped:
        say(f"{args.file}: tool {clipped(repr(name))} not imported: {why}")
    # what the format check says of the drafts: anything here is a contract that cannot build
    checked = pipeline.check_catalogue(
        args.out, Path.cwd(), implementations=False, lint_rules=False
    )
    broken = [d for d in checked.diagnostics if d.code < "TG200"]
    print_diagnostics(broken, "text")
    say(
        f"{args.out}: {counted(len(done.drafts), 'tool')} imported, "
        f"{len(done.skipped):,} skipped, "
        f"{counted(done.losses, 'source feature')} not carried, "
        f"{counted(len(broken), 'format error')}, "
        f"{counted(done.todos, 'TODO')} to write (toolgen check lists them)"
    )
    return EXIT_FINDINGS if done.losses or done.skipped or broken else EXIT_CLEAN
