"""The project around the catalogues: its root, its catalogues, and where each one writes.

How the root is found (and that `package` and `implementation` are relative to it, so a build
writes into its catalogue's project wherever it is run from) is docs/builds.md's (The project
root); how `check` takes a catalogue no project holds, docs/spec.md's (Build commands).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolgen.paths import display_path

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
SPEC_DIR = "spec"


class ProjectError(Exception):
    """The command line names something that is not a catalogue of a project."""


def find_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` with a project marker."""
    here = start.absolute()
    for folder in (here, *here.parents):
        if any(os.path.lexists(folder / marker) for marker in ROOT_MARKERS):
            return folder
    return None


def catalogues_under(root: Path) -> list[Path]:
    """The catalogue folders of a project: spec/<name>/ with a catalogue.yaml (a link that
    leads nowhere too: loading it says so, where a glob would pass over it)."""
    spec = root / SPEC_DIR
    if not spec.is_dir():
        return []
    return sorted(p for p in spec.iterdir() if os.path.lexists(p / "catalogue.yaml"))


@dataclass(frozen=True, slots=True)
class Target:
    """One catalogue to check or build, in its project; `only` is the display path of the
    single tool file the user named, whose findings alone are reported."""

    folder: Path
    root: Path
    only: str | None = None
    # False: no project holds the catalogue; `root` only says where paths are shown from
    in_project: bool = True

    @property
    def shown(self) -> str:
        return display_path(self.folder, self.root)


def _catalogue_of(path: Path) -> tuple[Path, Path | None]:
    """(catalogue folder, tool file or None) for a path given on the command line."""
    if path.is_dir():
        return path, None
    if path.name == "catalogue.yaml":
        return path.parent, None
    if path.suffix in (".yaml", ".yml") and path.parent.name == "tools":
        return path.parent.parent, path
    raise ProjectError(
        f"{path}: not a catalogue folder, its catalogue.yaml, or a tool file in its "
        "tools/ folder"
    )


def _alone(folder: Path) -> Path:
    """Where a catalogue with no project is shown from: the current folder when it holds the
    catalogue, else the catalogue's own parent."""
    here = Path.cwd().resolve()
    return here if folder.resolve().is_relative_to(here) else folder.resolve().parent


def targets(
    paths: Sequence[str], root: Path | None, *, alone: bool = False
) -> list[Target]:
    """What the command line asks for. Without paths: every catalogue of the project the
    current folder is in. With `alone` (check), a catalogue no project holds is checked
    alone rather than refused."""
    if not paths:
        base = root or find_root(Path.cwd()) or Path.cwd()
        found = catalogues_under(base)
        if not found:
            raise ProjectError(
                f"no catalogue found under {base / SPEC_DIR} (a folder with "
                "catalogue.yaml and tools/); pass a catalogue folder, or run toolgen in "
                "the project that holds spec/"
            )
        return [Target(folder, base.resolve()) for folder in found]
    chosen = []
    for raw in paths:
        path = Path(raw).absolute()
        if not os.path.lexists(path):
            raise ProjectError(f"{raw}: no such file or folder")
        folder, tool = _catalogue_of(path)
        project = root or find_root(folder.parent)
        if project is None and folder.parent.name == SPEC_DIR:
            # the layout toolgen documents: <root>/spec/<name>
            project = folder.parent.parent
        if project is None and not alone:
            raise ProjectError(
                f"{raw}: no project root found (no {', '.join(ROOT_MARKERS)} in "
                f"{folder.parent} or above it); pass --root"
            )
        shown_from = _alone(folder) if project is None else project.resolve()
        only = display_path(tool, shown_from) if tool is not None else None
        chosen.append(Target(folder, shown_from, only, in_project=project is not None))
    return chosen


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one catalogue of the project writes: dotted package and implementation."""

    folder: str  # the catalogue folder, as shown
    package: str
    implementation: str


def placement_of(folder: Path, root: Path) -> Placement | None:
    """Read just enough of a catalogue.yaml to know where its build writes (the defaults
    are those of the model), or None when it cannot be read."""
    # imported here: finding the targets of a command must not load the YAML machinery
    from toolgen.spec import load
    from toolgen.spec.model import default_package

    shown = display_path(folder, root)
    document, _ = load.load_document(
        folder / "catalogue.yaml", f"{shown}/catalogue.yaml", root
    )
    if document is None or not isinstance(document.data, dict):
        return None
    data = document.data
    name = data.get("name")
    if not isinstance(name, str):
        return None
    default, default_impl = default_package(name)
    package = data.get("package", default)
    implementation = data.get("implementation", default_impl)
    if not isinstance(package, str) or not isinstance(implementation, str):
        return None
    return Placement(shown, package, implementation)


def placements(root: Path, folders: Iterable[Path]) -> list[Placement]:
    """Every catalogue of the project (those under spec/ and those named), once each."""
    seen = dict.fromkeys(
        folder.resolve() for folder in (*catalogues_under(root), *folders)
    )
    found = (placement_of(folder, root) for folder in seen)
    return [p for p in found if p is not None]
