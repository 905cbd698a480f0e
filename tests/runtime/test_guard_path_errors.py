"""The path guard when the file system says no: every answer of the disk is a `path_*` problem,
`PathChanged` or `FileSystemFailed`, never a raw `OSError` (issue 33, item 1).

The paths here are within every limit the guard states on the text (1,024 characters, 255 bytes
a name): what goes wrong is only found on the disk, once the root is in front, a link is
followed, or a folder is closed to the process.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
from agents import Agent
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from pydantic import BaseModel, ConfigDict
from test_guard_harness import guarded_tool
from test_guard_paths import ATTACKS
from toolgen_runtime.guards import (
    CODES,
    Boundaries,
    CheckedPath,
    FileSystemFailed,
    GuardFailure,
    PathChanged,
    PathGuard,
    check_path,
)
from toolgen_runtime.testing import Recorder, invoke
from toolgen_runtime.testing.helpers import run_agent

from generated.inventory import read_document as read_document_module

SMILE = "\U0001f600"  # 4 bytes in UTF-8


def emoji_path() -> str:
    """1,023 characters, no name over 252 bytes: 4,047 bytes in UTF-8."""
    names = [SMILE * 63] * 15 + [SMILE * 60 + ".md"]
    text = "/".join(names)
    assert len(text) == 1023 and max(len(n.encode()) for n in names) <= 255
    return text


def path_of(size: int) -> str:
    """A path of `size` bytes in UTF-8, in names of at most 252 bytes."""
    names: list[str] = []
    while size > 253:
        names.append(SMILE * 63)
        size -= 253
    names.append(SMILE * (size // 4) + "x" * (size % 4))
    return "/".join(names)


@pytest.fixture
def deep_root(tmp_path: Path) -> Path:
    """A root deep enough that the emoji path does not fit under it (4,096 bytes in all)."""
    root = tmp_path / ("deployment-archive-" * 4)
    root.mkdir()
    (root / "note.md").write_text("hello", encoding="utf-8")
    assert len(os.fsencode(root)) + 1 + len(emoji_path().encode()) >= 4096
    return root.resolve()


class ReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[CheckedPath, PathGuard("documents", suffixes=(".md",))]


class NewArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[CheckedPath, PathGuard("documents", must_exist=False)]


def test_a_path_within_the_text_limits_that_does_not_fit_under_the_root(
    deep_root: Path,
) -> None:
    recorder = Recorder()
    tool = guarded_tool(
        ReadArgs, recorder, boundaries=Boundaries(roots={"documents": deep_root})
    )
    out = invoke(tool, {"name": emoji_path()}, None)
    [problem] = out["problems"]
    assert (problem["field"], problem["code"]) == ("name", "path_too_long")
    # the how-to-fix gives the room there is, in bytes, so the model can meet it
    room = 4096 - len(os.fsencode(deep_root)) - 2
    assert f"and {room} bytes in UTF-8" in problem["how_to_fix"]
    assert recorder.calls == []
    # the limit is exact: a path of that many bytes is looked for, one byte more is not
    with pytest.raises(GuardFailure) as caught:
        check_path(path_of(room), deep_root)
    assert caught.value.code == "path_not_found"
    with pytest.raises(GuardFailure) as caught:
        check_path(path_of(room + 1), deep_root)
    assert caught.value.code == "path_too_long"


def test_the_same_path_under_a_short_root_is_only_missing(tmp_path: Path) -> None:
    with pytest.raises(GuardFailure) as caught:
        check_path(emoji_path(), Path("/").resolve())
    assert caught.value.code == "path_not_found"


def test_a_link_that_leads_past_the_longest_path_is_too_long(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    # the name is short; the link's target makes the resolved path over 4,096 bytes
    os.symlink("/".join(["x" * 255] * 16), root / "far.md")  # 4,095 bytes
    with pytest.raises(GuardFailure) as caught:
        check_path("far.md", root)
    assert caught.value.code == "path_too_long"
    assert str(root) not in str(caught.value)


def test_a_loop_of_links_in_a_folder_part_is_a_loop(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    with pytest.raises(GuardFailure) as caught:
        check_path("a/note.md", root)
    assert caught.value.code == "path_symlink_loop"


# --- what the disk answers, one errno at a time ----------------------------------------------


def failing_stat(
    monkeypatch: pytest.MonkeyPatch, target: Path, code: int
) -> Callable[..., Any]:
    """os.stat fails with `code` for `target` (the file, or the folder of a new file)."""
    real = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path) == target:
            raise OSError(code, os.strerror(code), str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    return stat


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (errno.ENAMETOOLONG, "path_too_long"),
        (errno.ELOOP, "path_symlink_loop"),
        (errno.EACCES, "path_not_permitted"),
        (errno.EPERM, "path_not_permitted"),
        (errno.ENOENT, "path_not_found"),
        (errno.ENOTDIR, "path_not_found"),
    ],
)
def test_an_error_caused_by_the_path_is_its_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, expected: str
) -> None:
    root = tmp_path.resolve()
    (root / "note.md").write_text("hello", encoding="utf-8")
    (root / "sub").mkdir()
    recorder = Recorder()
    tool = guarded_tool(
        ReadArgs, recorder, boundaries=Boundaries(roots={"documents": root})
    )
    new_tool = guarded_tool(
        NewArgs, recorder, boundaries=Boundaries(roots={"documents": root})
    )
    failing_stat(monkeypatch, root / "note.md", code)
    assert invoke(tool, {"name": "note.md"}, None)["problems"][0]["code"] == expected
    # a new file's folder is looked at too
    failing_stat(monkeypatch, root / "sub", code)
    out = invoke(new_tool, {"name": "sub/new.md"}, None)
    assert out["problems"][0]["code"] == expected
    assert recorder.calls == []


@pytest.mark.parametrize("code", [errno.EIO, errno.ESTALE, errno.EOVERFLOW])
def test_a_failure_of_the_file_system_stops_the_run_with_its_own_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    # not the model's doing: the operator sees it (a ToolgenError), the model is not told
    root = tmp_path.resolve()
    (root / "note.md").write_text("hello", encoding="utf-8")
    recorder = Recorder()
    tool = guarded_tool(
        ReadArgs, recorder, boundaries=Boundaries(roots={"documents": root})
    )
    failing_stat(monkeypatch, root / "note.md", code)
    with pytest.raises(FileSystemFailed, match=os.strerror(code)) as caught:
        invoke(tool, {"name": "note.md"}, None)
    assert str(root) not in str(caught.value)
    assert recorder.calls == []


# Python 3.13's os.path.realpath no longer fails when a link it is reading vanishes (it
# goes on with the name as it is), so the race below is seen as the path after it
REALPATH_SWALLOWS_RACES = sys.version_info >= (3, 13)


def test_a_link_replaced_by_a_folder_during_the_check_is_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race inside os.path.realpath: lstat says link, then readlink finds a folder."""
    root = tmp_path.resolve()
    (root / "real").mkdir()
    (root / "real" / "note.md").write_text("hello", encoding="utf-8")
    os.symlink("real", root / "swap")
    real_lstat = os.lstat

    def lstat(path: Any, *args: Any, **kwargs: Any) -> Any:
        found = real_lstat(path, *args, **kwargs)
        if Path(path) == root / "swap" and (root / "swap").is_symlink():
            (root / "swap").unlink()
            (root / "swap").mkdir()  # the attacker's move, between lstat and readlink
        return found

    monkeypatch.setattr(os, "lstat", lstat)
    recorder = Recorder()
    tool = guarded_tool(
        ReadArgs, recorder, boundaries=Boundaries(roots={"documents": root})
    )
    if REALPATH_SWALLOWS_RACES:
        # it resolves the vanished link as a plain name: the new folder, which holds no
        # note.md, and the model is told so
        answer = invoke(tool, {"name": "swap/note.md"}, None)
        assert [p["code"] for p in answer["problems"]] == ["path_not_found"]
    else:
        with pytest.raises(PathChanged, match="changed while the path was checked"):
            invoke(tool, {"name": "swap/note.md"}, None)
    assert recorder.calls == []


