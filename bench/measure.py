"""Running a command as a child process and reading what it cost; comparing the disk before
and after.

Every figure of the suite is the wall time of a fresh child process (what a user waits for),
with its CPU time and peak resident memory read from the kernel's accounting of that child by
`os.wait4`: the CPU time is the child's and that of the children it waited for (toolgen and the
ruff it starts); on Linux the peak is that of the largest process of the tree, the figure
`/usr/bin/time -v` reports. CPU time moves less than wall time when other work shares the
machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


class CommandFailed(RuntimeError):
    """A measured command did not exit as expected: its figure would mean nothing."""


@dataclass(frozen=True, slots=True)
class Run:
    seconds: float  # wall time: what the user waits for
    cpu_seconds: float  # user + system time of the child and the children it waited for
    peak_rss_mb: float
    returncode: int
    stdout: str
    stderr: str


# Starts the measured command and waits for it with wait4. It runs as a small process of its
# own because Linux counts in a child's peak RSS the memory of the process it was forked from
# (the copy it replaced at exec): forked from the suite, which holds catalogues of thousands
# of tools, every command would report at least the suite's size.
_LAUNCHER = """
import json, os, subprocess, sys, time
report, command = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
child = subprocess.Popen(command)
_, status, usage = os.wait4(child.pid, 0)
seconds = time.perf_counter() - start
with open(report, "w", encoding="utf-8") as handle:
    json.dump({"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime,
               "rss_kib": usage.ru_maxrss, "status": os.waitstatus_to_exitcode(status)},
              handle)
"""


def run(
    command: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    expect: int | None = 0,
) -> Run:
    """Run `command` in a fresh process; with `expect`, any other exit status is an error."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as tmp,
    ):
        report = Path(tmp, "run.json")
        subprocess.run(
            [sys.executable, "-c", _LAUNCHER, str(report), *command],
            cwd=cwd,
            env=None if env is None else dict(env),
            stdout=out,
            stderr=err,
            check=False,
        )
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
        if not report.exists():
            raise CommandFailed(f"could not run {' '.join(command)}:\n{stderr[-3000:]}")
        measured = json.loads(report.read_text(encoding="utf-8"))
        done = Run(
            measured["seconds"],
            measured["cpu"],
            measured["rss_kib"] / 1024,  # KiB on Linux
            measured["status"],
            stdout,
            stderr,
        )
    if expect is not None and done.returncode != expect:
        raise CommandFailed(
            f"{' '.join(command)} exited {done.returncode}, expected {expect}\n"
            f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return done


@dataclass(frozen=True, slots=True)
class FileState:
    inode: int
    mtime_ns: int
    size: int


def snapshot(root: Path, *, skip: Sequence[str] = ()) -> dict[str, FileState]:
    """Every file under root with what a write would change: inode (toolgen writes through a
    rename), modification time and size."""
    found: dict[str, FileState] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip and d != "__pycache__"]
        for name in files:
            path = Path(folder, name)
            info = path.stat()
            found[path.relative_to(root).as_posix()] = FileState(
                info.st_ino, info.st_mtime_ns, info.st_size
            )
    return found


def changed(
    before: Mapping[str, FileState], after: Mapping[str, FileState]
) -> list[str]:
    """Files written, created or removed between two snapshots."""
    return sorted(
        path
        for path in before.keys() | after.keys()
        if before.get(path) != after.get(path)
    )


def tree_size(root: Path) -> tuple[int, int]:
    """(files, bytes) under root, caches left out."""
    files = size = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            files += 1
            size += Path(folder, name).stat().st_size
    return files, size
