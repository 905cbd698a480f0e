"""Diagnostics: every problem toolgen finds is a value, never an exception.

A diagnostic names a rule id, a severity, a message that names the bad value and what is
expected, a separate hint, and the place in a spec file (1-based line and column).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgen.codes import Severity, known
from toolgen.text import LINE_BREAK, printable

__all__ = ["Diagnostic", "Hit", "Severity", "Span", "error", "has_errors", "make"]


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A place in a file: 1-based line and column."""

    file: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span
    hint: str = ""

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.file, self.span.line, self.span.col, self.code, self.message)

    def format_text(self) -> str:
        level = "" if self.severity is Severity.ERROR else f"[{self.severity.value}] "
        message = printable(self.message, keep=LINE_BREAK)
        help_ = (
            f"\n  help: {printable(self.hint, keep=LINE_BREAK)}" if self.hint else ""
        )
        return f"{printable(str(self.span))}: {self.code} {level}{message}{help_}"


@dataclass(frozen=True, slots=True)
class Hit:
    """A lint rule's finding before the catalogue's severities and the tools' suppressions
    apply: `owners` are the tools it is about (by name), any of which may suppress it; an
    empty `hint` is the rule's fix."""

    rule: str
    message: str
    hint: str
    span: Span
    owners: tuple[str, ...]


def make(code: str, message: str, span: Span, hint: str = "") -> Diagnostic:
    """A diagnostic of a code in the table (codes.py), at the code's own severity."""
    return Diagnostic(code, known(code).severity, message, span, hint)


def error(code: str, message: str, span: Span, hint: str = "") -> Diagnostic:
    """A diagnostic of a code in the table that is an error whatever its default."""
    known(code)
    return Diagnostic(code, Severity.ERROR, message, span, hint)


def has_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)
