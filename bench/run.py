"""The benchmark suite: `make bench` runs this.

    .venv/bin/python bench/run.py [--sizes 10,100,300,1000,5000] [--repeat 5] [--quick] ...

It measures toolgen as it is against what users would pick instead, each figure as a ratio
to a baseline measured in the same run or as wall time, and reads the targets of issue 35
from them (bench/targets.py; docs/performance.md explains every figure):

- `toolgen check` of the example catalogue (spec/inventory), where its users run it;
- `toolgen import --from openapi` of a description the size of GitHub's (bench/github_doc.py,
  1,200 operations), against reading its JSON;
- build figures (bench/build_figures.py): first build, rebuild with nothing changed, rebuild
  after one tool changed, `build --check`, `check` on the realistic catalogue
  (bench/realistic.py) at each size, and on the synthetic one (bench/catalogue.py) at the
  sizes of `--synthetic-sizes`, against openapi-python-client on the same operations and
  against reading the YAML with PyYAML's C loader; peak memory; growth with the size;
- import figures (bench/import_figures.py): `all_tools()` of the generated package against the
  same tools written with `@function_tool`, bytecode caching on and off;
- a profile of the build, stage by stage (bench/profile_build.py);
- the tables of bench/per_call.py and bench/idempotency.py, when they exist;
- what deferral saves (bench/search/compiled.py): the tokens a request carries up front with
  the search catalogue's 300 tools deferred, against every definition (issue 36).

openapi-python-client is installed, pinned, into its own environment (bench/.venv-baseline)
the first time; it is never a dependency of toolgen. Results go to bench/results.md and
bench/results.json, and the figures are copied into docs/performance.md and CONTRIBUTING.md (their
`<!-- bench:... -->` blocks), so the three always show the same run; with `--output` elsewhere,
or with `--quick` (whose results go to build/bench/quick/), the docs are left alone.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import build_figures  # noqa: E402
import github_doc  # noqa: E402
import import_figures  # noqa: E402
import profile_build  # noqa: E402
import report  # noqa: E402
import stats  # noqa: E402
import targets  # noqa: E402
from measure import CommandFailed  # noqa: E402
from search import compiled  # noqa: E402

OPENAPI_PYTHON_CLIENT = "openapi-python-client==0.29.1"
BASELINE_VENV = BENCH / ".venv-baseline"
WORK = ROOT / "build" / "bench"  # the project's own disk, as a real catalogue lives on
OTHER_TABLES = ("per_call.py", "idempotency.py")  # written by other helpers; optional
DEFAULT_SIZES = (10, 100, 300, 1000, 5000)  # of the realistic catalogue
DEFAULT_SYNTHETIC = (
    1000,
)  # a size to compare with the runs before the realistic catalogue
DEFAULT_REPEAT = 5  # the targets are medians of 5


def _sizes(text: str) -> list[int]:
    """Sizes in tools, comma-separated; an empty text is no size."""
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if sizes and sizes[0] < 1:
        raise argparse.ArgumentTypeError("sizes are positive numbers of tools")
    return sizes


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bench/run.py",
        description="toolgen's benchmark suite (make bench); see docs/performance.md.",
    )
    p.add_argument(
        "--sizes",
        type=_sizes,
        default=None,
        help="sizes of the realistic catalogue in tools, comma-separated (default: "
        "10,100,300,1000,5000)",
    )
    p.add_argument(
        "--synthetic-sizes",
        type=_sizes,
        default=None,
        help="sizes of the synthetic catalogue, comma-separated, empty for none "
        "(default: 1000)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="repetitions of every build figure and of the example's check (default: 5)",
    )
    p.add_argument(
        "--import-tools",
        type=int,
        default=None,
        help="tools in the import figures (default: 200)",
    )
    p.add_argument(
        "--import-repeat",
        type=int,
        default=None,
        help="fresh interpreters per import figure (default: 7)",
    )
    p.add_argument(
        "--profile-tools",
        type=int,
        default=None,
        help="catalogue size of the profile (default: 1000; 0: no profile)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run in seconds: 10 realistic tools, no synthetic ones, one "
        "repetition, 20 tools imported, no profile, no other tables; "
        "openapi-python-client only if already installed",
    )
    p.add_argument(
        "--no-openapi",
        action="store_true",
        help="leave openapi-python-client out (its figures and ratios are then missing)",
    )
    p.add_argument(
        "--output",
        type=Path,
        default=None,
        help="folder for results.md and results.json (default: bench/, whose results "
        "are committed and copied into the docs; with --quick, build/bench/quick/)",
    )
    p.add_argument(
        "--render",
        type=Path,
        metavar="RESULTS_JSON",
        help="measure nothing: write results.md (and the docs) again from a results.json",
    )
    return p


def _progress(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def baseline_openapi(install: bool) -> build_figures.Baseline | None:
    """The openapi-python-client command and its environment; installs it when allowed."""
    tool = BASELINE_VENV / "bin" / "openapi-python-client"
    stamp = BASELINE_VENV / f".installed-{OPENAPI_PYTHON_CLIENT}"
    if not stamp.exists():
        if not install:
            return None
        _progress(f"installing {OPENAPI_PYTHON_CLIENT} into {BASELINE_VENV}")
        shutil.rmtree(BASELINE_VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(BASELINE_VENV)], check=True)
        pip = [str(BASELINE_VENV / "bin" / "python"), "-m", "pip"]
        subprocess.run([*pip, "install", "--quiet", OPENAPI_PYTHON_CLIENT], check=True)
        stamp.touch()
    # its post-hooks run ruff from PATH, as they do in a user's environment
    env = {
        **os.environ,
        "PATH": f"{tool.parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return build_figures.Baseline([str(tool), "generate", "--meta", "none"], env)


def _version(command: Sequence[str]) -> str:
    done = subprocess.run(list(command), capture_output=True, text=True, check=False)
    return (
        (done.stdout or done.stderr).strip().splitlines()[-1]
        if done.returncode == 0
        else "?"
    )


def machine(openapi: list[str] | None) -> dict[str, str]:
    from importlib.metadata import version

    cpu = platform.processor() or platform.machine()
    memory = "?"
    with contextlib.suppress(OSError):  # Linux; elsewhere the figures say "?"
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
        names = [
            line.split(":", 1)[1].strip() for line in cpuinfo if "model name" in line
        ]
        cpu = names[0] if names else cpu
        kib = int(Path("/proc/meminfo").read_text(encoding="utf-8").split()[1])
        memory = f"{kib / 1024 / 1024:.0f} GiB"
    commit = _version(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    # what is measured: the compiler, the runtime, the suite (not its own results, not docs)
    measured = ["generator", "runtime", "bench", ":(exclude)bench/results.*"]
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", *measured],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "date": datetime.date.today().isoformat(),
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "memory": memory,
        "system": platform.platform(),
        "python": platform.python_version(),
        "toolgen": version("toolgen"),
        "openai-agents": version("openai-agents"),
        "pydantic": version("pydantic"),
        "ruff": version("ruff"),
        "openapi-python-client": (
            _version([openapi[0], "--version"]).split()[-1] if openapi else "not run"
        ),
        "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE", "unset"),
        # other work on the machine: what the ranges of the figures partly reflect
        "load average at start": _load(),
    }


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def other_tables(progress: Callable[[str], None]) -> dict[str, str]:
    found = {}
    for name in OTHER_TABLES:
        script = BENCH / name
        if not script.exists():
            continue
        progress(f"running bench/{name}")
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        found[f"bench/{name}"] = (
            done.stdout
            if done.returncode == 0
            else f"bench/{name} failed (exit {done.returncode}):\n\n```text\n"
            f"{(done.stdout + done.stderr)[-2000:]}\n```\n"
        )
    return found


def write(results: dict[str, Any], output: Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    (output / "results.json").write_text(
        json.dumps(results, indent=1) + "\n", encoding="utf-8"
    )
    (output / "results.md").write_text(
        report.results_markdown(results), encoding="utf-8"
    )
    _progress(f"wrote {output / 'results.md'} and results.json")
    if output.resolve() == BENCH:
        for rel in report.update_docs(results, ROOT):
            _progress(f"updated {rel}")
    print(targets.targets_table(results))


def _build_row(m: build_figures.SizeFigures) -> dict[str, Any]:
    return {
        "catalogue": m.catalogue,
        "tools": m.tools,
        "seconds": m.seconds,
        "cpu_seconds": m.cpu_seconds,
        "rss_mb": m.rss_mb,
        "written_on_rebuild": m.written_on_rebuild,
        "cache_files_on_rebuild": m.cache_files_on_rebuild,
        "written_on_one_changed": m.written_on_one_changed,
        "output": m.output,
        "toolgen_size": asdict(m.toolgen_size) if m.toolgen_size else None,
        "openapi_size": asdict(m.openapi_size) if m.openapi_size else None,
    }


def output_folder(args: argparse.Namespace) -> Path:
    """Where a run writes its results: bench/ (the committed results, copied into the docs)
    unless told otherwise; a smoke run never replaces them, nor the docs' figures."""
    if args.output is not None:
        return Path(args.output)
    return WORK / "quick" if args.quick else BENCH


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    output = output_folder(args)
    if args.render is not None:
        write(json.loads(args.render.read_text(encoding="utf-8")), output)
        return 0
    quick = args.quick
    sizes = {
        stats.MEASURED: args.sizes or ([10] if quick else list(DEFAULT_SIZES)),
        "synthetic": (
            args.synthetic_sizes
            if args.synthetic_sizes is not None
            else ([] if quick else list(DEFAULT_SYNTHETIC))
        ),
    }
    repeat = args.repeat or (1 if quick else DEFAULT_REPEAT)
    import_tools = args.import_tools or (20 if quick else stats.TARGET_IMPORT)
    import_repeat = args.import_repeat or (1 if quick else 7)
    profile_tools = (
        args.profile_tools if args.profile_tools is not None else (0 if quick else 1000)
    )
    openapi = None if args.no_openapi else baseline_openapi(install=not quick)
    command = "bench/run.py " + " ".join(argv if argv is not None else sys.argv[1:])
    results: dict[str, Any] = {
        "machine": machine(openapi.command if openapi else None),
        "settings": {
            "command": command.strip(),
            "sizes": sizes,
            "repeat": repeat,
            "quick": quick,
        },
    }
    WORK.mkdir(parents=True, exist_ok=True)
    results["machine"]["toolgen bytecode"] = (
        "compiled before the build figures, as installing a wheel does"
    )
    try:
        results["startup"] = build_figures.startup(repeat, WORK)
        results["example_check"] = build_figures.example_check(repeat, ROOT)
        _progress("check of the example catalogue: done")
        # a smoke run imports one namespace of the twelve: 100 operations
        namespaces = 1 if quick else len(github_doc.NAMESPACES)
        results["openapi_import"] = build_figures.openapi_import(
            repeat, WORK, namespaces
        )
        _progress("import of a GitHub-sized description: done")
        measured = build_figures.measure(sizes, repeat, WORK, openapi, _progress)
        results["build"] = [_build_row(m) for m in measured]
        # a smoke run leaves out toolgen_runtime's own import: two interpreters fewer
        kinds = import_figures.KINDS[:2] if quick else import_figures.KINDS
        imports = import_figures.measure(
            import_tools, import_repeat, WORK, _progress, kinds
        )
        results["imports"] = {
            "tools": imports.tools,
            "repeat": imports.repeat,
            "extra": imports.extra,
            "extra_cpu": imports.extra_cpu,
            "shared": imports.shared,
            "equivalence": imports.equivalence,
            "runtime_had_bytecode": imports.runtime_had_bytecode,
        }
        staged = [size for size in sizes[stats.MEASURED] if size >= stats.GROWTH_FROM]
        if staged or profile_tools:
            results.update(
                profile_build.measure(staged, profile_tools, WORK, _progress)
            )
        results["extra"] = {} if quick else other_tables(_progress)
        results["deferral"] = compiled.measure()
    except CommandFailed as failure:
        print(f"bench: a measured command failed:\n{failure}", file=sys.stderr)
        return 1
    results["machine"]["load average at end"] = _load()
    results["growth"] = stats.growth(results)
    results["targets"] = targets.targets(results)
    write(results, output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
