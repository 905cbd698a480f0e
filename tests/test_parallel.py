"""The parallel first build (parallel.py, render_catalogue): the same files as the serial
path, and a child that fails never makes a wrong build."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from toolgen import formatting, parallel, pipeline, render
from toolgen.ir import Catalogue
from toolgen.write import RenderedFiles

GOLDEN = Path(__file__).parent / "golden"
REALWORLD = Path(__file__).parent / "lint/realworld/catalogues"
sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
import catalogue as bench_catalogue  # noqa: E402


def _catalogue(folder: Path, root: Path) -> Catalogue:
    result = pipeline.check_catalogue(folder, root, implementations=False)
    assert result.catalogue is not None
    return result.catalogue


def _render(
    catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch, serial: bool
) -> tuple[RenderedFiles, list[str]]:
    monkeypatch.setenv("TOOLGEN_SERIAL", "1" if serial else "0")
    with formatting.scratch() as keep:
        files = render.render_catalogue(catalogue, keep=keep)
        texts = {**files.owned, **files.create_once}
        on_disk = sorted(
            f"{key}={path.read_text(encoding='utf-8') == texts[key]}"
            for key, path in files.on_disk.items()
        )
        folders = list(keep.folders)
    assert all(not folder.exists() for folder in folders)
    return files, on_disk


def _same(catalogue: Catalogue, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "PARALLEL_UNITS", 1)
    serial, serial_disk = _render(catalogue, monkeypatch, serial=True)
    par, par_disk = _render(catalogue, monkeypatch, serial=False)
    assert list(par.owned.items()) == list(serial.owned.items())
    assert list(par.create_once.items()) == list(serial.create_once.items())
    assert par.cache == serial.cache
    assert par_disk == serial_disk  # same files kept on disk, with the right texts
    assert all(entry.endswith("=True") for entry in par_disk)


@pytest.mark.parametrize("name", ["every_type", "kitchen_sink"])
def test_golden_catalogues_render_the_same_in_two_processes(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = GOLDEN / name
    for folder in sorted(p.parent for p in (root / "spec").glob("*/catalogue.yaml")):
        _same(_catalogue(folder, root), monkeypatch)


def test_a_bench_catalogue_renders_the_same_in_two_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench_catalogue.write_catalogue(tmp_path, 300)
    _same(_catalogue(tmp_path / "spec/bench", tmp_path), monkeypatch)


def _boom() -> int:
    raise ValueError("boom")


def _die() -> int:
    os._exit(3)


def test_a_child_that_raises_or_dies_is_child_failed() -> None:
    for work in (_boom, _die):
        child = parallel.start(work)
        with pytest.raises(parallel.ChildFailed):
            child.result()
        with pytest.raises(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)  # reaped
    assert parallel.start(lambda: 7).result() == 7


def test_a_stopped_child_is_killed_and_reaped() -> None:
    import time

    child = parallel.start(lambda: time.sleep(30))
    child.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)


def _echo_upper() -> Callable[[bytes], bytes]:
    return bytes.upper


def _reaped(pid: int) -> bool:
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        parallel._reap()
        if pid not in parallel._unreaped:
            return True
        time.sleep(0.01)
    return False


def test_a_server_answers_each_question_then_is_stopped_and_reaped() -> None:
    server = parallel.serve(_echo_upper)
    assert server.ask(b"first") == b"FIRST"
    assert server.ask(b"") == b""
    assert server.ask(b"x" * 300_000) == b"X" * 300_000  # more than a pipe holds
    server.stop()
    assert _reaped(server.pid)
    with pytest.raises(parallel.ChildFailed):
        server.ask(b"after the end")


def test_a_server_that_fails_to_set_up_or_dies_is_child_failed() -> None:
    def broken() -> Callable[[bytes], bytes]:
        raise RuntimeError("no tokenizer here")

    for server in (parallel.serve(broken), parallel.serve(_echo_upper)):
        os.kill(server.pid, 9)
        with pytest.raises(parallel.ChildFailed):
            server.ask(b"anyone?")
        assert _reaped(server.pid)


def test_a_process_forked_after_the_server_does_not_talk_to_it() -> None:
    server = parallel.serve(_echo_upper)
    try:

        def ask() -> str:
            try:
                server.ask(b"from the grandchild's sibling")
            except parallel.ChildFailed as exc:
                return str(exc)
            return "answered"

        assert parallel.start(ask).result() == "not this process's child"
        assert server.ask(b"still mine") == b"STILL MINE"
    finally:
        server.stop()


def test_a_failed_child_falls_back_to_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat = _catalogue(GOLDEN / "kitchen_sink/spec/kitchen", GOLDEN / "kitchen_sink")
    monkeypatch.setattr(render, "PARALLEL_UNITS", 1)
    serial, _ = _render(cat, monkeypatch, serial=True)
    real_start = parallel.start
    monkeypatch.setattr(parallel, "start", lambda work: real_start(_die))
    par, disk = _render(cat, monkeypatch, serial=False)
    assert par.owned == serial.owned and par.create_once == serial.create_once
    assert all(entry.endswith("=True") for entry in disk)


def test_a_template_bug_in_the_child_is_the_serial_formatting_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cat = _catalogue(GOLDEN / "kitchen_sink/spec/kitchen", GOLDEN / "kitchen_sink")
    monkeypatch.setattr(render, "PARALLEL_UNITS", 1)
    monkeypatch.setattr(render, "render_tool_tests", lambda c, t: "def broken(:\n")
    monkeypatch.setenv("TOOLGEN_SERIAL", "0")
    with pytest.raises(formatting.FormattingError):
        render.render_catalogue(cat)


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".toolgen-cache" not in p.parts
    }


def test_a_build_in_two_processes_writes_the_tree_a_serial_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the whole pipeline, with a project root: stubs only where missing, the
    formatter's files renamed into place, nothing left in the cache folder."""
    if not parallel.worth_it(1, 1):
        pytest.skip("this machine has one core (or no fork): a build never forks")
    monkeypatch.setattr(render, "PARALLEL_UNITS", 1)
    forks: list[object] = []
    real_start = parallel.start

    def counted(work: Callable[[], object]) -> parallel.Child[object]:
        forks.append(work)
        return real_start(work)

    monkeypatch.setattr(parallel, "start", counted)
    trees = []
    for serial in (True, False):
        root = tmp_path / ("serial" if serial else "parallel")
        bench_catalogue.write_catalogue(root, 40)
        monkeypatch.setenv("TOOLGEN_SERIAL", "1" if serial else "0")
        (root / "impl/bench").mkdir(parents=True)
        kept_stub = root / "impl/bench/create_airportcrate.py"
        kept_stub.write_text("# mine\n", encoding="utf-8")
        built = pipeline.build_catalogue(root / "spec/bench", root)
        assert built.failure is None and built.report is not None
        assert kept_stub.read_text(encoding="utf-8") == "# mine\n"
        leftovers = [p.name for p in (root / ".toolgen-cache").iterdir()]
        assert not [n for n in leftovers if n.startswith(formatting.FORMAT_PREFIX)]
        trees.append(_tree(root))
    assert trees[0] == trees[1]
    assert len(forks) == 1  # the parallel build forked, the serial one did not


