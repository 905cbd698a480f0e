"""The numbers under every table of the suite: medians, ratios, growth exponents, which rows
of a run belong to which catalogue. bench/targets.py and bench/report.py read runs with them."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

JSON = dict[str, Any]

# (figure, what it is, the baseline its ratio is taken against)
BUILD_FIGURES = (
    ("floor", "floor: PyYAML C loader reads the files", None),
    ("first_build", "`toolgen build`, first", "openapi"),
    ("openapi", "openapi-python-client, first", None),
    ("rebuild", "`toolgen build`, nothing changed", "floor"),
    ("one_changed", "`toolgen build`, one tool changed", "floor"),
    ("build_check", "`toolgen build --check`", "first_build"),
    ("check", "`toolgen check`", "floor"),
)
BASELINE_NAMES = {
    "openapi": "openapi-python-client",
    "floor": "floor",
    "first_build": "first build",
}
# the highest growth exponent still called linear, given how much the machine's noise moves it
LINEAR = 1.1
GROWTH_FROM = 100  # smaller catalogues are all start-up: they say nothing of growth
# nor does a size at which a figure is mostly start-up: its cost above the start-up is the
# difference of two medians of about the same size, which the machine's noise moves by more
# than it is (the rebuild with nothing changed of 100 tools: 193 ms, start-up 190 ms)
GROWTH_SHARE = 0.25
TARGET_IMPORT = 200
# the catalogue whose figures the targets and the growth are read on; runs before it was added
# measured the synthetic one only, and their rows name no catalogue
MEASURED = "realistic"
FORMER = "synthetic"


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def seconds(value: float) -> str:
    if abs(value) < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s"


def spread(samples: Sequence[float]) -> str:
    if len(samples) < 2:
        return "1 run"
    return f"{seconds(min(samples))} to {seconds(max(samples))}"


def times(value: float) -> str:
    return f"{value:.2f}x"


def ratios(figure: Sequence[float], baseline: Sequence[float]) -> list[float]:
    return [f / b for f, b in zip(figure, baseline, strict=True)]


def ratio_text(figure: Sequence[float], baseline: Sequence[float]) -> str:
    values = ratios(figure, baseline)
    text = times(median(values))
    if len(values) > 1:
        text += f" ({times(min(values))} to {times(max(values))})"
    return text


def exponent(sizes: Sequence[int], values: Sequence[float]) -> float | None:
    """k of the least-squares fit value = a * size**k on a log-log scale; None for fewer
    than two points. k = 1 is linear growth, 2 quadratic."""
    points = [
        (math.log(s), math.log(v)) for s, v in zip(sizes, values, strict=True) if v > 0
    ]
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread_x = sum((x - mean_x) ** 2 for x, _ in points)
    if spread_x == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread_x


def exponent_text(k: float | None) -> str:
    return "n/a" if k is None else f"{k:.2f}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], left: int = 1) -> str:
    """A Markdown table; the first `left` columns are left-aligned, the others right."""
    lines = ["| " + " | ".join(header) + " |"]
    marks = ["---" if i < left else "---:" for i in range(len(header))]
    lines.append("| " + " | ".join(marks) + " |")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def rows_of(results: JSON, catalogue: str = MEASURED) -> list[JSON]:
    """The build rows of one catalogue, smallest first."""
    return [b for b in results["build"] if b.get("catalogue", FORMER) == catalogue]


def row_at(results: JSON, tools: int, catalogue: str = MEASURED) -> JSON | None:
    return next((b for b in rows_of(results, catalogue) if b["tools"] == tools), None)


# --- growth ---------------------------------------------------------------------------------


def growth(results: JSON, catalogue: str = MEASURED) -> dict[str, JSON]:
    """Per figure: ms per tool at each size, and the growth exponent of wall and CPU time.

    The exponent is fitted on the sizes of 100 tools and more, with the fixed start-up cost
    (`toolgen --version`, or the interpreter alone for openapi-python-client) taken off, so
    it describes the part of the cost that depends on the number of tools; and only on the
    sizes at which that part is at least GROWTH_SHARE of the figure (`exponent_sizes`)."""
    startup = results["startup"]
    found: dict[str, JSON] = {}
    for figure, _, _ in BUILD_FIGURES:
        rows = [b for b in rows_of(results, catalogue) if figure in b["seconds"]]
        if figure == "floor" or not rows:
            continue
        fixed = "python" if figure == "openapi" else "toolgen"
        sizes = [b["tools"] for b in rows]
        entry: JSON = {
            "ms_per_tool": {
                str(b["tools"]): 1000 * median(b["seconds"][figure]) / b["tools"]
                for b in rows
            }
        }
        for clock, key, start in (
            ("exponent", "seconds", fixed),
            ("exponent_cpu", "cpu_seconds", f"{fixed}_cpu"),
        ):
            total = [median(b[key][figure]) for b in rows]
            cost = [t - median(startup[start]) for t in total]
            fitted = [
                (s, c)
                for s, c, t in zip(sizes, cost, total, strict=True)
                if s >= GROWTH_FROM and c >= GROWTH_SHARE * t
            ]
            entry[clock] = exponent([s for s, _ in fitted], [c for _, c in fitted])
            entry[f"{clock}_sizes"] = [s for s, _ in fitted]
        found[figure] = entry
    return found


def stage_growth(results: JSON, build: str) -> dict[str, JSON]:
    """Per stage of `build` (first_build, rebuild, one_changed): seconds at each size, and
    exponents."""
    stages = results.get("stages", {})
    sizes = sorted(
        int(s)
        for s, builds in stages.items()
        if int(s) >= GROWTH_FROM and build in builds
    )
    names: list[str] = []
    for size in sizes:
        for name in stages[str(size)][build]["stages"]:
            if name not in names:
                names.append(name)
    found: dict[str, JSON] = {}
    for name in names:
        entry: JSON = {"seconds": {}}
        for clock, key in (("exponent", "seconds"), ("exponent_cpu", "cpu_seconds")):
            values = [
                stages[str(s)][build]["stages"].get(name, {}).get(key, 0.0)
                for s in sizes
            ]
            entry[clock] = exponent(sizes, values)
            if key == "seconds":
                entry["seconds"] = dict(zip(map(str, sizes), values, strict=True))
        found[name] = entry
    return found
