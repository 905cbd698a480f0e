"""Progress on long work: a live line on a terminal, nothing in CI or when piped, and the time
of each stage with --verbose. The terminal is a real pseudo-terminal around a real process."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
TOOLGEN = [str(Path(sys.executable).with_name("toolgen"))]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(ROOT / "impl", tmp_path / "impl")
    return tmp_path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TERM")}
    return {**env, "TERM": "xterm", **extra}


def _on_a_terminal(project: Path, *args: str, **env: str) -> tuple[int, str]:
    """Run a build with stderr on a pseudo-terminal; returns its status and what the
    terminal received."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [*TOOLGEN, "build", *args],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env=_env(**env),
    )
    os.close(follower)
    received = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            process.kill()
            raise AssertionError(f"no output for 60 s; so far: {received!r}")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the process closed the terminal (EIO on Linux)
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    return process.wait(timeout=60), received.decode()


def test_a_terminal_shows_the_stage_and_count_then_clears_it(project: Path) -> None:
    status, shown = _on_a_terminal(project)
    assert status == 0
    assert "\rtoolgen: spec/inventory: compile" in shown.replace("\x1b[K", "")
    assert "11/11 tool files" in shown  # the count of the compile stage
    for stage in ("model", "lint", "format", "write"):
        assert f"spec/inventory: {stage}" in shown
    # the line is cleared before the summary, which stays as without progress
    summary = (
        r"\r\x1b\[Kspec/inventory: \d+ written, 1 created, 0 removed, 0 unchanged$"
    )
    assert re.search(summary, shown.rstrip("\r\n"))


def test_ci_is_quiet_on_a_terminal(project: Path) -> None:
    status, shown = _on_a_terminal(project, CI="true")
    assert status == 0
    assert "\r\x1b[K" not in shown and "render" not in shown


def test_a_pipe_is_quiet(project: Path) -> None:
    done = subprocess.run(
        [*TOOLGEN, "build"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )
    assert done.returncode == 0
    assert "\r" not in done.stderr and "render" not in done.stderr


def test_verbose_prints_the_time_of_each_stage(project: Path) -> None:
    done = subprocess.run(
        [*TOOLGEN, "build", "--verbose"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr  # piped: times, but no live line
    lines = [line for line in done.stderr.splitlines() if line.startswith("toolgen: ")]
    stages = [line.split(": ")[2] for line in lines]
    assert stages[:3] == ["stamp", "read", "model"]
    for stage in ("compile", "layout", "lint", "format", "write", "implementations"):
        assert stage in stages
    for line in lines:
        assert line.split(": ")[3].split()[1] in ("ms", "s"), line
    # a rebuild with nothing changed: the stamp alone
    again = subprocess.run(
        [*TOOLGEN, "build", "--verbose"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )
    timed = [line for line in again.stderr.splitlines() if line.startswith("toolgen: ")]
    assert [line.split(": ")[2] for line in timed] == ["stamp"]
