"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit on a scratch repository
that holds a copy of the example project: they pass on it, and a commit of a contract edit
without a rebuild is refused by `toolgen build --check`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(
    *args: str | Path, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _git(repo: Path, env: dict[str, str], *args: str) -> None:
    done = _run("git", *args, cwd=repo, env=env)
    assert done.returncode == 0, done.stderr


def test_the_hooks_pass_then_refuse_a_stale_build(tmp_path: Path) -> None:
    env = {
        **os.environ,
        # the project's environment, as a developer who activated it has it
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_AUTHOR_NAME": "r", "GIT_AUTHOR_EMAIL": "r@example.com",
        "GIT_COMMITTER_NAME": "r", "GIT_COMMITTER_EMAIL": "r@example.com",
    }  # fmt: skip
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hooks)
    _git(hooks, env, "init", "-q", "-b", "main")
    _git(hooks, env, "add", "-A")
    _git(hooks, env, "commit", "-qm", "hooks")
    rev = _run("git", "rev-parse", "HEAD", cwd=hooks, env=env).stdout.strip()

    project = tmp_path / "project"
    skip = shutil.ignore_patterns("__pycache__")
    for part in ("spec", "impl", "generated"):
        shutil.copytree(ROOT / part, project / part, ignore=skip)
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n"
        "      - id: toolgen-check\n      - id: toolgen-build-check\n",
        encoding="utf-8",
    )
    _git(project, env, "init", "-q", "-b", "main")
    _git(project, env, "add", "-A")
    done = _run(BIN / "pre-commit", "run", "--all-files", cwd=project, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "toolgen check" in done.stdout and "Passed" in done.stdout
    _git(project, env, "commit", "-qm", "base")

    assert _run(BIN / "pre-commit", "install", cwd=project, env=env).returncode == 0
    tool = project / "spec/inventory/tools/read_stock.yaml"
    tool.write_text(
        tool.read_text(encoding="utf-8").replace(
            "intent: Read the current stock", "intent: Read the stock on hand"
        ),
        encoding="utf-8",
    )
    _git(project, env, "add", "-A")
    refused = _run(
        "git", "commit", "-m", "edit without a rebuild", cwd=project, env=env
    )
    assert refused.returncode == 1, refused.stdout + refused.stderr
    said = refused.stdout + refused.stderr  # git shows the hook's output on stderr
    assert "toolgen check" in said and "toolgen build --check" in said
    assert "generated code is stale" in said
    assert (
        "generated/inventory/toolgen.lock.json" in said
    )  # the lockfile shows the edit
    # once rebuilt, the same commit goes through
    assert _run(BIN / "toolgen", "build", cwd=project, env=env).returncode == 0
    _git(project, env, "add", "-A")
    _git(project, env, "commit", "-qm", "edit, rebuilt")
