"""The stages before lint of a first build in two processes (ahead.py): the diagnostics, the
files and the front cache of the serial path, whatever the tool files hold, and a child that
fails changes nothing but the time."""

from __future__ import annotations

import io
import os
import pickle
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from toolgen import ahead, frontcache, limits, load, parallel, pipeline
from toolgen.diagnostics import Diagnostic
from toolgen.frontcache import FrontCache
from toolgen.ir import Tool
from toolgen.paths import CACHE_DIR
from toolgen.pieces import CARD, IMPLEMENTATION, LOCK, TOKENS, ToolPieces
from toolgen.progress import Progress

sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
import catalogue as bench_catalogue

REALWORLD = Path(__file__).parent / "lint/realworld/catalogues"
FOLDER = "spec/bench"

pytestmark = pytest.mark.skipif(
    not parallel.worth_it(1, 1),
    reason="this machine has one core (or no fork): a build never forks",
)


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _broken_bench(root: Path) -> None:
    """A bench catalogue of 60 tools with something wrong in files of both halves: what
    load, the format check, the checks over one tool and those of the catalogue find."""
    tools = bench_catalogue.write_catalogue(root, 60) / "tools"
    files = sorted(tools.glob("*.yaml"))
    first, last = files[3], files[-2]
    # load: a YAML error, in the child's half and in the parent's
    (tools / "zz_syntax.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    _replace(files[5], "intent:", "intent: [\nintent:")
    # the format check: an unknown key
    _replace(files[-5], "effect:", "colour: red\neffect:")
    # a check over one tool: an example that breaks its own contract (create tools)
    creating = [f for f in files if f.name.startswith("create_")]
    _replace(creating[-1], "sku: SKU-11", "sku: nope")
    _replace(creating[0], "sku: SKU-11", "sku: nope")
    # a check of the catalogue on a file that passes its own: an unknown tool, a tool
    # name twice (the copy in the child's half)
    text = last.read_text(encoding="utf-8")
    assert "  use: " in text
    last.write_text(
        text.replace("  use: ", "  use: read_nothing_", 1), encoding="utf-8"
    )
    shutil.copy(first, tools / "zz_copy_of_a_tool.yaml")


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and CACHE_DIR not in p.parts and "__pycache__" not in p.parts
    }


def _front(root: Path, folder: str) -> dict[str, object]:
    """What the front cache's shards hold, by shard file."""
    front = FrontCache(root, folder)
    stored: dict[str, object] = {}
    for index in range(frontcache.SHARDS):
        path = front.shard_path(index)
        if path.exists():
            stored[path.name] = pickle.loads(frontcache._checked(path.read_bytes()))
    assert stored
    return stored


def _build(root: Path, folder: str) -> tuple[tuple[Diagnostic, ...], dict[str, bytes]]:
    with pipeline.building(root):
        built = pipeline.build_catalogue(root / folder, root)
    assert built.failure is None
    return built.diagnostics, _tree(root)


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many tools each build that made some ahead adopted, in order."""
    adopted: list[int] = []
    real = frontcache.adopt

    def spy(front: FrontCache, made: dict[str, frontcache.Made]) -> dict[str, str]:
        adopted.append(len(made))
        return real(front, made)

    monkeypatch.setattr(frontcache, "adopt", spy)
    return adopted


def _same_as_serial(
    source: Path,
    base: Path,
    folder: str,
    monkeypatch: pytest.MonkeyPatch,
    start: Callable[[Callable[[], object]], parallel.Child[object]] | None = None,
) -> list[int]:
    """Build `source` (a project) serially and in two processes: the same diagnostics,
    files and front cache, first build and rebuild."""
    monkeypatch.setattr(ahead, "PARALLEL_FILES", 1)
    adopted = _spy(monkeypatch)
    results = []
    for serial in (True, False):
        root = base / ("serial" if serial else "forked")
        shutil.copytree(source, root)
        monkeypatch.setenv("TOOLGEN_SERIAL", "1" if serial else "0")
        if start is not None and not serial:
            monkeypatch.setattr(parallel, "start", start)
        first = _build(root, folder)
        front = _front(root, folder)
        again = _build(root, folder)
        results.append((first, front, again))
    assert results[0][0][0] == results[1][0][0]  # diagnostics, in order
    assert results[0][0][1] == results[1][0][1]  # files
    assert results[0][1] == results[1][1]  # what the front cache keeps
    assert results[0][2] == results[1][2]  # a rebuild from that cache
    # the serial builds made nothing ahead, the forked first build did (its rebuild too,
    # when files with findings are left)
    assert adopted and adopted[0] > 0
    return adopted


def test_a_first_build_with_findings_in_both_halves_is_the_serial_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _broken_bench(tmp_path / "source")
    adopted = _same_as_serial(tmp_path / "source", tmp_path, FOLDER, monkeypatch)
    diagnostics, _ = _build(tmp_path / "forked", FOLDER)
    codes = {d.code for d in diagnostics}
    assert {"TG001", "TG101", "TG112", "TG113"} <= codes, codes
    # every file with a finding of its own was left to the pipeline
    assert 40 < adopted[0] < 60


def test_real_catalogues_with_lint_findings_are_built_as_serially(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for case in ("github_mcp_server", "tau_bench_retail"):
        source = tmp_path / case / "source"
        shutil.copytree(REALWORLD / case, source / "spec" / case)
        _same_as_serial(source, tmp_path / case, f"spec/{case}", monkeypatch)
        monkeypatch.undo()


def _die() -> int:
    os._exit(3)


def test_a_child_that_dies_leaves_its_files_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _broken_bench(tmp_path / "source")
    real_start = parallel.start

    def dying(work: Callable[[], object]) -> parallel.Child[object]:
        return real_start(_die)

    adopted = _same_as_serial(
        tmp_path / "source", tmp_path, FOLDER, monkeypatch, start=dying
    )
    assert 20 < adopted[0] < 32  # the parent's own half only


def test_ir_from_the_child_that_does_not_load_leaves_its_files_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = os.getpid()
    real = frontcache.made

    def damaged(
        tool: Tool, pieces: Mapping[str, object] | None = None
    ) -> frontcache.Made:
        digest, summary, pickled, made = real(tool, pieces)
        if os.getpid() != parent:
            pickled = pickled[:-9]
        return digest, summary, pickled, made

    monkeypatch.setattr(frontcache, "made", damaged)
    _broken_bench(tmp_path / "source")
    adopted = _same_as_serial(tmp_path / "source", tmp_path, FOLDER, monkeypatch)
    assert 20 < adopted[0] < 32  # the parent's own half only


def test_a_changed_catalogue_file_drops_what_was_made_under_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # catalogue.yaml edited between the stage that made the IR and load: load reads the
    # tool files again, under the new text
    root = tmp_path / "p"
    folder = bench_catalogue.write_catalogue(root, 30)
    monkeypatch.setattr(ahead, "PARALLEL_FILES", 1)
    monkeypatch.setenv("TOOLGEN_SERIAL", "0")
    front = FrontCache(root, FOLDER)
    made = ahead.made_ahead(folder, FOLDER, root, front, Progress())
    assert made.here
    catalogue = folder / "catalogue.yaml"
    catalogue.write_text(catalogue.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    loaded = load.load_catalogue(folder, FOLDER, root, made.reusable)
    assert not loaded.reused and len(loaded.tools) == 30


def test_a_first_build_shows_the_stage_and_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench_catalogue.write_catalogue(tmp_path, 30)
    monkeypatch.setattr(ahead, "PARALLEL_FILES", 1)
    monkeypatch.setenv("TOOLGEN_SERIAL", "0")
    shown = io.StringIO()
    progress = Progress(shown, verbose=True)
    pipeline.build_catalogue(tmp_path / FOLDER, tmp_path, progress=progress)
    stages = [stage for _, stage, _ in progress.times]
    assert stages[:3] == ["ahead", "load", "validate"]
    assert "ahead: " in shown.getvalue() and " 30 tools" in shown.getvalue()


def test_check_and_build_check_make_ahead_too_and_keep_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ahead, "PARALLEL_FILES", 1)
    adopted = _spy(monkeypatch)
    broken, clean = tmp_path / "broken", tmp_path / "clean"
    _broken_bench(broken)
    bench_catalogue.write_catalogue(clean, 60)
    results = []
    for serial in (True, False):
        monkeypatch.setenv("TOOLGEN_SERIAL", "1" if serial else "0")
        checked = pipeline.check_catalogue(broken / FOLDER, broken)
        built = pipeline.build_catalogue(clean / FOLDER, clean, check_only=True)
        assert built.files is not None and built.report is not None
        files = (built.files.owned, built.files.create_once)
        results.append((checked.diagnostics, built.diagnostics, files, built.report))
    assert results[0] == results[1]
    assert len(adopted) == 2 and 40 < adopted[0] < 60 and adopted[1] == 60
    for root in (broken, clean):  # nothing read or written
        assert not list(root.glob(f"{CACHE_DIR}/front-*"))


def test_more_tool_files_than_a_catalogue_may_have_are_not_made_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench_catalogue.write_catalogue(tmp_path, 30)
    monkeypatch.setattr(ahead, "PARALLEL_FILES", 1)
    monkeypatch.setattr(limits, "MAX_TOOLS", 20)
    monkeypatch.setenv("TOOLGEN_SERIAL", "0")
    adopted = _spy(monkeypatch)
    checked = pipeline.check_catalogue(tmp_path / FOLDER, tmp_path)
    assert [d.code for d in checked.diagnostics] == ["TG011"]
    assert adopted == []


@pytest.mark.parametrize("check_only", [False, True], ids=["build", "build --check"])
def test_the_pieces_of_tools_made_ahead_are_not_made_again_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check_only: bool
) -> None:
    # the token count, card and lockfile entry of each tool made ahead come with its IR, and
    # the implementation check of each stub with the stub: the catalogue-wide lint rules and
    # files and the check after the write, serial in the parent, make none of them
    bench_catalogue.write_catalogue(tmp_path, 30)
    monkeypatch.setattr(ahead, "PARALLEL_FILES", 1)
    monkeypatch.setenv("TOOLGEN_SERIAL", "0")
    after_ahead: list[str] = []
    made_after: list[tuple[str, str]] = []
    real_ahead, real_get, real_get_all = (
        ahead.made_ahead,
        ToolPieces.get,
        ToolPieces.get_all,
    )

    def made_ahead(*args: Any, **named: Any) -> ahead.Ahead:
        done = real_ahead(*args, **named)
        after_ahead.append("yes")
        return done

    def spied(kind: str, make: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def spy(made_of: Any) -> Any:
            for tool in made_of if isinstance(made_of, list) else [made_of]:
                if after_ahead and not tool.derived:
                    made_after.append((kind, tool.name))
            return make(made_of)

        return spy

    def get(self: ToolPieces, tool: Tool, kind: str, make: Any, fits: Any) -> Any:
        return real_get(self, tool, kind, spied(kind, make), fits)

    def get_all(self: ToolPieces, tools: Any, kind: str, make: Any, fits: Any) -> Any:
        return real_get_all(self, tools, kind, spied(kind, make), fits)

    monkeypatch.setattr(ahead, "made_ahead", made_ahead)
    monkeypatch.setattr(ToolPieces, "get", get)
    monkeypatch.setattr(ToolPieces, "get_all", get_all)
    built = pipeline.build_catalogue(tmp_path / FOLDER, tmp_path, check_only=check_only)
    assert built.failure is None and built.files is not None
    assert after_ahead and built.check.pieces is not None
    assert made_after == []
    if not check_only:  # every piece asked for is kept for the next build
        kept = built.check.pieces.to_keep(
            "spec/bench/tools/" + _first_tool_file(tmp_path)
        )
        assert {CARD, LOCK, TOKENS, IMPLEMENTATION} <= set(kept)


def _first_tool_file(root: Path) -> str:
    return sorted(p.name for p in (root / FOLDER / "tools").iterdir())[0]
