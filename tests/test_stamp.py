"""The build stamp: a build with nothing to do says so from digests and writes nothing, and
anything it cannot vouch for makes a full build, which finds what changed."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from toolgen import formatting, implcheck, load, pipeline, stamp, write
from toolgen.cli import main
from toolgen.paths import CACHE_DIR

ROOT = Path(__file__).parent.parent


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(ROOT / "impl", tmp_path / "impl")
    # one implementation missing: the build creates its stub, and reports it (findings to
    # replay)
    (tmp_path / "impl/inventory/next_batch.py").unlink()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def full_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The catalogues that went through the whole pipeline."""
    done: list[str] = []
    real = pipeline.build_catalogue

    def spy(folder: Path, *args: object, **kwargs: object) -> pipeline.BuildResult:
        done.append(folder.name)
        return real(folder, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "build_catalogue", spy)
    return done


def _tree(root: Path) -> dict[str, tuple[int, int, int]]:
    found = {}
    for path in root.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            info = path.stat()
            found[path.relative_to(root).as_posix()] = (
                info.st_ino,
                info.st_mtime_ns,
                info.st_size,
            )
    return found


def _edit_intent(project: Path, tool: str) -> None:
    path = project / f"spec/inventory/tools/{tool}.yaml"
    path.write_text(path.read_text().replace("intent: ", "intent: Now ", 1))


def _hand_edit_keeping_time(module: Path) -> str:
    """Edit a generated file by hand, keeping its size and modification time; returns
    the text it had."""
    text, info = module.read_text(), module.stat()
    module.write_text(text.replace("Tool", "Tocl", 1))
    os.utime(module, ns=(info.st_atime_ns, info.st_mtime_ns))
    return text


def test_nothing_changed_writes_nothing_and_reports_the_same(
    project: Path, full_builds: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["build"])
    capsys.readouterr()
    (stamp,) = (project / CACHE_DIR).glob("built-*.marshal")
    stamp.unlink()
    first = main(["build"])  # a full build that changes nothing, for its report
    out_first, err_first = capsys.readouterr()
    assert "next_batch" in out_first  # the stub's findings
    before = _tree(project)
    again = main(["build"])
    out_again, err_again = capsys.readouterr()
    assert full_builds == ["inventory", "inventory"]
    assert _tree(project) == before  # not a file written, the caches included
    assert (again, out_again) == (first, out_first)
    assert "nothing changed since the last build" in err_again
    assert re.search(r" 0 written, 0 created, 0 removed, \d+ unchanged$", err_first)
    assert err_again.splitlines()[-1].startswith(err_first.splitlines()[-1])


