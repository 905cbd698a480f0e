"""The suite's results as data (results.json) and as Markdown (results.md, docs, README).

Everything shown is computed from the JSON, so the Markdown of a run can be rendered again
from its JSON alone: `tests/test_bench.py` checks that the figures in docs/performance.md and
the README are those of the committed bench/results.json.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

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
GROWTH_FIGURES = (
    "first_build",
    "rebuild",
    "one_changed",
    "build_check",
    "check",
    "openapi",
)
# the highest growth exponent still called linear, given how much the machine's noise moves it
LINEAR = 1.1
TARGET_SIZE = 1000
TARGET_IMPORT = 200

JSON = dict[str, Any]


def _median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def seconds(value: float) -> str:
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s"


def spread(samples: Sequence[float]) -> str:
    if len(samples) < 2:
        return "1 run"
    return f"{seconds(min(samples))} to {seconds(max(samples))}"


def times(value: float) -> str:
    return f"{value:.2f}x"


def _ratios(figure: Sequence[float], baseline: Sequence[float]) -> list[float]:
    return [f / b for f, b in zip(figure, baseline, strict=True)]


def ratio_text(figure: Sequence[float], baseline: Sequence[float]) -> str:
    values = _ratios(figure, baseline)
    text = times(_median(values))
    if len(values) > 1:
        text += f" ({times(min(values))} to {times(max(values))})"
    return text


def exponent(sizes: Sequence[int], values: Sequence[float]) -> float | None:
    """k of the least-squares fit value = a * size**k on a log-log scale."""
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


def growth(results: JSON) -> dict[str, JSON]:
    """Per figure: ms per tool at each size and the growth exponent.

    The exponent is fitted on the sizes of 100 tools and more, with the fixed start-up cost
    (`toolgen --version`, or the interpreter alone for openapi-python-client) taken off, so
    it describes the part of the cost that depends on the number of tools."""
    startup = results["startup"]
    found: dict[str, JSON] = {}
    for figure in GROWTH_FIGURES:
        rows = [b for b in results["build"] if figure in b["seconds"]]
        if not rows:
            continue
        fixed = _median(startup["python" if figure == "openapi" else "toolgen"])
        sizes = [b["tools"] for b in rows]
        medians = [_median(b["seconds"][figure]) for b in rows]
        fitted = [
            (s, m - fixed) for s, m in zip(sizes, medians, strict=True) if s >= 100
        ]
        found[figure] = {
            "ms_per_tool": {
                str(s): 1000 * m / s for s, m in zip(sizes, medians, strict=True)
            },
            "exponent": exponent([s for s, _ in fitted], [v for _, v in fitted]),
        }
    return found


def _size(results: JSON, tools: int) -> JSON | None:
    return next((b for b in results["build"] if b["tools"] == tools), None)


def _target(what: str, limit: str, measured: str = "", ok: bool | None = None) -> JSON:
    verdict = "not measured" if ok is None else ("met" if ok else "missed")
    return {"target": what, "limit": limit, "measured": measured, "verdict": verdict}


def targets(results: JSON) -> list[JSON]:
    """The targets of issue 13, each with what this run measured."""
    at = _size(results, TARGET_SIZE)
    first = (
        "first build, 1,000 tools, against openapi-python-client on 1,000 operations",
        "at most 0.25x",
    )
    rebuild = (
        "rebuild of 1,000 tools, nothing changed",
        "at most 0.3 s, 0 files written",
    )
    one = ("rebuild of 1,000 tools after one tool changed", "at most 0.5 s")
    check = ("`build --check` of 1,000 tools, against the first build", "at most 2x")
    rows = []
    if at is None:
        rows += [_target(*t) for t in (first, rebuild, one, check)]
    else:
        s = at["seconds"]
        if "openapi" in s:
            value = _median(_ratios(s["first_build"], s["openapi"]))
            rows.append(
                _target(
                    *first, ratio_text(s["first_build"], s["openapi"]), value <= 0.25
                )
            )
        else:
            rows.append(_target(*first))
        again, written = _median(s["rebuild"]), max(at["written_on_rebuild"])
        rows.append(
            _target(
                *rebuild,
                f"{seconds(again)}, {written} files written",
                again <= 0.3 and written == 0,
            )
        )
        changed = _median(s["one_changed"])
        rows.append(_target(*one, seconds(changed), changed <= 0.5))
        value = _median(_ratios(s["build_check"], s["first_build"]))
        rows.append(
            _target(*check, ratio_text(s["build_check"], s["first_build"]), value <= 2)
        )
    imports = results.get("imports")
    what = (
        f"`all_tools()` of {TARGET_IMPORT} tools, against `@function_tool`, above the "
        "shared imports, bytecode cached",
        "at most 0.2x",
    )
    if imports is not None and imports["tools"] == TARGET_IMPORT:
        ours, theirs = (
            imports["extra"]["on"][kind] for kind in ("toolgen", "decorator")
        )
        value = _median(_ratios(ours, theirs))
        rows.append(_target(*what, ratio_text(ours, theirs), value <= 0.2))
    else:
        rows.append(_target(*what))
    grown = growth(results)
    steep = {f: g["exponent"] for f, g in grown.items() if g["exponent"] is not None}
    linear = (
        "cost grows linearly with the number of tools",
        f"exponent at most {LINEAR}",
    )
    if steep:
        worst = max(steep, key=lambda f: steep[f])
        measured = f"highest: {steep[worst]:.2f} ({worst})"
        rows.append(_target(*linear, measured, steep[worst] <= LINEAR))
    else:
        rows.append(_target(*linear))
    return rows


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], right: int = 1) -> str:
    """A Markdown table; columns from `right` on are right-aligned."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append(
        "| "
        + " | ".join("---" if i < right else "---:" for i in range(len(header)))
        + " |"
    )
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def targets_table(results: JSON) -> str:
    return _table(
        ("target", "limit", "measured", "verdict"),
        (
            [t["target"], t["limit"], t["measured"], t["verdict"]]
            for t in targets(results)
        ),
        right=4,
    )


