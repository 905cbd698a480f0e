"""`toolgen diff` and `toolgen docs`: compare a catalogue with another version of it (a git
ref or a folder), and write its reference and review page."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from toolgen.build import project
from toolgen.commands import EXIT_CLEAN, EXIT_FINDINGS, UsageError
from toolgen.commands import versions as sources
from toolgen.paths import display_path
from toolgen.review import diff as diffing
from toolgen.review import diff_report
from toolgen.review.registry import all_diff_rules
from toolgen.spec.load import load_document


@dataclass(frozen=True, slots=True)
class Compared:
    target: project.Target
    new: sources.Version
    old: sources.Version | None
    comparison: diffing.Comparison
    stale: list[diffing.Acceptance]


def acceptances(folder: Path, root: Path) -> list[diffing.Acceptance]:
    """The entries of the catalogue's accepted-changes.yaml (none when it is absent)."""
    path = folder / diffing.ACCEPT_NAME
    if not path.is_file():
        return []
    shown = display_path(path, root)
    document, problems = load_document(path, shown, root)
    if document is None or problems:
        first = problems[0].format_text().splitlines()[0] if problems else shown
        raise UsageError(f"cannot read {shown}: {first}")
    found, wrong = diffing.parse_acceptances(document.data)
    if wrong:
        raise UsageError(f"{shown}: {wrong[0]}")
    lines = []
    for index, entry in enumerate(found):
        span = document.span(
            ("accept", index) if isinstance(document.data, dict) else (index,)
        )
        lines.append(
            diffing.Acceptance(
                entry.rule, entry.tool, entry.field, entry.reason, span.line
            )
        )
    return lines


def compare_target(target: project.Target, against: str) -> Compared:
    try:
        new = sources.build(target.folder, target.root, "the work tree")
        with sources.against(against, target.folder, target.root) as old:
            empty = {"catalogue": new.snapshot["catalogue"], "tools": [], "tokens": 0}
            comparison = diffing.compare(
                old.snapshot if old else empty,
                new.snapshot,
                old.committed if old else None,
            )
    except sources.SourceError as exc:
        raise UsageError(str(exc)) from exc
    comparison, stale = diffing.accept(
        comparison, acceptances(target.folder, target.root)
    )
    return Compared(target, new, old, comparison, stale)


def run_diff(
    paths: Sequence[str],
    against: str,
    fmt: str,
    root: Path | None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    try:
        targets = project.targets(paths, root)
    except project.ProjectError as exc:
        raise UsageError(str(exc)) from exc
    status = EXIT_CLEAN
    for target in targets:
        compared = compare_target(target, against)
        text, summary = diff_report.render(
            compared.comparison, fmt, target.root, against, target.shown
        )
        out.write(text)
        out.flush()  # the summary on stderr comes after the changes
        for entry in compared.stale:
            print(
                f"{target.shown}/{diffing.ACCEPT_NAME}:{entry.line}: accepts no change "
                f"({entry.rule} in {entry.tool}); remove it once its change has landed",
                file=err,
            )
        for line in summary:
            print(line, file=err)
        if compared.comparison.breaking:
            status = EXIT_FINDINGS
    return status


def run_rules(docs: bool, out: TextIO | None = None) -> int:
    (out or sys.stdout).write(
        diff_report.rules_markdown()
        if docs
        else diff_report.rules_table(all_diff_rules())
    )
    return EXIT_CLEAN


def run_docs(
    paths: Sequence[str], out_dir: Path, against: str | None, root: Path | None
) -> int:
    """Write <catalogue>.md and <catalogue>.html per catalogue; exit 1 when a catalogue has
    breaking changes against `against` (the page is written all the same)."""
    from toolgen.checks.implementations import implementation_state
    from toolgen.review import page
    from toolgen.review.groups import groups_model
    from toolgen.review.silenced import silenced
    from toolgen.review.similarity import similarity

    try:
        targets = project.targets(paths, root)
    except project.ProjectError as exc:
        raise UsageError(str(exc)) from exc
    status = EXIT_CLEAN
    for target in targets:
        if against:
            compared = compare_target(target, against)
            new, comparison = compared.new, compared.comparison
            old = compared.old.snapshot if compared.old else None
            status = max(status, EXIT_FINDINGS if comparison.breaking else EXIT_CLEAN)
        else:
            try:
                new = sources.build(target.folder, target.root, "the work tree")
            except sources.SourceError as exc:
                raise UsageError(str(exc)) from exc
            comparison, old = None, None
        catalogue = new.result.catalogue
        assert catalogue is not None
        model = page.page_model(
            new.snapshot,
            new.result.diagnostics,
            similarity(catalogue),
            comparison,
            old,
            against,
            implementations={
                t.name: implementation_state(catalogue, t, target.root)
                for t in catalogue.tools
            },
            silenced=silenced(catalogue, new.result.diagnostics),
            groups=groups_model(catalogue),
        )
        out_dir.mkdir(parents=True, exist_ok=True)
        name = new.snapshot["catalogue"]
        for suffix, text in ((".md", page.render_markdown(model)),
                             (".html", page.render_html(model))):  # fmt: skip
            path = out_dir / f"{name}{suffix}"
            path.write_text(text, encoding="utf-8")
            print(f"{target.shown}: wrote {path}", file=sys.stderr)
    return status


def run_diff_command(args: argparse.Namespace) -> int:
    try:
        if args.rules or args.docs:
            return run_rules(args.docs)
        if not args.against:
            raise UsageError("--against REF is required (a git ref or a folder)")
        root = args.root.resolve() if args.root is not None else None
        return run_diff(args.paths, args.against, args.format, root)
    except UsageError as exc:
        raise UsageError(f"diff: {exc}") from exc


def run_docs_command(args: argparse.Namespace) -> int:
    try:
        root = args.root.resolve() if args.root is not None else None
        return run_docs(args.paths, args.out, args.against, root)
    except UsageError as exc:
        raise UsageError(f"docs: {exc}") from exc
