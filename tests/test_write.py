"""The write stage: only what changed is written, only toolgen's files are touched (the
manifest proves which), the package changes as a whole, a failed build changes nothing, and
--check writes nothing."""

from __future__ import annotations

import errno
import json
import os
import shutil
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
    # no scratch folder is left, only the compiled templates a build keeps (written by the
    # first build of a process only: a test run earlier in this one may have compiled them)
    folders = [p.name for p in (tmp_path / ".toolgen-cache").iterdir() if p.is_dir()]
    assert folders in ([], ["templates"])


# --- the replaced tree, kept as the next build's staging base -------------------------------

KEPT = {"gen/a.py": OWNED, "gen/b.py": OWNED, "gen/sub/c.py": OWNED}


def _edit(n: int) -> RenderedFiles:
    return files({**KEPT, "gen/b.py": OWNED + f"x = {n}\n"})


def _package(root: Path) -> dict[str, str]:
    base = root / "gen"
    found = {}
    for path in sorted(base.rglob("*")):
        assert not path.is_symlink(), path
        if path.is_file():
            found[path.relative_to(base).as_posix()] = path.read_text()
    return found


def _clean_build(
    tmp_path: Path, rendered: RenderedFiles, name: str = "clean"
) -> dict[str, str]:
    clean = tmp_path / name
    clean.mkdir()
    write.write_outputs(rendered, clean)
    return _package(clean)


class _Counting(write.FileSystem):
    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[str, list[str]] = {}

    def _count(self, name: str, path: Path) -> None:
        self.calls.setdefault(name, []).append(path.name)

    def link(self, source: Path, target: Path) -> None:
        self._count("link", target)
        super().link(source, target)

    def unlink(self, path: Path) -> None:
        self._count("unlink", path)
        super().unlink(path)

    def write_new(self, path: Path, text: str) -> None:
        self._count("write_new", path)
        super().write_new(path, text)

    def rmtree(self, path: Path) -> None:
        self._count("rmtree", path)
        super().rmtree(path)


def test_a_rebuild_after_one_edit_reuses_the_kept_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write.write_outputs(files(KEPT), tmp_path)
    kept = write.kept_tree(tmp_path, "gen")
    assert not kept.exists()  # a first build replaces nothing
    first = write.write_outputs(_edit(1), tmp_path)
    # the replaced tree is kept: links to the unchanged files, the old b.py and manifest
    assert first.linked == ("gen/a.py", "gen/sub/c.py")
    assert kept.is_dir() and (kept / "a.py").samefile(tmp_path / "gen/a.py")
    assert (kept / "b.py").read_text() == OWNED
    inode = (tmp_path / "gen/a.py").stat()
    counting = _Counting()
    monkeypatch.setattr(write, "FS", counting)
    report = write.write_outputs(_edit(2), tmp_path)
    assert report.written == ("gen/b.py",) and report.unchanged == 2
    # a.py and sub/c.py stayed in the kept tree as they were: no link, no removal
    assert report.linked == ()
    assert "link" not in counting.calls and "rmtree" not in counting.calls
    staged = {
        name: sorted(n for n in names if not n.startswith("journal"))
        for name, names in counting.calls.items()
    }
    assert staged == {
        "unlink": ["b.py", MANIFEST_NAME],
        "write_new": ["b.py", MANIFEST_NAME],
    }
    after = (tmp_path / "gen/a.py").stat()
    assert (after.st_ino, after.st_ctime_ns) == (inode.st_ino, inode.st_ctime_ns)
    assert _package(tmp_path) == _clean_build(tmp_path, _edit(2))
    # the kept tree now holds b.py as the first edit left it
    assert (kept / "b.py").read_text() == OWNED + "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".toolgen-cache",
        "clean",
        "gen",
    ]


def test_a_file_the_last_build_wrote_is_linked_anew(tmp_path: Path) -> None:
    write.write_outputs(files(KEPT), tmp_path)
    write.write_outputs(_edit(1), tmp_path)
    # b.py stays as the last build wrote it: the kept tree holds the b.py before that build,
    # not the package's, so b.py is linked anew
    report = write.write_outputs(
        files({**KEPT, "gen/b.py": OWNED + "x = 1\n", "gen/d.py": OWNED}), tmp_path
    )
    assert report.written == ("gen/d.py",)
    assert report.linked == ("gen/b.py",)
    assert (tmp_path / "gen/b.py").read_text() == OWNED + "x = 1\n"