def build_table(results: JSON) -> str:
    rows = []
    names = {"first_build": "first build", "openapi": "openapi", "floor": "floor"}
    for size in results["build"]:
        for figure, label, against in BUILD_FIGURES:
            samples = size["seconds"].get(figure)
            if samples is None:
                continue
            versus = ""
            if against is not None and against in size["seconds"]:
                versus = ratio_text(samples, size["seconds"][against])
                versus += " " + names.get(against, against)
            rows.append(
                [
                    f"{size['tools']:,}",
                    label,
                    seconds(_median(samples)),
                    spread(samples),
                    f"{1000 * _median(samples) / size['tools']:.2f}",
                    f"{_median(size['rss_mb'][figure]):.0f}",
                    versus,
                ]
            )
    return _table(
        (
            "tools",
            "figure",
            "median",
            "range",
            "ms per tool",
            "peak RSS MB",
            "ratio to",
        ),
        rows,
        right=2,
    )


def writes_table(results: JSON) -> str:
    rows = []
    for size in results["build"]:
        rows.append(
            [
                f"{size['tools']:,}",
                ", ".join(str(n) for n in size["written_on_rebuild"]),
                ", ".join(str(n) for n in size["cache_files_on_rebuild"]),
                ", ".join(str(n) for n in size["written_on_one_changed"]),
            ]
        )
    return _table(
        (
            "tools",
            "files written, nothing changed",
            "cache files rewritten, nothing changed",
            "files written, one tool changed",
        ),
        rows,
    )


def equivalence_table(results: JSON) -> str:
    rows = []
    for size in results["build"]:
        ours, theirs = size["toolgen_size"], size["openapi_size"]
        out = size["output"]
        made = out.get("openapi")
        rows.append(
            [
                f"{size['tools']:,}",
                f"{ours['operations']:,} / {theirs['operations']:,}",
                f"{ours['fields']:,} / {theirs['fields']:,}",
                f"{ours['error_codes']:,} / {theirs['error_codes']:,}",
                f"{ours['enum_values']:,} / {theirs['enum_values']:,}",
                f"{ours['constraints']:,} / {theirs['constraints']:,}",
                f"{ours['input_bytes'] / 1e6:.2f} / {theirs['input_bytes'] / 1e6:.2f}",
                f"{out['toolgen'][0]:,} / " + (f"{made[0]:,}" if made else "-"),
                f"{out['toolgen'][1] / 1e6:.1f} / "
                + (f"{made[1] / 1e6:.1f}" if made else "-"),
            ]
        )
    return _table(
        (
            "tools",
            "tools / operations",
            "fields",
            "error codes",
            "enum values",
            "constraints",
            "input MB (YAML / JSON)",
            "files written",
            "MB written",
        ),
        rows,
    )


