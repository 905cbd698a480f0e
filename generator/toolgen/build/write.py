"""Write: put a catalogue's rendered files on disk, changing only what differs, all at once.

What a build promises is docs/builds.md's (Only its own files, All or nothing): a file is its
own only when the package's manifest lists it (`manifest.py`; the layout check reports any
other as TG163, and this stage refuses it again), create-once files (implementation stubs,
package markers) are written only where nothing exists, the new package is staged whole in a
sibling folder and switched in at once (one exchange of the two folders, or two renames where
there is none), nothing is left behind, nothing is changed on failure, and nothing is fsynced.
How, here:

- A file that did not change is a hard link to the current one; a new one is the formatter's
  copy, moved into the stage (`RenderedFiles.formatted`).
- **Only what changed is rendered.** A build may leave out the text of an owned file it did
  not render (`RenderedFiles.kept`, with the digest the last build wrote it with, which the
  build cache vouches the file still has); the file is then linked into the stage as it is.
- The journal of the temporary paths, the recovery of what an interrupted build left and the
  lock are recovery.py's; every disk operation goes through `disk.FS`.
- With `check=True` nothing is written or removed: the report carries a unified diff.
"""

from __future__ import annotations

import difflib
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from toolgen.build import disk
from toolgen.build.manifest import (
    MANIFEST_NAME,
    Manifest,
    ManifestError,
    content_digest,
    owned_text,
    parse_manifest,
    read_package,
    walk,
)
from toolgen.build.recovery import Journal, clean_up, temporary
from toolgen.paths import CACHE_DIR


@dataclass(frozen=True, slots=True)
class RenderedFiles:
    """What a build of one catalogue produces, by path relative to the project root.

    `owned` files make up the generated package (`package`, a folder): they are rewritten when
    they change and removed when their tool goes. `kept` are owned files the build did not
    render, with the manifest digest of the text the last build wrote and the build cache
    vouches they still hold: they stay as they are. `create_once` files belong to people once
    created (implementation stubs, package markers): written only when missing.
    """

    package: str
    catalogue: str
    owned: Mapping[str, str]
    create_once: Mapping[str, str]
    kept: Mapping[str, str] = field(default_factory=dict)
    # files of `owned` and `create_once` whose text a file on disk holds already (the
    # formatter's copy): a new one is moved into place rather than written again
    formatted: Mapping[str, Path] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WriteReport:
    written: tuple[str, ...]  # owned files created or changed
    created: tuple[str, ...]  # create-once files that were missing
    removed: tuple[str, ...]  # owned files whose tool is gone
    unchanged: int
    diff: str  # check mode: what a build would change
    warnings: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        return bool(self.written or self.created or self.removed)


class KeptChanged(Exception):
    """A file the build left unrendered (`RenderedFiles.kept`) is not what the manifest
    says the last build wrote: render it again."""


class WriteError(Exception):
    """The build could not write; nothing was changed. One line for the user."""

    def __init__(self, path: str, cause: str) -> None:
        super().__init__(f"cannot write {path}: {cause}; nothing was changed")


# --- what changes ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Plan:
    package: Path
    exists: bool
    files: Mapping[str, str | None]  # inside the package -> text (None: kept as it is)
    unchanged: frozenset[str]  # inside the package: same text on disk
    # inside the package: the files of it the plan found toolgen's (the manifest included)
    ours: frozenset[str]
    written: tuple[str, ...]  # root-relative
    removed: tuple[str, ...]  # root-relative
    create: dict[str, str]  # root-relative -> text
    diffs: tuple[str, ...]


def _diff(rel: str, old: str | None, new: str | None) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=f"a/{rel}" if old is not None else "/dev/null",
        tofile=f"b/{rel}" if new is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def manifest_files(package: Path) -> list[str]:
    """The files of a generated package the manifest lists, and the manifest (paths inside
    the package); none when it has no readable manifest."""
    text = owned_text(package / MANIFEST_NAME)
    if text is None:
        return []
    try:
        return [*parse_manifest(text).files, MANIFEST_NAME]
    except ManifestError:
        return []


def _manifest(files: RenderedFiles) -> Manifest:
    prefix = files.package + "/"
    digests = {rel: content_digest(text) for rel, text in files.owned.items()}
    digests.update(files.kept)
    return Manifest(
        files.catalogue, {rel.removeprefix(prefix): d for rel, d in digests.items()}
    )


