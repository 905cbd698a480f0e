"""`toolgen diff` and `toolgen docs`: compare a catalogue with another version of it (a git
ref or a folder), and write its reference and review page."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from toolgen import templating
from toolgen.build import project
from toolgen.commands import EXIT_CLEAN, EXIT_FINDINGS, UsageError, say, targets
from toolgen.commands import versions as sources
from toolgen.paths import display_path
from toolgen.review import diff as diffing
from toolgen.review import diff_report
from toolgen.review.registry import all_diff_rules
from toolgen.spec.load import load_document
from toolgen.text import counted

# what `toolgen docs` writes for each catalogue: <catalogue><suffix>, from its template
_PAGES = ((".md", "review/reference.md.jinja"), (".html", "review/page.html.jinja"))


@dataclass(frozen=True, slots=True)
class Compared:
    new: sources.Version
    old: sources.Version | None
    comparison: diffing.Comparison
    stale: list[diffing.Acceptance]  # entries that accept no change
    landed: list[diffing.Acceptance]  # entries of the old version too


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
    rows = ("accept",) if isinstance(document.data, dict) else ()
    return [
        replace(e, line=document.span((*rows, i)).line) for i, e in enumerate(found)
    ]


def compare_target(target: project.Target, against: str) -> Compared:
    new = sources.build(target.folder, target.root, "the work tree")
    with sources.against(against, target.folder, target.root) as old:
        empty = {"catalogue": new.snapshot["catalogue"], "tools": [], "tokens": 0}
        comparison = diffing.compare(
            old.snapshot if old else empty,
            new.snapshot,
            old.committed if old else None,
        )
        landed = set(_entries_at(old))
    entries = acceptances(target.folder, target.root)
    # an entry the old version has already accepted a change that landed there: it
    # accepts no other (of the same field, say), which nobody has reviewed
    comparison, stale = diffing.accept(
        comparison, [e for e in entries if _entry(e) not in landed]
    )
    return Compared(
        new, old, comparison, stale, [e for e in entries if _entry(e) in landed]
    )


def _entry(acceptance: diffing.Acceptance) -> tuple[str, ...]:
    return acceptance.rule, acceptance.tool, acceptance.field or "", acceptance.reason


def _entries_at(version: sources.Version | None) -> Iterator[tuple[str, ...]]:
    """The entries of accepted-changes.yaml in the old version (one it cannot read, none)."""
    if version is not None:
        with contextlib.suppress(UsageError):
            yield from map(_entry, acceptances(version.folder, version.root))


def run_diff(args: argparse.Namespace) -> int:
    if args.docs:
        sys.stdout.write(diff_report.rules_markdown())
        return EXIT_CLEAN
    if args.rules:
        sys.stdout.write(diff_report.rules_table(all_diff_rules()))
        return EXIT_CLEAN
    if not args.against:
        raise UsageError("--against REF is required (a git ref or a folder)")
    status = EXIT_CLEAN
    for target in targets(args):
        compared = compare_target(target, args.against)
        text, summary = diff_report.render(
            compared.comparison, args.format, target.root, args.against, target.shown
        )
        sys.stdout.write(text)
        sys.stdout.flush()  # the summary on stderr comes after the changes
        for entry in compared.stale:
            say(
                f"{target.shown}/{diffing.ACCEPT_NAME}:{entry.line}: accepts no change "
                f"({entry.rule} in {entry.tool}); remove it once its change has landed"
            )
        for entry in compared.landed:
            say(
                f"{target.shown}/{diffing.ACCEPT_NAME}:{entry.line}: was there in "
                f"{args.against} too, where its change ({entry.rule} in {entry.tool}) "
                "has landed, so it accepts no other; remove it"
            )
        for line in summary:
            say(line)
        if compared.comparison.breaking:
            status = EXIT_FINDINGS
    return status


def run_docs(args: argparse.Namespace) -> int:
    """Write <catalogue>.md and <catalogue>.html per catalogue; exit 1 when a catalogue has
    breaking changes against `against` (the page is written all the same)."""
    from toolgen.checks.implementations import implementation_state
    from toolgen.review import page
    from toolgen.review.groups import groups_model
    from toolgen.review.silenced import silenced
    from toolgen.review.similarity import similarity

    status, against, out_dir = EXIT_CLEAN, args.against, args.out
    for target in targets(args):
        if against:
            compared = compare_target(target, against)
            new, comparison = compared.new, compared.comparison
            old = compared.old.snapshot if compared.old else None
            status = max(status, EXIT_FINDINGS if comparison.breaking else EXIT_CLEAN)
        else:
            new = sources.build(target.folder, target.root, "the work tree")
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
        for suffix, template in _PAGES:
            path = out_dir / f"{new.snapshot['catalogue']}{suffix}"
            path.write_text(templating.render(template, **model), encoding="utf-8")
            say(f"{target.shown}: wrote {path}")
        if comparison is not None and comparison.breaking:
            say(
                f"{target.shown}: failed: "
                f"{counted(len(comparison.breaking), 'breaking change')} against "
                f"{against}, not accepted (toolgen diff lists them)"
            )
    return status
