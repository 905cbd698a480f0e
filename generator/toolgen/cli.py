"""The command line: `toolgen check`, `build`, `schema`, `rules`, `import`, `export`,
`init`, `diff` and `docs`.

Exit status, the same for check and build: 0 when there is no error (warnings and infos are
printed, and do not fail, unless `--max-warnings N` or the catalogue's `lint.max_warnings` says
how many a catalogue may have, as eslint's --max-warnings does); 1 for an error, for more
warnings than allowed, or for stale output with `build --check`; 2 for a usage error.
PATH is a catalogue folder (holding catalogue.yaml); without one, every catalogue under spec/.
Diagnostics print as text, JSON, GitHub annotations or SARIF (`--format`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from toolgen import __version__, project, report
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.progress import Progress

# The stages are imported where a command needs them, not here: a build with nothing to do
# (the stamp, stamp.py) answers before any of them would have finished importing.
from toolgen.text import json_document

if TYPE_CHECKING:
    from toolgen import cache, pipeline
from toolgen.lint import docs
from toolgen.lint.registry import all_rules
from toolgen.text import counted

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
# what `export --to` takes, without importing the export stage for a help text
# (tests/reach/test_export.py checks it against toolgen.export)
EXPORT_TARGETS = ("openai-responses", "openai-chat", "anthropic", "gemini", "mcp")


class UsageError(Exception):
    pass


def _source_kind(value: str) -> str:
    # the importers are imported only when the command is used: building must not pay for them
    from toolgen import importers

    if value not in importers.SOURCES:
        kinds = ", ".join(repr(k) for k in sorted(importers.SOURCES))
        raise argparse.ArgumentTypeError(
            f"invalid choice: {value!r} (choose from {kinds})"
        )
    return value


_EXIT_POLICY = (
    "Exit status: 0 when no catalogue has an error; 1 for an error, or for more warnings "
    "than --max-warnings (or the catalogue's lint.max_warnings) allows; 2 for a usage "
    "error. Warnings alone never fail and never stop a build."
)


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
            "--max-warnings",
            type=_count,
            default=None,
            metavar="N",
            help="exit 1 when a catalogue has more than N warnings; 0 fails on any (as "
            "eslint's --max-warnings). Default: the catalogue's lint.max_warnings; without "
            "one, warnings are printed and do not fail. Errors always fail.",
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
        "check",
        help="validate and lint catalogues, write nothing",
        description="Validate and lint catalogues; write nothing.",
        epilog=_EXIT_POLICY,
    )
    with_paths(check)
    build = commands.add_parser(
        "build",
        help="check, then write the generated code",
        description="Check catalogues, then write the generated code, stubs and tests.",
        epilog=_EXIT_POLICY + " With --check, a stale generated package exits 1 too.",
    )
    with_paths(build)
    build.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a diff and exit 1 when the committed output is stale",
    )
    build.add_argument(
        "--verbose",
        action="store_true",
        help="print the time each stage took, on stderr",
    )
    schema = commands.add_parser(
        "schema", help="print the JSON Schema of the spec format"
    )
    schema.add_argument(
        "--kind",
        choices=("tool", "catalogue"),
        default="tool",
        help="which file's schema: tool (tools/*.yaml) or catalogue (catalogue.yaml); "
        "default: tool",
    )
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
        "--from",
        dest="source_kind",
        type=_source_kind,
        required=True,
        metavar="KIND",
        help="what FILE holds, such as openai (function tools) or mcp (tools/list)",
    )
    imported.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="the definitions: JSON (openai, mcp), JSON or YAML (openapi), a Python "
        "module (pyfunctions, imported in a subprocess)",
    )
    imported.add_argument(
        "--out",
        type=Path,
        required=True,
        help="the catalogue folder, such as spec/<name>",
    )
    _review_parsers(commands)
    _export_parser(commands, with_paths)
    started = commands.add_parser(
        "init", help="scaffold a project: a catalogue, an example tool, CI and hooks"
    )
    started.add_argument(
        "path",
        type=Path,
        metavar="PATH",
        help="the project folder (created if missing)",
    )
    started.add_argument(
        "--name",
        default=None,
        help="the catalogue's name (default: the folder's name as an identifier)",
    )
    return parser


def _export_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    with_paths: Callable[[argparse.ArgumentParser], None],
) -> None:
    exported = commands.add_parser(
        "export",
        help="write one catalogue's tool definitions for a model API, or its MCP server",
    )
    with_paths(exported)
    exported.add_argument(
        "--to",
        dest="api",
        required=True,
        choices=EXPORT_TARGETS,
        help="openai-responses, openai-chat, anthropic, gemini: the JSON `tools` of a "
        "request; mcp: a Python module serving the generated tools over MCP",
    )
    exported.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write to this file (default: standard output; required for mcp)",
    )
    written = exported.add_mutually_exclusive_group()
    written.add_argument(
        "--replace",
        action="store_true",
        help="replace the --out file when it exists (without it, an existing file stops "
        "the export)",
    )
    written.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when the --out file differs from what export writes",
    )


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of at least 0, got {text!r}"
        )
    return value


def _review_parsers(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """`toolgen diff` and `toolgen docs` (the work is in toolgen.review.commands)."""

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
        # no import of toolgen.review for a help text: every command builds this parser
        help="print the reference of the diff rules (docs/diff-rules.md), generated from "
        "them",
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


def _allowed_warnings(
    result: pipeline.CheckResult, args: argparse.Namespace
) -> int | None:
    """How many warnings the catalogue may have: the flag, else its lint.max_warnings."""
    if args.max_warnings is not None:
        return int(args.max_warnings)
    return result.catalogue.lint.max_warnings if result.catalogue else None


def _status(
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


def _summary(result: pipeline.CheckResult) -> str:
    counts = {
        s: sum(1 for d in result.diagnostics if d.severity is s) for s in Severity
    }
    # the tool files, those that are broken included (they are tools still), and the tools
    # made from them (the prepare_<x> of a confirm_<x>)
    made = result.tools
    derived = sum(1 for tool in made if tool.derived)
    tools = result.tool_files + derived if result.tool_files else len(made)
    line = (
        f"{result.folder}: {counted(tools, 'tool')}, "
        f"{counted(counts[Severity.ERROR], 'error')}, "
        f"{counted(counts[Severity.WARNING], 'warning')}"
    )
    if result.catalogue_broken:
        line += (
            "\n  (catalogue.yaml has format errors: the tool files were checked without "
            "it; lint and the checks that need it run once it is fixed)"
        )
    return line


def _token_summary(result: pipeline.CheckResult, top: int = 5) -> str:
    """What the catalogue costs the model on every turn, and its most expensive tools."""
    measured = result.tokens
    if result.catalogue is None or measured is None:
        return ""
    budget = result.catalogue.budget.tokens
    limit = f"; budget {budget:,}" if budget is not None else "; no budget"
    broken = result.catalogue.broken_tools
    if broken:
        limit += f"; {counted(len(broken), 'broken tool')} not counted"
    lines = [
        f"{result.folder}: {measured.total:,} tokens per turn ({measured.encoding}{limit})"
    ]
    expensive = measured.most_expensive(top)
    width = max((len(f"{t.tokens:,}") for t in expensive), default=0)
    lines.extend(f"  {t.tokens:>{width},}  {t.name}" for t in expensive)
    rest = len(measured.tools) - len(expensive)
    if rest:
        left = measured.total - sum(t.tokens for t in expensive)
        lines.append(f"  {left:>{width},}  and {counted(rest, 'more tool')}")
    return "\n".join(lines)


def _targets(args: argparse.Namespace, *, alone: bool = False) -> list[project.Target]:
    root = args.root.resolve() if args.root is not None else None
    try:
        return project.targets(args.paths, root, alone=alone)
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
    target: project.Target,
    others: dict[Path, list[project.Placement]],
    *,
    implementations: bool = True,
) -> pipeline.CheckResult:
    from toolgen import pipeline

    result = pipeline.check_catalogue(
        target.folder,
        target.root,
        others=others[target.root],
        implementations=implementations,
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
    chosen = _targets(args, alone=True)
    others = _others(chosen)
    for target in chosen:
        if not target.in_project:
            print(
                f"toolgen: {target.shown}: no project root above it "
                f"({', '.join(project.ROOT_MARKERS)}): checked alone, without looking "
                "for its implementations (--root names the project)",
                file=sys.stderr,
            )
    results = [(t, _check_one(t, others, implementations=t.in_project)) for t in chosen]
    diagnostics: list[Diagnostic] = []
    shown_by_target: list[list[Diagnostic]] = []
    hidden = 0
    for target, result in results:
        shown, left_out = _only(result.diagnostics, target)
        diagnostics += shown
        shown_by_target.append(shown)
        hidden += left_out
    _print_diagnostics(diagnostics, args.format)
    if args.format == "text":
        for target, result in results:
            print(_summary(result), file=sys.stderr)
            if target.only is not None and hidden:
                print(
                    f"  ({counted(hidden, 'finding')} in other files of the catalogue not "
                    f"shown; toolgen check {result.folder} shows them)",
                    file=sys.stderr,
                )
            cost = _token_summary(result)
            if cost:
                print(cost, file=sys.stderr)
    status = EXIT_CLEAN
    for shown, (_, result) in zip(shown_by_target, results, strict=True):
        code, why = _status(shown, _allowed_warnings(result, args), result.folder)
        status = max(status, code)
        if why and args.format == "text":
            print(why, file=sys.stderr)
    return status


def _run_build(args: argparse.Namespace) -> int:
    chosen = _targets(args)
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
    _print_diagnostics(all_diagnostics, args.format)
    if args.format == "text":
        for message in messages:
            print(message, file=sys.stderr)
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
    from toolgen import cache, write

    status = EXIT_CLEAN
    placements: list[project.Placement] | None = None
    catalogues = [*project.catalogues_under(root), *(t.folder for t in mine)]
    with contextlib.ExitStack() as held:
        if not args.check:
            held.enter_context(write.build_lock(root))
            for leftover in write.recover(root):
                _warn(f"removed {leftover}, left by an interrupted build")
        for target in mine:
            progress.label = target.shown
            if not args.check:
                with progress.stage("stamp"):
                    stamp = cache.replay(root, target.folder, target.shown, catalogues)
                if stamp is not None:
                    status = max(status, _report_replay(stamp, target, args, messages))
                    all_diagnostics.extend(stamp.diagnostics)
                    continue
            if placements is None:
                placements = project.placements(root, [t.folder for t in mine])
            built = _full_build(target, args, placements, progress, catalogues)
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
    code, why = _status(stamp.diagnostics, allowed, target.shown)
    if why:
        messages.append(why)
    messages.append(
        f"{target.shown}: 0 written, 0 created, 0 removed, {stamp.unchanged} unchanged "
        "(nothing changed since the last build)"
    )
    return code


def _full_build(
    target: project.Target,
    args: argparse.Namespace,
    placements: list[project.Placement],
    progress: Progress,
    catalogues: Sequence[Path],
) -> pipeline.BuildResult:
    from toolgen import pipeline

    return pipeline.build_catalogue(
        target.folder,
        target.root,
        check_only=args.check,
        others=placements,
        progress=progress,
        catalogues=catalogues,
    )


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
    # warnings never stop a build from writing; past the number allowed, it exits 1
    status, why = _status(
        result.diagnostics, _allowed_warnings(result, args), result.folder
    )
    if why:
        messages.append(why)
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
        print(json_document(payload))
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
    from toolgen import importers, pipeline

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
    checked = pipeline.check_catalogue(
        args.out, Path.cwd(), implementations=False, lint_rules=False
    )
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


def _export_text(
    result: pipeline.CheckResult, api: str
) -> tuple[str | None, list[str]]:
    """The exported text (None when the API refuses the catalogue) and the notes."""
    from toolgen import export
    from toolgen.lint import targets

    assert result.catalogue is not None
    if api == export.MCP:
        problems = export.target_findings(result.catalogue, targets.MCP)
        _print_diagnostics(problems, "text")
        if any(d.severity in (Severity.ERROR, Severity.WARNING) for d in problems):
            return None, []
        server = export.mcp_server_module(result.catalogue)
        return server.source, [
            f"{result.folder}: note: {name}: {export.LEFT_OUT_REASON}"
            for name in server.left_out
        ]
    done = export.definitions(result.catalogue, api)
    _print_diagnostics(done.problems, "text")
    if done.definitions is None:
        return None, []
    notes = [
        f"{result.folder}: note: {n.tool + ': ' if n.tool else ''}{n.text}"
        for n in done.definitions.notes
    ]
    payload = json_document(done.definitions.payload)
    return payload + "\n", notes


def _run_export(args: argparse.Namespace) -> int:
    """Exit 0 when written (notes do not count), 1 when the API refuses the catalogue or the
    --out file is stale (--check), 2 on usage errors and an --out file in the way."""
    from toolgen import export

    chosen = _targets(args)
    if len(chosen) != 1:
        raise UsageError("export takes one catalogue: name its folder")
    if args.api == export.MCP and args.out is None:
        raise UsageError("export --to mcp writes a module: give it a file with --out")
    if args.check and args.out is None:
        raise UsageError("export --check compares with the --out file: give one")
    result = _check_one(chosen[0], _others(chosen), implementations=False)
    if not result.ok or result.catalogue is None:
        _print_diagnostics(result.diagnostics, args.format)
        print(f"{result.folder}: not exported, fix the errors above", file=sys.stderr)
        return EXIT_FINDINGS
    text, notes = _export_text(result, args.api)
    if text is None:
        print(f"{result.folder}: not exported: {args.api} refuses it", file=sys.stderr)
        return EXIT_FINDINGS
    for note in notes:
        print(note, file=sys.stderr)
    if args.out is None:
        sys.stdout.write(text)
        return EXIT_CLEAN
    current = args.out.read_text(encoding="utf-8") if args.out.is_file() else None
    if args.check:
        if current == text:
            print(f"{args.out} is up to date", file=sys.stderr)
            return EXIT_CLEAN
        print(f"{args.out} is stale; run toolgen export again", file=sys.stderr)
        return EXIT_FINDINGS
    if args.out.exists() and not args.replace and current != text:
        raise UsageError(f"{args.out} exists; pass --replace to replace it")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    scratch = args.out.with_name(f".{args.out.name}.toolgen-export.tmp")
    scratch.write_text(text, encoding="utf-8")
    os.replace(scratch, args.out)
    print(f"{result.folder}: exported for {args.api} to {args.out}", file=sys.stderr)
    return EXIT_CLEAN


def _run_init(args: argparse.Namespace) -> int:
    from toolgen import init as toolgen_init

    try:
        made = toolgen_init.scaffold(args.path, args.name)
    except (OSError, toolgen_init.InitRefused) as exc:
        raise UsageError(f"init {args.path}: {exc}") from exc
    for path in made.written:
        print(f"wrote {path}", file=sys.stderr)
    if made.gitignore_added:
        print(
            f"added to {args.path / '.gitignore'}: {', '.join(made.gitignore_added)}",
            file=sys.stderr,
        )
    if made.pyproject_kept:
        print(
            f"kept {args.path / 'pyproject.toml'}: for the generated tests, add "
            'pythonpath = ["."] under [tool.pytest.ini_options]',
            file=sys.stderr,
        )
    print(
        f"{args.path}: next, `toolgen build` there, then fill in the stub under impl/",
        file=sys.stderr,
    )
    return EXIT_CLEAN


# a command allocates a great many objects that live until it ends (the documents, the model,
# the rendered text) and makes almost no reference cycles: at the default thresholds the
# collector walks that growing heap again and again, a third of the time of a first build
GC_THRESHOLDS = (1_000_000, 50, 100)


@contextlib.contextmanager
def _rare_collections() -> Iterator[None]:
    """Collect cycles rarely while a command runs; restored after (main runs in process
    in the tests and in programs that embed it)."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command, as `toolgen ARGS...` does; returns its exit status. Tests and programs
    that embed toolgen call this: the process goes on as it was (see `run`)."""
    with _rare_collections():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    return _dispatch(args)


# the exit status of a command whose output could not be written (as Python's own exit)
EXIT_UNWRITTEN = 120


def run() -> NoReturn:
    """The `toolgen` command: `main`, then an exit that skips tearing the interpreter down.

    A build of a thousand tools leaves about a million objects for the interpreter to free
    and collect on its way out, a tenth of the build's time, in a process about to end. So
    the command keeps the collector's rare thresholds to the end, flushes its output and
    leaves with `os._exit`: nothing toolgen holds needs its teardown (files are closed and
    temporary folders removed where they are made, and nothing registers atexit). An error
    that escapes ends the process the usual way, traceback and all."""
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        status = _main(None)
        sys.stdout.flush()
    except OSError as exc:
        if exc.errno not in _UNWRITABLE:
            raise
        # the output goes nowhere (`toolgen check | head` stopped reading, a full disk)
        with contextlib.suppress(OSError):
            print(f"toolgen: cannot write the output: {exc.strerror}", file=sys.stderr)
        status = EXIT_UNWRITTEN
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(status)


_UNWRITABLE = frozenset({errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EDQUOT})


def _dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command == "schema":
            from toolgen import validate

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
        if args.command == "export":
            return _run_export(args)
        if args.command == "init":
            return _run_init(args)
        return _run_build(args)
    except UsageError as exc:
        print(f"toolgen: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (`toolgen rules | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLEAN


if __name__ == "__main__":
    run()
