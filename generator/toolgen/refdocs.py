"""The reference pages generated from code: docs/codes.md (the checks) and docs/rules.md (the
lint rules), both from the table of codes (codes.py), and docs/diff-rules.md (the rules of
`toolgen diff`, from their docstrings).

A maintainer's tool, not a user's command: `python -m toolgen.refdocs` rewrites both pages,
`python -m toolgen.refdocs --check` fails with a short report when one is stale (what
`make check` and CI run), so a reference can never drift from the code.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from toolgen.codes import CODES, Code, Stage
from toolgen.lint import docs as lint_docs
from toolgen.lint.registry import all_rules
from toolgen.review import diff_report
from toolgen.text import reference_page, reference_section

CODES_PATH = "docs/codes.md"

_INTRO = """\
# Diagnostic codes of the checks

<!-- Generated from the table in generator/toolgen/codes.py by `python -m toolgen.refdocs`;
     do not edit by hand. -->

Every problem toolgen reports has a code. The codes below TG200 are the checks every build makes
before anything is generated: reading the files, the format, the contract, the implementations
and where a build writes. They are errors (except TG151, info) and cannot be configured; the
lint rules, TG200 and up, are in [rules.md](rules.md). Each code keeps its meaning for good and
is never given to another check. A problem is printed as `file:line:column: code message`,
followed by a `help:` line that says what to do in this case.
"""


def _section(code: Code) -> str:
    severity = "" if code.severity.value == "error" else f" ({code.severity.value})"
    heading = f"{code.id} `{code.name}`{severity}"
    return reference_section(code.id, heading, code.summary, f"**Fix:** {code.fix}")


def codes_markdown() -> str:
    all_rules()  # the lint rules enter the table when their modules load
    checks = [
        c
        for c in sorted(CODES.values(), key=lambda c: c.id)
        if c.stage is not Stage.LINT
    ]
    rows = [(f"[{c.id}](#{c.id})", f"`{c.name}`", c.summary) for c in checks]
    groups = [(s.title, [_section(c) for c in checks if c.stage is s]) for s in Stage]
    return reference_page(_INTRO, ("Code", "Name", "Summary"), rows, groups)


PAGES: dict[str, Callable[[], str]] = {
    CODES_PATH: codes_markdown,
    lint_docs.DOCS_PATH: lint_docs.rules_markdown,
    diff_report.DOCS_PATH: diff_report.rules_markdown,
}


def stale(root: Path) -> list[tuple[str, str]]:
    """(path, unified diff) of every page whose committed text differs from the code's."""
    found = []
    for rel, make in PAGES.items():
        path = root / rel
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        wanted = make()
        if current != wanted:
            diff = "".join(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    wanted.splitlines(keepends=True),
                    f"a/{rel}",
                    f"b/{rel}",
                )
            )
            found.append((rel, diff))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolgen.refdocs")
    parser.add_argument(
        "--check", action="store_true", help="fail when a page is stale"
    )
    parser.add_argument("--root", type=Path, default=Path.cwd())
    args = parser.parse_args(argv)
    if args.check:
        problems = stale(args.root)
        for rel, diff in problems:
            lines = diff.count("\n")
            print(
                f"{rel} is stale ({lines} lines of diff); run: python -m toolgen.refdocs"
            )
        return 1 if problems else 0
    for rel, make in PAGES.items():
        (args.root / rel).write_text(make(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
