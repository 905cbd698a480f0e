"""The examples of docs/review.md and docs/ci.md: the diff output is what `toolgen diff` prints
for the edit the page describes, the accepted-changes.yaml example accepts that change, the
workflow runs the three checks, and the pre-commit example names hooks that exist."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

import toolgen
from toolgen import templating
from toolgen.cli import main
from toolgen.interop.init import HOOKS_REPOSITORY
from toolgen.review import diff

ROOT = Path(__file__).resolve().parents[2]


def _block(doc: str, info: str) -> str:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    found = re.findall(rf"^```{re.escape(info)}\n(.*?)^```$", text, re.M | re.S)
    assert len(found) == 1, f"{doc}: expected one ```{info} block"
    return str(found[0])


@pytest.fixture
def edited(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    shutil.copytree(ROOT / "spec/inventory", repo / "spec/inventory")
    (repo / "pyproject.toml").write_text("", encoding="utf-8")
    git = [
        "git",
        "-C",
        str(repo),
        "-c",
        "user.email=r@example.com",
        "-c",
        "user.name=r",
    ]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    for file, old, new in (
        ("create_reorder.yaml", "max: 1000", "max: 500"),
        ("read_stock.yaml", "effect: read", "effect: write"),
    ):
        path = repo / "spec/inventory/tools" / file
        path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), "utf-8")
    return repo


def test_the_diff_output_is_what_toolgen_prints(
    edited: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["diff", "--root", str(edited), str(edited / "spec/inventory"),
                   "--against", "HEAD"])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 1
    assert captured.out + captured.err == _block("review.md", "text diff-output")


def test_the_acceptance_example_accepts_that_change(
    edited: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _block("review.md", "yaml accept")
    entries, problems = diff.parse_acceptances(yaml.safe_load(text))
    assert problems == [] and len(entries) == 1
    (edited / "spec/inventory" / diff.ACCEPT_NAME).write_text(text, encoding="utf-8")
    main(
        [
            "diff",
            "--root",
            str(edited),
            str(edited / "spec/inventory"),
            "--against",
            "HEAD",
        ]
    )
    out = capsys.readouterr().out
    assert "TD208 [breaking, accepted]" in out
    assert "accepted: The supplier takes at most 500 pieces per order" in out


def test_the_workflow_runs_the_three_checks_and_is_the_one_init_writes() -> None:
    text = _block("ci.md", "yaml workflow")
    # one workflow: the page showed another than init wrote (no annotations of the lint)
    written = templating.render("init/workflow.yml.jinja", version=toolgen.__version__)
    assert text.split("\n", 1)[1] == written
    workflow = yaml.safe_load(text)
    steps = workflow["jobs"]["toolgen"]["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    assert "toolgen build --check" in runs
    assert "toolgen diff --against origin/main --format github" in runs
    assert any(r.startswith("toolgen check") for r in runs)
    assert steps[0]["with"]["fetch-depth"] == 0


def test_the_pre_commit_example_names_the_hooks_that_exist() -> None:
    config = yaml.safe_load(_block("ci.md", "yaml pre-commit"))
    hooks = yaml.safe_load(
        (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    )
    named = [h["id"] for repo in config["repos"] for h in repo["hooks"]]
    assert named == [h["id"] for h in hooks]
    # the repository `toolgen init` writes into a project's .pre-commit-config.yaml
    assert [repo["repo"] for repo in config["repos"]] == [HOOKS_REPOSITORY]
    assert [h["entry"] for h in hooks] == ["toolgen check", "toolgen build --check"]