def test_a_link_removed_during_the_check_is_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    os.symlink("note.md", root / "gone.md")
    real_lstat = os.lstat

    def lstat(path: Any, *args: Any, **kwargs: Any) -> Any:
        found = real_lstat(path, *args, **kwargs)
        if Path(path) == root / "gone.md" and (root / "gone.md").is_symlink():
            (root / "gone.md").unlink()
        return found

    monkeypatch.setattr(os, "lstat", lstat)
    with pytest.raises(GuardFailure if REALPATH_SWALLOWS_RACES else PathChanged):
        check_path("gone.md", root)  # GuardFailure: path_not_found, the link is gone


# --- permission denied, for real --------------------------------------------------------------

_CHECKS = """
import json, sys
from pathlib import Path
from toolgen_runtime.guards import GuardFailure, check_path
root = Path(sys.argv[1])
out = {}
for name, must_exist in (("closed/note.md", True), ("locked.md", True),
                         ("readonly/new.md", False), ("open.md", True)):
    try:
        check_path(name, root, must_exist=must_exist)
        out[name] = "ok"
    except GuardFailure as failure:
        out[name] = failure.code
print(json.dumps(out))
"""


def without_privileges() -> list[str] | None:
    """A command prefix that runs Python as a process the folder's modes apply to."""
    if os.geteuid() != 0:
        return [sys.executable]
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    # root keeps its uid but loses the capabilities that bypass file modes
    return [setpriv, "--inh-caps=-all", "--bounding-set=-all", "--", sys.executable]