def test_every_format_replays_the_same(
    project: Path, full_builds: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    for fmt in ("json", "sarif", "github"):
        (project / CACHE_DIR).exists() and shutil.rmtree(project / CACHE_DIR)
        main(["build", "--format", fmt])
        full = capsys.readouterr().out
        main(["build", "--format", fmt])
        assert capsys.readouterr().out == full
    assert full_builds == ["inventory"] * 3


def test_an_edited_spec_file_is_built(
    project: Path, full_builds: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["build"])
    _edit_intent(project, "read_stock")
    main(["build"])
    assert full_builds == ["inventory", "inventory"]
    last = capsys.readouterr().err.splitlines()[-1]
    # its module, the cards and the lockfile; the rest unchanged
    assert re.match(
        r"spec/inventory: [1-9]\d* written, 0 created, 0 removed, \d+ unchanged$", last
    )


def test_a_hand_edit_with_its_time_put_back_is_found(
    project: Path, full_builds: list[str]
) -> None:
    """The status vouches for a file only if its change time moved not: writing moves it,
    and no utime call can set it back."""
    main(["build"])
    module = project / "generated/inventory/read_stock.py"
    text = _hand_edit_keeping_time(module)
    main(["build"])
    assert full_builds == ["inventory", "inventory"]
    assert module.read_text() == text


def test_files_kept_as_links_are_not_read_again_to_stamp(
    project: Path, full_builds: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild keeps the files it did not change as hard links, which moves their change
    time; the stamp vouches for them by the rest of their status, and the next build with
    nothing to do still finds nothing to do."""
    main(["build"])
    _edit_intent(project, "read_stock")
    read = _stamp_reads(monkeypatch, project)
    main(["build"])
    package = sorted(r for r in read if r.startswith("generated/inventory/"))
    # what the build wrote without the formatter (cards, lockfile, manifest), not the
    # links (nor, where the clock allows, the formatted module it renamed into place)
    written = {
        "generated/inventory/_cards.py",
        "generated/inventory/toolgen.lock.json",
    }
    assert written <= set(package)
    kept = sum(1 for p in (project / "generated/inventory").rglob("*.py"))
    assert len(package) < kept
    read.clear()
    main(["build"])
    assert full_builds == ["inventory", "inventory"]


def test_a_rebuild_after_one_edit_reads_back_none_of_the_outputs_it_keeps(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The render cache reuses the unchanged tools' files as they are on disk, and the
    implementation check their findings; the stamp vouches for those files by their status,
    so they are not read to prove it. Nor are the unchanged tool files, whose IR the front
    cache keeps."""
    main(["build"])
    _edit_intent(project, "read_stock")
    specs = _spec_reads(monkeypatch)
    read: list[str] = []
    real = Path.read_bytes

    def spy(path: Path) -> bytes:
        if "generated" in path.parts:
            read.append(path.relative_to(project).as_posix())
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", spy)
    checked: list[str] = []
    read_regular = implcheck.read_regular

    def read_implementation(path: Path, *, limit: int) -> bytes:
        checked.append(path.relative_to(project).as_posix())
        return read_regular(path, limit=limit)

    monkeypatch.setattr(implcheck, "read_regular", read_implementation)
    results: list[pipeline.BuildResult] = []
    build = pipeline.build_catalogue

    def kept(*args: object, **kwargs: object) -> pipeline.BuildResult:
        results.append(build(*args, **kwargs))  # type: ignore[arg-type]
        return results[-1]

    monkeypatch.setattr(pipeline, "build_catalogue", kept)
    main(["build"])
    package = sorted((project / "generated/inventory").rglob("*.py"))
    assert len(package) > 10
    assert read == []
    # nor the implementations of unchanged tools (read_stock's is checked again: its
    # tool changed)
    assert checked == ["impl/inventory/read_stock.py"]
    assert specs == ["spec/inventory/tools/read_stock.yaml"]
    (built,) = results
    assert built.report is not None
    assert "generated/inventory/read_stock.py" in built.report.written
    # the texts not read are still there to ask for
    assert built.files is not None
    for path in package:
        rel = path.relative_to(project).as_posix()
        assert built.files.owned[rel] == real(path).decode("utf-8"), rel


def _stamp_reads(monkeypatch: pytest.MonkeyPatch, project: Path) -> list[str]:
    """The files the stamp reads to digest them from now on (project-relative)."""
    read: list[str] = []
    real = stamp._read

    def spy(path: Path) -> bytes:
        read.append(path.relative_to(project).as_posix())
        return real(path)

    monkeypatch.setattr(stamp, "_read", spy)
    return read


def _spec_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tool files load reads from now on (root-relative)."""
    read: list[str] = []
    real = load.read_text

    def spy(
        path: Path, display: str, root: Path | None = None
    ) -> tuple[object, object]:
        if path.parent.name == "tools":
            read.append(display)
        return real(path, display, root)  # type: ignore[return-value]

    monkeypatch.setattr(load, "read_text", spy)
    return read


@pytest.mark.parametrize("change", ["touched", "byte-order mark"])
def test_a_tool_file_the_stamp_cannot_vouch_for_is_read(
    project: Path, change: str, monkeypatch: pytest.MonkeyPatch, parsed: list[str]
) -> None:
    """A tool file whose status moved (its text the same) is read again to know that its
    IR can be reused: by the stamp, whose digest load then takes. One whose bytes are not
    its text (a byte-order mark before them) has another digest than its text, and load
    reads it. Either way its text is the same, so it is not parsed again."""
    spec = project / "spec/inventory/tools/search_orders.yaml"
    if change == "byte-order mark":
        spec.write_bytes(b"\xef\xbb\xbf" + spec.read_bytes())
    main(["build"])
    _edit_intent(project, "read_stock")
    if change == "touched":
        os.utime(spec)
    specs = _spec_reads(monkeypatch)
    digested = _stamp_reads(monkeypatch, project)
    parsed.clear()
    main(["build"])
    edited, other = (
        "spec/inventory/tools/read_stock.yaml",
        "spec/inventory/tools/search_orders.yaml",
    )
    assert edited in digested  # its status moved, and so did the touched one's
    assert (other in digested) == (change == "touched")
    assert sorted(specs) == ([edited] if change == "touched" else [edited, other])
    assert edited in parsed and other not in parsed


def test_a_hand_edit_is_found_though_a_rebuild_kept_the_others_as_links(
    project: Path, full_builds: list[str]
) -> None:
    main(["build"])
    module = project / "generated/inventory/read_stock.py"
    text = _hand_edit_keeping_time(module)
    _edit_intent(project, "search_orders")
    main(["build"])
    assert module.read_text() == text
    main(["build"])  # nothing to do, and the stamp is right about it
    assert full_builds == ["inventory", "inventory"]
    assert module.read_text() == text


def test_a_rebuild_from_the_kept_tree_reads_back_only_what_it_wrote(
    project: Path, full_builds: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second rebuild stages from the tree the first replaced: the files it held as
    links keep their whole status, the ones it links anew are vouched for as links, and
    only what the build wrote is read back."""
    main(["build"])
    _edit_intent(project, "read_stock")
    main(["build"])
    _edit_intent(project, "search_orders")
    read = _stamp_reads(monkeypatch, project)
    main(["build"])
    package = {r for r in read if r.startswith("generated/inventory/")}
    assert "generated/inventory/read_stock.py" not in package  # linked anew
    assert package <= {
        "generated/inventory/search_orders.py",
        "generated/inventory/_cards.py",
        "generated/inventory/toolgen.lock.json",
        "generated/inventory/toolgen-manifest.json",
    }
    main(["build"])
    assert full_builds == ["inventory"] * 3


def test_a_first_build_reads_back_none_of_the_files_it_formatted(
    project: Path, full_builds: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build read each formatted file's text when the file was older than the file
    system's clock, and renamed it into place: the stamp vouches for it by its status, and
    reads back only the files written without the formatter's folder."""
    # every formatted file older than the tick, as on a clock finer than the formatter's
    # run (on a coarse one, the files ruff wrote in the tick's last moment are read back)
    monkeypatch.setattr(formatting, "_tick", lambda folder: time.time_ns() + 10**12)
    read = _stamp_reads(monkeypatch, project)
    main(["build"])
    formatted = [
        p.relative_to(project).as_posix()
        for p in (project / "generated/inventory").rglob("*.py")
    ]
    assert len(formatted) > 10
    formatted.append("impl/inventory/next_batch.py")  # the stub it created
    # (the implementations that were there are read: what the build was made from)
    assert "impl/inventory/read_stock.py" in read
    assert set(read) & set(formatted) <= {
        "generated/inventory/_cards.py",  # formatted as it is made, not by ruff
        "generated/inventory/__init__.py",  # package markers, written as they are
    }
    main(["build"])  # nothing to do, and the stamp is right about it
    assert full_builds == ["inventory"]


def test_a_file_written_after_the_tick_is_not_older_than_it(tmp_path: Path) -> None:
    """What `formatting._tick` is for: a file whose modification time is older than the
    tick was not written since."""
    since = formatting._tick(tmp_path)
    late = tmp_path / "late.py"
    late.write_text("x = 1\n")
    assert late.stat().st_mtime_ns >= since


def test_an_edit_during_the_build_of_a_formatted_file_is_found(
    project: Path, full_builds: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A formatted file written again after the build read it (here between the write
    and the stamp, with the same size) is no longer of the status the build saw: the stamp
    reads it, finds it is not what the build wrote, and records nothing."""
    module = project / "generated/inventory/read_stock.py"
    real = write.write_outputs

    def edited(files: write.RenderedFiles, root: Path) -> write.WriteReport:
        report = real(files, root)
        module.write_text(module.read_text().replace("Tool", "Tocl", 1))
        return report

    monkeypatch.setattr(write, "write_outputs", edited)
    main(["build"])
    monkeypatch.setattr(write, "write_outputs", real)
    assert "Tocl" in module.read_text()
    main(["build"])
    assert full_builds == ["inventory", "inventory"]
    assert "Tocl" not in module.read_text()


def test_a_hand_edit_is_found_though_the_kept_tree_holds_the_file(
    project: Path, full_builds: list[str]
) -> None:
    """The kept tree's link is the package's file: an edit in place is in both, and the
    build that stages from it finds the edit all the same."""
    main(["build"])
    _edit_intent(project, "search_orders")
    main(["build"])
    module = project / "generated/inventory/read_stock.py"
    text = _hand_edit_keeping_time(module)
    _edit_intent(project, "find_customer")
    main(["build"])
    assert module.read_text() == text
    main(["build"])  # nothing to do, and the stamp is right about it
    assert full_builds == ["inventory"] * 3
    assert module.read_text() == text


@pytest.mark.parametrize(
    "change",
    [
        "unknown file in the package",
        "deleted generated file",
        "deleted stub",
        "edited implementation",
        "deleted package marker",
        "damaged stamp",
    ],
)
def test_what_the_stamp_cannot_vouch_for_makes_a_full_build(
    project: Path, full_builds: list[str], change: str
) -> None:
    main(["build"])
    if change == "unknown file in the package":
        (project / "generated/inventory/notes.py").write_text("x = 1\n")
        assert main(["build"]) == 1  # TG163, as a full build says
    elif change == "deleted generated file":
        (project / "generated/inventory/read_stock.py").unlink()
        main(["build"])
        assert (project / "generated/inventory/read_stock.py").exists()
    elif change == "deleted stub":
        (project / "impl/inventory/next_batch.py").unlink()
        main(["build"])
        assert (project / "impl/inventory/next_batch.py").exists()
    elif change == "edited implementation":
        shutil.copy(ROOT / "impl/inventory/next_batch.py", project / "impl/inventory")
        main(["build"])
    elif change == "deleted package marker":
        (project / "impl/__init__.py").unlink()
        main(["build"])
        assert (project / "impl/__init__.py").exists()
    else:
        (stamp,) = (project / CACHE_DIR).glob("built-*.marshal")
        stamp.write_text("{")
        main(["build"])
    assert full_builds == ["inventory", "inventory"]


def test_build_check_never_trusts_the_stamp(
    project: Path, full_builds: list[str]
) -> None:
    main(["build"])
    assert main(["build", "--check"]) == 0
    assert full_builds == ["inventory", "inventory"]


def test_a_file_is_vouched_for_by_its_status_only_on_a_path_without_links(
    tmp_path: Path,
) -> None:
    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (root / "generated/pkg").mkdir(parents=True)
    elsewhere.mkdir()
    (root / "generated/pkg/mod.py").write_text("x = 1\n")
    first = stamp.Digests(root)
    digest = first.tree("generated")["pkg/mod.py"]
    trusted = stamp.Digests(root, first.seen, trusted_before_ns=2**63 - 1)
    assert trusted.vouched("generated/pkg/mod.py") == (digest, len("x = 1\n"))
    assert trusted.vouched("generated/pkg/other.py") is None  # not there
    assert stamp.Digests(root, first.seen).vouched("generated/pkg/mod.py") is None
    # the same file (inode, times, size) reached through a link: `tree` would refuse it
    (root / "generated/pkg").rename(elsewhere / "pkg")
    (root / "generated/pkg").symlink_to(elsewhere / "pkg")
    fresh = stamp.Digests(root, first.seen, trusted_before_ns=2**63 - 1)
    assert fresh.vouched("generated/pkg/mod.py") is None
    (root / "generated/pkg").unlink()
    (elsewhere / "pkg").rename(root / "generated/pkg")
    again = stamp.Digests(root, first.seen, trusted_before_ns=2**63 - 1)
    assert again.vouched("generated/pkg/mod.py") == (digest, len("x = 1\n"))
    # a link in place of the file
    (root / "generated/pkg/mod.py").rename(elsewhere / "mod.py")
    (root / "generated/pkg/mod.py").symlink_to(elsewhere / "mod.py")
    last = stamp.Digests(root, first.seen, trusted_before_ns=2**63 - 1)
    assert last.vouched("generated/pkg/mod.py") is None


def test_a_fifo_or_a_link_where_the_stamp_reads_a_file_is_refused_at_once(
    tmp_path: Path,
) -> None:
    # the catalogue files of the other catalogues are digested by name: a FIFO there never
    # stalls the stamp (it is not opened for blocking), a link is not followed
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "real.yaml").write_text("catalogue: x\n")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "real.yaml")
    digests = stamp.Digests(tmp_path)
    for name in ("fifo", "link.yaml"):
        with pytest.raises(OSError):
            digests.file(name)
    assert digests.file("real.yaml") == stamp.file_digest(b"catalogue: x\n")
