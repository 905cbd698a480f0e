"""Where a build of N tools spends its time, stage by stage: for whoever optimises toolgen.

A child process runs `toolgen build` in process (`toolgen.cli.main`, the code path of the
command) on the realistic catalogue (bench/realistic.py) with the functions of each stage
wrapped (STAGES: the stamp that replays a build with nothing to do, load, validate, model,
checks, lint, tokens, lockfile pieces, render, format (the ruff process), write, implcheck,
the build cache, report) and "cli" for everything outside them. A first build that never
times one of them fails the suite: the table names a function the pipeline no longer calls.
Each stage's time is its own, without the stages it calls, so the stages add up to the whole
build. Children time the stages without a profiler, at every size of the run, to show how
each grows; at one size more children profile each stage with its own cProfile, to list the
functions where its time goes (cProfile slows pure-Python code, so its times are not the
stage times).

Each build (first, nothing changed, one tool changed) runs in a fresh child so that no cache
of an earlier build in the same process (toolgen's functools caches, compiled patterns)
makes it look cheaper than it is.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import functools
import io
import json
import pstats
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# (module, attribute, stage): each function where the pipeline looks it up at call time (a
# name the pipeline imported into its own module is wrapped there). The one place this suite
# names toolgen's modules: when they move, only this table changes.
STAGES = (
    ("toolgen.build.cache", "replay", "stamp"),
    ("toolgen.spec.load", "read_sources", "load"),
    ("toolgen.spec.load", "parse", "load"),
    ("toolgen.spec.validate", "check_document", "validate"),
    ("toolgen.spec.model", "build_tools", "model"),
    ("toolgen.spec.model", "build_settings", "model"),
    ("toolgen.checks", "check_tool", "checks"),
    ("toolgen.checks", "check_catalogue", "checks"),
    ("toolgen.build.layout", "check_layout", "layout"),
    ("toolgen.lint.engine", "ToolLinter.lint", "lint"),
    ("toolgen.build.pipeline", "lint_catalogue", "lint"),
    ("toolgen.spec.tokens", "tool_tokens", "tokens"),
    ("toolgen.render.lockfile", "lock_piece", "lockfile"),
    ("toolgen.render.files", "render_tool", "render"),
    ("toolgen.render.files", "render_catalogue", "render"),
    ("toolgen.render.modules", "cards_module", "render"),
    ("toolgen.render.formatting", "Formatter.results", "format"),
    ("toolgen.build.write", "write_outputs", "write"),
    ("toolgen.checks.implementations", "check_implementations", "implcheck"),
    ("toolgen.build.cache", "BuildCache.units", "cache"),
    ("toolgen.build.cache", "BuildCache.checked", "cache"),
    ("toolgen.build.cache", "BuildCache.save", "cache"),
    ("toolgen.report", "render", "report"),
)
TOP = 12


class StageClock:
    """Exclusive wall time (and optionally a profile) per stage; stages may nest."""

    def __init__(self, profile: bool) -> None:
        self.profile = profile
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}  # this process only: not ruff's
        self.calls: dict[str, int] = {}
        self.profiles: dict[str, cProfile.Profile] = {}
        self.stack: list[str] = []

    def _pause(self, stage: str) -> None:
        if self.profile:
            self.profiles[stage].disable()

    def _resume(self, stage: str) -> None:
        if self.profile:
            self.profiles[stage].enable()

    def wrap(self, stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            outer = self.stack[-1] if self.stack else None
            if outer is not None:
                self._pause(outer)
            self.profiles.setdefault(stage, cProfile.Profile())
            self.seconds.setdefault(stage, 0.0)
            self.cpu_seconds.setdefault(stage, 0.0)
            self.stack.append(stage)
            start, start_cpu = time.perf_counter(), time.process_time()
            self._resume(stage)
            try:
                return function(*args, **kwargs)
            finally:
                self._pause(stage)
                elapsed = time.perf_counter() - start
                elapsed_cpu = time.process_time() - start_cpu
                self.stack.pop()
                self.seconds[stage] += elapsed
                self.cpu_seconds[stage] += elapsed_cpu
                self.calls[stage] = self.calls.get(stage, 0) + 1
                if outer is not None:
                    self.seconds[outer] -= elapsed
                    self.cpu_seconds[outer] -= elapsed_cpu
                    self._resume(outer)

        return timed


def _where(file: str, line: int, name: str) -> str:
    if file == "~":
        return name  # a built-in: "<method 'sub' of 're.Pattern' objects>"
    installed = re.search(r"(?:site-packages|lib/python3\.\d+)/(.*)", file)
    if installed:
        file = installed.group(1)
    else:
        with contextlib.suppress(ValueError):
            file = Path(file).resolve().relative_to(ROOT).as_posix()
    return f"{name} ({file}:{line})"


def top_functions(profile: cProfile.Profile, count: int = TOP) -> list[dict[str, Any]]:
    """The functions with the most own time (tottime) in one stage's profile."""
    stats = pstats.Stats(profile, stream=io.StringIO())
    rows = [
        {
            "function": _where(*key),
            "calls": calls,
            "own_s": own,
            "cumulative_s": cumulative,
        }
        for key, (_, calls, own, cumulative, _) in stats.stats.items()  # type: ignore[attr-defined]
    ]
    rows.sort(key=lambda row: row["own_s"], reverse=True)
    return rows[:count]


