"""The command line as a user meets it: exit statuses, what is printed, where."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolgen.cli import main

ROOT = Path(__file__).parent.parent


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(ROOT / "impl", tmp_path / "impl")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_example_catalogue_checks_clean(project: Path) -> None:
    assert main(["check"]) == 0


def test_build_then_check_then_drift(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build"]) == 0
    assert (project / "generated/inventory/create_reorder.py").exists()
    assert main(["build", "--check"]) == 0
    capsys.readouterr()
    module = project / "generated/inventory/next_batch.py"
    module.write_text(module.read_text() + "# edited by hand\n")
    assert main(["build", "--check"]) == 1
    out, err = capsys.readouterr()
    assert "-# edited by hand" in out
    assert "generated code is stale" in err
    assert module.read_text().endswith("# edited by hand\n")  # --check wrote nothing


def test_a_tool_gone_from_the_catalogue_leaves_its_implementation_and_says_so(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build"]) == 0
    (project / "spec/inventory/tools/read_document.yaml").unlink()
    capsys.readouterr()
    assert main(["build"]) == 0
    err = capsys.readouterr().err
    assert not (project / "generated/inventory/read_document.py").exists()
    assert (project / "impl/inventory/read_document.py").exists()  # the user's, kept
    assert (
        "toolgen: warning: impl/inventory/read_document.py is kept, though its tool is "
        "gone (renamed or removed): move its logic into the file of the tool that "
        "replaced it, or delete it"
    ) in err.splitlines()
    # said by the build that removed the tool's module, not again
    assert main(["build"]) == 0
    assert "read_document" not in capsys.readouterr().err


def test_a_broken_spec_exits_1_with_locations_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = project / "spec/inventory/tools/next_batch.yaml"
    tool.write_text(tool.read_text().replace("effect: read", "effect: reed"))
    assert main(["build"]) == 1
    out, err = capsys.readouterr()
    assert "spec/inventory/tools/next_batch.yaml:" in out and " TG103 " in out
    assert "help: Did you mean 'read'?" in out
    assert "not built" in err
    assert not (project / "generated").exists()


def test_json_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = project / "spec/inventory/tools/next_batch.yaml"
    tool.write_text(tool.read_text() + "colour: blue\n")
    assert main(["check", "--format", "json"]) == 1
    [finding] = [d for d in json.loads(capsys.readouterr().out) if d["code"] < "TG200"]
    assert finding["code"] == "TG101"
    assert finding["file"] == "spec/inventory/tools/next_batch.yaml"
    assert finding["line"] > 1 and finding["col"] == 1


@pytest.mark.parametrize(
    "argv", [["frobnicate"], ["check", "no/such/folder"], ["build", "--format", "xml"]]
)
def test_usage_errors_exit_2(project: Path, argv: list[str]) -> None:
    assert main(argv) == 2


def test_no_catalogue_under_spec_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    assert "no catalogue found" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["missing.yaml", "catalogue.yaml"])
def test_a_catalogue_yaml_that_is_a_broken_link_is_reported_not_skipped(
    project: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    # a link to nothing, or to itself: a check of the whole project (what CI runs) passed
    # over that catalogue and its broken tool file, and exited 0
    other = project / "spec" / "other"
    (other / "tools").mkdir(parents=True)
    (other / "tools" / "read_x.yaml").write_text("name: [unclosed\n")
    (other / "catalogue.yaml").symlink_to(target)
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert "spec/other/catalogue.yaml:1:1: TG012" in out, out


def test_schema_prints_the_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert (
        json.loads(capsys.readouterr().out)["title"]
        == "toolgen tool contract, format 1"
    )
    assert main(["schema", "--kind", "catalogue"]) == 0
    assert "format 1" in json.loads(capsys.readouterr().out)["title"]


def test_a_real_process_never_shows_a_traceback(project: Path) -> None:
    (project / "spec/inventory/tools/next_batch.yaml").write_text("name: [unclosed\n")
    done = subprocess.run(
        [sys.executable, "-m", "toolgen.cli", "check"],
        capture_output=True, text=True, check=False, cwd=project,
    )  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert "spec/inventory/tools/next_batch.yaml:2:1: TG001" in done.stdout


def test_the_command_flushes_what_it_prints_before_it_exits(project: Path) -> None:
    # `toolgen` leaves with os._exit (cli.run): everything printed must still arrive
    from toolgen.lint.registry import all_rules

    done = subprocess.run(
        [sys.executable, "-m", "toolgen.cli", "rules", "--format", "json"],
        capture_output=True, text=True, check=False, cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == len(all_rules())


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_output_that_cannot_be_written_is_a_failure_not_a_traceback(
    project: Path,
) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "toolgen.cli", "rules"],
            stdout=full, stderr=subprocess.PIPE, text=True, check=False, cwd=project,
        )  # fmt: skip
    assert done.returncode == 120
    assert done.stderr == "toolgen: cannot write the output: No space left on device\n"


# --- the exit policy: errors fail; warnings fail only past the number allowed ------------------


def _with_a_warning(project: Path) -> None:
    """next_batch with one lint warning and no error: no max for its integer (TG504)."""
    tool = project / "spec/inventory/tools/next_batch.yaml"
    text = tool.read_text()
    for line in ("    max: 1000000\n", "  - args: {batch: 1000000}\n"):
        assert line in text
        text = text.replace(line, "", 1)
    text = text.replace("  - args: {batch: 1000001}\n    rejected_on: batch\n", "")
    tool.write_text(text)


def _warnings(capsys: pytest.CaptureFixture[str]) -> list[str]:
    out, _ = capsys.readouterr()
    return [line for line in out.splitlines() if "[warning]" in line]


@pytest.mark.parametrize("command", [["check"], ["build"], ["build", "--check"]])
def test_warnings_alone_do_not_fail(
    project: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    if command == ["build", "--check"]:
        _with_a_warning(project)
        assert main(["build"]) == 0  # the warning does not stop the build either
        capsys.readouterr()
    else:
        _with_a_warning(project)
    assert main(command) == 0
    if command != ["build", "--check"]:
        assert _warnings(capsys), "the warning is printed"


@pytest.mark.parametrize("command", [["check"], ["build"]])
def test_max_warnings_fails_past_the_number_and_says_why(
    project: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    _with_a_warning(project)
    assert main([*command, "--max-warnings", "1"]) == 0
    capsys.readouterr()
    assert main([*command, "--max-warnings", "0"]) == 1
    _, err = capsys.readouterr()
    assert "spec/inventory: failed: 1 warning, more than the 0 allowed" in err
    if command == ["build"]:
        assert (project / "generated/inventory/next_batch.py").exists(), "still built"


def test_the_catalogue_can_say_how_many_warnings_it_allows(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _with_a_warning(project)
    catalogue = project / "spec/inventory/catalogue.yaml"
    catalogue.write_text(catalogue.read_text() + "lint:\n  max_warnings: 0\n")
    assert main(["check"]) == 1
    assert main(["build"]) == 1
    assert main(["check", "--max-warnings", "5"]) == 0, "the flag wins"


def test_errors_fail_whatever_the_warnings_allowed(project: Path) -> None:
    tool = project / "spec/inventory/tools/next_batch.yaml"
    tool.write_text(tool.read_text().replace("effect: read", "effect: reed"))
    assert main(["check", "--max-warnings", "100"]) == 1
    assert main(["build", "--max-warnings", "100"]) == 1


def test_max_warnings_takes_a_count(project: Path) -> None:
    assert main(["check", "--max-warnings", "-1"]) == 2
    assert main(["check", "--max-warnings", "many"]) == 2


def test_check_takes_a_catalogue_no_project_holds_and_build_still_needs_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a folder of YAML alone, as a colleague sends it: no pyproject.toml, setup.cfg,
    # setup.py or .git above it (ruff checks such a folder; so does toolgen check)
    shutil.copytree(ROOT / "spec" / "inventory", tmp_path / "inventory")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "inventory"]) == 0
    out, err = capsys.readouterr()
    assert "inventory: no project root above it" in err
    assert "checked alone, without looking for its implementations" in err
    assert "inventory: 12 tools, 0 errors, 0 warnings" in err
    assert "TG151" not in out  # no project, so no implementation package to look in
    tool = tmp_path / "inventory" / "tools" / "next_batch.yaml"
    tool.write_text(tool.read_text().replace("effect: read", "effect: reed"))
    assert main(["check", str(tool)]) == 1
    out, _ = capsys.readouterr()
    assert out.startswith("inventory/tools/next_batch.yaml:")
    assert main(["build", "inventory"]) == 2
    _, err = capsys.readouterr()
    assert "no project root found" in err and "pass --root" in err
    assert not (tmp_path / "generated").exists()
