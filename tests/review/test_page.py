"""The review page: rendered for the example catalogue (built, with one tool added and its
real implementations but one, against an earlier version of it) and for a 200-tool synthetic
catalogue, checked as text, then opened in headless Chromium, which must fetch nothing but the
page itself. Screenshots (desktop, phone, dark) and the time each
page takes to open are kept under build/artifacts/review/.

Without Chromium the browser tests skip with a message; under CI (CI=true) they fail, since
.ci/run installs it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolgen import templating
from toolgen.build import pipeline
from toolgen.cli import main
from toolgen.review import page as review_page
from toolgen.spec import snapshot
from toolgen.templating import markdown_code, markdown_fence, markdown_text

from .browser import Browser, find_chromium

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "build" / "artifacts" / "review"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


# a tool with an optional object and an optional array parameter, each with its fields; it
# has no use_when (TG302, which the fixture's catalogue turns off) and suppresses TG505
TRACK_PARCELS = """\
name: track_parcels
intent: List where the parcels of one of the current customer's orders are now.
effect: read
context: [customer_id, run_id]
params:
  order_number:
    type: string
    pattern: '^ORD-\\d{4}$'
    example: ORD-1001
    description: The order whose parcels to track.
  options:
    type: object
    optional: true
    description: Which parcels to list; null for all of them.
    properties:
      insured_only: {type: boolean, description: Only the insured parcels.}
      max_weight_kg: {type: number, min: 0, max: 100, description: The heaviest parcel.}
  carriers:
    type: array
    optional: true
    description: Only parcels sent with these carriers; null for any carrier.
    items: {type: string, enum: [post, courier, "<van>"], description: A carrier.}
returns:
  in_transit: {type: integer, description: How many parcels are on their way.}
examples:
  - args: {order_number: ORD-1001, options: null, carriers: null}
  - args: {order_number: ORD-1, options: null, carriers: null}
    rejected_on: order_number
suppress:
  - rule: TG505
    reason: There are two carriers; the enum bounds the list.
