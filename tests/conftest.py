"""Fixtures the test modules share, and the end of a run's report: what did not run, and why."""

from __future__ import annotations

from collections import Counter

import pytest

from toolgen.spec import load


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files load parses (display paths), from the test's start: a test that
    builds first clears it before the build it looks at."""
    files: list[str] = []
    real = load._parse

    def spy(text: str, file: str) -> object:
        files.append(file)
        return real(text, file)

    monkeypatch.setattr(load, "_parse", spy)
    return files


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with slow tests first, each kept whole: with the tests spread over
    processes (make test), the long ones start at once instead of ending the run alone."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


def _reason(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):
        return f"expected to fail: {report.wasxfail}"
    if isinstance(report.longrepr, tuple):
        return report.longrepr[2].removeprefix("Skipped: ")
    return str(report.longrepr)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Each reason a test did not run, with how many it kept from running: the last thing
    before the counts, so a missing server or browser is never read as a pass."""
    reports = [
        *terminalreporter.stats.get("skipped", []),
        *terminalreporter.stats.get("xfailed", []),
    ]
    reasons = Counter(_reason(r) for r in reports)
    if not reasons:
        return
    terminalreporter.section(f"{len(reports)} did not run, and why", sep="-")
    for reason, count in reasons.most_common():
        terminalreporter.write_line(f"{count:5d}  {reason}")