def _plant_outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    for name in ("a.py", "b.py", "sub/c.py", MANIFEST_NAME):
        (outside / name).write_text("outside\n")
    return outside


def _tamper(kept: Path, outside: Path, how: str) -> None:
    if how == "new-inode":  # a file replaced by other text, a new file
        (kept / "a.py").unlink()
        (kept / "a.py").write_text("tampered\n")
    elif how == "same-text-new-inode":
        (kept / "a.py").unlink()
        (kept / "a.py").write_text(OWNED)
    elif how == "file-link":
        (kept / "a.py").unlink()
        (kept / "a.py").symlink_to(outside / "a.py")
    elif how == "folder-link":
        shutil.rmtree(kept / "sub")
        (kept / "sub").symlink_to(outside / "sub")
    elif how == "extra":
        (kept / "extra.py").write_text("extra\n")
        (kept / "more/deep").mkdir(parents=True)
        (kept / "more/deep/x.py").write_text("extra\n")
        (kept / "__pycache__").mkdir()
    elif how == "fifo":
        (kept / "a.py").unlink()
        os.mkfifo(kept / "a.py")
        os.mkfifo(kept / "sub/fifo")
    elif how == "folder-for-file":
        (kept / "a.py").unlink()
        (kept / "a.py").mkdir()
        (kept / "a.py/x").write_text("x\n")
    elif how == "file-for-folder":
        shutil.rmtree(kept / "sub")
        (kept / "sub").write_text("not a folder\n")
    elif how == "tree-link":
        shutil.rmtree(kept)
        kept.symlink_to(outside)
    elif how == "tree-file":
        shutil.rmtree(kept)
        kept.write_text("not a folder\n")
    elif how == "tree-of-another-package":
        shutil.rmtree(kept)
        shutil.copytree(outside, kept)
    elif how == "partial":  # a build killed while it brought the tree to its plan
        (kept / "a.py").unlink()
        (kept / MANIFEST_NAME).unlink()
    else:
        raise AssertionError(how)


TAMPERS = [
    "new-inode", "same-text-new-inode", "file-link", "folder-link", "extra", "fifo",
    "folder-for-file", "file-for-folder", "tree-link", "tree-file",
    "tree-of-another-package", "partial",
]  # fmt: skip


@pytest.mark.parametrize("how", TAMPERS)
def test_a_tampered_kept_tree_costs_links_never_a_wrong_output(
    tmp_path: Path, how: str
) -> None:
    outside = _plant_outside(tmp_path)
    before = tree(outside)
    write.write_outputs(files(KEPT), tmp_path)
    write.write_outputs(_edit(1), tmp_path)
    kept = write.kept_tree(tmp_path, "gen")
    _tamper(kept, outside, how)
    report = write.write_outputs(_edit(2), tmp_path)
    assert report.written == ("gen/b.py",) and not report.warnings
    assert _package(tmp_path) == _clean_build(tmp_path, _edit(2))
    assert tree(outside) == before and not any(
        p.is_symlink() for p in outside.rglob("*")
    )
    # the package's unchanged files are the ones it had, and the kept tree is a folder again
    assert (tmp_path / "gen/a.py").read_text() == OWNED
    assert kept.is_dir() and not kept.is_symlink()
    assert write.write_outputs(_edit(3), tmp_path).written == ("gen/b.py",)
    assert _package(tmp_path) == _clean_build(tmp_path, _edit(3), "clean-3")


def test_without_an_atomic_exchange_the_kept_tree_serves_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class NoExchange(write.FileSystem):
        def exchange(self, first: Path, second: Path) -> bool:
            return False

    monkeypatch.setattr(write, "FS", NoExchange())
    write.write_outputs(files(KEPT), tmp_path)
    write.write_outputs(_edit(1), tmp_path)
    report = write.write_outputs(_edit(2), tmp_path)
    assert report.written == ("gen/b.py",) and report.linked == ()
    assert _package(tmp_path) == _clean_build(tmp_path, _edit(2))
    assert (write.kept_tree(tmp_path, "gen") / "b.py").read_text() == OWNED + "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".toolgen-cache",
        "clean",
        "gen",
    ]


def test_a_kept_tree_replaced_by_a_link_as_it_is_taken_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = _plant_outside(tmp_path)
    before = tree(outside)

    class Swapped(write.FileSystem):
        def rename(self, source: Path, target: Path) -> None:
            super().rename(source, target)
            if source.name.startswith(write.KEPT_PREFIX) and target.is_dir():
                shutil.rmtree(target)
                target.symlink_to(outside)

    write.write_outputs(files(KEPT), tmp_path)
    write.write_outputs(_edit(1), tmp_path)
    monkeypatch.setattr(write, "FS", Swapped())
    write.write_outputs(_edit(2), tmp_path)
    assert _package(tmp_path) == _clean_build(tmp_path, _edit(2))
    assert tree(outside) == before


