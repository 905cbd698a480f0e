"""`toolgen init PATH`: a project that uses toolgen, ready to build, in one command.

What it writes (`_files`, and the `.gitignore` entries for toolgen's caches), and how it
treats the files that exist (it never overwrites one, and stops before writing anything; an
existing `.gitignore` gets the entries it lacks, an existing `pyproject.toml` is left alone
and the summary says what to add to it): docs/howto-init.md.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from pathlib import Path

from toolgen import __version__
from toolgen.names import is_identifier
from toolgen.spec import validate
from toolgen.templating import render

__all__ = ["HOOKS_REPOSITORY", "InitRefused", "Scaffold", "scaffold"]

# where `.pre-commit-config.yaml` finds toolgen's hooks (its .pre-commit-hooks.yaml)
HOOKS_REPOSITORY = "https://github.com/toolgen/toolgen"
EXAMPLE_TOOL = "read_order_status"


class InitRefused(Exception):
    """A file init would write exists, or the name cannot be a catalogue's; nothing written."""


@dataclass(frozen=True, slots=True)
class Scaffold:
    written: tuple[Path, ...]
    gitignore_added: tuple[str, ...]  # entries appended to an existing .gitignore
    pyproject_kept: bool  # an existing pyproject.toml was left as it was


def _files(root: Path, name: str) -> dict[Path, str]:
    catalogue = root / "spec" / name
    values = {
        "name": name,
        "version": __version__,
        "hooks_repository": HOOKS_REPOSITORY,
        "project": name.replace("_", "-"),
    }

    def rendered(template: str) -> str:
        return render(f"init/{template}.jinja", **values)

    return {
        catalogue / "catalogue.yaml": rendered("catalogue.yaml"),
        catalogue / "tools" / f"{EXAMPLE_TOOL}.yaml": rendered("example_tool.yaml"),
        root / "spec" / "catalogue.v1.json": validate.schema_text("catalogue"),
        root / "spec" / "tool.v1.json": validate.schema_text("tool"),
        root / ".pre-commit-config.yaml": rendered("pre-commit-config.yaml"),
        root / ".github" / "workflows" / "toolgen.yml": rendered("workflow.yml"),
        root / "pyproject.toml": rendered("pyproject.toml"),
    }


def scaffold(root: Path, name: str | None = None) -> Scaffold:
    """Write a new project at `root` (created if missing) with one catalogue `name`."""
    if name is None:  # the folder's name as an identifier
        name = re.sub(r"[^A-Za-z0-9_]", "_", root.resolve().name).lower() or "tools"
    if not is_identifier(name):  # as TG140 judges it: `class` is a keyword
        fitting = re.sub(r"\W+", "_", name.lower()).strip("_")
        fitting = fitting if is_identifier(fitting) else f"tools_{fitting}".rstrip("_")
        kind = "a Python keyword" if keyword.iskeyword(name) else "no Python identifier"
        raise InitRefused(
            f"the catalogue name {name!r} is {kind}: pass an identifier with --name, "
            f"such as --name {fitting}"
        )
    files = _files(root, name)
    pyproject = root / "pyproject.toml"
    kept = pyproject.exists()
    if kept:
        del files[pyproject]
    in_the_way = sorted(str(p) for p in files if p.exists() or p.is_symlink())
    if in_the_way:
        raise InitRefused(
            "these files exist and are never overwritten: " + ", ".join(in_the_way)
        )
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:  # "x": never an existing file
            handle.write(text)
    gitignore = root / ".gitignore"
    ignored = render("init/gitignore.jinja")
    added: tuple[str, ...] = ()
    if not gitignore.exists():
        gitignore.write_text(ignored, encoding="utf-8")
        files[gitignore] = ""
    else:
        before = gitignore.read_text(encoding="utf-8")
        present = set(before.splitlines())
        added = tuple(
            line
            for line in ignored.splitlines()
            if line and not line.startswith("#") and line not in present
        )
        if added:
            joiner = "" if before.endswith("\n") or not before else "\n"
            gitignore.write_text(
                before + joiner + "# toolgen\n" + "\n".join(added) + "\n",
                encoding="utf-8",
            )
    return Scaffold(tuple(files), added, kept)
