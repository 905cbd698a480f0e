"""Build figures: what toolgen's commands cost on N tools, against what users would pick instead.

For each catalogue (the realistic one, bench/realistic.py, whose figures the targets read, and
the synthetic one, bench/catalogue.py, at the sizes asked for it) and each size, each
repetition starts from a fresh project (a copy of the catalogue in its own folder under
build/bench/) and runs, each as the command a user types, in a fresh process:

1. the floor: reading and parsing the same YAML files with PyYAML's C loader;
2. `toolgen build` (first build: nothing generated yet, no cache);
3. openapi-python-client on the same N operations (first build: its only mode);
4. `toolgen build` again, nothing changed: the files written are counted from the disk (inode,
   modification time, size of every file before and after), not taken from toolgen's report;
5. `toolgen build --check` (no cache: renders everything, writes nothing);
6. `toolgen check`;
7. one tool's intent edited, then `toolgen build`.

Steps 2 and 3 swap places every other repetition, so neither always runs on a warm disk. A
repetition runs every size in turn before the next repetition starts.

`example_check` times `toolgen check spec/inventory` in this repository: the example catalogue
as its users have it, with its implementations, in the folder a user runs it from.

`openapi_import` times `toolgen import --from openapi` of a description the size of GitHub's
(bench/github_doc.py: 1,200 operations), each into a new folder, against its floor: reading
the same JSON with the standard library.

toolgen runs as installed: its bytecode (and toolgen_runtime's) is compiled before the build
figures (`compile_toolgen`, in `startup`), as pip compiles a wheel's modules when it installs
them, and as it compiled openapi-python-client's in the baseline's own environment. This
repository's `.venv` has toolgen installed editable, and this machine sets
PYTHONDONTWRITEBYTECODE, so without that step every command would compile the compiler from
source. The start-up figure is measured both ways.
"""

from __future__ import annotations

import compileall
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import catalogue
import github_doc
import openapi_doc
import realistic
import sizes
from measure import Run, changed, run, snapshot, tree_size

# the catalogues measured, by the name the results give them
CATALOGUES: dict[str, ModuleType] = {"realistic": realistic, "synthetic": catalogue}
EXAMPLE = "spec/inventory"

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
    """Every sample of one size of one catalogue: figure -> seconds and peak RSS, one sample
    per repetition."""

    catalogue: str  # a key of CATALOGUES
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


