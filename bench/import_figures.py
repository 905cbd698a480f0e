"""Import figures: what `all_tools()` of N generated tools costs an agent at start-up, against
the same N tools written with `@function_tool` in one module.

Each sample is a fresh interpreter that first imports what both sides share (`agents`,
`pydantic`), then either calls `all_tools()` of the generated package or imports the decorated
module; the figure is the time of that second step, measured inside the child, so interpreter
start-up and the shared imports are left out of both sides.

Bytecode caching, both ways:
- off: PYTHONDONTWRITEBYTECODE=1, as this machine sets it; the generated package and the
  decorated module are compiled from source in every child, installed packages keep the
  bytecode their installer wrote (toolgen_runtime, installed editable here, has none);
- on: as installed packages have it: every module, installed or not, reads bytecode from a
  private cache (`-X pycache_prefix`) that a first, untimed child of each kind fills.
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

DECORATED_MODULE = "decorated_bench"
PACKAGE = f"generated.{catalogue.CATALOGUE_NAME}"
KINDS = ("toolgen", "decorator", "runtime")
CHILD = f"""
import json, sys, time
start = time.perf_counter()
import agents, pydantic
shared = time.perf_counter()
kind = sys.argv[1]
if kind == "toolgen":
    from {PACKAGE} import all_tools
    tools = all_tools()
elif kind == "decorator":
    from {DECORATED_MODULE} import TOOLS as tools
else:  # what every generated module imports beside the SDK
    import toolgen_runtime
    tools = []
done = time.perf_counter()
print(json.dumps({{"shared": shared - start, "extra": done - shared, "tools": len(tools)}}))
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
    extra: dict[str, dict[str, list[float]]] = field(
        default_factory=dict
    )  # mode -> kind
    shared: dict[str, list[float]] = field(default_factory=dict)  # mode
    equivalence: dict[str, object] = field(default_factory=dict)
    runtime_had_bytecode: bool = False


def _prepare(count: int, root: Path) -> None:
    """A project with the generated package of `count` tools and the decorated module."""
    from toolgen import pipeline

    shutil.rmtree(root, ignore_errors=True)
    folder = catalogue.write_catalogue(root, count)
    shown = f"spec/{catalogue.CATALOGUE_NAME}"
    run([*toolgen_command(), "build", "--root", str(root), shown], cwd=root)
    checked = pipeline.check_catalogue(folder, root, implementations=False)
    if checked.catalogue is None:
        raise RuntimeError("the benchmark catalogue does not check")
    exposed = {t.name: (t.description, t.parameters) for t in checked.catalogue.tools}
    source = decorated_source(list(catalogue.tool_specs(count)), exposed)
    (root / f"{DECORATED_MODULE}.py").write_text(source, encoding="utf-8")


def _no_bytecode_beside(root: Path) -> None:
    for cache in root.rglob("__pycache__"):
        shutil.rmtree(cache)


def measure(
    count: int, repeat: int, work: Path, progress: Callable[[str], None]
) -> ImportFigures:
    root = work / f"import-{count}"
    _prepare(count, root)
    figures = ImportFigures(count, repeat)
    prefix = work / f"pycache-{count}"
    shutil.rmtree(prefix, ignore_errors=True)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    modes = {
        "off": ([sys.executable], {**base, "PYTHONDONTWRITEBYTECODE": "1"}),
        "on": ([sys.executable, "-X", f"pycache_prefix={prefix}"], base),
    }
    import toolgen_runtime

    figures.runtime_had_bytecode = Path(
        cache_from_source(toolgen_runtime.__file__)
    ).exists()
    # the check imports every module the timed children import: run in the "on" mode, it
    # also fills that mode's bytecode cache, untimed
    python, env = modes["on"]
    verified = run([*python, "-c", VERIFY], cwd=root, env=env)
    figures.equivalence = json.loads(verified.stdout)
    cached = list(prefix.rglob(f"*{catalogue.CATALOGUE_NAME}*/*.pyc"))
    if len(cached) < count:
        raise RuntimeError(
            f"bytecode cache not filled: {len(cached)} files for {count} tools"
        )
    _no_bytecode_beside(root)
    for rep in range(repeat):
        # interleaved, so a slow moment of the machine falls on every kind alike
        for mode, (python, env) in modes.items():
            for kind in KINDS:
                done = run([*python, "-c", CHILD, kind], cwd=root, env=env)
                sample = json.loads(done.stdout)
                if kind != "runtime" and sample["tools"] != count:
                    raise RuntimeError(
                        f"{kind} gave {sample['tools']} tools, not {count}"
                    )
                figures.extra.setdefault(mode, {}).setdefault(kind, []).append(
                    sample["extra"]
                )
                figures.shared.setdefault(mode, []).append(sample["shared"])
        if any(root.rglob("__pycache__")):
            raise RuntimeError("a child wrote bytecode beside the sources")
        progress(f"imports of {count} tools, repetition {rep + 1}/{repeat}: done")
    shutil.rmtree(prefix)
    return figures
