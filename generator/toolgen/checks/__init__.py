"""The semantic checks of the model stage: what a contract says, checked on the IR.

Each check is a small function over one element (the catalogue, or one tool of it), registered
with `@check(...)` and the codes it may report (every code is in the table, codes.py); its
docstring says what it checks. The JSON Schema of the format cannot express these: names valid
for the model and for Python, references between tools, context fields, defaults and examples
that satisfy their own contract.

Checks whose result depends on the tool file alone are `per_file`: the pipeline may skip them
for a file that passed them in an earlier build with the same content (the check cache).
Checks that read catalogue.yaml (its name, context, class names) say `reads_catalogue`: when
that file has format errors, the pipeline runs every other check on the tool files, so one typo
in catalogue.yaml does not hide their problems.

A check over one tool reads that tool and catalogue.yaml, never the other tools: what reads
several tools is a check of the catalogue (references.py). So a tool the front cache kept, made
from the same texts of both files by a build that found nothing in it, passed every check over
one tool, and none runs for it again (`kept`); the checks of the catalogue read of a kept tool
only what it holds without reading its IR back (its name, Python names and references), unless
they report a problem in it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from toolgen.codes import known
from toolgen.diagnostics import Diagnostic
from toolgen.ir import Catalogue, Tool

E = TypeVar("E", Catalogue, Tool)
Run = Callable[[E, Catalogue], Iterable[Diagnostic]]


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    kind: type
    codes: tuple[str, ...]
    per_file: bool
    reads_catalogue: bool
    run: Callable[..., Iterable[Diagnostic]]
    doc: str


CHECKS: list[Check] = []


def check(
    kind: type[E], *codes: str, per_file: bool = False, reads_catalogue: bool = False
) -> Callable[[Run[E]], Run[E]]:
    """Register a check over one kind of element; its docstring documents it."""
    for code in codes:
        known(code)

    def register(run: Run[E]) -> Run[E]:
        CHECKS.append(
            Check(
                run.__name__,
                kind,
                codes,
                per_file,
                reads_catalogue,
                run,
                inspect.cleandoc(run.__doc__ or ""),
            )
        )
        return run

    return register


def all_checks() -> list[Check]:
    for module in ("names", "references", "values", "examples", "writes"):
        importlib.import_module(f"toolgen.checks.{module}")
    return CHECKS


def run_checks(
    catalogue: Catalogue,
    *,
    passed: frozenset[str] = frozenset(),
    kept: frozenset[str] = frozenset(),
    tools_only: bool = False,
) -> list[Diagnostic]:
    """Every check over the catalogue; `passed` are the files whose per-file checks passed
    before with the same content, which are not run again for them, and `kept` the files
    whose tool the front cache kept, which passed every check over one tool with the same
    catalogue.yaml (no check over one tool runs for them). With `tools_only` (the
    catalogue file has format errors, and `catalogue` stands in for it), the checks that
    read it are left out."""
    found: list[Diagnostic] = []
    for registered in all_checks():
        if tools_only and registered.reads_catalogue:
            continue
        if registered.kind is Catalogue:
            reported = list(registered.run(catalogue, catalogue))
        else:
            # a derived tool (the prepare tool of a token contract) is made of its
            # contract's checked parts: checking it again would report each problem twice
            reported = [
                d
                for tool in catalogue.tools
                if not tool.derived
                and tool.file not in kept
                and not (registered.per_file and tool.file in passed)
                for d in registered.run(tool, catalogue)
            ]
        stray = {d.code for d in reported} - set(registered.codes)
        if stray:
            raise AssertionError(f"check {registered.name} reported {sorted(stray)}")
        found.extend(reported)
    return found


def checks_over_one_tool(tool: Tool, catalogue: Catalogue) -> list[Diagnostic]:
    """What every check over one tool finds in `tool` (a contract, not a derived tool) of
    `catalogue`: what `run_checks` reports of it, for a tool made ahead of the pipeline
    (ahead.py), whose catalogue holds only some of the tools (no check over one tool reads
    the others)."""
    return [
        d
        for registered in all_checks()
        if registered.kind is Tool
        for d in registered.run(tool, catalogue)
    ]
