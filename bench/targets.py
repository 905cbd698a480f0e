"""The targets of issue 35, each read from a run: what was measured, and whether it is met.

The verdict is on wall time, the targets' own terms (medians of the run's repetitions, five
in a full run); where CPU time gives another verdict, it says so. A figure the run did not
measure (a size it left out, openapi-python-client left out, a run from before the realistic
catalogue) is shown as "not measured", never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stats import (
    JSON,
    LINEAR,
    MEASURED,
    median,
    ratio_text,
    ratios,
    row_at,
    seconds,
    table,
)
from stats import growth as growth_of

ISSUE = 35
EXAMPLE_CHECK = 0.35  # s, `toolgen check` of spec/inventory
CHECK_100 = 0.8  # s, `toolgen check` of 100 realistic tools
FIRST_BUILD = 0.3  # x openapi-python-client, 1,000 tools
REBUILD = 0.2  # s, nothing changed, 1,000 tools, no file written
ONE_CHANGED = {300: 0.5, 1000: 1.0}  # s, tools -> limit
BUILD_CHECK = 1.5  # x the first build, 1,000 tools
AT = 1000  # the size of the ratio targets
DEFERRED_UP_FRONT = 0.15  # x every definition, issue 36: 300 tools in 30 namespaces


def _target(
    what: str,
    limit: str,
    wall: str = "",
    cpu: str = "",
    ok: bool | None = None,
    ok_cpu: bool | None = None,
) -> JSON:
    verdict = "not measured" if ok is None else ("met" if ok else "missed")
    if ok is not None and ok_cpu is not None and ok_cpu != ok:
        verdict += f" ({'met' if ok_cpu else 'missed'} on CPU time)"
    return {
        "target": what,
        "limit": limit,
        "wall": wall,
        "cpu": cpu,
        "verdict": verdict,
    }


def _seconds_target(
    what: str, top: float, wall_samples: Sequence[float], cpu_samples: Sequence[float]
) -> JSON:
    wall, cpu = median(wall_samples), median(cpu_samples)
    return _target(
        what,
        f"at most {seconds(top)}",
        seconds(wall),
        seconds(cpu),
        wall <= top,
        cpu <= top,
    )


def _figure_target(what: str, top: float, row: JSON | None, figure: str) -> JSON:
    if row is None or figure not in row["seconds"]:
        return _target(what, f"at most {seconds(top)}")
    return _seconds_target(
        what, top, row["seconds"][figure], row["cpu_seconds"][figure]
    )


def _ratio_target(what: str, top: float, row: JSON | None, f: str, b: str) -> JSON:
    limit = f"at most {top}x"
    if row is None or f not in row["seconds"] or b not in row["seconds"]:
        return _target(what, limit)
    s: Mapping[str, Any] = row["seconds"]
    c: Mapping[str, Any] = row["cpu_seconds"]
    wall, cpu = median(ratios(s[f], s[b])), median(ratios(c[f], c[b]))
    return _target(
        what,
        limit,
        ratio_text(s[f], s[b]),
        ratio_text(c[f], c[b]),
        wall <= top,
        cpu <= top,
    )


def _rebuild_target(row: JSON | None) -> JSON:
    what = f"rebuild of {AT:,} tools, nothing changed"
    limit = f"at most {seconds(REBUILD)}, 0 files written"
    if row is None:
        return _target(what, limit)
    wall, cpu = median(row["seconds"]["rebuild"]), median(row["cpu_seconds"]["rebuild"])
    written = max(row["written_on_rebuild"])
    return _target(
        what,
        limit,
        f"{seconds(wall)}, {written} files written",
        seconds(cpu),
        wall <= REBUILD and written == 0,
        cpu <= REBUILD and written == 0,
    )


def _linear_target(results: JSON) -> JSON:
    """toolgen's own figures (openapi-python-client's growth is shown, not judged)."""
    what, limit = (
        "cost grows linearly with the number of tools",
        f"exponent at most {LINEAR}",
    )
    grown = {
        f: g
        for f, g in growth_of(results).items()
        if f != "openapi" and g["exponent"] is not None
    }
    if not grown:
        return _target(what, limit)
    worst = max(grown, key=lambda f: grown[f]["exponent"])
    worst_cpu = max(grown, key=lambda f: grown[f]["exponent_cpu"] or 0.0)
    k, k_cpu = grown[worst]["exponent"], grown[worst_cpu]["exponent_cpu"] or 0.0
    return _target(
        what,
        limit,
        f"highest: {k:.2f} ({worst})",
        f"highest: {k_cpu:.2f} ({worst_cpu})",
        k <= LINEAR,
        k_cpu <= LINEAR,
    )


def _deferral_target(found: JSON | None) -> JSON:
    """Issue 36: tokens a request carries up front with every tool deferred, against every
    definition (bench/search/compiled.py); a count, so one figure for wall and CPU."""
    what = "tokens loaded up front per turn with deferral, against every definition"
    limit = f"at most {DEFERRED_UP_FRONT}x"
    if found is None:
        return _target(what, limit)
    ratio = found["up_front_deferred"] / found["every_definition"]
    measured = (
        f"{ratio:.3f}x ({found['up_front_deferred']:,} / {found['every_definition']:,} "
        f"{found['encoding']} tokens, {found['tools']} tools)"
    )
    return _target(what, limit, measured, measured, ratio <= DEFERRED_UP_FRONT)


def targets(results: JSON) -> list[JSON]:
    """Every target of the issue, in its order, with what this run measured."""
    example = results.get("example_check")
    what = "`toolgen check` of the example catalogue (spec/inventory)"
    rows = [
        _seconds_target(what, EXAMPLE_CHECK, example["seconds"], example["cpu_seconds"])
        if example
        else _target(what, f"at most {seconds(EXAMPLE_CHECK)}"),
        _figure_target(
            f"`toolgen check` of 100 {MEASURED} tools",
            CHECK_100,
            row_at(results, 100),
            "check",
        ),
    ]
    at = row_at(results, AT)
    rows.append(
        _ratio_target(
            f"first build of {AT:,} tools, against openapi-python-client on the same "
            "content",
            FIRST_BUILD,
            at,
            "first_build",
            "openapi",
        )
    )
    rows.append(_rebuild_target(at))
    rows += [
        _figure_target(
            f"rebuild of {size:,} tools after one tool changed",
            top,
            row_at(results, size),
            "one_changed",
        )
        for size, top in ONE_CHANGED.items()
    ]
    rows.append(
        _ratio_target(
            f"`build --check` of {AT:,} tools, against the first build",
            BUILD_CHECK,
            at,
            "build_check",
            "first_build",
        )
    )
    rows.append(_linear_target(results))
    rows.append(_deferral_target(results.get("deferral")))
    return rows


def targets_table(results: JSON) -> str:
    return table(
        ("target", "limit", "measured, wall time", "CPU time", "verdict"),
        (
            [t["target"], t["limit"], t["wall"], t["cpu"], t["verdict"]]
            for t in targets(results)
        ),
        left=5,
    )
