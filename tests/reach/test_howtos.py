"""The how-tos of the runtimes are run: every example does what its page says.

Each page runs in a copy of this project (spec/, generated/, impl/) as the current folder,
on a fresh copy of the example's demo database (a page that places an order leaves nothing
behind for the next one):

- ```` ```console ````: each `$ toolgen ...` line runs through the real CLI and must succeed;
  what an export prints on standard error must equal the ```` ```text stderr API ```` block
  of that `--to` value, when the page shows one;
- ```` ```python run ````: executed in order, in one namespace per page; what a block prints
  must equal the ```` ```text output ```` block right after it.

To accept a deliberate change of what the examples print: UPDATE_DOCS=1 pytest
tests/reach/test_howtos.py rewrites those blocks (as tests/test_docs.py does its own).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from impl.inventory.db import close_database, use_database
from toolgen import cli

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("howto-agents-sdk.md", "howto-raw-apis.md", "howto-mcp.md")
_BLOCK = re.compile(r"```([^\n]*)\n(.*?)```", re.DOTALL)
UPDATE = os.environ.get("UPDATE_DOCS") == "1"


def _check_block(
    found: str, block: re.Match[str], updates: list[tuple[re.Match[str], str]]
) -> None:
    """What the page shows in `block` must be `found`; with UPDATE_DOCS=1 it becomes so."""
    if UPDATE:
        updates.append((block, found))
    else:
        assert block.group(2) == found, f"block at offset {block.start()} is stale"


@pytest.fixture
def database(tmp_path: Path) -> Iterator[None]:
    use_database(tmp_path / "inventory.db")
    yield
    close_database()


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.usefixtures("database")
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
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    blocks = list(_BLOCK.finditer(text))
    stderr: dict[str, str] = {}
    namespace: dict[str, object] = {"__name__": "howto"}
    updates: list[tuple[re.Match[str], str]] = []
    ran = 0
    for index, block in enumerate(blocks):
        info, body = block.groups()
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
            _check_block(stderr[info.split()[-1]], block, updates)
        elif info == "python run":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(body, f"{page} block {index}", "exec"), namespace)
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            assert following is not None and following.group(1) == "text output", (
                f"block {index} shows no output"
            )
            _check_block(printed.getvalue(), following, updates)
            ran += 1
    assert ran
    for block, found in sorted(updates, key=lambda u: -u[0].start(2)):
        text = text[: block.start(2)] + found + text[block.end(2) :]
    if updates:
        (ROOT / "docs" / page).write_text(text, encoding="utf-8")


# --- what `toolgen export` writes, as docs/howto-raw-apis.md describes it ------------------

# the keys that hold the contract's parameters schema, or the search index: described by
# their name alone
_SCHEMAS = frozenset(
    {"parameters", "input_schema", "parametersJsonSchema", "search_index"}
)
# the keys whose object holds a definition per tool name: `key: {<name>: {...}}`
_BY_NAME = frozenset({"deferred_tools"})
_ROW = re.compile(r"^\| `([a-z-]+)` \| `(\{.+?\})`", re.MULTILINE)


def _scalar(value: object) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _described(items: list[dict[str, Any]]) -> str:
    """The keys of a list of objects in the page's notation: `key` for a value that varies,
    `key: value` for one every item has the same, `key?` for one some items lack, and the
    shape of nested objects and lists."""
    keys = list(dict.fromkeys(k for item in items for k in item))
    parts = []
    for key in keys:
        values = [item[key] for item in items if key in item]
        name = key if len(values) == len(items) else f"{key}?"
        if key in _SCHEMAS:
            parts.append(name)
        elif key in _BY_NAME:
            each = [d for v in values for d in v.values()]
            parts.append(f"{name}: {{<name>: {{{_described(each)}}}}}")
        elif all(isinstance(v, dict) for v in values):
            parts.append(f"{name}: {{{_described(values)}}}")
        elif all(isinstance(v, list) for v in values):
            parts.append(f"{name}: [{{{_described([x for v in values for x in v])}}}]")
        elif len(items) > 1 and all(v == values[0] for v in values):
            parts.append(f"{name}: {_scalar(values[0])}")
        else:
            parts.append(name)
    return ", ".join(parts)


def test_the_export_table_describes_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "docs/howto-raw-apis.md").read_text(encoding="utf-8")
    rows = dict(_ROW.findall(text))
    assert sorted(rows) == sorted(a for a in cli.EXPORT_TARGETS if a != "mcp")
    for api, described in rows.items():
        out = tmp_path / f"{api}.json"
        assert (
            cli.main(["export", "--to", api, "spec/inventory", "--out", str(out)]) == 0
        )
        written = json.loads(out.read_text(encoding="utf-8"))
        assert f"{{{_described([written])}}}" == described, api
