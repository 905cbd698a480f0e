"""The path guard: the lesson's five cases and an attack corpus, through a real FunctionTool.

Every rejected case asserts its code, that the problem names the field, and that the
implementation was never called; none may show the server's folders to the model.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict
from test_guard_harness import guarded_tool
from toolgen_runtime.guards import (
    CODES,
    Boundaries,
    BoundariesMissing,
    CheckedPath,
    GuardFailure,
    PathChanged,
    PathGuard,
    check_path,
)
from toolgen_runtime.testing import Recorder, invoke


class ReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[CheckedPath, PathGuard("documents", suffixes=(".md", ".txt"))]


class NewArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[CheckedPath, PathGuard("documents", must_exist=False)]


class OptionalArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[CheckedPath, PathGuard("documents", suffixes=(".md",))] | None


@dataclass(frozen=True, slots=True)
class Read:
    name: str
    text: str


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "archive"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("the outside secret", encoding="utf-8")
    (root / "note.md").write_text("hello", encoding="utf-8")
    (root / "data.csv").write_text("a,b", encoding="utf-8")
    (root / "sub").mkdir()
    (root / "sub" / "inner.md").write_text("inner", encoding="utf-8")
    (root / "folder.md").mkdir()
    (root / ".hidden.md").write_text("hidden", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "config.md").write_text("[core]", encoding="utf-8")
    (root / "caf\u00e9.md").write_text("NFC name", encoding="utf-8")
    os.symlink(outside / "secret.md", root / "outside.md")
    os.symlink(outside, root / "ext")
    os.symlink(outside / "gone.md", root / "gone.md")
    os.symlink("data.csv", root / "alias.md")
    os.symlink("sub/inner.md", root / "latest.md")
    os.symlink(".hidden.md", root / "shown.md")
    os.symlink("loop2.md", root / "loop1.md")
    os.symlink("loop1.md", root / "loop2.md")
    os.mkfifo(root / "pipe.md")
    return root, outside


def reader(root: Path) -> tuple[Any, Recorder]:
    recorder = Recorder()
    tool = guarded_tool(
        ReadArgs,
        recorder,
        boundaries=Boundaries(roots={"documents": root}),
        result_type=Read,
    )
    return tool, recorder


def real_reader(root: Path) -> Any:
    def read_document(args: ReadArgs) -> Read:
        return Read(str(args.name), args.name.read_text(max_chars=20_000))

    return guarded_tool(
        ReadArgs,
        read_document,
        boundaries=Boundaries(roots={"documents": root}),
        result_type=Read,
    )


def test_the_lessons_five_cases(folders: tuple[Path, Path]) -> None:
    tool = real_reader(folders[0])
    outcomes = {
        name: invoke(tool, {"name": name}, None)
        for name in ("note.md", "../etc/passwd", "data.csv", "outside.md", "missing.md")
    }
    assert outcomes["note.md"] == {"ok": True, "name": "note.md", "text": "hello"}
    codes = {
        name: out["problems"][0]["code"]
        for name, out in outcomes.items()
        if not out["ok"]
    }
    assert codes == {
        "../etc/passwd": "path_traversal",
        "data.csv": "path_suffix_not_allowed",
        "outside.md": "path_outside_root",
        "missing.md": "path_not_found",
    }


def test_a_link_inside_the_root_is_followed(folders: tuple[Path, Path]) -> None:
    out = invoke(real_reader(folders[0]), {"name": "latest.md"}, None)
    assert out == {"ok": True, "name": "sub/inner.md", "text": "inner"}


ATTACKS = [
    # traversal and absolute paths
    ("../etc/passwd", "path_traversal"),
    ("sub/../../outside/secret.md", "path_traversal"),
    ("sub/./../note.md", "path_traversal"),
    ("/etc/passwd", "path_absolute"),
    ("//etc/passwd.md", "path_absolute"),
    # links out, dangling links out, a linked folder out, loops
    ("outside.md", "path_outside_root"),
    ("gone.md", "path_outside_root"),
    ("ext/secret.md", "path_outside_root"),
    ("loop1.md", "path_symlink_loop"),
    # NUL, control, invisible and direction characters, backslashes
    ("note.md\x00.txt", "path_nul_byte"),
    ("note\n.md", "path_bad_character"),
    ("no\u200bte.md", "path_bad_character"),
    ("note\u202edm.txt", "path_bad_character"),
    ("..\\..\\etc\\passwd.md", "path_bad_character"),
    # unicode normalisation tricks: forms other programs read as dots and slashes
    ("\uff0e\uff0e\uff0fetc\uff0fpasswd.md", "path_not_normalized"),
    ("\u2025/etc/passwd.md", "path_not_normalized"),
    ("\ufb01le.md", "path_not_normalized"),
    ("note\uff0emd", "path_not_normalized"),
    # very long names
    ("a" * 256 + ".md", "path_too_long"),
    ("\u00e9" * 128 + ".md", "path_too_long"),  # 256 bytes in UTF-8
    ("/".join(["d"] * 600) + ".md", "path_too_long"),
    # suffixes, of the name and of where a link leads
    ("data.csv", "path_suffix_not_allowed"),
    ("note.md.exe", "path_suffix_not_allowed"),
    (".md", "path_hidden"),
    ("alias.md", "path_suffix_not_allowed"),
    # hidden files and folders, also through a link
    (".hidden.md", "path_hidden"),
    (".git/config.md", "path_hidden"),
    ("shown.md", "path_hidden"),
    # not a regular file, missing files
    ("folder.md", "path_is_directory"),
    ("pipe.md", "path_device_file"),
    ("missing.md", "path_not_found"),
    ("note.md/inner.md", "path_not_found"),
    ("cafe\u0301.md", "path_not_found"),  # NFD spelling of an NFC name on disk
    ("", "path_empty"),
    ("./", "path_empty"),
]


@pytest.mark.parametrize(
    ("name", "code"), ATTACKS, ids=[repr(a[0])[:40] for a in ATTACKS]
)
def test_attack_is_rejected_with_its_code_and_never_reaches_the_implementation(
    folders: tuple[Path, Path], name: str, code: str
) -> None:
    root, outside = folders
    tool, recorder = reader(root)
    out = invoke(tool, {"name": name}, None)
    assert out["ok"] is False and out["error"] == "invalid_arguments"
    [problem] = out["problems"]
    assert problem["field"] == "name"
    assert problem["code"] == code
    room = 4096 - len(os.fsencode(root.resolve())) - 2  # PATH_MAX, less the root
    assert problem["how_to_fix"] == CODES[code].how_to_fix.format(
        suffixes=".md or .txt", max_chars=1024, max_bytes=room
    )
    assert recorder.calls == []
    # the model never learns where the folders are
    text = json.dumps(out)
    assert str(root) not in text and str(outside) not in text


def test_every_path_code_is_in_the_corpus() -> None:
    # path_not_permitted needs a process the folder's modes apply to: see
    # test_guard_path_errors.py, which checks every code is reported by some test
    path_codes = {c.code for c in CODES.values() if c.guard == "path"}
    assert path_codes - {"path_not_permitted"} == {code for _, code in ATTACKS}


def test_a_lone_surrogate_is_refused() -> None:
    # JSON arguments cannot carry one (pydantic refuses the JSON first); a direct call can
    with pytest.raises(GuardFailure) as caught:
        check_path("\udcffnote.md", Path("/").resolve())
    assert caught.value.code == "path_bad_character"


def test_a_device_file_is_refused(tmp_path: Path) -> None:
    # /dev holds real device files: no mknod (and no privilege) needed
    with pytest.raises(GuardFailure) as caught:
        check_path("null", Path("/dev").resolve())
    assert caught.value.code == "path_device_file"


def test_a_non_string_is_a_type_problem(folders: tuple[Path, Path]) -> None:
    tool, recorder = reader(folders[0])
    out = invoke(tool, {"name": 5}, None)
    assert out["problems"] == [
        {"field": "name", "problem": "must be a JSON string, got 5"}
    ]
    assert recorder.calls == []


def test_a_nullable_path_takes_null(folders: tuple[Path, Path]) -> None:
    recorder = Recorder(Read("", ""))
    tool = guarded_tool(
        OptionalArgs,
        recorder,
        boundaries=Boundaries(roots={"documents": folders[0]}),
        result_type=Read,
    )
    assert invoke(tool, {"name": None}, None)["ok"] is True
    assert recorder.calls[0].args.name is None
    assert invoke(tool, {"name": "../x.md"}, None)["problems"][0]["code"] == (
        "path_traversal"
    )


def test_the_implementation_receives_the_resolved_path(
    folders: tuple[Path, Path],
) -> None:
    root = folders[0]
    recorder = Recorder(Read("", ""))
    tool = guarded_tool(
        ReadArgs,
        recorder,
        boundaries=Boundaries(roots={"documents": root}),
        result_type=Read,
    )
    invoke(tool, {"name": "./sub//inner.md"}, None)
    checked = recorder.calls[0].args.name
    assert isinstance(checked, CheckedPath)
    assert (checked.requested, str(checked)) == ("./sub//inner.md", "sub/inner.md")
    invoke(tool, {"name": "latest.md"}, None)
    checked = recorder.calls[1].args.name
    assert (checked.requested, str(checked.relative)) == ("latest.md", "sub/inner.md")
    assert (
        checked.root == root.resolve()
        and checked.path == root.resolve() / "sub/inner.md"
    )
    assert checked.exists and checked.file_id is not None


def test_suffixes_are_compared_without_letter_case(tmp_path: Path) -> None:
    (tmp_path / "README.MD").write_text("x", encoding="utf-8")
    checked = check_path("README.MD", tmp_path.resolve(), suffixes=(".md",))
    assert checked.relative.name == "README.MD"


def test_hidden_files_are_allowed_when_the_contract_says_so(
    folders: tuple[Path, Path],
) -> None:
    checked = check_path(".hidden.md", folders[0].resolve(), allow_hidden=True)
    assert checked.read_text() == "hidden"


# --- a file to create -----------------------------------------------------------------------


def test_a_new_file_needs_its_folder_inside_the_root(
    folders: tuple[Path, Path],
) -> None:
    root = folders[0].resolve()
    new = check_path("sub/new.txt", root, must_exist=False)
    assert not new.exists and new.file_id is None
    with new.open_new() as handle:
        handle.write(b"written")
    assert (root / "sub" / "new.txt").read_bytes() == b"written"
    for name, code in (
        ("nowhere/new.txt", "path_not_found"),
        ("ext/new.txt", "path_outside_root"),
        ("../new.txt", "path_traversal"),
    ):
        with pytest.raises(GuardFailure) as caught:
            check_path(name, root, must_exist=False)
        assert caught.value.code == code


def test_a_new_file_is_validated_by_the_guard_too(folders: tuple[Path, Path]) -> None:
    recorder = Recorder(Read("", ""))
    tool = guarded_tool(
        NewArgs,
        recorder,
        boundaries=Boundaries(roots={"documents": folders[0]}),
        result_type=Read,
    )
    assert invoke(tool, {"name": "sub/fresh.md"}, None)["ok"] is True
    assert recorder.calls[0].args.name.exists is False


# --- time of check, time of use --------------------------------------------------------------


def test_a_file_swapped_for_a_link_after_the_check_is_not_opened(
    folders: tuple[Path, Path],
) -> None:
    root, outside = folders
    checked = check_path("note.md", root.resolve(), suffixes=(".md",))
    (root / "note.md").unlink()
    os.symlink(outside / "secret.md", root / "note.md")
    with pytest.raises(PathChanged):
        checked.open_read()


def test_a_folder_swapped_for_a_link_after_the_check_is_not_entered(
    folders: tuple[Path, Path],
) -> None:
    root, outside = folders
    checked = check_path("sub/inner.md", root.resolve(), suffixes=(".md",))
    (root / "sub" / "inner.md").rename(root / "inner-moved.md")
    (root / "sub").rmdir()
    (outside / "inner.md").write_text("outside", encoding="utf-8")
    os.symlink(outside, root / "sub")
    with pytest.raises(PathChanged):
        checked.open_read()


def test_a_file_replaced_by_another_after_the_check_is_not_opened(
    folders: tuple[Path, Path],
) -> None:
    root = folders[0]
    checked = check_path("note.md", root.resolve(), suffixes=(".md",))
    # renamed over it, as a swap is done atomically (a file unlinked first may come back
    # with the same inode number, which no check can tell apart: see docs/boundaries.md)
    (root / "other.md").write_text("another file", encoding="utf-8")
    (root / "other.md").replace(root / "note.md")
    with pytest.raises(PathChanged):
        checked.open_read()


def test_a_file_that_appears_before_creation_is_not_overwritten(
    folders: tuple[Path, Path],
) -> None:
    root = folders[0]
    new = check_path("later.md", root.resolve(), must_exist=False)
    os.symlink(folders[1] / "secret.md", root / "later.md")
    with pytest.raises(PathChanged):
        new.open_new()
    assert (folders[1] / "secret.md").read_text(
        encoding="utf-8"
    ) == "the outside secret"


# --- configuration is not the model's ------------------------------------------------------


def test_without_boundaries_the_run_stops(folders: tuple[Path, Path]) -> None:
    with pytest.raises(BoundariesMissing, match="validation context"):
        ReadArgs.model_validate_json('{"name": "note.md"}')


def test_an_unconfigured_root_stops_the_run(folders: tuple[Path, Path]) -> None:
    tool = guarded_tool(ReadArgs, Recorder(), boundaries=Boundaries(), result_type=Read)
    with pytest.raises(BoundariesMissing, match="TOOLGEN_ROOT_DOCUMENTS"):
        invoke(tool, {"name": "note.md"}, None)


def test_a_root_that_does_not_exist_stops_the_start_up(tmp_path: Path) -> None:
    with pytest.raises(BoundariesMissing, match="cannot be resolved"):
        Boundaries(roots={"documents": tmp_path / "missing"})


def test_roots_come_from_the_environment(folders: tuple[Path, Path]) -> None:
    boundaries = Boundaries.from_environment(
        {"TOOLGEN_ROOT_DOCUMENTS": str(folders[0])}
    )
    assert boundaries.root("documents") == folders[0].resolve()