def test_lint_in_two_processes_finds_what_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Half of the tools linted in a child: the same diagnostics and the same records,
    for the golden catalogues and a bench one; a child that dies changes nothing."""
    from toolgen.lint import engine

    if not parallel.worth_it(1, 1):
        pytest.skip("this machine has one core (or no fork): lint never forks")
    monkeypatch.setattr(engine, "PARALLEL_TOOLS", 1)
    bench_catalogue.write_catalogue(tmp_path, 60)
    catalogues = [_catalogue(tmp_path / "spec/bench", tmp_path)]
    for name in ("every_type", "kitchen_sink"):
        root = GOLDEN / name
        catalogues.extend(
            _catalogue(p.parent, root)
            for p in sorted(root.glob("spec/*/catalogue.yaml"))
        )
    # real catalogues, with what the lint finds in them
    for folder in sorted(REALWORLD.glob("*/catalogue.yaml")):
        catalogues.append(_catalogue(folder.parent, REALWORLD))
    real_start = parallel.start
    forks: list[object] = []

    def counted(work: Callable[[], object]) -> parallel.Child[object]:
        forks.append(work)
        return real_start(work)

    found = 0
    for catalogue in catalogues:
        monkeypatch.setenv("TOOLGEN_SERIAL", "1")
        serial = engine.run(catalogue)
        found += len(serial.diagnostics)
        monkeypatch.setenv("TOOLGEN_SERIAL", "0")
        forks.clear()
        monkeypatch.setattr(parallel, "start", counted)
        two = engine.run(catalogue)
        assert forks
        assert two.diagnostics == serial.diagnostics
        assert two.kept == serial.kept
        monkeypatch.setattr(parallel, "start", lambda work: real_start(_die))
        fallen_back = engine.run(catalogue)
        assert fallen_back.diagnostics == serial.diagnostics
        assert fallen_back.kept == serial.kept
    assert found > 50  # the catalogues have findings to compare
