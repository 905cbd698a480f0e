"""The semantic checks of the model stage: what a contract says, checked on the IR.

Each check is a small function over one element, registered with `@check(...)` and the codes
it may report (every code is in the table, codes.py); its docstring says what it checks. The
JSON Schema of the format cannot express these: names valid for the model and for Python,
references between tools, context fields, defaults and examples that satisfy their own
contract.

A check over one tool (`Tool`) reads that tool and catalogue.yaml, never the other tools: a
build keeps what it found with the tool. What reads several tools is a check of the catalogue
(`Catalogue`), which sees each tool through its `ToolSummary` and runs in every build. Checks
that read catalogue.yaml (its name, context, class names) say `reads_catalogue`: when that file
has format errors, the pipeline runs every other check on the tool files, so one typo in
catalogue.yaml does not hide their problems.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from toolgen.codes import known
from toolgen.diagnostics import Diagnostic
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary

ToolCheck = Callable[[Tool, Catalogue], Iterable[Diagnostic]]
CatalogueCheck = Callable[[Catalogue, tuple[ToolSummary, ...]], Iterable[Diagnostic]]
C = TypeVar("C", ToolCheck, CatalogueCheck)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    kind: type
    codes: tuple[str, ...]
    reads_catalogue: bool
    run: Callable[..., Iterable[Diagnostic]]


CHECKS: list[Check] = []


def check(
    kind: type[Catalogue] | type[Tool], *codes: str, reads_catalogue: bool = False
) -> Callable[[C], C]:
    """Register a check over one kind of element; its docstring documents it."""
    for code in codes:
        known(code)

    def register(run: C) -> C:
        CHECKS.append(Check(run.__name__, kind, codes, reads_catalogue, run))
        return run

    return register


def _run(kind: type, tools_only: bool, *args: object) -> list[Diagnostic]:
    """Every check over `kind`, run on `args`; with `tools_only`, those that read
    catalogue.yaml are left out. A check that reports a code it did not declare fails."""
    # each module's checks register themselves (`@check`) when it is first imported
    for module in ("names", "references", "values", "examples", "writes", "groups"):
        importlib.import_module(f"toolgen.checks.{module}")
    found = []
    for registered in CHECKS:
        if registered.kind is not kind or (tools_only and registered.reads_catalogue):
            continue
        reported = list(registered.run(*args))
        stray = {d.code for d in reported} - set(registered.codes)
        if stray:
            raise AssertionError(f"check {registered.name} reported {sorted(stray)}")
        found += reported
    return found


def check_tool(
    tool: Tool, catalogue: Catalogue, *, tools_only: bool = False
) -> list[Diagnostic]:
    """Every check over one tool; with `tools_only` (catalogue.yaml has format errors and
    `catalogue` stands in for it), those that read catalogue.yaml are left out. A derived
    tool (the prepare tool of a token contract) is made of its contract's checked parts:
    checking it again would report each problem twice."""
    return [] if tool.derived else _run(Tool, tools_only, tool, catalogue)


def check_catalogue(
    catalogue: Catalogue, tools: tuple[ToolSummary, ...], *, tools_only: bool = False
) -> list[Diagnostic]:
    """Every check over the catalogue as a whole, its tools seen through their summaries."""
    return _run(Catalogue, tools_only, catalogue, tools)
