"""The write stage: only what changed is written, only toolgen's files are touched (the
manifest proves which), the package changes as a whole, a failed build changes nothing, and
--check writes nothing."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from toolgen import write
from toolgen.manifest import MANIFEST_NAME, read_package
from toolgen.write import RenderedFiles, WriteError

OWNED = '"""The x tool."""\n'


def files(
    owned: dict[str, str], create_once: dict[str, str] | None = None
) -> RenderedFiles:
    return RenderedFiles(
        package="gen", catalogue="spec/x", owned=owned, create_once=create_once or {}
    )


def tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_first_build_writes_everything_and_its_manifest(tmp_path: Path) -> None:
    report = write.write_outputs(
        files({"gen/a.py": OWNED}, {"impl/a.py": "stub\n"}), tmp_path
    )
    assert report.written == ("gen/a.py",)
    assert report.created == ("impl/a.py",)
    assert (tmp_path / "gen/a.py").read_text() == OWNED
    assert (tmp_path / "impl/a.py").read_text() == "stub\n"
    manifest = json.loads((tmp_path / "gen" / MANIFEST_NAME).read_text())
    assert manifest["catalogue"] == "spec/x"
    assert list(manifest["files"]) == ["a.py"]
    assert sorted(tree(tmp_path)) == ["gen/a.py", f"gen/{MANIFEST_NAME}", "impl/a.py"]


def test_files_already_on_disk_are_renamed_into_place_not_written_again(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / ".toolgen-cache" / "format-x"
    scratch.mkdir(parents=True)
    (scratch / "f0.py").write_text(OWNED)
    (scratch / "f1.py").write_text("stub\n")
    inodes = [(scratch / n).stat().st_ino for n in ("f0.py", "f1.py")]
    rendered = replace(
        files({"gen/a.py": OWNED, "gen/b.py": OWNED}, {"impl/a.py": "stub\n"}),
        on_disk={
            "gen/a.py": scratch / "f0.py",
            "impl/a.py": scratch / "f1.py",
            "gen/b.py": scratch / "gone.py",  # not there: written from the text
        },
    )
    report = write.write_outputs(rendered, tmp_path)
    assert report.written == ("gen/a.py", "gen/b.py")
    assert report.created == ("impl/a.py",)
    assert (tmp_path / "gen/a.py").stat().st_ino == inodes[0]
    assert (tmp_path / "impl/a.py").stat().st_ino == inodes[1]
    assert (tmp_path / "gen/b.py").read_text() == OWNED
    assert sorted(p.name for p in scratch.iterdir()) == []
    assert sorted(tree(tmp_path)) == [
        "gen/a.py",
        "gen/b.py",
        f"gen/{MANIFEST_NAME}",
        "impl/a.py",
    ]


def test_unchanged_files_keep_their_inode_and_time(tmp_path: Path) -> None:
    write.write_outputs(files({"gen/a.py": OWNED, "gen/b.py": OWNED}), tmp_path)
    target = tmp_path / "gen/a.py"
    os.utime(target, ns=(1, 1))
    inode = target.stat().st_ino
    report = write.write_outputs(
        files({"gen/a.py": OWNED, "gen/b.py": OWNED + "x = 1\n"}), tmp_path
    )
    assert report.written == ("gen/b.py",) and report.unchanged == 1
    assert target.stat().st_mtime_ns == 1
    assert target.stat().st_ino == inode


def test_a_build_with_nothing_to_change_touches_nothing(tmp_path: Path) -> None:
    plan = files({"gen/a.py": OWNED})
    write.write_outputs(plan, tmp_path)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    report = write.write_outputs(plan, tmp_path)
    assert not report.changed and report.unchanged == 1
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


def test_an_existing_implementation_is_never_overwritten(tmp_path: Path) -> None:
    mine = tmp_path / "impl/a.py"
    mine.parent.mkdir(parents=True)
    mine.write_text("def a(args): return 'mine'\n")
    report = write.write_outputs(files({}, {"impl/a.py": "stub\n"}), tmp_path)
    assert report.created == ()
    assert mine.read_text() == "def a(args): return 'mine'\n"


def test_a_stub_is_never_written_through_a_link(tmp_path: Path) -> None:
    (tmp_path / "impl").mkdir()
    outside = tmp_path / "outside.py"
    (tmp_path / "impl/a.py").symlink_to(outside)  # dangling: would create outside.py
    report = write.write_outputs(files({}, {"impl/a.py": "stub\n"}), tmp_path)
    assert report.created == ()
    assert not outside.exists()


def test_stale_owned_files_are_removed(tmp_path: Path) -> None:
    write.write_outputs(files({"gen/a.py": OWNED, "gen/old.py": OWNED}), tmp_path)
    report = write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    assert report.removed == ("gen/old.py",)
    assert not (tmp_path / "gen/old.py").exists()
    assert list(read_package(tmp_path / "gen").owned) == ["a.py"]


@pytest.mark.parametrize(
    "entry",
    ["helper.py", "a.py", "notes.txt", "sub/deep.py"],
    ids=["beside", "where-a-tool-goes", "not-python", "in-a-sub-folder"],
)
def test_a_file_toolgen_did_not_write_stops_the_build(
    tmp_path: Path, entry: str
) -> None:
    """Whatever its first lines say: a copied header proves nothing."""
    write.write_outputs(files({"gen/b.py": OWNED}), tmp_path)
    theirs = tmp_path / "gen" / entry
    theirs.parent.mkdir(parents=True, exist_ok=True)
    theirs.write_text('"""The x tool, generated by toolgen from spec/x.yaml."""\n')
    before = tree(tmp_path)
    with pytest.raises(WriteError, match="not written by toolgen"):
        write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    assert tree(tmp_path) == before


def test_python_caches_are_not_foreign(tmp_path: Path) -> None:
    write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    cache = tmp_path / "gen/__pycache__/a.cpython-311.pyc"
    cache.parent.mkdir()
    cache.write_bytes(b"\0")
    report = write.write_outputs(files({"gen/a.py": OWNED + "x = 1\n"}), tmp_path)
    assert report.written == ("gen/a.py",)


def test_a_package_without_manifest_is_not_toolgens(tmp_path: Path) -> None:
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen/a.py").write_text(OWNED)
    with pytest.raises(WriteError, match=r"gen/a\.py"):
        write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)


def test_a_broken_manifest_proves_nothing(tmp_path: Path) -> None:
    write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    (tmp_path / "gen" / MANIFEST_NAME).write_text("{not json")
    before = tree(tmp_path)
    with pytest.raises(WriteError):
        write.write_outputs(files({"gen/a.py": OWNED + "x = 1\n"}), tmp_path)
    assert tree(tmp_path) == before


def test_a_manifest_cannot_claim_files_outside_the_package(tmp_path: Path) -> None:
    write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    manifest = tmp_path / "gen" / MANIFEST_NAME
    data = json.loads(manifest.read_text())
    data["files"]["../impl/mine.py"] = "0" * 32
    manifest.write_text(json.dumps(data))
    state = read_package(tmp_path / "gen")
    assert state.manifest is None and state.manifest_problem is not None


def test_check_mode_writes_nothing_and_shows_the_drift(tmp_path: Path) -> None:
    write.write_outputs(files({"gen/a.py": OWNED + "x = 1\n"}), tmp_path)
    before = tree(tmp_path)
    report = write.check_outputs(
        files({"gen/a.py": OWNED}, {"impl/a.py": "s\n"}), tmp_path
    )
    assert report.changed
    assert "--- a/gen/a.py" in report.diff and "-x = 1" in report.diff
    assert "+++ b/impl/a.py" in report.diff
    assert tree(tmp_path) == before


class Failing(write.FileSystem):
    """The disk fails at the n-th change a build makes (full, or read-only)."""

    def __init__(self, at: int, code: int) -> None:
        super().__init__()
        self.at = at
        self.code = code
        self.count = 0

    def _step(self, path: Path) -> None:
        self.count += 1
        if self.count == self.at:
            raise OSError(self.code, os.strerror(self.code), str(path))

    def write_new(self, path: Path, text: str) -> None:
        self._step(path)
        super().write_new(path, text)

    def link(self, source: Path, target: Path) -> None:
        self._step(target)
        super().link(source, target)

    def mkdir(self, path: Path) -> None:
        self._step(path)
        super().mkdir(path)

    def exchange(self, first: Path, second: Path) -> bool:
        self._step(second)
        return super().exchange(first, second)


def _steps(monkeypatch: pytest.MonkeyPatch, make: Callable[[], None]) -> int:
    counter = Failing(at=-1, code=0)
    monkeypatch.setattr(write, "FS", counter)
    make()
    return counter.count


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_failing_disk_at_any_step_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    old = files({"gen/a.py": OWNED, "gen/b.py": OWNED}, {})
    write.write_outputs(old, tmp_path)
    new = files(
        {"gen/a.py": OWNED, "gen/b.py": OWNED + "x = 1\n", "gen/c.py": OWNED},
        {"impl/c.py": "stub\n"},
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    write.write_outputs(old, scratch)
    steps = _steps(monkeypatch, lambda: write.write_outputs(new, scratch))
    assert steps > 5
    before = tree(tmp_path)
    for at in range(1, steps):
        monkeypatch.setattr(write, "FS", Failing(at, code))
        try:
            write.write_outputs(new, tmp_path)
        except WriteError as exc:
            assert "nothing was changed" in str(exc)
            assert tree(tmp_path) == before, f"failure at step {at}"
        else:
            # the failure hit a step after the switch (removing the old tree): the new
            # tree is complete, and the next build cleans up
            monkeypatch.setattr(write, "FS", write.FileSystem())
            write.recover(tmp_path)
            assert tree(tmp_path)["gen/c.py"] == OWNED
            return
    raise AssertionError("no step after the switch was reached")


def test_the_error_names_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class FullDisk(write.FileSystem):
        def write_new(self, path: Path, text: str) -> None:
            if ".toolgen-new-" in str(path):  # a staged file of the package
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
            super().write_new(path, text)

    monkeypatch.setattr(write, "FS", FullDisk())
    with pytest.raises(WriteError) as caught:
        write.write_outputs(files({"gen/a.py": OWNED, "gen/b.py": OWNED}), tmp_path)
    assert "no space left on the device; nothing was changed" in str(caught.value)
    assert str(caught.value).startswith("cannot write gen/")


def test_recover_removes_what_an_interrupted_build_left(tmp_path: Path) -> None:
    write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    stage = tmp_path / ".gen.toolgen-new-1-ab"
    stage.mkdir()
    (stage / "a.py").write_text("half")
    temp = tmp_path / "impl/.a.py.toolgen-1-ab.tmp"
    temp.parent.mkdir()
    temp.write_text("half")
    journal = tmp_path / write.JOURNAL
    journal.parent.mkdir(exist_ok=True)
    journal.write_text(
        json.dumps({"leftovers": [stage.name, "impl/.a.py.toolgen-1-ab.tmp", "../x"]})
    )
    removed = write.recover(tmp_path)
    assert removed == [stage.name, "impl/.a.py.toolgen-1-ab.tmp"]
    assert not stage.exists() and not temp.exists() and not journal.exists()
    assert (tmp_path / "gen/a.py").read_text() == OWNED


def test_recover_puts_the_old_tree_back_after_a_kill_between_two_renames(
    tmp_path: Path,
) -> None:
    write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    os.rename(tmp_path / "gen", tmp_path / ".gen.toolgen-old-1-ab")
    journal = tmp_path / write.JOURNAL
    journal.write_text(
        json.dumps(
            {
                "leftovers": [".gen.toolgen-old-1-ab"],
                "aside": ["gen", ".gen.toolgen-old-1-ab"],
            }
        )
    )
    write.recover(tmp_path)
    assert (tmp_path / "gen/a.py").read_text() == OWNED


def test_without_an_atomic_exchange_the_switch_still_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class NoExchange(write.FileSystem):
        def exchange(self, first: Path, second: Path) -> bool:
            return False

    write.write_outputs(files({"gen/a.py": OWNED}), tmp_path)
    monkeypatch.setattr(write, "FS", NoExchange())
    write.write_outputs(files({"gen/a.py": OWNED + "x = 1\n"}), tmp_path)
    assert (tmp_path / "gen/a.py").read_text() == OWNED + "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".toolgen-cache", "gen"]


def test_an_unwritable_cache_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".toolgen-cache").write_text("not a folder")
    report = write.write_outputs(
        RenderedFiles(
            "gen", "spec/x", {"gen/a.py": OWNED}, {}, (".toolgen-cache/c.json", "{}")
        ),
        tmp_path,
    )
    assert report.written == ("gen/a.py",)
    assert any("cache" in w for w in report.warnings)


class _Recording(write.FileSystem):
    def __init__(self) -> None:
        super().__init__()
        self.written: list[str] = []

    def write_new(self, path: Path, text: str) -> None:
        self.written.append(path.name)
        super().write_new(path, text)


def test_a_first_build_writes_no_generated_file_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ruff formats each file in toolgen's cache folder; the build renames those files into
    # place instead of writing them again
    from toolgen import pipeline

    root = Path(__file__).resolve().parents[1]
    folder = tmp_path / "spec" / "shop"
    (folder / "tools").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    source = root / "spec" / "inventory"
    (folder / "catalogue.yaml").write_text(
        (source / "catalogue.yaml").read_text().replace("name: inventory", "name: shop")
    )
    for tool in ("find_customer", "read_stock", "create_reorder"):
        (folder / "tools" / f"{tool}.yaml").write_text(
            (source / "tools" / f"{tool}.yaml").read_text()
        )
    recording = _Recording()
    monkeypatch.setattr(write, "FS", recording)
    with pipeline.building(tmp_path):
        built = pipeline.build_catalogue(folder, tmp_path)
    assert built.report is not None and built.failure is None
    assert len(built.report.written) > 3 and len(built.report.created) >= 3
    # every Python file came from the formatter but the cards module, assembled from the
    # entries formatted one tool at a time (render/modules.py); what is written here is
    # that and the JSON a build keeps (manifest, lock file, caches, journal), as many
    # whatever the number of tools
    assert [n for n in recording.written if n.endswith(".py")] == ["_cards.py"]
    assert MANIFEST_NAME in recording.written and len(recording.written) <= 7
    # no scratch folder is left, only the compiled templates a build keeps
    folders = [p.name for p in (tmp_path / ".toolgen-cache").iterdir() if p.is_dir()]
    assert folders == ["templates"]
