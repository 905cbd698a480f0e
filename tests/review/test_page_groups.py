"""The review page's namespaces and toolsets (issue 36), in headless Chromium.

The example catalogue, copied into a new project with one ask added to find_customer that is
read_document's too: the page lists each namespace with its deferral and tools, each toolset's
tokens loaded up front and left to search, and on each tool card its asks, the one the search
cannot tell apart marked with the tool it goes to.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolgen.build import pipeline
from toolgen.cli import main
from toolgen.spec import snapshot

from .browser import Browser, find_chromium

ROOT = Path(__file__).resolve().parents[2]
SHARED = "What does the returns policy say?"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    binary = find_chromium()
    if binary is None:
        message = "headless Chromium not found (/usr/bin/chromium): see test_page.py"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    opened = Browser(binary)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("groups")
    shutil.copytree(ROOT / "spec" / "inventory", repo / "spec" / "inventory")
    (repo / "pyproject.toml").write_text("", encoding="utf-8")
    tool = repo / "spec/inventory/tools/find_customer.yaml"
    text = tool.read_text(encoding="utf-8")
    assert "asks:\n" in text
    tool.write_text(text.replace("asks:\n", f"asks:\n  - {SHARED}\n", 1), "utf-8")
    return repo


def _js(page: Any, expression: str) -> Any:
    return page.evaluate(expression)


def test_the_page_shows_namespaces_toolsets_and_asks(
    project: Path, tmp_path: Path, browser: Browser
) -> None:
    out = tmp_path / "out"
    folder = project / "spec" / "inventory"
    assert main(["docs", "--root", str(project), "--out", str(out), str(folder)]) == 0
    page = browser.open((out / "inventory.html").as_uri())
    rows = _js(
        page,
        "Object.fromEntries([...document.querySelectorAll('#toolsets tr[data-name]')]"
        ".map(r => [r.dataset.name, [...r.cells].slice(1).map(c => c.textContent)]))",
    )
    result = pipeline.check_catalogue(folder, project, implementations=False)
    assert result.catalogue is not None
    shot = snapshot.catalogue_snapshot(result.catalogue)
    costs = {t["name"]: t for t in shot["tools"]}
    for name, (tools, up_front, searchable, budget) in rows.items():
        members = shot["toolsets"][name]["tools"]
        assert int(tools) == len(members)
        later = [costs[t]["tokens"] for t in members if costs[t]["deferred"]]
        now = sum(costs[t]["tokens"] for t in members if not costs[t]["deferred"])
        assert int(searchable.replace(",", "")) == sum(later)
        # up front: the tools loaded up front, and a namespace entry and tool_search
        extra = int(up_front.replace(",", "")) - now
        assert (0 < extra < 150) if later else extra == 0, (name, extra)
        assert budget == f"{shot['toolsets'][name]['budget']:,}"
    assert set(rows) == {"support", "warehouse"}
    # the Markdown reference has the same table
    reference = (out / "inventory.md").read_text(encoding="utf-8")
    for name, (tools, up_front, searchable, budget) in rows.items():
        row = f"| {name} | {tools} | {up_front} | {searchable} | {budget} |"
        assert row in reference, row
    namespaces = _js(
        page,
        "[...document.querySelectorAll('#namespaces li')].map(li => [li.dataset.name, "
        "li.querySelector('.badge').textContent, li.querySelectorAll('a').length])",
    )
    assert namespaces == [["documents", "deferred", 2], ["orders", "up front", 5],
                          ["stock", "up front", 3]]  # fmt: skip
    grouping = _js(
        page, "document.querySelector('#tool-read_document .grouping').textContent"
    )
    assert grouping == "namespace documents · deferred: loaded when a search finds it"
    elsewhere = _js(
        page,
        "[...document.querySelectorAll('.asks li.elsewhere')].map(li => "
        "[li.closest('section').dataset.name, li.textContent])",
    )
    assert elsewhere == [
        ["find_customer", f"“{SHARED}” is also an ask of read_document"],
        ["read_document", f"“{SHARED}” is also an ask of find_customer"],
    ]
    assert page.requests == [(out / "inventory.html").as_uri()]