def edit_one_tool(kind: ModuleType, folder: Path, count: int, revision: int) -> str:
    """Change the intent of the tool in the middle of the catalogue; returns its name."""
    name = str(kind.tool_spec(count // 2)["name"])
    path = folder / "tools" / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("intent: ") + len("intent: ")
    end = text.index("\n", start)
    intent = text[start:end].rstrip(".")
    path.write_text(f"{text[:start]}{intent}, revision {revision}.{text[end:]}")
    return name


@dataclass(frozen=True, slots=True)
class Baseline:
    """openapi-python-client: the command (without its input and output) and environment."""

    command: list[str]
    env: Mapping[str, str]


def _prepare(name: str, count: int, work: Path) -> tuple[SizeFigures, Path, Path]:
    """The catalogue of `count` tools and its OpenAPI twin, written once per size."""
    kind = CATALOGUES[name]
    figures = SizeFigures(name, count)
    template = work / f"template-{name}-{count}"
    shutil.rmtree(template, ignore_errors=True)
    folder = kind.write_catalogue(template, count)
    document = openapi_doc.write_openapi(template / "openapi.json", kind, count)
    figures.toolgen_size = sizes.toolgen_size(folder)
    figures.openapi_size = sizes.openapi_size(document)
    return figures, template, document


def _openapi_build(
    figures: SizeFigures, document: Path, out: Path, baseline: Baseline
) -> None:
    shutil.rmtree(out, ignore_errors=True)
    command = [*baseline.command, "--path", str(document), "--output-path", str(out)]
    done = run(command, cwd=out.parent, env=baseline.env)
    if "Warning" in done.stdout or "Error" in done.stdout:
        raise RuntimeError(f"openapi-python-client warned:\n{done.stdout[-3000:]}")
    figures.add("openapi", done)
    figures.output["openapi"] = tree_size(out)


def _repetition(
    figures: SizeFigures,
    template: Path,
    document: Path,
    rep: int,
    work: Path,
    baseline: Baseline | None,
) -> None:
    """One repetition of every figure of one size, in a fresh project."""
    count, kind = figures.tools, CATALOGUES[figures.catalogue]
    root = work / f"project-{figures.catalogue}-{count}-{rep}"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(template / "spec", root / "spec")
    shown = f"spec/{kind.CATALOGUE_NAME}"
    toolgen = toolgen_command()
    build = [*toolgen, "build", "--root", str(root), shown]

    figures.add("floor", run([sys.executable, "-c", FLOOR_SCRIPT, shown], cwd=root))
    steps: list[Callable[[], None]] = [
        lambda: figures.add("first_build", run(build, cwd=root))
    ]
    if baseline is not None:
        out = work / f"openapi-{figures.catalogue}-{count}-{rep}"
        steps.append(lambda: _openapi_build(figures, document, out, baseline))
    for step in steps if rep % 2 == 0 else reversed(steps):
        step()
    generated, impl = tree_size(root / "generated"), tree_size(root / "impl")
    figures.output["toolgen"] = (generated[0] + impl[0], generated[1] + impl[1])

    before = snapshot(root, skip=(CACHE_DIR,))
    cache_before = snapshot(root / CACHE_DIR)
    figures.add("rebuild", run(build, cwd=root))
    after = snapshot(root, skip=(CACHE_DIR,))
    figures.written_on_rebuild.append(len(changed(before, after)))
    cache_after = snapshot(root / CACHE_DIR)
    figures.cache_files_on_rebuild.append(len(changed(cache_before, cache_after)))

    check_build = [*toolgen, "build", "--check", "--root", str(root), shown]
    figures.add("build_check", run(check_build, cwd=root))
    figures.add("check", run([*toolgen, "check", "--root", str(root), shown], cwd=root))

    edit_one_tool(kind, root / shown, count, rep)
    before = snapshot(root, skip=(CACHE_DIR,))
    figures.add("one_changed", run(build, cwd=root))
    after = snapshot(root, skip=(CACHE_DIR,))
    figures.written_on_one_changed.append(len(changed(before, after)))


PACKAGES = ("toolgen", "toolgen_runtime")


def _package_folders() -> list[Path]:
    folders = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise RuntimeError(f"{name} is not installed in {sys.executable}")
        folders.append(Path(spec.origin).parent)
    return folders


def compile_toolgen() -> None:
    """Compile the bytecode of toolgen's packages, as installing a wheel does. An error is
    a failure of the suite: the figures would not be what an installed toolgen costs."""
    for folder in _package_folders():
        if not compileall.compile_dir(folder, quiet=1):
            raise RuntimeError(f"cannot compile the bytecode of {folder}")


def startup(repeat: int, work: Path) -> dict[str, list[float]]:
    """The fixed cost of every command: the interpreter alone, and `toolgen --version`
    (which imports the compiler), wall and CPU time. `toolgen_source` is the latter while
    toolgen's packages have no bytecode, so it compiles them from source, as an editable
    install on this machine does; then their bytecode is compiled (`compile_toolgen`) for
    `toolgen` and every later figure.

    The source figure reads bytecode from a folder of its own (PYTHONPYCACHEPREFIX), filled
    once with every module's and then emptied of toolgen's: the `__pycache__` folders beside
    the sources are never removed, as tests running beside the benchmark import from them."""
    samples: dict[str, list[float]] = {}

    def sample(name: str, command: list[str], env: Mapping[str, str] | None) -> None:
        done = run(command, cwd=work, env=env)
        samples.setdefault(name, []).append(done.seconds)
        samples.setdefault(f"{name}_cpu", []).append(done.cpu_seconds)

    version = [*toolgen_command(), "--version"]
    with tempfile.TemporaryDirectory() as prefix:
        writing = {
            k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"
        }
        writing["PYTHONPYCACHEPREFIX"] = prefix
        run(version, cwd=work, env=writing)
        for folder in _package_folders():
            shutil.rmtree(Path(prefix, *folder.resolve().parts[1:]), ignore_errors=True)
        no_writing = {**writing, "PYTHONDONTWRITEBYTECODE": "1"}
        for _ in range(max(repeat, 3)):
            sample("toolgen_source", version, no_writing)
    compile_toolgen()
    for _ in range(max(repeat, 3)):
        sample("python", [sys.executable, "-c", "pass"], None)
        sample("toolgen", version, None)
    return samples


def example_check(repeat: int, root: Path) -> dict[str, list[float]]:
    """`toolgen check` of the example catalogue, where its users run it; at least 5 samples
    (its target is the median of 5)."""
    samples: dict[str, list[float]] = {"seconds": [], "cpu_seconds": [], "rss_mb": []}
    for _ in range(max(repeat, 5)):
        done = run([*toolgen_command(), "check", EXAMPLE], cwd=root)
        samples["seconds"].append(done.seconds)
        samples["cpu_seconds"].append(done.cpu_seconds)
        samples["rss_mb"].append(done.peak_rss_mb)
    return samples


def openapi_import(repeat: int, work: Path, namespaces: int) -> dict[str, Any]:
    """`toolgen import --from openapi` of the GitHub-sized description cut to `namespaces`
    of its 12 (100 operations each), each run into a new folder, and the floor: `json.load`
    of the same file; `repeat` samples of each, taken in turn."""
    folder = work / "openapi-import"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    document = folder / "api.json"
    described = github_doc.github_like_document(namespaces)
    document.write_text(json.dumps(described, indent=2), encoding="utf-8")
    document_size = document.stat().st_size
    floor = [sys.executable, "-c", f"import json; json.load(open({str(document)!r}))"]
    samples: dict[str, list[float]] = {}
    try:
        for rep in range(repeat):
            out = folder / f"rest_{rep}"
            imported = [*toolgen_command(), "import", "--from", "openapi"]
            for name, command, expect in (
                ("floor", floor, 0),
                # exit 1: the HTTP calls, the security and the tags are not carried
                ("import", [*imported, str(document), "--out", str(out)], 1),
            ):
                done = run(command, cwd=folder, expect=expect)
                samples.setdefault(name, []).append(done.seconds)
                samples.setdefault(f"{name}_cpu", []).append(done.cpu_seconds)
                samples.setdefault(f"{name}_rss_mb", []).append(done.peak_rss_mb)
        tools = len(list((folder / "rest_0" / "tools").glob("*.yaml")))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "operations": 100 * namespaces,
        "tools": tools,
        "bytes": document_size,
        "samples": samples,
    }


def measure(
    sizes: Mapping[str, Sequence[int]],
    repeat: int,
    work: Path,
    baseline: Baseline | None,
    progress: Callable[[str], None],
) -> list[SizeFigures]:
    """Every figure at every size of each catalogue (`sizes`: catalogue -> sizes). Each
    repetition runs every size in turn, so that a busy
    spell of the machine falls on all sizes alike rather than on one of them (which would
    bend the growth between sizes).

    Nothing is deleted while figures are taken: every project and output stays until the
    last repetition has run. On this machine's disk, files created in the seconds after
    thousands were deleted cost up to ten times the system time (0.06 s to 0.9 s to create
    2,000), so a deletion between two figures would charge whichever build came next."""
    _clear(work)
    prepared = [
        _prepare(name, count, work)
        for name, counts in sizes.items()
        for count in counts
    ]
    try:
        for rep in range(repeat):
            for figures, template, document in prepared:
                _repetition(figures, template, document, rep, work, baseline)
                progress(
                    f"{figures.catalogue}, {figures.tools} tools, repetition "
                    f"{rep + 1}/{repeat}: done"
                )
    finally:
        _clear(work)
    return [figures for figures, _, _ in prepared]


def _clear(work: Path) -> None:
    """Remove what `measure` makes in `work` (templates, projects, outputs), left by this
    run or by one that was stopped."""
    work.mkdir(parents=True, exist_ok=True)
    for pattern in ("template-*", "project-*", "openapi-*"):
        for folder in work.glob(pattern):
            shutil.rmtree(folder, ignore_errors=True)