def growth_table(results: JSON) -> str:
    grown = growth(results)
    sizes = [str(b["tools"]) for b in results["build"]]
    rows = []
    for figure, label, _ in BUILD_FIGURES:
        if figure not in grown:
            continue
        g = grown[figure]
        k = g["exponent"]
        rows.append(
            [
                label,
                *(
                    f"{g['ms_per_tool'][s]:.2f}" if s in g["ms_per_tool"] else ""
                    for s in sizes
                ),
                "n/a" if k is None else f"{k:.2f}",
            ]
        )
    return _table(
        ("figure", *(f"ms per tool at {int(s):,}" for s in sizes), "exponent"), rows
    )


def memory_growth(results: JSON) -> str:
    sizes = [b["tools"] for b in results["build"]]
    peak = [_median(b["rss_mb"]["first_build"]) for b in results["build"]]
    base = min(peak)
    fitted = [(s, p - base) for s, p in zip(sizes, peak, strict=True) if s >= 100]
    k = exponent([s for s, _ in fitted], [v for _, v in fitted])
    text = ", ".join(f"{p:.0f} MB at {s:,}" for s, p in zip(sizes, peak, strict=True))
    fit = "n/a" if k is None else f"{k:.2f}"
    return (
        f"Peak RSS of a first build: {text}; growth exponent above the smallest: {fit}."
    )


def imports_table(results: JSON) -> str:
    imports = results["imports"]
    rows = []
    for mode, label in (
        ("on", "on (as installed)"),
        ("off", "off (PYTHONDONTWRITEBYTECODE=1)"),
    ):
        extra = imports["extra"][mode]
        ours, theirs = extra["toolgen"], extra["decorator"]
        rows.append(
            [
                label,
                f"{seconds(_median(ours))} ({spread(ours)})",
                f"{seconds(_median(theirs))} ({spread(theirs)})",
                ratio_text(ours, theirs),
                seconds(_median(extra["runtime"])),
                seconds(_median(imports["shared"][mode])),
            ]
        )
    return _table(
        (
            "bytecode cache",
            f"`all_tools()`, {imports['tools']} tools",
            "`@function_tool` module",
            "ratio",
            "of which `import toolgen_runtime`",
            "shared: `import agents, pydantic`",
        ),
        rows,
    )


def profile_section(results: JSON, heading: str = "###") -> str:
    profile = results.get("profile")
    if not profile:
        return "Not profiled in this run."
    parts = []
    for build, title in (
        ("first_build", "first build"),
        ("rebuild", "rebuild, nothing changed"),
    ):
        timed, profiled = profile[f"{build}_timed"], profile[f"{build}_profiled"]
        stages = sorted(timed["stages"], key=lambda s: -timed["stages"][s]["seconds"])
        total = seconds(timed["total_s"])
        parts.append(
            f"{heading} {title}, {profile['tools']:,} tools: {total} in process"
        )
        parts.append(
            _table(
                ("stage", "time", "share"),
                (
                    [
                        s,
                        seconds(timed["stages"][s]["seconds"]),
                        f"{100 * timed['stages'][s]['seconds'] / timed['total_s']:.0f}%",
                    ]
                    for s in stages
                ),
            )
        )
        for stage in stages:
            top = profiled["stages"].get(stage, {}).get("top", [])[:8]
            if not top or timed["stages"][stage]["seconds"] < 0.02 * timed["total_s"]:
                continue
            parts.append(
                f"{title}, `{stage}`: the functions with the most own time (profiled)"
            )
            parts.append(
                _table(
                    ("function", "calls", "own s", "cumulative s"),
                    (
                        [
                            "`" + row["function"].replace("|", "\\|") + "`",
                            f"{row['calls']:,}",
                            f"{row['own_s']:.3f}",
                            f"{row['cumulative_s']:.3f}",
                        ]
                        for row in top
                    ),
                )
            )
    return "\n\n".join(parts)


