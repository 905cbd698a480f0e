"""Build figures: what toolgen's commands cost on N tools, against what users would pick instead.

For each size, each repetition starts from a fresh project (a copy of the synthetic catalogue
in its own folder under build/bench/) and runs, each as the command a user types, in a fresh
process:

1. the floor: reading and parsing the same YAML files with PyYAML's C loader;
2. `toolgen build` (first build: nothing generated yet, no cache);
3. openapi-python-client on the same N operations (first build: its only mode);
4. `toolgen build` again, nothing changed: the files written are counted from the disk (inode,
   modification time, size of every file before and after), not taken from toolgen's report;
5. `toolgen build --check` (no cache: renders everything, writes nothing);
6. `toolgen check`;
7. one tool's intent edited, then `toolgen build`.

Steps 2 and 3 swap places every other repetition, so neither always runs on a warm disk.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import catalogue
import openapi_doc
import sizes
from measure import Run, changed, run, snapshot, tree_size

CACHE_DIR = ".toolgen-cache"
FLOOR_SCRIPT = (
    "import pathlib, sys, yaml\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).rglob('*.yaml')):\n"
    "    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)\n"
)
FIGURES = (
    "floor",
    "first_build",
    "openapi",
    "rebuild",
    "build_check",
    "check",
    "one_changed",
)


def toolgen_command() -> list[str]:
    """The console script installed beside the interpreter that runs the suite."""
    return [str(Path(sys.executable).with_name("toolgen"))]


@dataclass
class SizeFigures:
    """Every sample of one size: figure -> seconds and peak RSS, one sample per repetition."""

    tools: int
    seconds: dict[str, list[float]] = field(default_factory=dict)
    cpu_seconds: dict[str, list[float]] = field(default_factory=dict)
    rss_mb: dict[str, list[float]] = field(default_factory=dict)
    written_on_rebuild: list[int] = field(default_factory=list)
    cache_files_on_rebuild: list[int] = field(default_factory=list)
    written_on_one_changed: list[int] = field(default_factory=list)
    output: dict[str, tuple[int, int]] = field(default_factory=dict)  # files, bytes
    toolgen_size: sizes.Size | None = None
    openapi_size: sizes.Size | None = None

    def add(self, figure: str, done: Run) -> None:
        self.seconds.setdefault(figure, []).append(done.seconds)
        self.cpu_seconds.setdefault(figure, []).append(done.cpu_seconds)
        self.rss_mb.setdefault(figure, []).append(done.peak_rss_mb)


def _edit_one_tool(folder: Path, count: int, revision: int) -> str:
    """Change the intent of the tool in the middle of the catalogue; returns its name."""
    name = str(catalogue.tool_spec(count // 2)["name"])
    path = folder / "tools" / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("intent: ") + len("intent: ")
    end = text.index("\n", start)
    intent = text[start:end].rstrip(".")
    path.write_text(f"{text[:start]}{intent}, revision {revision}.{text[end:]}")
    return name


def measure_size(
    count: int,
    repeat: int,
    work: Path,
    openapi: list[str] | None,
    openapi_env: Mapping[str, str] | None,
    progress: Callable[[str], None],
) -> SizeFigures:
    figures = SizeFigures(count)
    template = work / f"template-{count}"
    shutil.rmtree(template, ignore_errors=True)
    folder = catalogue.write_catalogue(template, count)
    document = openapi_doc.write_openapi(template / "openapi.json", count)
    figures.toolgen_size = sizes.toolgen_size(folder)
    figures.openapi_size = sizes.openapi_size(document)
    toolgen = toolgen_command()
    env = dict(os.environ)
    for rep in range(repeat):
        root = work / f"project-{count}-{rep}"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(template / "spec", root / "spec")
        spec = root / "spec" / catalogue.CATALOGUE_NAME
        shown = f"spec/{catalogue.CATALOGUE_NAME}"
        build = [*toolgen, "build", "--root", str(root), shown]

        figures.add("floor", run([sys.executable, "-c", FLOOR_SCRIPT, shown], cwd=root))

        def first_build(root: Path = root, build: list[str] = build) -> None:
            figures.add("first_build", run(build, cwd=root, env=env))

        def openapi_build(rep: int = rep) -> None:
            if openapi is None:
                return
            out = work / f"openapi-{count}-{rep}"
            shutil.rmtree(out, ignore_errors=True)
            command = [*openapi, "--path", str(document), "--output-path", str(out)]
            done = run(command, cwd=work, env=openapi_env)
            if "Warning" in done.stdout or "Error" in done.stdout:
                raise RuntimeError(
                    f"openapi-python-client warned:\n{done.stdout[-3000:]}"
                )
            figures.add("openapi", done)
            figures.output["openapi"] = tree_size(out)
            shutil.rmtree(out, ignore_errors=True)

        for step in (
            (first_build, openapi_build)
            if rep % 2 == 0
            else (openapi_build, first_build)
        ):
            step()
        figures.output["toolgen"] = (
            tree_size(root / "generated")[0] + tree_size(root / "impl")[0],
            tree_size(root / "generated")[1] + tree_size(root / "impl")[1],
        )
        progress(f"{count} tools, repetition {rep + 1}/{repeat}: first builds done")

        before = snapshot(root, skip=(CACHE_DIR,))
        cache_before = snapshot(root / CACHE_DIR)
        figures.add("rebuild", run(build, cwd=root, env=env))
        figures.written_on_rebuild.append(
            len(changed(before, snapshot(root, skip=(CACHE_DIR,))))
        )
        figures.cache_files_on_rebuild.append(
            len(changed(cache_before, snapshot(root / CACHE_DIR)))
        )

        check_build = [*toolgen, "build", "--check", "--root", str(root), shown]
        figures.add("build_check", run(check_build, cwd=root, env=env))
        figures.add(
            "check", run([*toolgen, "check", "--root", str(root), shown], cwd=root)
        )

        _edit_one_tool(spec, count, rep)
        before = snapshot(root, skip=(CACHE_DIR,))
        figures.add("one_changed", run(build, cwd=root, env=env))
        figures.written_on_one_changed.append(
            len(changed(before, snapshot(root, skip=(CACHE_DIR,))))
        )
        shutil.rmtree(root)
        progress(f"{count} tools, repetition {rep + 1}/{repeat}: done")
    shutil.rmtree(template)
    return figures


def startup(repeat: int, work: Path) -> dict[str, list[float]]:
    """The fixed cost of every command: the interpreter alone, and `toolgen --version`
    (which imports the compiler); wall and CPU time."""
    samples: dict[str, list[float]] = {}
    commands = {
        "python": [sys.executable, "-c", "pass"],
        "toolgen": [*toolgen_command(), "--version"],
    }
    for _ in range(max(repeat, 3)):
        for name, command in commands.items():
            done = run(command, cwd=work)
            samples.setdefault(name, []).append(done.seconds)
            samples.setdefault(f"{name}_cpu", []).append(done.cpu_seconds)
    return samples


def measure(
    sizes: Sequence[int],
    repeat: int,
    work: Path,
    openapi: list[str] | None,
    openapi_env: Mapping[str, str] | None,
    progress: Callable[[str], None],
) -> list[SizeFigures]:
    work.mkdir(parents=True, exist_ok=True)
    return [
        measure_size(count, repeat, work, openapi, openapi_env, progress)
        for count in sizes
    ]
