"""`toolgen check`: validate and lint, print what was found, what the catalogue costs the
model on every turn, and exit by the findings."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from toolgen.build import pipeline, project
from toolgen.commands import (
    EXIT_CLEAN,
    allowed_warnings,
    exit_status,
    placements_by_root,
    print_diagnostics,
    say,
    targets,
    warn,
)
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.text import counted


def summary(result: pipeline.CheckResult) -> str:
    counts = Counter(d.severity for d in result.diagnostics)
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


def token_summary(result: pipeline.CheckResult, top: int = 5) -> str:
    """What the catalogue costs the model on every turn, and its most expensive tools."""
    measured = result.tokens
    if result.catalogue is None or measured is None:
        return ""
    budget = result.catalogue.budget.tokens
    limit = f"; budget {budget:,}" if budget is not None else "; no budget"
    broken = result.catalogue.broken_tools
    if broken:
        limit += f"; {counted(len(broken), 'broken tool')} not counted"
    # deferred tools are counted too: what a toolset loads up front is in toolgen docs
    deferred = sum(t.deferred for t in result.catalogue.tools)
    if deferred:
        limit += (
            f"; with every tool loaded, the {counted(deferred, 'deferred one')} too"
        )
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


def check_one(
    target: project.Target,
    others: dict[Path, list[project.Placement]],
    *,
    implementations: bool = True,
) -> pipeline.CheckResult:
    result = pipeline.check_catalogue(
        target.folder,
        target.root,
        others=others[target.root],
        implementations=implementations,
    )
    for note in result.notes:
        warn(note)
    return result


def _only(
    diagnostics: Sequence[Diagnostic], target: project.Target
) -> tuple[list[Diagnostic], int]:
    """The findings about the tool file the user named, and how many others were left out."""
    if target.only is None:
        return list(diagnostics), 0
    mine = [d for d in diagnostics if d.span.file == target.only]
    return mine, len(diagnostics) - len(mine)


def run(args: argparse.Namespace) -> int:
    chosen = targets(args, alone=True)
    others = placements_by_root(chosen)
    for target in chosen:
        if not target.in_project:
            say(
                f"toolgen: {target.shown}: no project root above it "
                f"({', '.join(project.ROOT_MARKERS)}): checked alone, without looking "
                "for its implementations (--root names the project)"
            )
    results = [(t, check_one(t, others, implementations=t.in_project)) for t in chosen]
    shown_by_target = [_only(result.diagnostics, target) for target, result in results]
    hidden = sum(left_out for _, left_out in shown_by_target)
    print_diagnostics([d for shown, _ in shown_by_target for d in shown], args.format)
    if args.format == "text":
        for target, result in results:
            say(summary(result))
            if target.only is not None and hidden:
                say(
                    f"  ({counted(hidden, 'finding')} in other files of the catalogue not "
                    f"shown; toolgen check {result.folder} shows them)"
                )
            cost = token_summary(result)
            if cost:
                say(cost)
    status = EXIT_CLEAN
    for (shown, _), (_, result) in zip(shown_by_target, results, strict=True):
        code, why = exit_status(shown, allowed_warnings(result, args), result.folder)
        status = max(status, code)
        if why and args.format == "text":
            say(why)
    return status
