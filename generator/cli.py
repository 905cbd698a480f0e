"""The command line: `toolgen check`, `toolgen build`, `toolgen schema`.

Exit status: 0 clean, 1 findings (an error or warning, or stale output with --check), 2 usage.
PATH is a catalogue folder (holding catalogue.yaml); without one, every catalogue under spec/.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from toolgen import __version__, pipeline, validate
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.write import write_outputs

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
            help="catalogue folders (default: every catalogue under spec/)",
        )
        sub.add_argument(
            "--format",
            choices=("text", "json"),
            default="text",
            help="how to print diagnostics (default: text)",
        )
        sub.add_argument(
            "--root",
            type=Path,
            default=Path.cwd(),
            help="project root that package paths are relative to (default: .)",
        )

    check = commands.add_parser("check", help="validate and lint catalogues, write nothing")
    with_paths(check)
    build = commands.add_parser("build", help="check, then write the generated code")
    with_paths(build)
    build.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a diff and exit 1 when the committed output is stale",
    )
    schema = commands.add_parser("schema", help="print the JSON Schema of the spec format")
    schema.add_argument("--kind", choices=("tool", "catalogue"), default="tool")
    return parser


def _catalogue_folders(paths: Sequence[str], root: Path) -> list[Path]:
    if not paths:
        spec = root / "spec"
        found = sorted(p.parent for p in spec.glob("*/catalogue.yaml"))
        if not found:
            raise UsageError(f"no catalogue found under {spec} (a folder with catalogue.yaml)")
        return found
    folders = []
    for raw in paths:
        path = Path(raw)
        if not path.is_absolute():
            path = Path.cwd() / path
        if path.is_file() and path.name == "catalogue.yaml":
            path = path.parent
        if not path.is_dir():
            raise UsageError(f"{raw}: not a catalogue folder")
        folders.append(path)
    return folders


def _print_diagnostics(diagnostics: Sequence[Diagnostic], fmt: str) -> None:
    if fmt == "json":
        payload = [
            {
                "code": d.code,
                "severity": d.severity.value,
                "message": d.message,
                "hint": d.hint,
                "file": d.span.file,
                "line": d.span.line,
                "col": d.span.col,
            }
            for d in diagnostics
        ]
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for d in diagnostics:
        print(d.format_text())


def _findings(diagnostics: Sequence[Diagnostic]) -> bool:
    return any(d.severity in (Severity.ERROR, Severity.WARNING) for d in diagnostics)


def _summary(result: pipeline.CheckResult) -> str:
    counts = {s: sum(1 for d in result.diagnostics if d.severity is s) for s in Severity}
    tools = len(result.catalogue.tools) if result.catalogue else 0
    return (
        f"{result.folder}: {tools} tools, {counts[Severity.ERROR]} errors, "
        f"{counts[Severity.WARNING]} warnings"
    )


def _run_check(args: argparse.Namespace) -> int:
    root: Path = args.root.resolve()
    results = [pipeline.check_catalogue(f, root) for f in _catalogue_folders(args.paths, root)]
    diagnostics = [d for r in results for d in r.diagnostics]
    _print_diagnostics(diagnostics, args.format)
    if args.format == "text":
        for r in results:
            print(_summary(r), file=sys.stderr)
    return EXIT_FINDINGS if _findings(diagnostics) else EXIT_CLEAN


def _run_build(args: argparse.Namespace) -> int:
    root: Path = args.root.resolve()
    status = EXIT_CLEAN
    all_diagnostics: list[Diagnostic] = []
    messages: list[str] = []
    for folder in _catalogue_folders(args.paths, root):
        result = pipeline.check_catalogue(folder, root)
        all_diagnostics.extend(result.diagnostics)
        if _findings(result.diagnostics):
            status = EXIT_FINDINGS
        files = pipeline.render(result)
        if files is None:
            messages.append(f"{result.folder}: not built, fix the errors above")
            continue
        report = write_outputs(files, root, check=args.check)
        if args.check:
            if report.changed:
                status = EXIT_FINDINGS
                sys.stdout.write(report.diff)
                messages.append(
                    f"{result.folder}: generated code is stale ({len(report.written)} changed, "
                    f"{len(report.created)} missing, {len(report.removed)} to remove); "
                    "run toolgen build"
                )
            else:
                messages.append(f"{result.folder}: generated code is up to date")
        else:
            messages.append(
                f"{result.folder}: {len(report.written)} written, {len(report.created)} created, "
                f"{len(report.removed)} removed, {report.unchanged} unchanged"
            )
    _print_diagnostics(all_diagnostics, args.format)
    if args.format == "text":
        for message in messages:
            print(message, file=sys.stderr)
    return status


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
        if args.command == "check":
            return _run_check(args)
        return _run_build(args)
    except UsageError as exc:
        print(f"toolgen: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
