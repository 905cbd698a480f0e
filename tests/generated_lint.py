"""ruff over a generated tree, as the tests that check one run it: the pinned ruff's
defaults (what a project without a ruff configuration gets) and the rules this repository
selects for its own code in pyproject.toml, read from there; long lines are the formatter's
business. Each package checked is first party, as it is in the project that holds it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
    "tool"
]["ruff"]["lint"]["select"]


def ruff_check(packages: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`ruff check` of the packages, folders in `cwd`."""
    ruff = Path(sys.executable).with_name("ruff")
    first_party = json.dumps(list(packages))
    return subprocess.run(
        [ruff, "check", "--isolated", "--no-cache", f"--extend-select={','.join(RULES)}",
         "--ignore=E501", f"--config=lint.isort.known-first-party = {first_party}",
         *packages],
        cwd=cwd, capture_output=True, text=True, check=False,
    )  # fmt: skip
