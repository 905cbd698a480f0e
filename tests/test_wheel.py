"""The wheel, not only the editable install: built, installed into a fresh virtual
environment, and used there to build the example catalogue and run its generated tests.

This proves the templates and schemas ship inside the wheel and that nothing reads from the
source tree. It takes about a minute (a venv and the dependencies from the package index).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).parent.parent


def _run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def test_wheel_installs_and_builds_the_example(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    for source in (ROOT / "runtime", ROOT):
        _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "-w", wheels, source)  # fmt: skip
    [wheel] = list(wheels.glob("toolgen-0*.whl"))
    [runtime_wheel] = list(wheels.glob("toolgen_runtime-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # the testing extra: the generated tests fuzz each tool, as a project's CI would
    _run(python, "-m", "pip", "install", "--quiet", f"{runtime_wheel}[testing]", wheel,
         "pytest")  # fmt: skip

    project = tmp_path / "project"
    shutil.copytree(ROOT / "spec", project / "spec")
    shutil.copytree(
        ROOT / "impl", project / "impl", ignore=shutil.ignore_patterns("__pycache__")
    )
    toolgen = env_dir / "bin" / "toolgen"
    # run from elsewhere so nothing can be imported from the source tree by accident
    out = _run(
        toolgen,
        "build",
        "--root",
        project,
        project / "spec" / "inventory",
        cwd=tmp_path,
    )
    assert "spec/inventory: 26 written" in out
    for rel in ("generated/inventory/create_reorder.py", "generated/inventory/tests"):
        assert (project / rel).exists()
    assert (project / "generated").is_dir()
    check = _run(
        toolgen, "build", "--check", "--root", project, project / "spec/inventory"
    )
    assert "up to date" in check
    same = ROOT / "generated/inventory/create_reorder.py"
    assert (
        project / "generated/inventory/create_reorder.py"
    ).read_text() == same.read_text()
    # the write tools resolve their store and secret at start-up: the example project's
    # conftest gives the test session a temporary store and a random secret
    shutil.copy(ROOT / "conftest.py", project / "conftest.py")
    tests = _run(
        python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "generated", cwd=project
    )
    assert " passed" in tests
    # the review templates ship in the wheel too
    _run(toolgen, "docs", "--root", project, "--out", tmp_path / "review",
         project / "spec/inventory", cwd=tmp_path)  # fmt: skip
    assert "create_reorder" in (tmp_path / "review/inventory.html").read_text()
    schema = _run(toolgen, "schema", cwd=tmp_path)
    assert '"title": "toolgen tool contract, format 1"' in schema
