"""The suite's results as data (results.json) and as Markdown (results.md, docs, CONTRIBUTING.md).

Everything shown is computed from the JSON, so the Markdown of a run can be rendered again
from its JSON alone: `tests/test_bench.py` checks that the figures in docs/performance.md and
CONTRIBUTING.md are those of the committed bench/results.json.

Each figure is shown as wall time (what the user waits for) and CPU time (which hardly moves
when other work shares the machine); a ratio is taken sample by sample within a repetition,
then its median and range are shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from stats import (
    BASELINE_NAMES,
    BUILD_FIGURES,
    FORMER,
    GROWTH_FROM,
    GROWTH_SHARE,
    JSON,
    MEASURED,
    exponent,
    exponent_text,
    growth,
    median,
    ratio_text,
    rows_of,
    seconds,
    spread,
    stage_growth,
    table,
)
from targets import ISSUE, targets_table

# the catalogues whose build figures are shown, each with the words of its heading
SHOWN = (
    (MEASURED, "realistic catalogue (bench/realistic.py), the targets' own"),
    (
        FORMER,
        "synthetic catalogue (bench/catalogue.py), for comparison with earlier runs",
    ),
)
# the builds the profile and the stage tables show
BUILDS = (
    ("first_build", "first build"),
    ("rebuild", "rebuild, nothing changed"),
    ("one_changed", "rebuild, one tool changed"),
)


def build_table(results: JSON, catalogue: str) -> str:
    rows = []
    for size in rows_of(results, catalogue):
        s, c = size["seconds"], size["cpu_seconds"]
        for figure, label, against in BUILD_FIGURES:
            if figure not in s:
                continue
            compared = against is not None and against in s
            rows.append(
                [
                    f"{size['tools']:,}",
                    label,
                    seconds(median(s[figure])),
                    spread(s[figure]),
                    seconds(median(c[figure])),
                    f"{1000 * median(s[figure]) / size['tools']:.2f}",
                    f"{median(size['rss_mb'][figure]):.0f}",
                    BASELINE_NAMES[against] if compared and against else "",
                    ratio_text(s[figure], s[against]) if compared and against else "",
                    ratio_text(c[figure], c[against]) if compared and against else "",
                ]
            )
    return table(
        (
            "tools",
            "figure",
            "wall",
            "wall range",
            "CPU",
            "ms per tool",
            "peak RSS MB",
            "against",
            "ratio, wall",
            "ratio, CPU",
        ),
        rows,
        left=2,
    )


def _name(row: JSON) -> str:
    return str(row.get("catalogue", FORMER))


def writes_table(results: JSON) -> str:
    def listed(values: Sequence[int]) -> str:
        return ", ".join(str(n) for n in values)

    return table(
        (
            "catalogue",
            "tools",
            "files written, nothing changed",
            "cache files rewritten, nothing changed",
            "files written, one tool changed",
        ),
        (
            [
                _name(size),
                f"{size['tools']:,}",
                listed(size["written_on_rebuild"]),
                listed(size["cache_files_on_rebuild"]),
                listed(size["written_on_one_changed"]),
            ]
            for size in results["build"]
        ),
    )


def equivalence_table(results: JSON) -> str:
    rows = []
    for size in results["build"]:
        ours, theirs = size["toolgen_size"], size["openapi_size"]
        made = size["output"].get("openapi")
        mine = size["output"]["toolgen"]

        def both(key: str, ours: JSON = ours, theirs: JSON = theirs) -> str:
            return f"{ours[key]:,} / {theirs[key]:,}"

        rows.append(
            [
                _name(size),
                f"{size['tools']:,}",
                both("operations"),
                both("fields"),
                both("error_codes"),
                both("enum_values"),
                both("constraints"),
                f"{ours['input_bytes'] / 1e6:.2f} / {theirs['input_bytes'] / 1e6:.2f}",
                f"{mine[0]:,} / " + (f"{made[0]:,}" if made else "-"),
                f"{mine[1] / 1e6:.1f} / " + (f"{made[1] / 1e6:.1f}" if made else "-"),
            ]
        )
    return table(
        (
            "catalogue",
            "tools",
            "tool files / operations",
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


def _sizes_text(sizes: Sequence[int]) -> str:
    return ", ".join(f"{s:,}" for s in sizes) or "none"


def growth_table(results: JSON) -> str:
    grown = growth(results)
    sizes = [str(b["tools"]) for b in rows_of(results)]
    rows = [
        [
            label,
            *(f"{grown[f]['ms_per_tool'].get(s, 0):.2f}" for s in sizes),
            exponent_text(grown[f]["exponent"]),
            exponent_text(grown[f]["exponent_cpu"]),
            _sizes_text(grown[f].get("exponent_sizes", [])),
        ]
        for f, label, _ in BUILD_FIGURES
        if f in grown
    ]
    return table(
        (
            "figure",
            *(f"ms per tool at {int(s):,}" for s in sizes),
            "exponent, wall",
            "exponent, CPU",
            "fitted at (wall)",
        ),
        rows,
    )


def stage_growth_table(results: JSON, build: str) -> str:
    grown = stage_growth(results, build)
    if not grown:
        return ""
    sizes = list(next(iter(grown.values()))["seconds"])
    return table(
        (
            "stage",
            *(f"{int(s):,} tools" for s in sizes),
            "exponent, wall",
            "exponent, CPU",
        ),
        (
            [
                name,
                *(seconds(g["seconds"][s]) for s in sizes),
                exponent_text(g["exponent"]),
                exponent_text(g["exponent_cpu"]),
            ]
            for name, g in sorted(
                grown.items(), key=lambda item: -max(item[1]["seconds"].values())
            )
        ),
    )


def memory_growth(results: JSON) -> str:
    measured = rows_of(results)
    sizes = [b["tools"] for b in measured]
    peak = [median(b["rss_mb"]["first_build"]) for b in measured]
    if not peak:
        return ""
    base = min(peak)
    fitted = [
        (s, p - base) for s, p in zip(sizes, peak, strict=True) if s >= GROWTH_FROM
    ]
    k = exponent([s for s, _ in fitted], [v for _, v in fitted])
    text = ", ".join(f"{p:.0f} MB at {s:,}" for s, p in zip(sizes, peak, strict=True))
    return (
        f"Peak RSS of a first build: {text}; growth exponent of the part above the smallest "
        f"size's: {exponent_text(k)}."
    )


def imports_table(results: JSON) -> str:
    imports = results["imports"]
    rows = []
    for mode, label in (
        ("on", "on (as installed)"),
        ("off", "off (PYTHONDONTWRITEBYTECODE=1)"),
    ):
        wall, cpu = imports["extra"][mode], imports["extra_cpu"][mode]
        rows.append(
            [
                label,
                f"{seconds(median(wall['toolgen']))} ({spread(wall['toolgen'])})",
                f"{seconds(median(wall['decorator']))} ({spread(wall['decorator'])})",
                ratio_text(wall["toolgen"], wall["decorator"]),
                seconds(median(cpu["toolgen"])),
                seconds(median(cpu["decorator"])),
                ratio_text(cpu["toolgen"], cpu["decorator"]),
                seconds(median(wall["runtime"]))
                if "runtime" in wall
                else "not measured",
                seconds(median(imports["shared"][mode])),
            ]
        )
    return table(
        (
            "bytecode cache",
            f"`all_tools()`, {imports['tools']} tools, wall",
            "`@function_tool` module, wall",
            "ratio, wall",
            "`all_tools()`, CPU",
            "`@function_tool`, CPU",
            "ratio, CPU",
            "of which `import toolgen_runtime`",
            "shared: `import agents, pydantic`",
        ),
        rows,
    )


def profile_section(results: JSON, heading: str = "###") -> str:
    profile = results.get("profile")
    if not profile:
        return "Not profiled in this run."
    timed_all = results["stages"][str(profile["tools"])]
    parts = []
    for build, title in BUILDS:
        if build not in profile:
            continue
        timed, profiled = timed_all[build], profile[build]
        stages = timed["stages"]
        order = sorted(stages, key=lambda s: -stages[s]["seconds"])
        total = seconds(timed["total_s"])
        parts.append(
            f"{heading} {title}, {profile['tools']:,} tools: {total} in process"
        )
        parts.append(
            table(
                ("stage", "wall", "CPU (this process)", "share of wall"),
                (
                    [
                        s,
                        seconds(stages[s]["seconds"]),
                        seconds(stages[s]["cpu_seconds"]),
                        f"{100 * stages[s]['seconds'] / timed['total_s']:.0f}%",
                    ]
                    for s in order
                ),
            )
        )
        for stage in order:
            top = profiled["stages"].get(stage, {}).get("top", [])[:8]
            if not top or stages[stage]["seconds"] < 0.02 * timed["total_s"]:
                continue
            parts.append(f"{title}, `{stage}`: the functions with the most own time")
            parts.append(
                table(
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


# --- documents ------------------------------------------------------------------------------


def machine_lines(results: JSON) -> str:
    return "\n".join(f"- {key}: {value}" for key, value in results["machine"].items())


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _settings_line(results: JSON) -> str:
    s = results["settings"]
    imports = results.get("imports")
    sizes = s["sizes"]
    before = ""
    if not isinstance(sizes, dict):  # a run from before the realistic catalogue
        sizes = {FORMER: sizes}
        before = (
            " This run predates the realistic catalogue and the targets of issue "
            f"{ISSUE}: its figures are the synthetic catalogue's, its profile names the "
            "stages of the code it measured, and the targets it could not measure read "
            '"not measured" until the next full run.'
        )
    shown = "; ".join(
        f"{name} catalogue {', '.join(f'{n:,}' for n in counts)} tools"
        for name, counts in sizes.items()
        if counts
    )
    return (
        f"Measured {results['machine']['date']} at commit {results['machine']['commit']} "
        f"with `{s['command']}`: {shown}; {_count(s['repeat'], 'repetition')} of every "
        "build figure"
        + (
            f", {_count(imports['repeat'], 'repetition')} of every import figure"
            if imports
            else ""
        )
        + ". Medians, with the range of the samples."
        + before
    )


def _startup_line(results: JSON) -> str:
    startup = results["startup"]
    source = (
        f", or {seconds(median(startup['toolgen_source']))} compiling its sources "
        "instead of reading its bytecode"
        if "toolgen_source" in startup
        else ""
    )
    return (
        "Start-up, in every figure: the interpreter alone "
        f"{seconds(median(startup['python']))}, `toolgen --version` "
        f"{seconds(median(startup['toolgen']))} ({seconds(median(startup['toolgen_cpu']))} "
        f"CPU){source}. CPU time is that of the command and the processes it waited for "
        "(ruff, which runs on both cores, can make it larger than the wall time). Peak RSS "
        "is the largest process of the command's tree (toolgen, or the ruff it runs)."
    )


def _example_line(results: JSON) -> str:
    example = results.get("example_check")
    if not example:
        return "`toolgen check spec/inventory`: not measured in this run."
    wall = example["seconds"]
    return (
        f"`toolgen check spec/inventory` (the example catalogue, with its implementations, "
        f"from the repository's root), {len(wall)} runs: {seconds(median(wall))} "
        f"({spread(wall)}), {seconds(median(example['cpu_seconds']))} CPU, peak RSS "
        f"{median(example['rss_mb']):.0f} MB."
    )


def _import_line(results: JSON) -> str:
    found = results.get("openapi_import")
    if not found:
        return "`toolgen import --from openapi`: not measured in this run."
    samples = found["samples"]
    wall, floor = samples["import"], samples["floor"]
    return (
        f"`toolgen import --from openapi` of a description the size of GitHub's "
        f"(bench/github_doc.py: {found['operations']:,} operations, "
        f"{found['bytes'] / 1e6:.1f} MB of JSON; {found['tools']:,} tools written), "
        f"{len(wall)} runs: {seconds(median(wall))} ({spread(wall)}), "
        f"{seconds(median(samples['import_cpu']))} CPU, peak RSS "
        f"{median(samples['import_rss_mb']):.0f} MB; {median(wall) / median(floor):.1f}x "
        f"its floor, reading the same JSON with the standard library "
        f"({seconds(median(floor))})."
    )


def _build_parts(results: JSON) -> list[str]:
    parts = ["#### The example catalogue", _example_line(results)]
    parts += ["#### Import of a large OpenAPI description", _import_line(results)]
    for name, words in SHOWN:
        if rows_of(results, name):
            parts += [f"#### Build, {words}", build_table(results, name)]
    return [
        *parts,
        _startup_line(results),
        "#### Files written by a rebuild (counted on disk, one number per repetition)",
        writes_table(results),
        "#### The two inputs are the same size",
        "Counted by walking the written files (toolgen YAML / OpenAPI JSON); fields are "
        "parameters with their nested fields, return fields and context fields (headers), "
        "and the fields pagination adds. A token confirmation adds a prepare tool to "
        "toolgen's output that the OpenAPI document has no word for.",
        equivalence_table(results),
    ]


def _growth_parts(results: JSON) -> list[str]:
    parts = [
        f"#### Growth ({MEASURED} catalogue)",
        growth_table(results),
        "The exponent k fits time = a * tools^k over the sizes of 100 tools and more, the "
        "start-up taken off (k = 1 is linear), at which the part above the start-up is at "
        f"least {GROWTH_SHARE:.0%} of the figure (a size that is mostly start-up says "
        "nothing of growth). " + memory_growth(results),
    ]
    for build, title in BUILDS:
        grown = stage_growth_table(results, build)
        if grown:
            parts += [
                f"Stage by stage, {title} (in process, without start-up; "
                "bench/profile_build.py):",
                grown,
            ]
    return parts


def _import_parts(results: JSON) -> list[str]:
    imports = results.get("imports")
    if not imports:
        return []
    eq = imports["equivalence"]
    had = (
        "yes."
        if imports["runtime_had_bytecode"]
        else "no (the untimed child wrote it)."
    )
    return [
        "#### Import (synthetic catalogue)",
        imports_table(results),
        "Cost above the shared imports, in a fresh interpreter per sample. The two sides "
        f"are equivalent, checked in a child: {eq['tools']} tools, the same names "
        f"{'yes' if eq['same_names'] else 'NO'}, tools whose property lists or "
        f"descriptions differ: {len(eq['mismatched'])}. toolgen_runtime had bytecode "
        f"before the run: {had}",
    ]


def figures_markdown(results: JSON) -> str:
    """The figures of one run: what results.md and docs/performance.md show."""
    parts = [
        _settings_line(results),
        f"#### Targets (issue {ISSUE})",
        targets_table(results),
        *_build_parts(results),
        *_growth_parts(results),
        *_import_parts(results),
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


# the blocks the suite keeps up to date: file -> block -> what goes there
DOC_BLOCKS: Mapping[str, Mapping[str, Callable[[JSON], str]]] = {
    "docs/performance.md": {
        "machine": machine_lines,
        "figures": figures_markdown,
        "profile": lambda r: profile_section(r, "####"),
    },
    "CONTRIBUTING.md": {"targets": targets_table},
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
