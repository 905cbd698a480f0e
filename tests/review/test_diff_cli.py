"""`toolgen diff` on real catalogues: a scratch git repository holding a copy of the example,
edited, and compared with a git ref and with a folder; every output format; accepting a
breaking change on purpose; the work tree never touched."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from toolgen.build import pipeline
from toolgen.cli import main
from toolgen.render import lockfile
from toolgen.spec import snapshot

ROOT = Path(__file__).resolve().parents[2]
REORDER = "spec/inventory/tools/create_reorder.yaml"
STOCK = "spec/inventory/tools/read_stock.yaml"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "spec/inventory", project / "spec/inventory")
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    _git(project, "init", "-q", "-b", "main")
    _git(project, "config", "user.email", "review@example.com")
    _git(project, "config", "user.name", "review")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "base")
    return project


def _edit(repo: Path, file: str, old: str, new: str) -> None:
    path = repo / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(repo: Path, file: str, text: str) -> int:
    lines = (repo / file).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _diff(
    repo: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    status = main(["diff", "--root", str(repo), str(repo / "spec/inventory"), *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_git_ref_finds_breaking_changes_with_their_lines(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, REORDER, "max: 1000", "max: 500")
    _edit(repo, STOCK, "effect: read", "effect: write")
    before = _git(repo, "status", "--porcelain")
    status, out, err = _diff(repo, capsys, "--against", "HEAD")
    assert status == 1
    max_line = _line_of(repo, REORDER, "max: 500")
    effect_line = _line_of(repo, STOCK, "effect: write")
    lines = out.splitlines()
    assert (
        f"{REORDER}:{max_line}:5: TD208 [breaking] parameter 'quantity' of "
        "'create_reorder': maximum is 500, was 1000"
    ) in lines
    assert (
        f"{STOCK}:{effect_line}:1: TD503 [breaking] 'read_stock' is write, was read"
        in lines
    )
    assert "spec/inventory: 2 breaking (0 accepted), 0 dangerous," in err
    assert "tokens per turn" in err
    # the work tree, the index and the refs are as they were
    assert _git(repo, "status", "--porcelain") == before
    assert _git(repo, "stash", "list") == ""


def test_a_smaller_page_points_at_max_page_size(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # page_size is a parameter pagination adds: the file writes it as max_page_size
    orders = "spec/inventory/tools/search_orders.yaml"
    _edit(repo, orders, "max_page_size: 50", "max_page_size: 20")
    status, out, _ = _diff(repo, capsys, "--against", "HEAD")
    assert status == 1
    line = _line_of(repo, orders, "max_page_size: 20")
    assert (
        f"{orders}:{line}:3: TD208 [breaking] parameter 'page_size' of "
        "'search_orders': maximum is 20, was 50"
    ) in out.splitlines()


def test_no_change_exits_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _diff(repo, capsys, "--against", "main")
    assert (status, out) == (0, "")
    assert "0 breaking (0 accepted), 0 dangerous, 0 safe changes against main" in err


def test_a_folder_is_compared_like_a_ref(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old"
    shutil.copytree(repo / "spec/inventory", old)
    (repo / "spec/inventory/tools/next_batch.yaml").unlink()
    status, out, _ = _diff(repo, capsys, "--against", str(old))
    assert status == 1
    name_line = _line_of(repo, "spec/inventory/catalogue.yaml", "name: inventory")
    assert out.splitlines()[0] == (
        f"spec/inventory/catalogue.yaml:{name_line}:1: TD101 [breaking] tool 'next_batch' "
        "was removed"
    )


def test_a_catalogue_new_since_the_ref_has_every_tool_added(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(repo / "spec/inventory", repo / "spec/stock")
    _edit(repo, "spec/stock/catalogue.yaml", "name: inventory", "name: stock")
    status = main(
        ["diff", "--root", str(repo), str(repo / "spec/stock"), "--against", "HEAD"]
    )
    out = capsys.readouterr().out
    assert status == 0
    new = pipeline.check_catalogue(repo / "spec/stock", repo, implementations=False)
    assert new.catalogue is not None
    # every tool the model would see, the derived prepare_order too
    assert [line.split()[1] for line in out.splitlines()] == ["TD103"] * len(
        new.catalogue.tools
    )


def test_an_unknown_ref_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _diff(repo, capsys, "--against", "no-such-branch")
    assert status == 2
    assert "toolgen: diff: " in err and "no-such-branch" in err


@pytest.mark.parametrize("broken", ["work tree", "ref"])
def test_a_tool_file_that_cannot_be_read_is_a_usage_error_not_a_removal(
    repo: Path, capsys: pytest.CaptureFixture[str], broken: str
) -> None:
    """A YAML syntax error in one tool file dropped that tool from its version: the diff
    reported a breaking removal (TD101) in the work tree, or a safe addition at the ref,
    and said nothing of the error."""
    _edit(repo, STOCK, "effect: read", "effect: [read")
    if broken == "ref":
        _git(repo, "commit", "-q", "-am", "broken")
        _edit(repo, STOCK, "effect: [read", "effect: read")
    status, out, err = _diff(repo, capsys, "--against", "HEAD")
    assert (status, out) == (2, "")
    label = "the work tree" if broken == "work tree" else "HEAD"
    assert f"toolgen: diff: {label}: the catalogue does not build: " in err
    assert f"{STOCK}:" in err and "TG001 YAML syntax error" in err


# accepted-changes.yaml for create_reorder's quantity at most 500 pieces
ACCEPT_500 = (
    "accept:\n"
    "  - rule: constraint-tightened\n"
    "    tool: create_reorder\n"
    "    field: quantity\n"
    "    reason: The supplier takes at most 500 pieces per order from now on.\n"
)


def test_a_breaking_change_accepted_on_purpose_passes(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(repo, REORDER, "max: 1000", "max: 500")
    (repo / "spec/inventory/accepted-changes.yaml").write_text(
        ACCEPT_500 + "  - rule: TD101\n    tool: read_stock\n    reason: Left over.\n",
        encoding="utf-8",
    )
    status, out, err = _diff(repo, capsys, "--against", "HEAD")
    assert status == 0
    assert "TD208 [breaking, accepted] parameter 'quantity'" in out
    assert (
        "accepted: The supplier takes at most 500 pieces per order from now on." in out
    )
    assert (
        "spec/inventory/accepted-changes.yaml:6: accepts no change (TD101 in read_stock)"
    ) in err


def test_an_entry_whose_change_has_landed_accepts_no_other(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry committed with its change stays in the file: what it accepted has landed,
    and the next change of the same field is one nobody reviewed."""
    _edit(repo, REORDER, "max: 1000", "max: 500")
    (repo / "spec/inventory/accepted-changes.yaml").write_text(
        ACCEPT_500, encoding="utf-8"
    )
    assert _diff(repo, capsys, "--against", "HEAD")[0] == 0
    _git(repo, "commit", "-q", "-am", "at most 500", "--no-verify")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "the entry", "--no-verify")
    _edit(repo, REORDER, "max: 500", "max: 400")
    status, out, err = _diff(repo, capsys, "--against", "HEAD")
    assert status == 1
    assert "TD208 [breaking] parameter 'quantity'" in out
    assert (
        "spec/inventory/accepted-changes.yaml:2: was there in HEAD too, where its change "
        "(constraint-tightened in create_reorder) has landed, so it accepts no other; "
        "remove it"
    ) in err