def _plan(files: RenderedFiles, root: Path, *, check: bool) -> _Plan:
    package = root / files.package
    try:
        state = read_package(package, contents=check)
    except OSError as exc:
        raise WriteError(files.package, disk.cause(exc)) from exc
    if state.unknown or state.manifest_problem is not None:
        # the layout check reports these with locations; here the build only refuses
        first = state.unknown[0] if state.unknown else MANIFEST_NAME
        raise WriteError(
            f"{files.package}/{first}" if first != "." else files.package,
            "it was not written by toolgen (it is not in the package's manifest)",
        )
    prefix = files.package + "/"
    wanted = _manifest(files)
    listed = state.manifest.files if state.manifest is not None else {}
    inside: dict[str, str | None] = {
        **{rel.removeprefix(prefix): text for rel, text in files.owned.items()},
        **{rel.removeprefix(prefix): None for rel in files.kept},
        MANIFEST_NAME: wanted.text(),
    }
    unchanged: set[str] = set()
    written: list[str] = []
    diffs: list[str] = []
    for rel, text in sorted(inside.items()):
        if text is None:
            if rel not in state.owned or listed.get(rel) != wanted.files[rel]:
                raise KeptChanged(prefix + rel)
            unchanged.add(rel)
            continue
        if rel == MANIFEST_NAME:
            old = state.manifest.text() if state.manifest is not None else None
        elif rel not in state.owned:
            old = None
        elif check:
            old = state.owned[rel]
        elif listed.get(rel) != wanted.files[rel]:
            # the last build left other text here, its manifest says: it is written without
            # being read (the cards module and the lockfile of 1,000 tools are 5 MB)
            old = None
        else:
            old = owned_text(package / rel)
        if old == text:
            unchanged.add(rel)
            continue
        if rel != MANIFEST_NAME:
            written.append(prefix + rel)
        if check:
            diffs.append(_diff(prefix + rel, old, text))
    removed = sorted(prefix + rel for rel in state.owned if rel not in inside)
    if check:
        diffs.extend(
            _diff(rel, state.owned[rel.removeprefix(prefix)], None) for rel in removed
        )
    create: dict[str, str] = {}
    for rel, text in sorted(files.create_once.items()):
        if not os.path.lexists(root / rel):
            create[rel] = text
            if check:
                diffs.append(_diff(rel, None, text))
    return _Plan(
        package=package,
        exists=state.exists,
        files=inside,
        unchanged=frozenset(unchanged),
        ours=frozenset([*state.owned, MANIFEST_NAME] if state.exists else []),
        written=tuple(written),
        removed=tuple(removed),
        create=create,
        diffs=tuple(diffs),
    )


def _report(
    plan: _Plan, created: tuple[str, ...] | None = None, warnings: tuple[str, ...] = ()
) -> WriteReport:
    return WriteReport(
        plan.written,
        tuple(plan.create) if created is None else created,
        plan.removed,
        len(plan.unchanged - {MANIFEST_NAME}),
        "".join(plan.diffs),
        warnings,
    )


def check_outputs(files: RenderedFiles, root: Path) -> WriteReport:
    """What a build would change, as a report with a diff; nothing is written."""
    return _report(_plan(files, root, check=True))


# --- writing --------------------------------------------------------------------------------


def _stage(plan: _Plan, stage: Path, formatted: Mapping[str, Path]) -> None:
    """Stage the new package in the empty folder `stage`: a hard link to the package's file
    where it is unchanged, else the new text (its `formatted` copy, by path inside the
    package, moved there if there is one)."""
    made = {stage}
    disk.FS.mkdir(stage)
    for rel, text in plan.files.items():
        target = stage / rel
        if target.parent not in made:
            disk.FS.mkdir(target.parent)
            made.add(target.parent)
        if rel in plan.unchanged and rel != MANIFEST_NAME:
            disk.FS.link(plan.package / rel, target)
        else:
            assert text is not None  # a kept file is unchanged, or the plan refused it
            disk.FS.move_new(formatted.get(rel), target, text)