def test_a_kept_tree_is_never_used_for_another_package(tmp_path: Path) -> None:
    write.write_outputs(files(KEPT), tmp_path)
    write.write_outputs(_edit(1), tmp_path)
    other = RenderedFiles("other", "spec/y", {"other/a.py": "other\n"}, {})
    write.write_outputs(other, tmp_path)
    write.write_outputs(replace(other, owned={"other/a.py": "other 2\n"}), tmp_path)
    assert write.kept_tree(tmp_path, "other") != write.kept_tree(tmp_path, "gen")
    assert (write.kept_tree(tmp_path, "gen") / "b.py").read_text() == OWNED


def test_check_mode_leaves_the_kept_tree_alone(tmp_path: Path) -> None:
    write.write_outputs(files(KEPT), tmp_path)
    write.write_outputs(_edit(1), tmp_path)
    before = tree(tmp_path)
    assert write.check_outputs(_edit(2), tmp_path).changed
    assert tree(tmp_path) == before


def test_a_replaced_tree_with_a_file_toolgen_did_not_write_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class SavedMeanwhile(write.FileSystem):
        """Someone saves a file into the package just before the switch."""

        def exchange(self, first: Path, second: Path) -> bool:
            (second / "mine.py").write_text("mine\n")
            return super().exchange(first, second)

    write.write_outputs(files(KEPT), tmp_path)
    write.write_outputs(_edit(1), tmp_path)
    monkeypatch.setattr(write, "FS", SavedMeanwhile())
    report = write.write_outputs(_edit(2), tmp_path)
    assert len(report.warnings) == 1 and "mine.py" in report.warnings[0]
    assert not write.kept_tree(tmp_path, "gen").exists()
    left = [p for p in tmp_path.iterdir() if ".toolgen-new-" in p.name]
    assert len(left) == 1 and (left[0] / "mine.py").read_text() == "mine\n"
    monkeypatch.setattr(write, "FS", write.FileSystem())
    shutil.rmtree(left[0])
    assert write.write_outputs(_edit(3), tmp_path).written == ("gen/b.py",)
    assert _package(tmp_path) == _clean_build(tmp_path, _edit(3))


def test_a_cache_on_another_file_system_keeps_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lstat = os.lstat

    def elsewhere(path: str, *args: object, **kwargs: object) -> os.stat_result:
        found = lstat(path, *args, **kwargs)  # type: ignore[arg-type]
        if str(path).endswith(".toolgen-cache"):
            values = list(found)
            values[2] = found.st_dev + 1  # st_dev
            return os.stat_result(values)
        return found

    write.write_outputs(files(KEPT), tmp_path)
    monkeypatch.setattr(os, "lstat", elsewhere)
    report = write.write_outputs(_edit(1), tmp_path)
    assert report.linked == ("gen/a.py", "gen/sub/c.py")
    assert not write.kept_tree(tmp_path, "gen").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".toolgen-cache", "gen"]


class _Killed(BaseException):
    """A kill, as the build sees it: nothing of it runs after (no clean-up)."""


class _Killing(write.FileSystem):
    """Stops the build at the n-th call of any of its file-system methods, or fails it
    there with `code` (an OSError the build handles)."""

    def __init__(self, at: int, code: int = 0) -> None:
        super().__init__()
        self.at = at
        self.code = code
        self.count = 0

    def step(self, path: Path) -> None:
        self.count += 1
        if self.count != self.at:
            return
        if self.code:
            raise OSError(self.code, os.strerror(self.code), str(path))
        raise _Killed


def _stepped(name: str) -> Callable[..., object]:
    method = getattr(write.FileSystem, name)

    def step(self: _Killing, *args: Path) -> object:
        self.step(args[-1] if name != "write_new" else args[0])
        return method(self, *args)

    return step


for _name in ("mkdir", "write_new", "link", "link_new", "exchange", "rename", "replace",
              "unlink", "rmtree"):  # fmt: skip
    setattr(_Killing, _name, _stepped(_name))


def _kept_project(root: Path) -> None:
    """A package built twice: its replaced tree is kept."""
    root.mkdir()
    write.write_outputs(files(KEPT), root)
    write.write_outputs(_edit(1), root)
    assert write.kept_tree(root, "gen").is_dir()


