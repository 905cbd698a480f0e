"""`toolgen diff` output: text, JSON, GitHub annotations or SARIF, and the reference of the
diff rules (docs/diff-rules.md), generated from their docstrings.

Changes become `Diagnostic`s placed on a line and column of the contract files of the new
version, so GitHub annotations and SARIF come from `toolgen.report`, the same code that prints
lint findings. Levels map to severities: breaking is an error, dangerous a warning, safe a
note; a breaking change accepted on purpose is printed as a note that says so.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from toolgen import report
from toolgen.diagnostics import Diagnostic, Severity, Span
from toolgen.review import diff as diffing
from toolgen.review.registry import DiffRule, Group, Level, all_diff_rules
from toolgen.spec.ir import CURSOR_PARAM, PAGE_SIZE_PARAM
from toolgen.spec.load import Document, load_document
from toolgen.text import (
    deeper_headings,
    json_document,
    reference_page,
    reference_section,
)

DOCS_PATH = "docs/diff-rules.md"
DOCS_URL = "https://toolgen.dev/docs/diff-rules.md"
_PAGE = ("pagination",)
_PAGINATION_PARAMS = {CURSOR_PARAM: _PAGE, PAGE_SIZE_PARAM: (*_PAGE, "max_page_size")}


def diagnostics(comparison: diffing.Comparison, root: Path) -> list[Diagnostic]:
    """One diagnostic per change, its message starting with the level (`[breaking]`), for
    formats that have no field for it."""

    @functools.cache
    def document(file: str) -> Document | None:
        path = root / file
        return load_document(path, file, root)[0] if path.is_file() else None

    found = []
    for change in comparison.changes:
        # a change's place in its contract file; the nearest key that exists when the
        # exact one does not (a removed parameter points at `params`)
        contract = document(change.file)
        place = (
            Span(change.file, 1, 1)
            if contract is None
            else contract.span(_written(change.where, contract), key=True)
        )
        severity = change.level.severity
        level = change.level.value
        hint = ""
        if change.accepted is not None:
            severity, level = Severity.INFO, f"{level}, accepted"
            hint = f"accepted: {change.accepted}"
        elif change.fails:
            hint = (
                f"if this is on purpose, accept it in {diffing.ACCEPT_NAME} with rule "
                f"{change.rule.id}, tool {change.tool} and the reason"
            )
        message = f"[{level}] {change.message}"
        found.append(Diagnostic(change.rule.id, severity, message, place, hint))
    return found


def _written(where: Sequence[str | int], contract: Document) -> Sequence[str | int]:
    """Where the file writes `where`: what pagination adds, in its block (max_page_size)."""
    added = len(where) > 1 and where[0] == "params" and where[1] in _PAGINATION_PARAMS
    if added and contract.has(_PAGE) and not contract.has(where[:2]):
        return _PAGINATION_PARAMS[str(where[1])]
    return where


def _summary(comparison: diffing.Comparison, against: str, folder: str) -> list[str]:
    counts = Counter(change.level for change in comparison.changes)
    accepted = sum(change.accepted is not None for change in comparison.changes)
    lines = [
        f"{folder}: {counts[Level.BREAKING]} breaking ({accepted} accepted), "
        f"{counts[Level.DANGEROUS]} dangerous, {counts[Level.SAFE]} safe changes "
        f"against {against}"
    ]
    budget = f"; budget {comparison.budget:,}" if comparison.budget is not None else ""
    delta = comparison.new_total - comparison.old_total
    lines.append(
        f"{folder}: {comparison.new_total:,} tokens per turn, was "
        f"{comparison.old_total:,} ({delta:+,}{budget})"
    )
    for cost in sorted(comparison.costs, key=lambda c: (-abs(c.delta), c.name)):
        old = "new" if cost.old is None else f"{cost.old:,}"
        new = "removed" if cost.new is None else f"{cost.new:,}"
        lines.append(f"  {cost.delta:+6,}  {cost.name} ({old} -> {new})")
    return lines


def render(
    comparison: diffing.Comparison,
    fmt: str,
    root: Path,
    against: str,
    folder: str,
) -> tuple[str, list[str]]:
    """(what goes to stdout, summary lines for stderr in text mode)."""
    found = diagnostics(comparison, root)
    if fmt == "json":
        data = diffing.as_data(comparison)
        for item, diagnostic in zip(data["changes"], found, strict=True):
            item["line"], item["col"] = diagnostic.span.line, diagnostic.span.col
        data["against"] = against
        return json_document(data) + "\n", []
    if fmt == "sarif":
        return report.format_sarif(found, rule_descriptors()), []
    if fmt == "github":
        return report.format_github(found), _summary(comparison, against, folder)
    text = "".join(
        f"{d.span}: {d.code} {d.message}"
        + (f"\n  help: {d.hint}" if d.hint else "")
        + "\n"
        for d in found
    )
    return text, _summary(comparison, against, folder)


# --- the rule reference -----------------------------------------------------------------------


def rule_descriptors() -> list[Mapping[str, object]]:
    """SARIF descriptors of every diff rule."""
    return [
        {
            "id": r.id,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.doc},
            "helpUri": f"{DOCS_URL}#{r.id}",
            "defaultConfiguration": {"level": report.SARIF_LEVEL[r.level.severity]},
            "properties": {
                "tags": [r.group.value, r.level.value],
                "level": r.level.value,
            },
        }
        for r in all_diff_rules()
    ]


_INTRO = """\
# Diff rules

<!-- Generated from the rules' docstrings by `python -m toolgen.refdocs`; do not edit by
     hand. -->

`toolgen diff --against REF` compares two versions of a catalogue and classifies every change
with one of these rules. Each rule has a stable id (never reused) and a level:

- **breaking**: a call or an answer that was valid before is not valid after, or a safety
  property of the tool got weaker; `toolgen diff` exits 1 unless the change is accepted;
- **dangerous**: nothing that worked stops working, but a reviewer should look;
- **safe**: compatible, shown so the review is complete.

How to run it, read it and accept a breaking change on purpose: [review.md](review.md).
"""


def _section(rule_: DiffRule) -> str:
    return reference_section(
        rule_.id,
        f"{rule_.id} `{rule_.name}`",
        rule_.summary,
        f"Level `{rule_.level.value}` · group `{rule_.group.value}`",
        deeper_headings(rule_.doc.partition("\n\n")[2].strip()),
    )


def rules_markdown() -> str:
    rules = all_diff_rules()
    rows = [
        (f"[{r.id}](#{r.id})", f"`{r.name}`", r.level.value, r.summary) for r in rules
    ]
    groups = [(g.title, [_section(r) for r in rules if r.group is g]) for g in Group]
    columns = ("Id", "Name", "Level", "Summary")
    return reference_page(_INTRO + "\n## Index\n", columns, rows, groups)


def rules_table(rules: Sequence[DiffRule]) -> str:
    width = max(len(r.name) for r in rules)
    return "".join(
        f"{r.id}  {r.name.ljust(width)}  {r.level.value.ljust(9)}  {r.summary}\n"
        for r in rules
    )
