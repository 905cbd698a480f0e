"""The front cache of `build` skips work, never findings and never output: after each edit, a
build that reuses the IR of the unchanged tools reports what a cold build of the same files
reports and writes the same bytes; a cache that is corrupt or truncated is ignored."""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from toolgen import load, pipeline
from toolgen.diagnostics import Diagnostic
from toolgen.frontcache import FrontCache
from toolgen.paths import CACHE_DIR

ROOT = Path(__file__).parent.parent
FOLDER = "spec/inventory"
Edit = Callable[[Path], None]


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _edit_intent(project: Path) -> None:
    tool = project / FOLDER / "tools/read_stock.yaml"
    _replace(tool, "intent: ", "intent: Quickly, ")


def _edit_catalogue(project: Path) -> None:
    _replace(
        project / FOLDER / "catalogue.yaml",
        "The identifier of the current agent run",
        "The id of the agent run under way",
    )


def _add_suppression(project: Path) -> None:
    # a suppression of a rule that finds nothing: the unused-suppression rule reports it
    with (project / FOLDER / "tools/find_customer.yaml").open("a") as file:
        file.write(
            "suppress:\n  - rule: TG203\n    reason: the name is the lesson's.\n"
        )


def _edit_implementation(project: Path) -> None:
    # the implementation becomes a stub again: the build says so (TG151)
    impl = project / "impl/inventory/read_stock.py"
    impl.write_text(
        "from generated.inventory.read_stock import ReadStockArgs\n\n\n"
        "def read_stock(args: ReadStockArgs) -> None:\n"
        "    raise NotImplementedError\n",
        encoding="utf-8",
    )


def _break_tool(project: Path) -> None:
    _replace(project / FOLDER / "tools/next_batch.yaml", "effect: ", "efect: ")


def _mend_tool(project: Path) -> None:
    _replace(project / FOLDER / "tools/next_batch.yaml", "efect: ", "effect: ")


def _rename_tool(project: Path) -> None:
    # two files now give the same name: both are blamed, neither may be kept
    _replace(
        project / FOLDER / "tools/read_stock.yaml",
        "name: read_stock",
        "name: next_batch",
    )


EDITS: dict[str, list[Edit]] = {
    "one tool": [_edit_intent],
    "catalogue.yaml": [_edit_catalogue],
    "a suppression": [_add_suppression],
    "an implementation": [_edit_implementation],
    "a broken tool, then mended": [_break_tool, _mend_tool],
    "a duplicate name": [_rename_tool],
}


def _project(base: Path, name: str) -> Path:
    root = base / name
    shutil.copytree(ROOT / "spec", root / "spec")
    shutil.copytree(ROOT / "impl", root / "impl")
    return root


def _build(root: Path) -> tuple[tuple[Diagnostic, ...], dict[str, bytes]]:
    with pipeline.building(root):
        built = pipeline.build_catalogue(root / FOLDER, root)
    assert built.failure is None
    files = {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and CACHE_DIR not in path.parts
        and "__pycache__" not in path.parts
    }
    return built.diagnostics, files


def _cold_copy(base: Path, warm: Path) -> Path:
    """`warm` as it is (spec, implementations, what earlier builds generated) without its
    caches: building it is a cold build of the same files."""
    cold = base / "cold"
    shutil.rmtree(cold, ignore_errors=True)
    shutil.copytree(warm, cold, ignore=shutil.ignore_patterns(CACHE_DIR, "__pycache__"))
    return cold


@pytest.mark.parametrize("edits", EDITS.values(), ids=EDITS.keys())
def test_a_warm_build_equals_a_cold_one(tmp_path: Path, edits: list[Edit]) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _build(warm)  # every tool's IR now comes from the cache
    for edit in edits:
        edit(warm)
        cold = _cold_copy(tmp_path, warm)
        diagnostics, files = _build(warm)
        cold_diagnostics, cold_files = _build(cold)
        assert diagnostics == cold_diagnostics
        assert files.keys() == cold_files.keys()
        assert files == cold_files


def test_unchanged_tools_are_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _edit_intent(warm)
    parsed: list[str] = []
    real = load._parse

    def spy(text: str, file: str) -> object:
        parsed.append(file)
        return real(text, file)

    monkeypatch.setattr(load, "_parse", spy)
    _build(warm)
    assert parsed == [f"{FOLDER}/catalogue.yaml", f"{FOLDER}/tools/read_stock.yaml"]


def _cache_file(root: Path) -> Path:
    return FrontCache(root, FOLDER).path


CORRUPTIONS: dict[str, Callable[[bytes], bytes]] = {
    "truncated": lambda data: data[: len(data) // 2],
    "garbage": lambda data: b"\x80\x05not a pickle at all" + data[:100],
    "empty": lambda data: b"",
    "another shape": lambda data: pickle.dumps({"key": "x", "tools": [1, 2]}),
    "a corrupt entry": lambda data: _corrupt_entry(data),
}


def _corrupt_entry(data: bytes) -> bytes:
    stored = pickle.loads(data)
    file, (digest, blob) = next(iter(stored["tools"].items()))
    stored["tools"][file] = (digest, blob[: len(blob) // 3])
    return pickle.dumps(stored)


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_a_corrupt_cache_is_ignored(
    tmp_path: Path, corrupt: Callable[[bytes], bytes]
) -> None:
    warm = _project(tmp_path, "warm")
    _build(warm)
    _edit_intent(warm)
    cache = _cache_file(warm)
    cache.write_bytes(corrupt(cache.read_bytes()))
    cold = _cold_copy(tmp_path, warm)
    assert _build(warm) == _build(cold)
    # and the build wrote a whole cache again
    stored = pickle.loads(cache.read_bytes())
    assert sorted(stored["tools"]) == sorted(
        f"{FOLDER}/tools/{path.name}"
        for path in (warm / FOLDER / "tools").glob("*.yaml")
    )
    assert all(pickle.loads(blob) for _, blob in stored["tools"].values())


def test_check_only_reads_and_writes_no_cache(tmp_path: Path) -> None:
    root = _project(tmp_path, "p")
    built = pipeline.build_catalogue(root / FOLDER, root, check_only=True)
    assert built.check.catalogue is not None
    assert not _cache_file(root).exists()