# the next build from the kept tree: b.py changed, c.py changed, d.py new, a.py removed, a
# stub to create; the kept tree holds a stale b.py, links to the others, and a
# __pycache__ folder
NEXT = files(
    {
        "gen/b.py": OWNED + "x = 2\n",
        "gen/sub/c.py": OWNED + "y = 1\n",
        "gen/d.py": OWNED,
    },
    {"impl/d.py": "stub\n"},
)


def _next_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    root = tmp_path / "count"
    _kept_project(root)
    (write.kept_tree(root, "gen") / "__pycache__").mkdir()
    counting = _Killing(at=0)
    monkeypatch.setattr(write, "FS", counting)
    write.write_outputs(NEXT, root)
    monkeypatch.setattr(write, "FS", write.FileSystem())
    return counting.count


def _settled(root: Path, new: dict[str, str]) -> None:
    """After recovery and a normal build: the new package, the stub, nothing else left."""
    write.recover(root)
    write.write_outputs(NEXT, root)
    assert _package(root) == new
    assert (root / "impl/d.py").read_text() == "stub\n"
    assert sorted(p.name for p in root.iterdir()) == [".toolgen-cache", "gen", "impl"]
    # at most the kept tree (none when the build had already switched: nothing to write)
    cache = [p.name for p in (root / ".toolgen-cache").iterdir()]
    assert cache in ([], [write.kept_tree(root, "gen").name])


def test_a_kill_at_every_step_of_a_build_from_the_kept_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = _next_steps(tmp_path, monkeypatch)
    assert steps > 10
    new = _clean_build(tmp_path, NEXT)
    seen = set()
    for at in range(1, steps + 1):
        root = tmp_path / f"at-{at}"
        _kept_project(root)
        (write.kept_tree(root, "gen") / "__pycache__").mkdir()
        old = _package(root)
        monkeypatch.setattr(write, "FS", _Killing(at))
        with pytest.raises(_Killed):
            write.write_outputs(NEXT, root)
        monkeypatch.setattr(write, "FS", write.FileSystem())
        now = _package(root)
        assert now in (old, new), f"killed at step {at}: a mix"
        seen.add("new" if now == new else "old")
        _settled(root, new)
        shutil.rmtree(root)
    assert seen == {"old", "new"}


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_failing_disk_at_every_step_of_a_build_from_the_kept_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    steps = _next_steps(tmp_path, monkeypatch)
    new = _clean_build(tmp_path, NEXT)
    switched = 0
    for at in range(1, steps + 1):
        root = tmp_path / f"at-{at}"
        _kept_project(root)
        before = tree(root / "gen")
        monkeypatch.setattr(write, "FS", _Killing(at, code))
        try:
            write.write_outputs(NEXT, root)
        except WriteError as exc:
            assert "nothing was changed" in str(exc)
            assert tree(root / "gen") == before, f"failure at step {at}"
            assert not (root / "impl/d.py").exists()
        else:
            # the failure hit a step the build does without (taking the kept tree, which
            # then costs the links) or one after the switch: the new tree is complete
            switched += 1
            assert _package(root) == new, f"failure at step {at}"
        monkeypatch.setattr(write, "FS", write.FileSystem())
        _settled(root, new)
        shutil.rmtree(root)
    assert switched


def test_a_file_the_manifest_lists_with_other_text_is_written_without_being_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the last build's manifest says a.py holds other text than wanted: it is not read
    # to find that out; b.py, listed with the text wanted, is read to find it unchanged,
    # and c.py, hand edited to other text, is written back
    first = {"gen/a.py": OWNED, "gen/b.py": OWNED, "gen/c.py": OWNED}
    write.write_outputs(files(first), tmp_path)
    (tmp_path / "gen/c.py").write_text("edited = 1\n")
    read: list[str] = []
    real = write.owned_text

    def spy(path: Path) -> str | None:
        read.append(path.name)
        return real(path)

    monkeypatch.setattr(write, "owned_text", spy)
    changed = '"""The x tool, changed."""\n'
    report = write.write_outputs(files({**first, "gen/a.py": changed}), tmp_path)
    assert sorted(read) == ["b.py", "c.py"]
    assert report.written == ("gen/a.py", "gen/c.py")
    assert (tmp_path / "gen/a.py").read_text() == changed
    assert (tmp_path / "gen/c.py").read_text() == OWNED
