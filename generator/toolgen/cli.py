"""The command line: `toolgen check`, `build`, `schema`, `rules`, `import`, `export`,
`init`, `diff` and `docs`.

The exit status, the same for check and build, is docs/spec.md's (Build commands) and the
epilog of their help (`_EXIT_POLICY`); each argument says what it takes in its help.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn, TypeAlias

from toolgen import __version__, report
from toolgen.commands import EXIT_CLEAN, EXIT_USAGE, UsageError
from toolgen.text import printable

# what `export --to` takes, without importing the export stage for a help text
# (tests/reach/test_export.py checks it against toolgen.interop.export)
EXPORT_TARGETS = ("openai-responses", "openai-chat", "anthropic", "gemini", "mcp")
# what `import --from` takes, without importing the importers: building must not pay for
# them (tests/test_import.py checks it against toolgen.interop.importers)
IMPORT_SOURCES = ("mcp", "openai", "openapi", "pyfunctions")


_EXIT_POLICY = (
    "Exit status: 0 when no catalogue has an error; 1 for an error, or for more warnings "
    "than --max-warnings (or the catalogue's lint.max_warnings) allows; 2 for a usage "
    "error. Warnings alone never fail and never stop a build."
)


# the subcommands of the parser, to which each command adds its own (a string: the class
# is generic to type checkers only)
_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolgen",
        description="Compile YAML tool contracts into strict Agents SDK tools, stubs and tests.",
    )
    parser.add_argument("--version", action="version", version=f"toolgen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _checking_parsers(commands)
    _rules_parsers(commands)
    _import_parser(commands)
    _review_parsers(commands)
    _export_parser(commands)
    _init_parser(commands)
    return parser


def _with_paths(sub: argparse.ArgumentParser) -> None:
    """The arguments of the commands that check catalogues: which ones, how to print the
    findings, how many warnings fail, and the project root."""
    _catalogues(sub)
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


def _catalogues(sub: argparse.ArgumentParser) -> None:
    """Which catalogues a command is about, and the project they are in."""
    sub.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="catalogue folders, catalogue.yaml files or tool files (default: every "
        "catalogue under spec/ of the current project)",
    )
    sub.add_argument(
        "--root",
        type=Path,
        default=None,
        help="project root that package paths are relative to (default: the nearest "
        "folder at or above the catalogue with pyproject.toml, setup.cfg, setup.py "
        "or .git)",
    )


def _checking_parsers(commands: _Commands) -> None:
    """`toolgen check` and `toolgen build`: the commands that exit by `_EXIT_POLICY`."""
    check = commands.add_parser(
        "check",
        help="validate and lint catalogues, write nothing",
        description="Validate and lint catalogues; write nothing.",
        epilog=_EXIT_POLICY,
    )
    _with_paths(check)
    build = commands.add_parser(
        "build",
        help="check, then write the generated code",
        description="Check catalogues, then write the generated code, stubs and tests.",
        epilog=_EXIT_POLICY + " With --check, a stale generated package exits 1 too.",
    )
    _with_paths(build)
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


def _rules_parsers(commands: _Commands) -> None:
    """`toolgen schema` and `toolgen rules` (toolgen.commands.rules)."""
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


def _import_parser(commands: _Commands) -> None:
    imported = commands.add_parser(
        "import",
        help="draft contracts from existing tool definitions (never overwrites)",
    )
    imported.add_argument(
        "--from",
        dest="source_kind",
        choices=IMPORT_SOURCES,
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


def _init_parser(commands: _Commands) -> None:
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


def _export_parser(commands: _Commands) -> None:
    exported = commands.add_parser(
        "export",
        help="write one catalogue's tool definitions for a model API, or its MCP server",
    )
    _with_paths(exported)
    exported.add_argument(
        "--to",
        dest="api",
        required=True,
        choices=EXPORT_TARGETS,
        help="openai-responses, openai-chat, anthropic, gemini: the JSON `tools` of a "
        "request; mcp: a Python module serving the generated tools over MCP",
    )
    exported.add_argument(
        "--toolset",
        default=None,
        help="export the tools of this toolset of catalogue.yaml (default: every tool)",
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
    value = -1  # what a text that is no whole number counts as
    with contextlib.suppress(ValueError):
        value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of at least 0, got {text!r}"
        )
    return value


def _review_parsers(commands: _Commands) -> None:
    """`toolgen diff` and `toolgen docs` (toolgen.commands.review)."""
    compared = commands.add_parser(
        "diff",
        help="classify the changes against another version as breaking, "
        "dangerous or safe; exit 1 on breaking changes",
    )
    _catalogues(compared)
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
    _catalogues(page)
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
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
            return int(exc.code or 0)
        return _dispatch(args)


# the exit status of a command whose output could not be written (as Python's own exit)
EXIT_UNWRITTEN = 120


def run() -> NoReturn:
    """The `toolgen` command: `main`, then an exit that skips tearing the interpreter down.

    A build of a thousand tools leaves about a million objects for the interpreter to free
    and collect on its way out, a tenth of the build's time, in a process about to end. So
    the command flushes its output and leaves with `os._exit`: nothing toolgen holds needs
    its teardown (files are closed and temporary folders removed where they are made, and
    nothing registers atexit). An error that escapes ends the process the usual way,
    traceback and all. The collector keeps main's thresholds: restoring the default ones would
    walk, once more, everything the command made (40 ms of a check of the example)."""
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        status = main(None)
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


# each command's module, imported only when it runs: a build with nothing to do answers
# before the stages it does not need would have finished importing
_COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("toolgen.commands.check", "run"),
    "build": ("toolgen.commands.build", "run"),
    "rules": ("toolgen.commands.rules", "run"),
    "schema": ("toolgen.commands.rules", "run_schema"),
    "import": ("toolgen.commands.imports", "run"),
    "export": ("toolgen.commands.export", "run"),
    "init": ("toolgen.commands.init", "run"),
    "diff": ("toolgen.commands.review", "run_diff"),
    "docs": ("toolgen.commands.review", "run_docs"),
}
# the commands whose usage errors start with the command's name (`toolgen: diff: ...`)
_NAMED = frozenset({"diff", "docs"})


def _dispatch(args: argparse.Namespace) -> int:
    module, function = _COMMANDS[args.command]
    command: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(module), function
    )
    try:
        return command(args)
    except UsageError as exc:
        named = f"{args.command}: " if args.command in _NAMED else ""
        print(printable(f"toolgen: {named}{exc}"), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (`toolgen rules | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_CLEAN


if __name__ == "__main__":
    run()
