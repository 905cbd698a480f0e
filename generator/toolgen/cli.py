"""The command line: `toolgen check`, `toolgen build`, `toolgen schema`, `toolgen rules`,
`toolgen import`, `toolgen diff` and `toolgen docs`.

Exit status: 0 clean, 1 findings (an error or warning, or stale output with --check), 2 usage.
PATH is a catalogue folder (holding catalogue.yaml); without one, every catalogue under spec/.
Diagnostics print as text, JSON, GitHub annotations or SARIF (`--format`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from toolgen import (
    __version__,
    importers,
    pipeline,
    project,
    report,
    tokens,
    validate,
)
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.lint import docs
from toolgen.lint.registry import all_rules

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolgen",
        description="Compile YAML tool contracts into strict Agents SDK tools, stubs and tests.",
    )
    parser.add_argument("--version", action="version", version=f"toolgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_paths(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "paths",
            nargs="*",
            metavar="PATH",
            help="catalogue folders, catalogue.yaml files or tool files (default: every "
            "catalogue under spec/ of the current project)",
        )
        sub.add_argument(
            "--format",
            choices=report.FORMATS,
            default="text",
            help="how to print diagnostics: text, json, github (annotations) or sarif "
            "(default: text)",
        )
        sub.add_argument(
            "--root",
            type=Path,
            default=None,
            help="project root that package paths are relative to (default: the nearest "
            "folder at or above the catalogue with pyproject.toml, setup.cfg, setup.py "
            "or .git)",
        )

    check = commands.add_parser(
        "check", help="validate and lint catalogues, write nothing"
    )
    with_paths(check)
    build = commands.add_parser("build", help="check, then write the generated code")
    with_paths(build)
    build.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a diff and exit 1 when the committed output is stale",
    )
    schema = commands.add_parser(
        "schema", help="print the JSON Schema of the spec format"
    )
    schema.add_argument("--kind", choices=("tool", "catalogue"), default="tool")
    rules = commands.add_parser(
        "rules", help="list the lint rules, or print their reference"
    )
    rules.add_argument(
        "--docs",
        action="store_true",
        help="print the rules' reference (docs/rules.md of toolgen) as Markdown",
    )
    rules.add_argument("--format", choices=("text", "json"), default="text")
    imported = commands.add_parser(
        "import",
        help="draft contracts from existing tool definitions (never overwrites)",
    )
    imported.add_argument(
        "--from", dest="source_kind", choices=sorted(importers.SOURCES), required=True
    )
    imported.add_argument(
        "file", type=Path, metavar="FILE", help="the definitions (JSON)"
    )
    imported.add_argument(
        "--out",
        type=Path,
        required=True,
        help="the catalogue folder, such as spec/<name>",
    )
    _review_parsers(commands)
    return parser


def _review_parsers(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """`toolgen diff` and `toolgen docs` (the work is in toolgen.review.commands)."""
    from toolgen.review import diff_report

    def catalogue_args(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "paths",
            nargs="*",
            metavar="PATH",
            help="catalogue folders "
            "(default: every catalogue under spec/ of the current project)",
        )
        sub.add_argument(
            "--root",
            type=Path,
            default=None,
            help="project root (default: found as for check)",
        )

    compared = commands.add_parser(
        "diff",
        help="classify the changes against another version as breaking, "
        "dangerous or safe; exit 1 on breaking changes",
    )
    catalogue_args(compared)
    compared.add_argument(
        "--against",
        metavar="REF",
        help="a git ref (origin/main, HEAD~1, a tag) or a folder",
    )
    compared.add_argument("--format", choices=report.FORMATS, default="text")
    shown = compared.add_mutually_exclusive_group()
    shown.add_argument("--rules", action="store_true", help="list the diff rules")
    shown.add_argument(
        "--docs",
        action="store_true",
        help=f"print {diff_report.DOCS_PATH}, generated from the rules",
    )
    page = commands.add_parser(
        "docs",
        help="write the Markdown reference and the HTML review page of each catalogue",
    )
    catalogue_args(page)
    page.add_argument(
        "--out",
        type=Path,
        default=Path("build/review"),
        help="folder to write <catalogue>.md and <catalogue>.html into "
        "(default: build/review)",
    )
    page.add_argument(
        "--against", metavar="REF", help="mark what changed since a git ref or a folder"
    )


def _print_diagnostics(diagnostics: Sequence[Diagnostic], fmt: str) -> None:
    sys.stdout.write(report.render(diagnostics, fmt))


def _findings(diagnostics: Sequence[Diagnostic]) -> bool:
    return any(d.severity in (Severity.ERROR, Severity.WARNING) for d in diagnostics)


def _summary(result: pipeline.CheckResult) -> str:
    counts = {
        s: sum(1 for d in result.diagnostics if d.severity is s) for s in Severity
    }
    tools = len(result.catalogue.tools) if result.catalogue else 0
    return (
        f"{result.folder}: {tools} tools, {counts[Severity.ERROR]} errors, "
        f"{counts[Severity.WARNING]} warnings"
    )


def _token_summary(result: pipeline.CheckResult, top: int = 5) -> str:
    """What the catalogue costs the model on every turn, and its most expensive tools."""
    if result.catalogue is None:
        return ""
    measured = tokens.measure(result.catalogue)
    budget = result.catalogue.budget.tokens
    limit = f"; budget {budget:,}" if budget is not None else "; no budget"
    lines = [
        f"{result.folder}: {measured.total:,} tokens per turn ({measured.encoding}{limit})"
    ]
    expensive = measured.most_expensive(top)
    width = max((len(f"{t.tokens:,}") for t in expensive), default=0)
    lines.extend(f"  {t.tokens:>{width},}  {t.name}" for t in expensive)
    return "\n".join(lines)


def _targets(args: argparse.Namespace) -> list[project.Target]:
    root = args.root.resolve() if args.root is not None else None
    try:
        return project.targets(args.paths, root)
    except project.ProjectError as exc:
        raise UsageError(str(exc)) from exc


def _others(chosen: Sequence[project.Target]) -> dict[Path, list[project.Placement]]:
    """Per project root: where each of its catalogues writes."""
    roots: dict[Path, list[Path]] = {}
    for target in chosen:
        roots.setdefault(target.root, []).append(target.folder)
    return {root: project.placements(root, folders) for root, folders in roots.items()}


def _warn(message: str) -> None:
    print(f"toolgen: warning: {message}", file=sys.stderr)


def _check_one(
    target: project.Target, others: dict[Path, list[project.Placement]]
) -> pipeline.CheckResult:
    result = pipeline.check_catalogue(
        target.folder, target.root, others=others[target.root]
    )
    for note in result.notes:
        _warn(note)
    return result


def _only(
    diagnostics: Sequence[Diagnostic], target: project.Target
) -> tuple[list[Diagnostic], int]:
    """The findings about the tool file the user named, and how many others were left out."""
    if target.only is None:
        return list(diagnostics), 0
    mine = [d for d in diagnostics if d.span.file == target.only]
    return mine, len(diagnostics) - len(mine)


def _run_check(args: argparse.Namespace) -> int:
    chosen = _targets(args)
    others = _others(chosen)
    results = [(t, _check_one(t, others)) for t in chosen]
    diagnostics: list[Diagnostic] = []
    hidden = 0
    for target, result in results:
        shown, left_out = _only(result.diagnostics, target)
        diagnostics += shown
        hidden += left_out
    _print_diagnostics(diagnostics, args.format)
    if args.format == "text":
        for target, result in results:
            print(_summary(result), file=sys.stderr)
            if target.only is not None and hidden:
                print(
                    f"  ({hidden} findings in other files of the catalogue not shown; "
                    f"toolgen check {result.folder} shows them)",
                    file=sys.stderr,
                )
            cost = _token_summary(result)
            if cost:
                print(cost, file=sys.stderr)
    return EXIT_FINDINGS if _findings(diagnostics) else EXIT_CLEAN


def _run_build(args: argparse.Namespace) -> int:
    chosen = _targets(args)
    others = _others(chosen)
    status = EXIT_CLEAN
    all_diagnostics: list[Diagnostic] = []
    messages: list[str] = []
    for root in dict.fromkeys(t.root for t in chosen):
        mine = [t for t in chosen if t.root == root]
        if args.check:
            session: contextlib.AbstractContextManager[list[str]] = (
                contextlib.nullcontext([])
            )
        else:
            session = pipeline.building(root)
        with session as leftovers:
            for leftover in leftovers:
                _warn(f"removed {leftover}, left by an interrupted build")
            for target in mine:
                built = pipeline.build_catalogue(
                    target.folder,
                    target.root,
                    check_only=args.check,
                    others=others[root],
                )
                status = max(
                    status, _report_build(built, args, all_diagnostics, messages)
                )
    _print_diagnostics(all_diagnostics, args.format)
    if args.format == "text":
        for message in messages:
            print(message, file=sys.stderr)
    return status


def _report_build(
    built: pipeline.BuildResult,
    args: argparse.Namespace,
    all_diagnostics: list[Diagnostic],
    messages: list[str],
) -> int:
    result = built.check
    for note in result.notes:
        _warn(note)
    all_diagnostics.extend(result.diagnostics)
    status = EXIT_FINDINGS if _findings(result.diagnostics) else EXIT_CLEAN
    written = built.report
    if built.failure is not None:
        print(f"toolgen: error: {built.failure}", file=sys.stderr)
        messages.append(f"{result.folder}: not built")
        return EXIT_FINDINGS
    if written is None:
        messages.append(f"{result.folder}: not built, fix the errors above")
        return status
    for warning in written.warnings:
        _warn(warning)
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


def _run_rules(args: argparse.Namespace) -> int:
    if args.docs:
        sys.stdout.write(docs.rules_markdown())
        return EXIT_CLEAN
    rules = all_rules()
    if args.format == "json":
        payload = [
            {
                "id": r.id,
                "name": r.name,
                "category": r.category.value,
                "severity": r.severity.value,
                "lifecycle": r.lifecycle.value,
                "summary": r.summary,
            }
            for r in rules
        ]
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return EXIT_CLEAN
    rows = [
        (r.id, r.name, r.category.value, r.severity.value, r.lifecycle.value)
        for r in rules
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[4]]))
    return EXIT_CLEAN


def _run_import(args: argparse.Namespace) -> int:
    """Exit 0 when everything the source states was carried, 1 when something was not."""
    try:
        done = importers.import_file(args.source_kind, args.file, args.out)
    except (OSError, importers.SourceError, importers.Refused) as exc:
        raise UsageError(f"import {args.file}: {exc}") from exc
    for d in done.drafts:
        lost = "; ".join(f"{x.where}: {x.what} ({x.reason})" for x in d.losses)
        line = f"{args.out / 'tools' / (d.name + '.yaml')}: TODO {', '.join(d.todos)}"
        print(line + (f"; not carried: {lost}" if lost else ""), file=sys.stderr)
    for name, why in done.skipped:
        print(f"{args.file}: tool {name!r} not imported: {why}", file=sys.stderr)
    # what the format check says of the drafts: anything here is a contract that cannot build
    checked = pipeline.check_catalogue(args.out, Path.cwd(), implementations=False)
    broken = [d for d in checked.diagnostics if d.code < "TG200"]
    _print_diagnostics(broken, "text")
    print(
        f"{args.out}: {len(done.drafts)} tools imported, {len(done.skipped)} skipped, "
        f"{done.losses} source features not carried, {len(broken)} format errors, "
        f"{done.todos} TODOs to write (toolgen check lists them)",
        file=sys.stderr,
    )
    return EXIT_FINDINGS if done.losses or done.skipped or broken else EXIT_CLEAN


def _run_diff(args: argparse.Namespace) -> int:
    from toolgen.review import commands

    try:
        if args.rules or args.docs:
            return commands.run_rules(args.docs)
        if not args.against:
            raise UsageError("diff: --against REF is required (a git ref or a folder)")
        root = args.root.resolve() if args.root is not None else None
        return commands.run_diff(args.paths, args.against, args.format, root)
    except commands.CommandError as exc:
        raise UsageError(f"diff: {exc}") from exc


def _run_docs(args: argparse.Namespace) -> int:
    from toolgen.review import commands

    try:
        root = args.root.resolve() if args.root is not None else None
        return commands.run_docs(args.paths, args.out, args.against, root)
    except commands.CommandError as exc:
        raise UsageError(f"docs: {exc}") from exc


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        if args.command == "schema":
            sys.stdout.write(validate.schema_text(args.kind))
            return EXIT_CLEAN
        if args.command == "rules":
            return _run_rules(args)
        if args.command == "check":
            return _run_check(args)
        if args.command == "import":
            return _run_import(args)
        if args.command == "diff":
            return _run_diff(args)
        if args.command == "docs":
            return _run_docs(args)
        return _run_build(args)
    except UsageError as exc:
        print(f"toolgen: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (`toolgen rules | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLEAN


if __name__ == "__main__":
    raise SystemExit(main())