def test_json_github_and_sarif(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(repo, REORDER, "max: 1000", "max: 500")
    status, out, _ = _diff(repo, capsys, "--against", "HEAD", "--format", "json")
    data = json.loads(out)
    assert status == 1 and data["breaking"] == 1
    [tightened] = [c for c in data["changes"] if c["rule"] == "TD208"]
    assert tightened["where"] == ["params", "quantity", "max"]
    assert (tightened["field"], tightened["level"]) == ("quantity", "breaking")
    assert tightened["line"] == _line_of(repo, REORDER, "max: 500")
    _, out, _ = _diff(repo, capsys, "--against", "HEAD", "--format", "github")
    assert any(
        line.startswith(
            f"::error file={REORDER},line={tightened['line']},col=5,title=TD208::"
        )
        for line in out.splitlines()
    )
    _, out, _ = _diff(repo, capsys, "--against", "HEAD", "--format", "sarif")
    log = json.loads(out)
    run = log["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    result = next(r for r in run["results"] if r["ruleId"] == "TD208")
    assert ids[result["ruleIndex"]] == "TD208"
    assert result["level"] == "error"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["helpUri"].endswith(
        "#TD208"
    )


def test_a_definition_changed_by_toolgen_is_named_from_the_committed_lockfile(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = pipeline.check_catalogue(
        repo / "spec/inventory", repo, implementations=False
    )
    assert result.catalogue is not None
    shot = snapshot.catalogue_snapshot(result.catalogue)
    # what an older toolgen would have committed: another definition from the same contract
    [reorder] = [t for t in shot["tools"] if t["name"] == "create_reorder"]
    reorder["digest"] = "0" * 32
    lock = repo / "generated/inventory" / lockfile.LOCK_NAME
    lock.parent.mkdir(parents=True)
    committed = {
        "lock_format": lockfile.LOCK_FORMAT,
        "tools": {t["name"]: t for t in shot["tools"]},
    }
    lock.write_text(json.dumps(committed), encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "lock")
    status, out, _ = _diff(repo, capsys, "--against", "HEAD")
    assert status == 0
    name_line = _line_of(repo, REORDER, "name: create_reorder")
    assert out.splitlines() == [
        f"{REORDER}:{name_line}:1: TD105 [dangerous] toolgen now gives the model another "
        f"definition of 'create_reorder' from the same contract (digest {'0' * 32} in the "
        f"committed lockfile, {snapshot.digest(reorder['model'])} now)"
    ]


def test_the_rule_reference_is_the_one_diff_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["diff", "--docs"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs/diff-rules.md").read_text(
        encoding="utf-8"
    )