def _stage_create_once(
    plan: _Plan,
    root: Path,
    journal: Journal,
    nonce: str,
    formatted: Mapping[str, Path],
) -> None:
    """Put each missing create-once file as a temporary sibling (the part that needs
    space); `_place_create_once` gives them their names after the switch. The journal
    lists them all before the first is made."""
    temps = {rel: temporary(root / rel, "file", nonce) for rel in plan.create}
    if temps:
        journal.record(*temps.values())
    made: set[Path] = set()
    for rel, text in plan.create.items():
        temp = temps[rel]
        if temp.parent not in made:
            disk.FS.mkdir(temp.parent)
            made.add(temp.parent)
        disk.FS.move_new(formatted.get(rel), temp, text)


def _place_create_once(plan: _Plan, root: Path, nonce: str) -> tuple[str, ...]:
    created = []
    for rel in plan.create:
        target = root / rel
        temp = temporary(target, "file", nonce)
        # never over anything, even a file made meanwhile
        if disk.FS.link_new(temp, target):
            created.append(rel)
        disk.FS.unlink(temp)
    return tuple(created)


def _switch(plan: _Plan, stage: Path, old: Path, journal: Journal) -> Path | None:
    """Put the staged tree in place; returns where the replaced tree now is."""
    if not plan.exists:
        disk.FS.rename(stage, plan.package)
        return None
    if disk.FS.exchange(stage, plan.package):
        return stage  # the two folders swapped names: the old tree is at the stage path
    journal.record(aside=(plan.package, old))
    disk.FS.rename(plan.package, old)
    disk.FS.rename(stage, plan.package)
    return old


def _discard(replaced: Path, ours: frozenset[str]) -> tuple[str, ...]:
    """Remove the replaced tree, unless something appeared in it that toolgen did not write
    (a file saved into the package during the build): then leave it where it is and say so."""
    # the entries that are not the files the plan found toolgen's (`read_package`'s unknown
    # ones, and any the manifest lists that were not there), by the folder's listing alone
    unknown = sorted(
        rel for rel, regular in walk(replaced) if rel not in ours or not regular
    )
    if unknown:
        shown = ", ".join(unknown[:3])
        return (
            f"{replaced} was kept: it holds files toolgen did not write ({shown}); move "
            "them back into the package if they are yours",
        )
    disk.FS.rmtree(replaced)
    return ()


def write_outputs(files: RenderedFiles, root: Path) -> WriteReport:
    """Bring the disk to `files`, as described in the module docstring. Call it under
    `build_lock(root)`, after `recover(root)`. Raises `KeptChanged` (nothing written) when
    a kept file is not what the manifest says."""
    plan = _plan(files, root, check=False)
    warnings: list[str] = []
    created: tuple[str, ...] = ()
    if not (
        plan.written
        or plan.removed
        or plan.create
        or MANIFEST_NAME not in plan.unchanged
    ):
        return _report(plan, created)
    journal = Journal(root)
    nonce = f"{os.getpid()}-{secrets.token_hex(4)}"
    stage = temporary(plan.package, "new", nonce)
    old = temporary(plan.package, "old", nonce)
    try:
        disk.FS.mkdir(plan.package.parent)
        journal.record(stage, old)
        if not journal.usable:
            warnings.append(
                f"cannot keep a journal in {CACHE_DIR}/: an interrupted build may "
                f"leave {_shown(stage, root)} behind"
            )
        prefix = files.package + "/"
        inside = {
            rel.removeprefix(prefix): copy
            for rel, copy in files.formatted.items()
            if rel.startswith(prefix)
        }
        _stage(plan, stage, inside)
        _stage_create_once(plan, root, journal, nonce, files.formatted)
        replaced = _switch(plan, stage, old, journal)
    except OSError as exc:
        clean_up(journal)
        where = Path(exc.filename) if isinstance(exc.filename, str) else plan.package
        if where.is_relative_to(stage):  # say where it was going, not the staging name
            where = plan.package / where.relative_to(stage)
        raise WriteError(_shown(where, root), disk.cause(exc)) from exc
    try:
        created = _place_create_once(plan, root, nonce)
        if replaced is not None:
            warnings.extend(_discard(replaced, plan.ours))
    except OSError as exc:
        warnings.append(
            f"the build is complete, but cleaning up failed: {disk.cause(exc)}"
        )
    else:
        journal.close()
    return _report(plan, created, tuple(warnings))


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
