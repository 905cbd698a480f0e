"""The how-tos of the runtimes are run: every example does what its page says.

Each page runs in a copy of this project (spec/, generated/, impl/) as the current folder:

- ```` ```console ````: each `$ toolgen ...` line runs through the real CLI and must succeed;
  what an export prints on standard error must equal the ```` ```text stderr API ```` block
  of that `--to` value, when the page shows one;
- ```` ```python run ````: executed in order, in one namespace per page; what a block prints
  must equal the ```` ```text output ```` block right after it.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
from pathlib import Path

import pytest

from toolgen import cli

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("howto-agents-sdk.md", "howto-raw-apis.md", "howto-mcp.md")
_BLOCK = re.compile(r"```([^\n]*)\n(.*?)```", re.DOTALL)


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs(
    page: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    for folder in ("spec", "generated", "impl"):
        shutil.copytree(
            ROOT / folder,
            tmp_path / folder,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    blocks = _BLOCK.findall((ROOT / "docs" / page).read_text(encoding="utf-8"))
    stderr: dict[str, str] = {}
    namespace: dict[str, object] = {"__name__": "howto"}
    ran = 0
    for index, (info, body) in enumerate(blocks):
        if info == "console":
            for line in body.splitlines():
                if not line.startswith("$ toolgen "):
                    continue
                args = shlex.split(line[len("$ toolgen ") :], comments=True)
                capfd.readouterr()
                assert cli.main(args) == 0, line
                if "--to" in args:
                    stderr[args[args.index("--to") + 1]] = capfd.readouterr().err
                ran += 1
        elif info.startswith("text stderr "):
            assert stderr[info.split()[-1]] == body
        elif info == "python run":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(body, f"{page} block {index}", "exec"), namespace)
            following = blocks[index + 1] if index + 1 < len(blocks) else ("", "")
            assert following[0] == "text output", f"block {index} shows no output"
            assert printed.getvalue() == following[1]
            ran += 1
    assert ran
