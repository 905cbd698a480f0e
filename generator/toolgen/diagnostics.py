"""Diagnostics: every problem toolgen finds is a value, never an exception.

A diagnostic names a rule id, a severity, a message that names the bad value and what is
expected, a separate hint, and the place in a spec file (1-based line and column).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 2, Severity.WARNING: 1, Severity.INFO: 0}


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
        head = f"{self.span}: {self.code} {self.message}"
        if self.severity is not Severity.ERROR:
            head = f"{self.span}: {self.code} [{self.severity.value}] {self.message}"
        return head + (f"\n  help: {self.hint}" if self.hint else "")


def error(code: str, message: str, span: Span, hint: str = "") -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, hint)


def has_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)
