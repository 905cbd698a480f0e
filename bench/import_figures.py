"""Import figures: what `all_tools()` of N generated tools costs an agent at start-up, against
the same N tools written with `@function_tool` in one module.

Each sample is a fresh interpreter that first imports what both sides share (`agents`,
`pydantic`), then either calls `all_tools()` of the generated package or imports the decorated
module; the figure is the time of that second step, measured inside the child, so interpreter
start-up and the shared imports are left out of both sides.

Bytecode caching, both ways, each in its own copy of the project:
- on, as installed packages have it: the generated package and the decorated module read the
  bytecode that a first, untimed child wrote beside them;
- off, PYTHONDONTWRITEBYTECODE=1 as this machine sets it: they are compiled from source in
  every child (their copy never holds bytecode: checked after every repetition).
Installed packages (the SDK, pydantic) read the bytecode their installer wrote, in both
modes. toolgen_runtime, installed editable in .venv, gets its bytecode from the untimed child
when it had none, and both modes then read it, as they would an installed package's.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.util import cache_from_source
from pathlib import Path

import catalogue
from build_figures import toolgen_command
from decorated import decorated_source
from measure import run

from toolgen.paths import package_dir
from toolgen.render.lockfile import LOCK_NAME

DECORATED_MODULE = "decorated_bench"
PACKAGE = f"generated.{catalogue.CATALOGUE_NAME}"
KINDS = ("toolgen", "decorator", "runtime")
CHILD = f"""
import json, sys, time
start = time.perf_counter()
import agents, pydantic
shared, shared_cpu = time.perf_counter(), time.process_time()
kind = sys.argv[1]
if kind == "toolgen":
    from {PACKAGE} import all_tools
    tools = all_tools()
elif kind == "decorator":
    from {DECORATED_MODULE} import TOOLS as tools
else:  # what every generated module imports beside the SDK
    import toolgen_runtime
    tools = []
done, done_cpu = time.perf_counter(), time.process_time()
print(json.dumps({{"shared": shared - start, "extra": done - shared,
                  "extra_cpu": done_cpu - shared_cpu, "tools": len(tools)}}))
"""
VERIFY = f"""
import json
from {PACKAGE} import all_tools
from {DECORATED_MODULE} import TOOLS
ours = {{t.name: t for t in all_tools()}}
theirs = {{t.name: t for t in TOOLS}}
same_names = sorted(ours) == sorted(theirs)
mismatched = [
    name for name in ours
    if name not in theirs
    or list(ours[name].params_json_schema["properties"])
    != list(theirs[name].params_json_schema["properties"])
    or ours[name].description != theirs[name].description
]
print(json.dumps({{"tools": len(ours), "same_names": same_names, "mismatched": mismatched}}))
"""


@dataclass
class ImportFigures:
    tools: int
    repeat: int
    # mode -> kind -> samples
    extra: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    extra_cpu: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    shared: dict[str, list[float]] = field(default_factory=dict)  # mode
    equivalence: dict[str, object] = field(default_factory=dict)
    runtime_had_bytecode: bool = False


def _prepare(count: int, root: Path) -> None:
    """A project with the generated package of `count` tools and the decorated module."""
    shutil.rmtree(root, ignore_errors=True)
    catalogue.write_catalogue(root, count)
    shown = f"spec/{catalogue.CATALOGUE_NAME}"
    run([*toolgen_command(), "build", "--root", str(root), shown], cwd=root)
    # what the model sees of each tool, as the build's lockfile holds it (`toolgen export`
    # refuses a catalogue over OpenAI's 128 tools; importing the modules costs the SDK)
    lock = root / package_dir(PACKAGE) / LOCK_NAME
    exposed = {
        name: (entry["definition"]["description"], entry["definition"]["parameters"])
        for name, entry in json.loads(lock.read_text(encoding="utf-8"))["tools"].items()
    }
    source = decorated_source(list(catalogue.tool_specs(count)), exposed)
    (root / f"{DECORATED_MODULE}.py").write_text(source, encoding="utf-8")


def measure(
    count: int,
    repeat: int,
    work: Path,
    progress: Callable[[str], None],
    kinds: tuple[str, ...] = KINDS,
) -> ImportFigures:
    # two copies of one project, one per mode: bytecode written beside the sources of the
    # "on" copy can never be read by a child of the "off" mode
    roots = {"on": work / f"import-{count}-on", "off": work / f"import-{count}-off"}
    _prepare(count, roots["on"])
    shutil.rmtree(roots["off"], ignore_errors=True)
    shutil.copytree(
        roots["on"], roots["off"], ignore=shutil.ignore_patterns("__pycache__")
    )
    figures = ImportFigures(count, repeat)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    envs = {"on": base, "off": {**base, "PYTHONDONTWRITEBYTECODE": "1"}}
    import toolgen_runtime

    runtime_bytecode = Path(cache_from_source(toolgen_runtime.__file__))
    figures.runtime_had_bytecode = runtime_bytecode.exists()
    # the check imports every module the timed children import: run in the "on" mode, it
    # also writes that mode's bytecode, untimed
    verified = run([sys.executable, "-c", VERIFY], cwd=roots["on"], env=envs["on"])
    figures.equivalence = json.loads(verified.stdout)
    # all_tools() reads the cards module; a tool's own module loads on its first call,
    # so bytecode of the package, its cards and its context is what the timed child reads
    cached = {p.name.split(".")[0] for p in (roots["on"] / "generated").rglob("*.pyc")}
    if not {"__init__", "_cards", "context"} <= cached:
        raise RuntimeError(f"bytecode not written for the package: {sorted(cached)}")
    for rep in range(repeat):
        # interleaved, so a slow moment of the machine falls on every kind alike
        for mode in ("on", "off"):
            for kind in kinds:
                done = run(
                    [sys.executable, "-c", CHILD, kind], cwd=roots[mode], env=envs[mode]
                )
                sample = json.loads(done.stdout)
                if kind != "runtime" and sample["tools"] != count:
                    raise RuntimeError(
                        f"{kind} gave {sample['tools']} tools, not {count}"
                    )
                for found, key in (
                    (figures.extra, "extra"),
                    (figures.extra_cpu, "extra_cpu"),
                ):
                    found.setdefault(mode, {}).setdefault(kind, []).append(sample[key])
                figures.shared.setdefault(mode, []).append(sample["shared"])
        if any(roots["off"].rglob("__pycache__")):
            raise RuntimeError("a child of the off mode wrote bytecode")
        progress(f"imports of {count} tools, repetition {rep + 1}/{repeat}: done")
    for root in roots.values():
        shutil.rmtree(root)
    return figures
