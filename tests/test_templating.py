"""Compiled templates kept in a build's cache folder (templating.keep_compiled): the same
output from a kept entry as from a compile, a damaged entry compiled again, and no entry
written by a run that keeps no cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from toolgen import templating


@pytest.fixture
def fresh_environment() -> Iterator[None]:
    templating.environment.cache_clear()
    yield
    templating.environment.cache_clear()


def _render() -> str:
    return templating.render("tests_init.py.jinja", module_doc="The doc.")


def test_a_kept_template_renders_what_a_compiled_one_does(
    tmp_path: Path, fresh_environment: object
) -> None:
    expected = _render()
    templating.environment.cache_clear()
    templating.keep_compiled(tmp_path)
    assert _render() == expected
    kept = list(tmp_path.glob("*.jinja-compiled"))
    assert len(kept) == 1
    templating.environment.cache_clear()  # a new process: read from the folder
    templating.keep_compiled(tmp_path)
    loaded: list[str] = []
    cache = templating.environment().bytecode_cache
    assert cache is not None
    real = cache.load_bytecode

    def spy(bucket: object) -> None:
        real(bucket)  # type: ignore[arg-type]
        loaded.append("code" if bucket.code is not None else "none")  # type: ignore[attr-defined]

    cache.load_bytecode = spy  # type: ignore[method-assign]
    assert _render() == expected
    assert loaded == ["code"]


@pytest.mark.parametrize(
    "damage",
    [b"", b"garbage", b"j2\x00" + b"\xff" * 40],
    ids=["empty", "garbage", "truncated marshal"],
)
def test_a_damaged_entry_is_compiled_again(
    tmp_path: Path, fresh_environment: object, damage: bytes
) -> None:
    expected = _render()
    templating.environment.cache_clear()
    templating.keep_compiled(tmp_path)
    _render()
    (entry,) = tmp_path.glob("*.jinja-compiled")
    entry.write_bytes(damage)
    templating.environment.cache_clear()
    templating.keep_compiled(tmp_path)
    assert _render() == expected
    assert entry.read_bytes() != damage  # replaced by a good one


def test_no_cache_writes_nothing_and_a_folder_that_cannot_be_written_is_no_error(
    tmp_path: Path, fresh_environment: object
) -> None:
    templating.keep_compiled(None)
    _render()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    templating.environment.cache_clear()
    templating.keep_compiled(blocked / "templates")
    assert _render() == templating.render("tests_init.py.jinja", module_doc="The doc.")
    assert blocked.read_text() == "not a folder"
