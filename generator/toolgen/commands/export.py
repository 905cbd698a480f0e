"""`toolgen export`: the catalogue's definitions for another runtime (an API's tools value, or
an MCP server module)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import TextIO

from toolgen.build import pipeline
from toolgen.commands import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    UsageError,
    placements_by_root,
    print_diagnostics,
    say,
    targets,
)
from toolgen.commands.check import check_one
from toolgen.diagnostics import Severity
from toolgen.text import json_document


def _export_text(
    result: pipeline.CheckResult, api: str, toolset: str | None, shown: TextIO
) -> tuple[str | None, list[str]]:
    """The exported text (None when the API refuses the catalogue) and the notes; the
    findings of the API's limits are printed on `shown`."""
    from toolgen.interop import export
    from toolgen.lint import targets

    assert result.catalogue is not None
    if api == export.MCP:
        problems = export.target_findings(result.catalogue, targets.MCP, toolset)
        print_diagnostics(problems, "text", shown)
        if any(d.severity in (Severity.ERROR, Severity.WARNING) for d in problems):
            return None, []
        server = export.mcp_server_module(result.catalogue, toolset)
        return server.source, [
            f"{result.folder}: note: {name}: {export.LEFT_OUT_REASON}"
            for name in server.left_out
        ]
    done = export.definitions(result.catalogue, api, toolset)
    print_diagnostics(done.problems, "text", shown)
    if done.definitions is None:
        return None, []
    notes = [
        f"{result.folder}: note: {n.tool + ': ' if n.tool else ''}{n.text}"
        for n in done.definitions.notes
    ]
    return json_document(done.definitions.payload) + "\n", notes


def run(args: argparse.Namespace) -> int:
    """Exit 0 when written (notes do not count), 1 when the API refuses the catalogue or the
    --out file is stale (--check), 2 on usage errors and an --out file in the way."""
    from toolgen.interop import export

    chosen = targets(args)
    if len(chosen) != 1:
        raise UsageError("export takes one catalogue: name its folder")
    if args.api == export.MCP and args.out is None:
        raise UsageError("export --to mcp writes a module: give it a file with --out")
    if args.check and args.out is None:
        raise UsageError("export --check compares with the --out file: give one")
    result = check_one(chosen[0], placements_by_root(chosen), implementations=False)
    # without --out, stdout is the export's: what is found goes to stderr
    shown = sys.stdout if args.out is not None else sys.stderr
    if not result.ok or result.catalogue is None:
        print_diagnostics(result.diagnostics, args.format, shown)
        say(f"{result.folder}: not exported, fix the errors above")
        return EXIT_FINDINGS
    try:
        text, notes = _export_text(result, args.api, args.toolset, shown)
    except export.UnknownToolset as exc:
        raise UsageError(str(exc)) from None
    except export.SearchNameTaken as exc:
        say(f"{result.folder}: not exported: {exc}")
        return EXIT_FINDINGS
    if text is None:
        say(f"{result.folder}: not exported: {args.api} refuses it")
        return EXIT_FINDINGS
    for note in notes:
        say(note)
    if args.out is None:
        sys.stdout.write(text)
        return EXIT_CLEAN
    current = args.out.read_text(encoding="utf-8") if args.out.is_file() else None
    if args.check:
        if current == text:
            say(f"{args.out} is up to date")
            return EXIT_CLEAN
        again = ["toolgen", "export", "--to", args.api, *args.paths, "--out", args.out]
        again += ["--toolset", args.toolset] if args.toolset else []
        again += ["--root", args.root] if args.root else []
        say(f"{args.out} is stale; run: {shlex.join(map(str, [*again, '--replace']))}")
        return EXIT_FINDINGS
    if args.out.exists() and not args.replace and current != text:
        raise UsageError(f"{args.out} exists; pass --replace to replace it")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    scratch = args.out.with_name(f".{args.out.name}.toolgen-export.tmp")
    scratch.write_text(text, encoding="utf-8")
    os.replace(scratch, args.out)
    say(f"{result.folder}: exported for {args.api} to {args.out}")
    return EXIT_CLEAN
