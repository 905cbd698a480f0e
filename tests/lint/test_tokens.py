"""Token counts: what the SDK sends, counted offline, once per process, fast enough for 1,000
tools."""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from agents.models.openai_responses import Converter
from synthetic import write_catalogue

from toolgen import pipeline, tokens
from toolgen.ir import Catalogue
from toolgen.lint import engine

ROOT = Path(__file__).resolve().parents[2]


def _inventory() -> Catalogue:
    result = pipeline.check_catalogue(
        ROOT / "spec" / "inventory", ROOT, implementations=False
    )
    assert result.catalogue is not None
    return result.catalogue


@pytest.mark.parametrize("tool", _inventory().tools, ids=lambda t: t.name)
def test_the_payload_is_what_the_sdk_sends_to_the_responses_api(tool: object) -> None:
    from toolgen.ir import Tool

    assert isinstance(tool, Tool)
    module = importlib.import_module(f"generated.inventory.{tool.py.module}")
    sent = Converter.convert_tools([module.build_tool()], []).tools
    assert sent == [tokens.tool_payload(tool)]


@pytest.mark.filterwarnings(
    "ignore::DeprecationWarning"
)  # bpe_openai's own resource access
def test_counts_agree_with_the_public_tokenizer_api() -> None:
    reference = tokens.public_counter()
    texts = [
        tokens.payload_text(tokens.tool_payload(t)) for t in _inventory().tools
    ] + ["", "héllo wörld", "a <|endoftext|> marker is plain text here", "SKU-11 " * 50]
    for text in texts:
        assert tokens.count(text) == reference.count(text), text


@pytest.fixture
def prefetched() -> Iterator[None]:
    """A tokenizer loading in a child, as a rebuild starts one; this process's own is set
    aside meanwhile, so that the counts come from the child."""
    loaded = tokens._loaded
    tokens._loaded = None
    tokens.prefetch()
    try:
        yield
    finally:
        tokens.finish()
        tokens._loaded = loaded


@pytest.mark.usefixtures("prefetched")
def test_a_prefetched_tokenizer_counts_what_this_process_would() -> None:
    assert tokens._server is not None
    texts = [tokens.payload_text(tokens.tool_payload(t)) for t in _inventory().tools]
    texts += ["", "héllo wörld", "a <|endoftext|> marker is plain text here"]
    answered = [tokens._counted(text) for text in texts]
    assert tokens._loaded is None  # the child answered every one
    reference = tokens.public_counter()
    assert answered == [reference.count(text) for text in texts]


@pytest.mark.usefixtures("prefetched")
def test_a_prefetching_child_that_died_costs_only_the_load() -> None:
    import os
    import signal

    assert tokens._server is not None
    os.kill(tokens._server.pid, signal.SIGKILL)
    assert tokens._counted("a text nobody counted") is None
    assert tokens._server is None
    assert tokens.count("hello world, counted here after all") == 7


def test_a_rebuild_after_one_edit_prefetches_and_ends_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build starts the child only when it has few tools to count, and ends it."""
    folder = write_catalogue(tmp_path / "spec" / "many", 30)
    started: list[int] = []
    real = tokens.prefetch
    monkeypatch.setattr(tokens, "_loaded", None)

    def spy() -> None:
        real()
        started.append(0 if tokens._server is None else tokens._server.pid)

    monkeypatch.setattr(tokens, "prefetch", spy)
    first = pipeline.build_catalogue(folder, tmp_path)
    assert first.report is not None and not started  # a first build counts every tool
    tool = sorted((folder / "tools").glob("*.yaml"))[3]
    text = tool.read_text(encoding="utf-8")
    tool.write_text(text.replace("intent: ", "intent: Edited. ", 1), encoding="utf-8")
    monkeypatch.setattr(tokens, "_loaded", None)  # as in the rebuild's own process
    second = pipeline.build_catalogue(folder, tmp_path)
    assert second.report is not None and len(second.report.written) >= 1
    assert len(started) == 1 and started[0] > 0
    assert tokens._loaded is None  # the child counted the edited tool
    assert tokens._server is None  # ended with the build


def test_known_counts() -> None:
    assert tokens.count("") == 0
    assert tokens.count("hello world") == 2
    assert tokens.ENCODING == "o200k_base"


def test_the_payload_is_compact_json() -> None:
    tool = _inventory().tools[0]
    text = tokens.payload_text(tokens.tool_payload(tool))
    assert text.startswith(f'{{"type":"function","name":"{tool.name}","description":')
    assert json.loads(text)["strict"] is True


def test_report_orders_the_most_expensive_tools() -> None:
    report = tokens.measure(_inventory())
    top = report.most_expensive(5)
    assert len(top) == 5
    assert [t.tokens for t in top] == sorted((t.tokens for t in top), reverse=True)
    assert report.total == sum(t.tokens for t in report.tools)
    assert report.by_name()[top[0].name] == top[0].tokens


def test_the_encoding_is_loaded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[int] = []
    real = tokens._extension

    def spy() -> object:
        loads.append(1)
        return real()

    monkeypatch.setattr(tokens, "_extension", spy)
    monkeypatch.setattr(tokens, "_loaded", None)
    tokens.count.cache_clear()
    for text in ("one", "two", "three"):
        tokens.count(text)
    assert loads == [1]


def test_a_thousand_tools_lint_and_count_quickly(tmp_path: Path) -> None:
    """Pair rules only see pairs that share an object word (4,500 here, not 499,500); the
    bound is loose so a busy CI machine passes, and a quadratic slip does not."""
    folder = write_catalogue(tmp_path / "synthetic", 1000)
    result = pipeline.check_catalogue(folder, tmp_path, implementations=False)
    assert result.catalogue is not None and len(result.catalogue.tools) == 1000
    tokens.count("warm up")
    tokens.count.cache_clear()
    started = time.perf_counter()
    run = engine.run(result.catalogue)
    elapsed = time.perf_counter() - started
    assert run.tokens.total > 100_000
    assert elapsed < 6.0, f"lint of 1,000 tools took {elapsed:.2f} s"
