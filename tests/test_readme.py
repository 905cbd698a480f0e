"""The README's contract example is a real contract: it loads, validates and builds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from loading import render

from toolgen.build import pipeline
from toolgen.diagnostics import Severity

ROOT = Path(__file__).parent.parent


def test_readme_contract_compiles(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [block] = re.findall(
        r"```yaml\n(# spec/inventory/tools/create_reorder.yaml\n.*?)```", readme, re.S
    )
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    (tmp_path / "spec/inventory/tools/create_reorder.yaml").write_text(block)
    result = pipeline.check_catalogue(
        tmp_path / "spec/inventory", tmp_path, implementations=False
    )
    errors = [
        d.format_text() for d in result.diagnostics if d.severity is Severity.ERROR
    ]
    assert errors == []
    assert render(result) is not None


def test_the_five_minutes_of_the_readme_run(tmp_path: Path) -> None:
    """The README's quick start, command by command, in a new folder outside the project:
    every command succeeds with nothing set by hand."""
    import os
    import shlex
    import subprocess
    import sys

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [block] = re.findall(r"## Five minutes\n\n```console\n(.*?)```", readme, re.S)
    commands = [line.removeprefix("$ ") for line in block.splitlines()]
    assert commands[0].startswith("toolgen init") and len(commands) >= 4
    bin_dir = Path(sys.executable).parent
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("TOOLGEN_", "PYTEST"))
    }
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    here = tmp_path
    for command in commands:
        words = shlex.split(command)
        if words[0] == "cd":
            here = here / words[1]
            continue
        if words[0] == "python":
            words[0] = sys.executable
        done = subprocess.run(
            words, cwd=here, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, f"{command}:\n{done.stdout}{done.stderr}"


def test_every_page_of_the_docs_is_reachable_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/index.md)" in readme
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert sorted(pages - linked) == []
    assert sorted(linked - pages) == []