def machine_lines(results: JSON) -> str:
    m = results["machine"]
    return "\n".join(f"- {key}: {value}" for key, value in m.items())


def figures_markdown(results: JSON) -> str:
    """The figures of one run: the block results.md, docs/performance.md hold."""
    s = results["settings"]
    imports = results.get("imports")
    parts = [
        f"Measured {results['machine']['date']} at commit {results['machine']['commit']} with "
        f"`{s['command']}`: sizes {', '.join(f'{n:,}' for n in s['sizes'])}, "
        f"{s['repeat']} repetitions of every build figure"
        + (f", {imports['repeat']} of every import figure" if imports else "")
        + ". Medians, with the range of the samples.",
        "#### Targets (issue 13)",
        targets_table(results),
        "#### Build",
        build_table(results),
        f"Start-up, in every figure: the interpreter alone "
        f"{seconds(_median(results['startup']['python']))}, `toolgen --version` "
        f"{seconds(_median(results['startup']['toolgen']))}. "
        "Peak RSS is the largest process of the command's tree (toolgen, or the ruff it runs).",
        "#### Files written by a rebuild (counted on disk, one number per repetition)",
        writes_table(results),
        "#### The two inputs are the same size",
        "Counted by walking the written files (toolgen YAML / OpenAPI JSON); fields are "
        "parameters with their nested fields, return fields and context fields (headers).",
        equivalence_table(results),
        "#### Growth",
        growth_table(results),
        "The exponent k fits time = a * tools^k over the sizes of 100 tools and more, the "
        "start-up taken off (k = 1 is linear). " + memory_growth(results),
    ]
    if imports:
        eq = imports["equivalence"]
        parts += [
            "#### Import",
            imports_table(results),
            f"Cost above the shared imports, in a fresh interpreter per sample. Equivalence of "
            f"the two sides, checked in a child: {eq['tools']} tools, same names "
            f"{'yes' if eq['same_names'] else 'NO'}, tools whose property lists or "
            f"descriptions differ: {len(eq['mismatched'])}. toolgen_runtime had bytecode "
            f"beside its sources: {'yes' if imports['runtime_had_bytecode'] else 'no'}.",
        ]
    for name, text in results.get("extra", {}).items():
        parts += [f"#### {name}", text.strip()]
    return "\n\n".join(parts) + "\n"


def results_markdown(results: JSON) -> str:
    return (
        "# toolgen benchmark results\n\n"
        "Written by `make bench` (bench/run.py); docs/performance.md explains each figure.\n\n"
        "## Machine\n\n"
        f"{machine_lines(results)}\n\n"
        "## Figures\n\n"
        f"{figures_markdown(results)}\n"
        "## Profile\n\n"
        f"{profile_section(results)}\n"
    )


def replace_block(text: str, name: str, body: str) -> str:
    """Put `body` between the markers <!-- bench:NAME --> and <!-- /bench:NAME -->."""
    pattern = re.compile(
        rf"(<!-- bench:{name} -->\n).*?(<!-- /bench:{name} -->)", re.DOTALL
    )
    if not pattern.search(text):
        raise ValueError(f"no <!-- bench:{name} --> block")
    return pattern.sub(
        lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text
    )


def read_block(text: str, name: str) -> str:
    found = re.search(
        rf"<!-- bench:{name} -->\n(.*?)<!-- /bench:{name} -->", text, re.DOTALL
    )
    if found is None:
        raise ValueError(f"no <!-- bench:{name} --> block")
    return found.group(1)


# the blocks of the documents the suite keeps up to date: (file, block, what goes there)
DOC_BLOCKS: Mapping[str, Mapping[str, Any]] = {
    "docs/performance.md": {
        "machine": machine_lines,
        "figures": figures_markdown,
        "profile": lambda r: profile_section(r, "####"),
    },
    "README.md": {"targets": targets_table},
}


def update_docs(results: JSON, root: Path) -> list[str]:
    """Write this run's figures into the docs' blocks; returns the files changed."""
    touched = []
    for rel, blocks in DOC_BLOCKS.items():
        path = root / rel
        text = path.read_text(encoding="utf-8")
        new = text
        for name, render in blocks.items():
            new = replace_block(new, name, render(results))
        if new != text:
            path.write_text(new, encoding="utf-8")
            touched.append(rel)
    return touched
