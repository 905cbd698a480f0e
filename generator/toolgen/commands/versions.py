"""The versions of a catalogue that review compares: the one on disk, and the one at `--against
REF`, a folder or a git ref.

A git ref is read with `git archive` into a temporary folder (the work tree, the index and the
refs are never touched), then built with the same pipeline as the catalogue on disk, so both
snapshots come from one toolgen and differ only where the contracts differ. The old version's
lockfile, when it has one, comes along: it shows what the toolgen of that version gave the
model. A version that cannot be read (an unknown ref, a folder without the catalogue, a
catalogue that does not build) is a usage error, printed as such by the command line.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolgen.build import pipeline
from toolgen.commands import UsageError
from toolgen.diagnostics import Severity
from toolgen.paths import package_dir
from toolgen.render import lockfile
from toolgen.spec import snapshot


@dataclass(frozen=True, slots=True)
class Version:
    """One version of a catalogue: its snapshot, what checking it found, and its lockfile."""

    snapshot: dict[str, Any]
    result: pipeline.CheckResult
    committed: dict[str, Any] | None  # the lockfile of the generated package, if any
    folder: Path  # the catalogue's, and the project's it is read in
    root: Path


def build(folder: Path, root: Path, label: str) -> Version:
    """The catalogue in `folder` of the project at `root`, checked and snapshotted."""
    result = pipeline.check_catalogue(folder, root, implementations=False)
    # a tool file that cannot be read is no tool: compared, it would read as removed
    read = {tool.file for tool in result.catalogue.tools} if result.catalogue else ()
    if result.catalogue is None or len(read) < result.tool_files:
        errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
        problems = "; ".join(d.format_text().splitlines()[0] for d in errors[:3])
        raise UsageError(f"{label}: the catalogue does not build: {problems}")
    shot = snapshot.catalogue_snapshot(result.catalogue)
    lock_path = root / package_dir(result.catalogue.package) / lockfile.LOCK_NAME
    committed = None
    if lock_path.is_file():
        committed = lockfile.read(lock_path.read_text(encoding="utf-8"))
    return Version(shot, result, committed, folder, root)


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, check=False
        )
    except OSError as exc:
        raise UsageError(f"cannot run git: {exc.strerror or exc}") from exc
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise UsageError(
            f"git {' '.join(args)}: {message[-1] if message else 'failed'}"
        )
    return done.stdout


@contextlib.contextmanager
def against(ref: str, folder: Path, root: Path) -> Iterator[Version | None]:
    """The catalogue at `ref`: a folder holding that catalogue (a copy of the project, or
    the catalogue folder itself), or a git ref of the repository `root` is in. None when
    the catalogue does not exist in that version (every tool of it is then new)."""
    given = Path(ref)
    if given.is_dir():
        yield _from_folder(given, folder, root, ref)
        return
    top = Path(_git(root, "rev-parse", "--show-toplevel").decode().strip())
    try:
        commit = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except UsageError as exc:
        raise UsageError(
            f"{ref!r} is neither a folder nor a commit of the repository at {top}"
        ) from exc
    try:
        inside = folder.resolve().relative_to(top.resolve()).as_posix()
        project = root.resolve().relative_to(top.resolve()).as_posix()
    except ValueError as exc:
        raise UsageError(f"{folder} is not inside the git repository at {top}") from exc
    with tempfile.TemporaryDirectory(prefix="toolgen-against-") as tmp:
        base = Path(tmp)
        listed = _git(top, "ls-tree", "--name-only", commit.decode().strip(), inside)
        if not listed.strip():
            yield None
            return
        archive = _git(top, "archive", "--format=tar", ref, inside)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            # the "data" filter refuses links out of the folder, absolute names and devices
            tar.extractall(base, filter="data")
        old_root = base / project
        old_root.mkdir(parents=True, exist_ok=True)
        yield _with_lock(build(base / inside, old_root, ref), top, ref, project)


def _with_lock(version: Version, top: Path, ref: str, project: str) -> Version:
    """The lockfile committed at `ref` beside the old version's generated code."""
    catalogue = version.result.catalogue
    assert catalogue is not None
    path = f"{project}/" if project != "." else ""
    path += f"{package_dir(catalogue.package)}/{lockfile.LOCK_NAME}"
    try:
        text = _git(top, "show", f"{ref}:{path}").decode("utf-8")
    except (UsageError, UnicodeDecodeError):
        return version
    return replace(version, committed=lockfile.read(text))


def _from_folder(given: Path, folder: Path, root: Path, label: str) -> Version | None:
    """A folder is the old catalogue itself (it holds catalogue.yaml), or a copy of the
    project, where the catalogue is at the same place as on disk."""
    if (given / "catalogue.yaml").is_file():
        return build(given, given, label)
    candidate = given / folder.resolve().relative_to(root.resolve())
    if not (candidate / "catalogue.yaml").is_file():
        return None
    return build(candidate, given, label)
