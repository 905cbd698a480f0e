"""The review page: rendered for the example catalogue (against an earlier version of it) and
for a 200-tool synthetic catalogue, checked as text, then opened in headless Chromium, which
must fetch nothing but the page itself. Screenshots (desktop, phone, dark) and the time each
page takes to open are kept under build/artifacts/review/.

Without Chromium the browser tests skip with a message; under CI (CI=true) they fail, since
.ci/run installs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolgen import pipeline, snapshot
from toolgen.cli import main
from toolgen.review import page as review_page

from .browser import Browser, find_chromium

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "build" / "artifacts" / "review"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's page against its own earlier version (one tool made to write, one
    removed, one added), and the page of a 200-tool synthetic catalogue."""
    base = tmp_path_factory.mktemp("pages")
    repo = base / "project"
    shutil.copytree(ROOT / "spec/inventory", repo / "spec/inventory")
    (repo / "pyproject.toml").write_text("", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.email=r@example.com", "-c", "user.name=r", "add", "-A")
    _git(
        repo,
        "-c",
        "user.email=r@example.com",
        "-c",
        "user.name=r",
        "commit",
        "-qm",
        "base",
    )
    stock = repo / "spec/inventory/tools/read_stock.yaml"
    stock.write_text(
        stock.read_text(encoding="utf-8").replace("effect: read", "effect: write"),
        encoding="utf-8",
    )
    (repo / "spec/inventory/tools/next_batch.yaml").rename(
        repo / "spec/inventory/tools/following_batch.yaml"
    )
    renamed = repo / "spec/inventory/tools/following_batch.yaml"
    renamed.write_text(
        renamed.read_text(encoding="utf-8").replace(
            "name: next_batch", "name: following_batch"
        ),
        encoding="utf-8",
    )
    out = base / "out"
    status = main(["docs", "--root", str(repo), "--out", str(out), "--against", "HEAD",
                   str(repo / "spec/inventory")])  # fmt: skip
    assert status == 1  # read_stock now writes: a breaking change
    sys.path.insert(0, str(ROOT / "tests" / "lint"))
    from synthetic import write_catalogue

    big = base / "big"
    (big / "pyproject.toml").parent.mkdir(parents=True)
    (big / "pyproject.toml").write_text("", encoding="utf-8")
    write_catalogue(big / "spec" / "synthetic", 200)
    assert (
        main(
            ["docs", "--root", str(big), "--out", str(out), str(big / "spec/synthetic")]
        )
        == 0
    )
    result = pipeline.check_catalogue(
        repo / "spec/inventory", repo, implementations=False
    )
    assert result.catalogue is not None
    total = snapshot.catalogue_snapshot(result.catalogue)["tokens"]
    (out / "inventory.tokens").write_text(f"{total:,}", encoding="utf-8")
    return {"inventory": out / "inventory.html", "synthetic": out / "synthetic.html",
            "markdown": out / "inventory.md", "tokens": out / "inventory.tokens"}  # fmt: skip


def test_the_page_is_one_file_with_nothing_to_fetch(pages: dict[str, Path]) -> None:
    for page in (pages["inventory"], pages["synthetic"]):
        html = page.read_text(encoding="utf-8")
        assert "default-src 'none'" in html
        assert not re.search(r"<(link|img|iframe|object|embed)\b", html)
        assert not re.search(r"\bsrc=|@import|url\(", html)
        # links are the rule references only, for the reader to follow
        external = set(re.findall(r'href="(https?://[^"#]+)', html))
        assert external <= {
            "https://toolgen.dev/docs/rules.md",
            "https://toolgen.dev/docs/codes.md",
            "https://toolgen.dev/docs/diff-rules.md",
        }


def test_the_page_shows_each_tool_as_the_model_sees_it(pages: dict[str, Path]) -> None:
    html = pages["inventory"].read_text(encoding="utf-8")
    for name in ("create_reorder", "find_customer", "following_batch", "read_stock",
                 "search_orders", "search_returns"):  # fmt: skip
        assert f'id="tool-{name}"' in html
    # the description exactly as sent, escaped
    assert "Use when: The user asks to restock or reorder a product." in html
    assert "Call create_reorder again with sku set to one of known_skus." in html
    assert "rejected on sku" in html
    # what changed against HEAD
    assert "TD503</a> &#39;read_stock&#39; is write, was read" in html
    assert "tool &#39;next_batch&#39; was renamed to &#39;following_batch&#39;" in html
    assert '<section class="card tool changed" id="tool-read_stock"' in html
    assert '<section class="card tool renamed" id="tool-following_batch"' in html


def test_the_markdown_reference(pages: dict[str, Path]) -> None:
    text = pages["markdown"].read_text(encoding="utf-8")
    assert (
        "## create_reorder\n\nwrite · idempotent · context: run_id · 212 tokens" in text
    )
    assert (
        "- **breaking** [TD503](https://toolgen.dev/docs/diff-rules.md#TD503) " in text
    )
    assert "| `quantity` | integer | minimum 1; maximum 1000 | Pieces to order." in text


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    binary = find_chromium()
    if binary is None:
        message = (
            "headless Chromium not found (/usr/bin/chromium): install Debian's package "
            "with `apt-get install chromium`, as .ci/run does, to run the page in a browser"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    opened = Browser(binary)
    yield opened
    opened.close()


def _record(name: str, seconds: float, size: int) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with (ARTIFACTS / "timings.txt").open("a", encoding="utf-8") as log:
        log.write(f"{name}: {size:,} bytes, opened in {seconds:.3f} s\n")


def test_the_example_page_in_chromium(pages: dict[str, Path], browser: Browser) -> None:
    url = pages["inventory"].as_uri()
    page = browser.open(url)
    assert page.requests == [url]  # the page itself, nothing else
    modules = [
        m.stem
        for m in (ROOT / "generated/inventory").glob("*.py")
        if not m.stem.startswith("_") and m.stem != "context"
    ]
    # one section per tool the model sees (prepare_order, made from confirm_order, too);
    # the edited catalogue of the fixture renames one tool, adds and removes none
    assert page.evaluate("document.querySelectorAll('section.tool').length") == len(
        modules
    )
    badges = page.evaluate(
        "[...document.querySelectorAll('#tool-read_stock .badge')].map(b => b.textContent)"
    )
    assert badges[:2] == ["changed", "write"]
    total = pages["tokens"].read_text(encoding="utf-8")
    assert page.evaluate("document.getElementById('total-tokens').textContent") == total
    cells = page.evaluate("document.querySelectorAll('#similarity rect.cell').length")
    edges = page.evaluate("document.querySelectorAll('#similarity circle.edge').length")
    example = pipeline.check_catalogue(
        ROOT / "spec/inventory", ROOT, implementations=False
    ).catalogue
    assert example is not None
    # an edge for each not_when entry of the example
    assert cells > 0 and edges == sum(len(t.not_when) for t in example.tools) > 0
    # no horizontal scroll of the page on a phone: wide parts scroll inside their boxes
    page.emulate(390, 844)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(ARTIFACTS / "inventory-phone.png")
    page.emulate(390, 844, dark=True)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(13, 17, 23)"
    page.screenshot(ARTIFACTS / "inventory-phone-dark.png", full=False)
    page.emulate(1000, 1400)
    page.screenshot(ARTIFACTS / "inventory.png", full=False)
    _record("inventory (6 tools)", page.load_seconds, pages["inventory"].stat().st_size)
    assert (ARTIFACTS / "inventory.png").stat().st_size > 10_000


def test_a_200_tool_page_stays_usable(pages: dict[str, Path], browser: Browser) -> None:
    url = pages["synthetic"].as_uri()
    page = browser.open(url)
    assert page.requests == [url]
    assert page.evaluate("document.querySelectorAll('section.tool').length") == 200
    labels = page.evaluate("document.querySelectorAll('#similarity text').length")
    assert labels == 0  # 200 names do not fit: cells only, names in each cell's title
    shown = page.evaluate(
        "document.getElementById('filter').value = 'approve_';"
        "document.getElementById('filter').dispatchEvent(new Event('input'));"
        "[...document.querySelectorAll('section.tool')].filter(s => !s.hidden).length"
    )
    assert 0 < shown < 200
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(ARTIFACTS / "synthetic-200.png", full=False)
    _record(
        "synthetic (200 tools)", page.load_seconds, pages["synthetic"].stat().st_size
    )


def test_spec_text_is_escaped_everywhere_on_the_page() -> None:
    hostile = "<script>alert(1)</script>"
    tool = {
        "name": "t", "file": "tools/t.yaml", "digest": "d", "tokens": 1, "effect": "read",
        "model": {"description": hostile, "parameters": {"type": "object", "properties": {
            "p": {"type": "string", "description": hostile, "enum": [hostile]}}}},
        "errors": {"e": {"how_to_fix": hostile, "retryable": False}},
        "examples": [{"args": {"p": hostile}, "rejected_on": None, "note": hostile}],
        "returns": {"type": "object", "properties": {}}, "guards": {}, "context": [],
    }  # fmt: skip
    shot = {"catalogue": hostile, "description": hostile, "tools": [tool], "tokens": 1}
    sim = {"tools": ["t"], "pairs": [], "not_when": []}
    html = review_page.render_html(review_page.page_model(shot, [], sim))
    assert "<script>alert" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 6