def test_a_folder_or_file_closed_to_the_tool_is_not_permitted(tmp_path: Path) -> None:
    command = without_privileges()
    if command is None:
        pytest.skip("running as root without setpriv: file modes do not apply")
    root = tmp_path.resolve()
    (root / "closed").mkdir()
    (root / "closed" / "note.md").write_text("secret", encoding="utf-8")
    (root / "locked.md").write_text("secret", encoding="utf-8")
    (root / "readonly").mkdir()
    (root / "open.md").write_text("hello", encoding="utf-8")
    (root / "closed").chmod(0o000)
    (root / "locked.md").chmod(0o000)
    (root / "readonly").chmod(0o555)
    try:
        done = subprocess.run(
            [*command, "-c", _CHECKS, str(root)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        (root / "closed").chmod(0o755)
        (root / "readonly").chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "closed/note.md": "path_not_permitted",
        "locked.md": "path_not_permitted",
        "readonly/new.md": "path_not_permitted",
        "open.md": "ok",
    }


def test_every_path_code_is_reported_by_a_test() -> None:
    here = {"path_not_permitted", "path_too_long", "path_symlink_loop"}
    path_codes = {c.code for c in CODES.values() if c.guard == "path"}
    assert path_codes == {code for _, code in ATTACKS} | here


# --- through the real Runner ------------------------------------------------------------------


def test_a_hostile_path_through_the_runner_is_answered_and_the_run_finishes(
    deep_root: Path,
) -> None:
    tool = read_document_module.build_tool(
        boundaries=Boundaries(roots={"archive": deep_root})
    )
    agent = Agent[Any](
        name="archive",
        instructions="Read documents.",
        tools=[tool],
        model=ScriptedModel(
            [
                [
                    function_call(
                        "read_document", {"name": emoji_path()}, call_id="c1"
                    ),
                    function_call("read_document", {"name": "note.md"}, call_id="c2"),
                ],
                [assistant_message("done")],
            ]
        ),
    )
    result = run_agent(agent, "go")
    outputs = [
        json.loads(str(item.output))
        for item in result.new_items
        if isinstance(item, ToolCallOutputItem)
    ]
    assert result.final_output == "done"
    assert outputs[0]["error"] == "invalid_arguments"
    assert [(p["field"], p["code"]) for p in outputs[0]["problems"]] == [
        ("name", "path_too_long")
    ]
    assert outputs[1]["ok"] is True and outputs[1]["text"] == "hello"
