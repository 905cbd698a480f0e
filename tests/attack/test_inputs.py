"""Hostile and broken inputs to the CLI: entries of tools/ that are not readable regular files,
links, inputs over the limits, and the project root. Each gives located diagnostics and exit 1,
and a file that cannot be read never costs its tool's generated files."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from attack import shop_project
from toolgen.build import recovery
from toolgen.build.manifest import MANIFEST_NAME
from toolgen.cli import main
from toolgen.render import lockfile
from toolgen.spec import limits, load

ROOT = Path(__file__).parent.parent.parent
TOOLGEN = str(Path(sys.executable).parent / "toolgen")
TOOLS = ("find_customer", "next_batch", "read_stock")


def _toolgen(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLGEN, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "generated").rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project, built once (in this process): each test gets a copy."""
    root = tmp_path_factory.mktemp("template")
    folder = shop_project(root, TOOLS)
    assert main(["build", "--root", str(root), str(folder)]) in (0, 1)
    return root


@pytest.fixture
def built(template: Path, tmp_path: Path) -> Path:
    shutil.copytree(template, tmp_path, symlinks=True, dirs_exist_ok=True)
    return tmp_path


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    # bound by its name from its folder: a socket's path may hold only about 100 bytes,
    # and the test's folder may be deep
    with contextlib.chdir(path.parent), socket.socket(socket.AF_UNIX) as server:
        server.bind(path.name)


ENTRIES = {
    "fifo": (_fifo, "TG012", "is a named pipe (FIFO), not a regular file"),
    "socket": (_socket, "TG012", "is a socket, not a regular file"),
    "folder": (lambda p: p.mkdir(), "TG012", "is a folder, not a regular file"),
    "broken link": (
        lambda p: p.symlink_to("gone.yaml"),
        "TG012",
        "broken symbolic link",
    ),
    "link loop": (lambda p: p.symlink_to(p.name), "TG012", "loops back on itself"),
    "link to /dev/zero": (
        lambda p: p.symlink_to("/dev/zero"),
        "TG013",
        "outside the project",
    ),
    "link out of the project": (
        lambda p: p.symlink_to(ROOT / "spec/inventory/tools/next_batch.yaml"),
        "TG013",
        "outside the project",
    ),
}


@pytest.mark.parametrize("kind", list(ENTRIES))
def test_an_unreadable_entry_is_located_and_costs_nothing(
    built: Path, kind: str
) -> None:
    make, code, words = ENTRIES[kind]
    entry = built / "spec/shop/tools/next_batch.yaml"
    before = _tree(built)
    entry.unlink()
    make(entry)
    done = _toolgen(built, "build")
    assert done.returncode == 1, done.stdout
    assert f"spec/shop/tools/next_batch.yaml:1:1: {code} the file " in done.stdout
    assert words in done.stdout
    assert "Traceback" not in done.stderr
    assert _tree(built) == before, (
        "a file that could not be read cost its tool's outputs"
    )


def test_a_link_inside_the_project_is_followed(built: Path) -> None:
    shared = built / "shared"
    shared.mkdir()
    entry = built / "spec/shop/tools/next_batch.yaml"
    shutil.move(entry, shared / "next_batch.yaml")
    entry.symlink_to(shared / "next_batch.yaml")
    done = _toolgen(built, "build", "--check")
    assert done.returncode in (0, 1) and "up to date" in done.stderr, done.stdout


