"""`toolgen init`: what it writes, and that it never overwrites a file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from toolgen import __version__, cli, pipeline, validate
from toolgen.init import HOOKS_REPOSITORY, InitRefused, scaffold


def test_a_new_project_checks_clean(tmp_path: Path) -> None:
    root = tmp_path / "Order-Desk"
    assert cli.main(["init", str(root)]) == 0
    spec = root / "spec" / "order_desk"
    assert (spec / "tools" / "read_order_status.yaml").is_file()
    result = pipeline.check_catalogue(spec, root, implementations=False)
    assert result.ok
    assert [d.code for d in result.diagnostics] == []  # not even a warning
    # the schema lines point at the schemas written beside the catalogues
    for path, kind in (
        (spec / "catalogue.yaml", "catalogue"),
        (spec / "tools" / "read_order_status.yaml", "tool"),
    ):
        first = path.read_text().splitlines()[0]
        referenced = (path.parent / first.split("$schema=")[1]).resolve()
        assert referenced.read_text() == validate.schema_text(kind)
    assert (root / ".gitignore").read_text().splitlines()[1:] == [
        ".toolgen-cache/",
        "*.toolgen-*.tmp",
    ]
    hooks = yaml.safe_load((root / ".pre-commit-config.yaml").read_text())
    [repo] = hooks["repos"]
    assert repo["repo"] == HOOKS_REPOSITORY and repo["rev"] == f"v{__version__}"
    assert [h["id"] for h in repo["hooks"]] == ["toolgen-check", "toolgen-build-check"]
    workflow = yaml.safe_load((root / ".github/workflows/toolgen.yml").read_text())
    runs = [s["run"] for s in workflow["jobs"]["toolgen"]["steps"] if "run" in s]
    assert runs[1:] == [
        "toolgen check",
        "toolgen build --check",
        "toolgen diff --against origin/main --format github",
        "python -m pytest generated",
    ]
    assert "pythonpath" in (root / "pyproject.toml").read_text()


def test_init_never_overwrites(tmp_path: Path) -> None:
    scaffold(tmp_path, "desk")
    example = tmp_path / "spec/desk/tools/read_order_status.yaml"
    example.write_text("# mine\n")
    with pytest.raises(InitRefused, match="never overwritten"):
        scaffold(tmp_path, "desk")
    assert example.read_text() == "# mine\n"
    assert cli.main(["init", str(tmp_path), "--name", "desk"]) == 2
    with pytest.raises(InitRefused, match="identifier"):
        scaffold(tmp_path / "x", "not-a-name")


def test_an_existing_project_keeps_its_files(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    (tmp_path / ".gitignore").write_text(".venv/\n.toolgen-cache/")
    made = scaffold(tmp_path, "desk")
    assert made.pyproject_kept
    assert (tmp_path / "pyproject.toml").read_text() == "[project]\nname = 'mine'\n"
    assert made.gitignore_added == ("*.toolgen-*.tmp",)
    assert (tmp_path / ".gitignore").read_text() == (
        ".venv/\n.toolgen-cache/\n# toolgen\n*.toolgen-*.tmp\n"
    )


def test_the_howto_lists_what_init_writes(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "howto-init.md").read_text()
    listed = page.split("```text files\n")[1].split("```")[0].splitlines()
    made = scaffold(tmp_path / "order_desk")
    written = [str(p.relative_to(tmp_path / "order_desk")) for p in made.written]
    assert written == listed