def child(root: Path, folder: str, profile: bool) -> dict[str, Any]:
    import importlib

    from toolgen import cli

    clock = StageClock(profile)
    for module_name, attribute, stage in STAGES:
        owner: Any = importlib.import_module(module_name)
        *path, name = attribute.split(".")  # a method: Class.method
        for part in path:
            owner = getattr(owner, part)
        setattr(owner, name, clock.wrap(stage, getattr(owner, name)))
    main = clock.wrap("cli", cli.main)
    sink = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        status = main(["build", "--root", str(root), folder])
    total = time.perf_counter() - start
    if status not in (0, 1):
        raise SystemExit(f"toolgen build exited {status}:\n{sink.getvalue()[-3000:]}")
    return {
        "total_s": total,
        "stages": {
            stage: {
                "seconds": clock.seconds[stage],
                "cpu_seconds": clock.cpu_seconds[stage],
                "calls": clock.calls[stage],
                "top": top_functions(clock.profiles[stage]) if profile else [],
            }
            for stage in clock.seconds
        },
    }


def _run_child(root: Path, folder: str, profile: bool) -> dict[str, Any]:
    from measure import run

    command = [sys.executable, __file__, "--root", str(root), "--folder", folder]
    done = run([*command, *(["--profile"] if profile else [])], cwd=root)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _builds(count: int, work: Path, profile: bool) -> dict[str, Any]:
    """A first build, a rebuild with nothing changed and one after one tool changed, each in
    its own child."""
    import realistic
    from build_figures import edit_one_tool

    root = work / f"profile-{count}"
    shutil.rmtree(root, ignore_errors=True)
    folder = realistic.write_catalogue(root, count)
    shown = f"spec/{realistic.CATALOGUE_NAME}"
    found = {
        "first_build": _run_child(root, shown, profile),
        "rebuild": _run_child(root, shown, profile),
    }
    edit_one_tool(realistic, folder, count, 1)
    found["one_changed"] = _run_child(root, shown, profile)
    # a first build runs every stage: one never timed is a function the pipeline no longer
    # calls, whose time would be counted as the CLI's
    untimed = {stage for _, _, stage in STAGES} - set(found["first_build"]["stages"])
    if untimed:
        raise RuntimeError(f"stages never timed in a first build: {sorted(untimed)}")
    return found


def measure(
    sizes: list[int], profile: int, work: Path, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Stage times of each build at each size (how each stage grows), and the profile of
    each at one size (0: none)."""
    stages = {}
    counts = sorted({*sizes, *([profile] if profile else [])})
    for count in counts:
        stages[str(count)] = _builds(count, work / "stages", profile=False)
        progress(f"stage times of {count} tools: done")
    found: dict[str, Any] = {"stages": stages}
    if profile:
        found["profile"] = {
            "tools": profile,
            **_builds(profile, work / "profiled", profile=True),
        }
        progress(f"profile of {profile} tools: done")
    # removed only now: on this machine's disk, files created in the seconds after
    # thousands were deleted cost up to ten times as much (docs/performance.md), which a
    # first build measured next would count as its own
    for folder in ("stages", "profiled"):
        shutil.rmtree(work / folder, ignore_errors=True)
    return found


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--folder", required=True)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    print(json.dumps(child(args.root, args.folder, args.profile)))