def test_a_file_over_the_size_limit_is_not_read(built: Path) -> None:
    big = built / "spec/shop/tools/next_batch.yaml"
    with big.open("a") as handle:
        handle.write("# padding\n" * (limits.MAX_FILE_BYTES // 10 + 1))
    done = _toolgen(built, "check")
    assert "spec/shop/tools/next_batch.yaml:1:1: TG011 the file has" in done.stdout
    assert "more than the 1 MiB a spec file may have" in done.stdout


def test_a_sparse_file_linked_in_costs_nothing(built: Path) -> None:
    """The issue's 3 GB sparse file: its size is known before a byte is read."""
    sparse = built / "shared.yaml"
    with sparse.open("wb") as handle:
        handle.truncate(3 * 1024**3)
    entry = built / "spec/shop/tools/next_batch.yaml"
    entry.unlink()
    entry.symlink_to(sparse)
    done = _toolgen(built, "check")
    assert (
        "TG011 the file has 3,072 MiB" in done.stdout
        or "TG011 the file has 3 GiB" in done.stdout
        or "TG011" in done.stdout
    )
    assert "Traceback" not in done.stderr


def test_a_long_description_before_its_options_is_read_in_bounded_time(
    built: Path,
) -> None:
    """TG312 looked for the word before 'is one of' with a pattern that costs the square of
    the text before it: 300,000 letters there kept `check` busy for over 30 s (the timeout
    of `_toolgen` ends a run that would take hours)."""
    path = built / "spec" / "shop" / "tools" / "read_stock.yaml"
    long = "a" * 300_000 + " one of x, y or z."
    path.write_text(
        path.read_text().replace(
            "    description: The product code.\n", f"    description: {long}\n", 1
        )
    )
    done = _toolgen(built, "check")
    assert "TG312" in done.stdout + done.stderr, done.stderr[-2000:]


def test_too_many_values_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    items = ", ".join("1" for _ in range(limits.MAX_NODES + 5))
    path.write_text(f"name: x\nexamples: [{items}]\n")
    document, found = load.load_document(path, "x.yaml")
    assert document is None
    assert [d.code for d in found] == ["TG011"]
    assert "more than 100,000 keys, values and list items" in found[0].message


def test_too_many_tool_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shop_project(tmp_path, TOOLS)
    monkeypatch.setattr(limits, "MAX_TOOLS", 2)
    assert main(["check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert (
        "spec/shop/tools:1:1: TG011 the tools/ folder holds 3 tool files, more than the 2"
        in out
    )


def test_too_many_bytes_in_a_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shop_project(tmp_path, TOOLS)
    monkeypatch.setattr(limits, "MAX_CATALOGUE_BYTES", 100)
    assert main(["check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "TG011 the catalogue's spec files have more than 100 bytes together" in out


def test_too_many_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = shop_project(tmp_path, TOOLS)
    tool = folder / "tools/next_batch.yaml"
    many = "".join("  - args: {batch_number: 1}\n" for _ in range(limits.MAX_EXAMPLES))
    tool.write_text(tool.read_text().replace("examples:\n", "examples:\n" + many))
    assert main(["check", str(folder)]) == 1
    assert "TG011 the tool has 20" in capsys.readouterr().out


def test_build_from_another_folder_writes_into_the_project(
    built: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    shutil.rmtree(built / "generated")
    done = _toolgen(elsewhere, "build", str(built / "spec/shop"))
    assert done.returncode in (0, 1), done.stderr
    assert (built / "generated/shop/read_stock.py").is_file()
    assert list(elsewhere.iterdir()) == []
    check = _toolgen(elsewhere, "check", str(built / "spec/shop"))
    # the stubs were found where they are
    assert "has no implementation yet" not in check.stdout
    assert "still the stub" in check.stdout


def test_checking_one_tool_file_reports_that_file(built: Path) -> None:
    bad = built / "spec/shop/tools/read_stock.yaml"
    bad.write_text(bad.read_text().replace("effect: read", "effect: reads"))
    other = built / "spec/shop/tools/next_batch.yaml"
    other.write_text(other.read_text().replace("effect: read", "effect: sometimes"))
    done = _toolgen(built, "check", "spec/shop/tools/read_stock.yaml")
    assert "spec/shop/tools/read_stock.yaml" in done.stdout
    assert "next_batch.yaml" not in done.stdout
    assert "findings in other files of the catalogue not shown" in done.stderr


def test_no_catalogue_says_what_to_do(tmp_path: Path) -> None:
    done = _toolgen(tmp_path, "check")
    assert done.returncode == 2
    assert "no catalogue found under" in done.stderr
    assert "pass a catalogue folder" in done.stderr


def test_a_build_with_errors_writes_nothing(built: Path) -> None:
    stub = built / "impl/shop/read_stock.py"
    stub.unlink()
    bad = built / "spec/shop/tools/next_batch.yaml"
    bad.write_text(bad.read_text().replace("effect: read", "effect: reads"))
    before = _tree(built)
    assert _toolgen(built, "build").returncode == 1
    assert not stub.exists()
    assert _tree(built) == before


def test_build_check_reports_a_file_toolgen_did_not_write(built: Path) -> None:
    (built / "generated/shop/helper.py").write_text("x = 1\n")
    done = _toolgen(built, "build", "--check")
    assert done.returncode == 1
    assert "generated/shop/helper.py:1:1: TG163" in done.stdout


def test_a_hand_written_module_where_a_tool_goes_is_never_replaced(built: Path) -> None:
    mine = built / "generated/shop/create_reorder.py"
    mine.write_text("# mine\n")
    shutil.copy(
        ROOT / "spec/inventory/tools/create_reorder.yaml", built / "spec/shop/tools"
    )
    done = _toolgen(built, "build")
    assert done.returncode == 1
    assert "tool 'create_reorder' would be generated there" in done.stdout
    assert mine.read_text() == "# mine\n"


DEEP = "[" * 100_000  # deeper than json's reader goes: it raises RecursionError


def test_json_nested_too_deeply_is_answered_never_a_traceback(built: Path) -> None:
    # a journal an interrupted build would leave: ignored, the build goes on
    (built / recovery.JOURNAL).write_text(DEEP)
    done = _toolgen(built, "build")
    assert done.returncode in (0, 1)
    assert "Traceback" not in done.stderr, done.stderr
    # a document to import: refused in one line
    (built / "tools.json").write_text('{"tools": ' + DEEP)
    done = _toolgen(built, "import", "--from", "mcp", "--out", "drafts", "tools.json")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "toolgen: import tools.json: not JSON: it is nested too deeply to read\n"
    )
    # a lockfile `toolgen diff` reads: not a lockfile
    assert lockfile.read(DEEP) is None
    # the manifest of the generated package: it proves nothing, and is said so
    (built / "generated/shop" / MANIFEST_NAME).write_text(DEEP)
    done = _toolgen(built, "build")
    assert done.returncode == 1
    assert "TG164 the manifest of the generated package cannot be read" in done.stdout
    assert "nested too deeply" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_a_tool_named_only_by_a_separator_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `toolgen import` writes what an MCP or OpenAI list names `_`; the lint's split of
    # names into words met a name of none (IndexError)
    folder = shop_project(tmp_path, TOOLS)
    text = (folder / "tools/read_stock.yaml").read_text()
    (folder / "tools/_.yaml").write_text(text.replace("name: read_stock", "name: _"))
    assert main(["check", str(folder)]) == 1
    assert (
        "tools/_.yaml:2:7: TG117 the tool would generate the class"
        in capsys.readouterr().out
    )


def test_an_example_s_odd_key_is_quoted_and_no_escape_reaches_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shop_project(tmp_path, TOOLS)
    path = folder / "tools/read_stock.yaml"
    text = path.read_text()
    key = '"z\\rspec/shop: 0 errors\\n\\e]0;pwned\\a"'  # YAML escapes: CR, LF, ESC, BEL
    assert "examples:\n  - args: {" in text
    text = text.replace(
        "examples:\n  - args: {", f"examples:\n  - args: {{{key}: 1, ", 1
    )
    path.write_text(text)
    assert main(["check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert (
        "TG131 accepted example is rejected: 'z\\rspec/shop: 0 errors\\n\\x1b]0;" in out
    )
    assert "\x1b" not in out