"""


def _example_project(repo: Path) -> None:
    """The example catalogue with track_parcels added and TG302 (a tool without use_when,
    which track_parcels is) turned off, built; every implementation the real one of
    the example but find_customer's, which stays the stub the build created."""
    shutil.copytree(ROOT / "spec/inventory", repo / "spec/inventory")
    (repo / "pyproject.toml").write_text("", encoding="utf-8")
    (repo / "spec/inventory/tools/track_parcels.yaml").write_text(
        TRACK_PARCELS, "utf-8"
    )
    with (repo / "spec/inventory/catalogue.yaml").open("a", encoding="utf-8") as file:
        file.write("lint:\n  ignore: [TG302]\n")
    assert main(["build", "--root", str(repo), str(repo / "spec/inventory")]) == 0
    for source in (ROOT / "impl/inventory").glob("*.py"):
        if source.name not in ("find_customer.py", "__init__.py"):
            shutil.copy(source, repo / "impl/inventory" / source.name)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The example's page against its own earlier version (one tool made to write, one
    removed, one added), and the page of a 200-tool synthetic catalogue."""
    base = tmp_path_factory.mktemp("pages")
    repo = base / "project"
    _example_project(repo)
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
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        status = main(["docs", "--root", str(repo), "--out", str(out), "--against", "HEAD",
                       str(repo / "spec/inventory")])  # fmt: skip
    assert status == 1  # read_stock now writes: a breaking change
    # and the run says why it fails (it printed only what it wrote)
    assert "spec/inventory: failed: 3 breaking changes against HEAD" in said.getvalue()
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
            "markdown": out / "inventory.md", "tokens": out / "inventory.tokens",
            "project": repo}  # fmt: skip


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
    # the key's arguments and context fields (the arguments were left out)
    assert (
        "## send_order\n\nwrite · idempotent by key (order_ref, ctx.run_id) · " in text
    )
    # a tool's context fields in one badge (it said "context: customer_id, context: run_id")
    assert "## track_parcels\n\nread · context: customer_id, run_id · " in text
    # spec text is text: an enum value like a tag is shown, not hidden as HTML would be
    [row] = [line for line in text.splitlines() if line.startswith("| `carriers[]`")]
    assert row.startswith(
        '| `carriers[]` | string | one of "post", "courier", "&lt;van&gt;" |'
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
        for m in (pages["project"] / "generated/inventory").glob("*.py")
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
        pages["project"] / "spec/inventory", pages["project"], implementations=False
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
    shown = f"inventory ({len(modules)} tools)"
    _record(shown, page.load_seconds, pages["inventory"].stat().st_size)
    assert (ARTIFACTS / "inventory.png").stat().st_size > 10_000


def _texts(page: Any, selector: str) -> list[str]:
    found: list[str] = page.evaluate(
        f"[...document.querySelectorAll({selector!r})].map(e => e.textContent)"
    )
    return found


def test_optional_objects_and_arrays_show_their_type_and_fields(
    pages: dict[str, Path], browser: Browser
) -> None:
    page = browser.open(pages["inventory"].as_uri())
    rows = page.evaluate(
        "[...document.querySelectorAll('#tool-track_parcels table')[0].rows].slice(1)"
        ".map(r => [r.cells[0].textContent, r.cells[1].textContent, r.cells[2].textContent])"
    )
    assert rows == [
        ["order_number", "string", "pattern ^ORD-\\d{4}$"],
        ["options", "object or null", ""],
        ["options.insured_only", "boolean", ""],
        ["options.max_weight_kg", "number", "minimum 0; maximum 100"],
        ["carriers", "array or null", ""],
        ["carriers[]", "string", 'one of "post", "courier", "<van>"'],
    ]


def test_what_is_silenced_is_shown_with_its_reason(
    pages: dict[str, Path], browser: Browser
) -> None:
    page = browser.open(pages["inventory"].as_uri())
    (entry,) = _texts(page, "#tool-track_parcels .suppression")
    assert "TG505" in entry
    assert "Reason: There are two carriers; the enum bounds the list." in entry
    (silenced,) = _texts(page, "#tool-track_parcels .suppression li.silenced")
    assert "array parameter 'carriers' has no max_items" in silenced
    # following_batch is a verb and a noun: its suppression of TG203 (from next_batch)
    # silences nothing, as TG992 says on the same card
    (stale,) = _texts(page, "#tool-following_batch .suppression")
    assert "Reason: next_batch is the name the Agents SDK lesson uses" in stale
    assert "Silences nothing now." in stale
    assert len(_texts(page, ".suppression")) == 2
    (off,) = _texts(page, "ul.turned-off > li[data-rule=TG302]")
    assert off.startswith("TG302 ignored (TG302): keeps 1 finding off the report")
    assert "tool 'track_parcels' has no use_when" in off
    # the rules silenced are explained on the page, as the rules that fired are
    for rule in ("TG203", "TG302", "TG505"):
        assert page.evaluate(f"!!document.getElementById('rule-{rule}')"), rule


def test_each_tool_says_whether_it_is_implemented(
    pages: dict[str, Path], browser: Browser
) -> None:
    page = browser.open(pages["inventory"].as_uri())
    states = page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('section.tool')].map(s => "
        "[s.dataset.name, s.querySelector('[data-what=implementation]').dataset.state]))"
    )
    assert states.pop("find_customer") == "stub"  # as the build created it
    assert states.pop("prepare_order") == "derived"
    # renamed in the spec, so the build's stub of next_batch is not its implementation
    assert states.pop("following_batch") == "missing"
    assert states.pop("track_parcels") == "stub"
    assert set(states.values()) == {"implemented"}
    assert page.evaluate("document.getElementById('implemented').textContent") == (
        "Implementations: 9 implemented, 2 still the stub, 1 without an implementation, "
        "1 answered by the runtime."
    )


def test_a_prepare_and_confirm_pair_is_not_a_pair_to_confuse(
    pages: dict[str, Path], browser: Browser
) -> None:
    page = browser.open(pages["inventory"].as_uri())
    assert _texts(page, "#token-pairs li") == ["confirm_order · prepare_order 0.39"]
    rows = _texts(page, "#pairs tr")
    assert not any("confirm_order" in r and "prepare_order" in r for r in rows)
    (cell,) = _texts(page, "#similarity rect.cell.pair title")
    assert cell.startswith("confirm_order / prepare_order: 0.39")
    assert "one token contract" in cell


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
    html = templating.render(
        "review/page.html.jinja", **review_page.page_model(shot, [], sim)
    )
    assert "<script>alert" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 6


def test_one_deferred_tool_is_counted_as_one_tool_and_as_deferred() -> None:
    tool = {
        "name": "t", "file": "tools/t.yaml", "digest": "d", "tokens": 1, "effect": "read",
        "model": {"description": "Read t.", "parameters": {"type": "object",
                                                           "properties": {}}},
        "errors": {}, "examples": [], "returns": {"type": "object", "properties": {}},
        "guards": {}, "context": [], "namespace": "n", "deferred": True,
    }  # fmt: skip
    shot = {"catalogue": "c", "description": "d", "tools": [tool], "tokens": 1}
    sim = {"tools": ["t"], "pairs": [], "not_when": []}
    groups = {"namespaces": [{"name": "n", "description": "N.", "deferred": True,
                              "tools": ["t"]}],
              "toolsets": [], "declared": False, "misrouted": {}}  # fmt: skip
    model = review_page.page_model(shot, [], sim, groups=groups)
    html = templating.render("review/page.html.jinja", **model)
    assert "· 1 tool</span>" in html and '"muted">1 tool: <a' in html
    assert "1 tools" not in html
    reference = templating.render("review/reference.md.jinja", **model)
    assert "1 tool, " in reference and "1 tools" not in reference
    # the total counts the deferred tool, which the toolset table leaves to search
    said = (
        "tokens per turn (o200k_base, with every tool loaded, the 1 deferred one too)"
    )
    assert said in reference
    assert "tokens (o200k_base, with every tool loaded, the 1 deferred one too)" in html


def test_a_text_with_backticks_cannot_close_its_fence_in_the_markdown() -> None:
    # a description holding ``` would end the block and show the rest as Markdown
    assert markdown_fence("Read it. ```\n<!-- unseen -->") == "````"
    assert markdown_fence("no backticks") == "```"
    assert markdown_text("a <b> | c & d") == "a &lt;b&gt; \\| c &amp; d"


def test_spec_text_stays_text_in_its_cell_or_item_of_the_markdown() -> None:
    # a line break ended the table row and began a heading; [..](..) was an image loaded
    # from anywhere; a terminal showed an escape sequence of a note raw
    text = "Fine.\n\n# INJECTED\n\n![i](http://evil.example/t.png) \x1b]0;t\x07 a\\b"
    assert markdown_text(text) == (
        "Fine.<br><br># INJECTED<br><br>!\\[i\\](http://evil.example/t.png) "
        "\\\\x1b\\]0;t\\\\x07 a\\\\b"
    )
    # as inline code: one line, between more backticks than it holds
    assert markdown_code("a\nb") == "`a b`"
    assert markdown_code("x ``y`` z") == "``` x ``y`` z ```"
    shot = {
        "catalogue": "c", "description": "d", "tokens": 1,
        "tools": [{
            "name": "t", "file": "tools/t.yaml", "digest": "d", "tokens": 1,
            "effect": "read", "guards": {}, "context": [], "errors": {},
            "returns": {"type": "object", "properties": {}},
            "model": {"description": "t", "parameters": {"type": "object", "properties": {
                "p": {"type": "string", "description": "one\n# two"}}}},
            "examples": [{"args": {"p": "`x`"}, "rejected_on": None, "note": "n\n# m"}],
        }],
    }  # fmt: skip
    sim = {"tools": ["t"], "pairs": [], "not_when": []}
    written = templating.render(
        "review/reference.md.jinja", **review_page.page_model(shot, [], sim)
    )
    assert "\n#" not in written.split("## t", 1)[1]  # no heading but the tool's own
