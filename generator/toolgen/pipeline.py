"""The pipeline in one place: load -> validate -> model (+ checks) -> layout -> lint -> render
-> write -> implementations.

Each stage is its own module with one public function, a pure function of its inputs; this
module runs them in order, decides what an earlier build lets it skip (the check cache, the
render cache), and gathers their diagnostics. A stage that cannot go on (no catalogue file,
format errors) stops the later stages for that document, never the report: every problem found
so far is returned.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from toolgen import (
    ahead,
    checks,
    implcheck,
    layout,
    lint,
    load,
    model,
    tokens,
    validate,
    write,
)
from toolgen.checkcache import CheckCache, file_key
from toolgen.diagnostics import Diagnostic, has_errors
from toolgen.formatting import FormattingError, Scratch, scratch
from toolgen.frontcache import FrontCache, Unreadable
from toolgen.ir import Catalogue, Tool
from toolgen.lint.engine import PARALLEL_TOOLS, ToolLint
from toolgen.paths import Vouch, display_path
from toolgen.pieces import ToolPieces
from toolgen.progress import QUIET, Progress
from toolgen.project import Placement
from toolgen.render import render_catalogue


@dataclass(frozen=True, slots=True)
class CheckResult:
    folder: str
    catalogue: Catalogue | None
    diagnostics: tuple[Diagnostic, ...]
    # about the environment, not the spec (a cache that could not be written)
    notes: tuple[str, ...] = ()
    tool_files: int = 0  # in tools/, those that could not be read included
    # catalogue.yaml has format errors: the tool files were checked one by one, no lint ran
    catalogue_broken: bool = False
    # the per-tool pieces of the catalogue-wide outputs, kept ones included (pieces.py)
    pieces: ToolPieces | None = field(default=None, compare=False, repr=False)
    # what the front cache is to keep, when the caller saves it (build_catalogue does)
    pending: PendingSave | None = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.catalogue is not None and not has_errors(self.diagnostics)


@dataclass(slots=True)
class PendingSave:
    """The front cache of a build, saved once the build made the last piece it keeps."""

    front: FrontCache
    tools: tuple[Tool, ...]
    judged_by: tuple[Diagnostic, ...]  # of the stages before lint
    lint: Mapping[str, ToolLint]
    pieces: ToolPieces

    def save(self) -> str | None:
        """None, or the note that says the cache could not be written."""
        if self.front.save(self.tools, self.judged_by, self.lint, self.pieces):
            return None
        return (
            f"cannot write the front cache {self.front.path}; the next build reads every "
            "tool file"
        )


def check_catalogue(
    folder: Path,
    root: Path,
    *,
    implementations: bool = True,
    cache: bool = False,
    others: Sequence[Placement] = (),
    progress: Progress = QUIET,
    defer_save: bool = False,
    reuse: bool = True,
    vouch: Vouch | None = None,
    outputs: bool = False,
    lint_rules: bool = True,
) -> CheckResult:
    """Everything `toolgen check` does for one catalogue folder of the project at `root`.

    `others` are the other catalogues of the project, whose folders a build must not write
    into. With `cache` (what `build` passes), the format check and the per-file semantic
    checks are skipped for tool files that passed them in an earlier build with the same
    content (see checkcache), and the front cache gives the IR, lint records and pieces of
    unchanged tools (frontcache.py); with `defer_save` too, the front cache is not saved here
    but left to the caller (`CheckResult.pending`), once rendering made its pieces. Without
    `reuse`, the front cache is written but not read. With or without `cache`, the IR of
    many tool files with nothing kept is made ahead in two processes (ahead.py) and taken
    as kept IR is; without `cache`, no cache file is read or written for it. `vouch` (the
    stamp's `Digests.vouched`) spares load reading the unchanged tool files the front cache
    holds. With `outputs` (the caller renders the result), the tools made ahead come with
    their pieces of the catalogue-wide files too (`ahead.pieces_of`). Without `lint_rules`,
    the check stops before lint (what `import` asks of its drafts: whether they build).
    """
    shown = display_path(folder, root)
    front = FrontCache(root, shown) if cache else None
    made: ahead.Ahead | None = None
    kept_by: ahead.Reusable | None = None if front is None else front.unread
    if reuse:
        # the tool files with nothing kept, made ahead in two processes when they are many;
        # without the cache, held by a front cache that reads and writes no file
        holder = FrontCache(root, shown) if front is None else front
        made = ahead.made_ahead(
            folder,
            shown,
            root,
            holder,
            progress,
            read=front is not None,
            outputs=outputs,
        )
        kept_by = made.reusable
    with progress.stage("load"):
        loaded = load.load_catalogue(folder, shown, root, kept_by, vouch)
        reused = [] if made is None else made.tools(loaded.reused)
    few = 0 < len(loaded.tools) < PARALLEL_TOOLS
    if made is not None and reused and few and not made.here:
        # a rebuild counts the tokens of the few tools that changed: the tokenizer loads
        # in a child meanwhile (build_catalogue ends it; the CLI may have started it
        # already); not where tools were made ahead, whose lint counts them all
        tokens.prefetch()
    count = len(loaded.tools) + len(reused)
    record = CheckCache(root, shown) if cache else None
    keys = {
        **{d.file: file_key(d.digest) for d in loaded.tools},
        **{t.file: file_key(t.digest) for t in reused},
    }
    blamed_by_load = {d.span.file for d in loaded.diagnostics}
    # a reused tool passed every per-file check in the build that kept it
    passed = frozenset(
        file
        for file, key in keys.items()
        if record is not None and key in record.passed and file not in blamed_by_load
    ) | frozenset(loaded.reused)
    with progress.stage("validate", len(loaded.tools)):
        validated = validate.validate(loaded, skip=passed)
    if reused and validated.catalogue is None:
        # the catalogue file kept its text but no longer passes (which only other code
        # could make): nothing kept from the last build holds
        return check_catalogue(
            folder,
            root,
            implementations=implementations,
            others=others,
            progress=progress,
            outputs=outputs,
        )
    with progress.stage("model", len(validated.tools)):
        built = model.build_model(
            validated.catalogue,
            validated.tools,
            folder=shown,
            broken_tools=validated.broken,
            broken_catalogue=loaded.catalogue if validated.catalogue is None else None,
            reused=reused,
        )
    diagnostics = [*loaded.diagnostics, *validated.diagnostics, *built.diagnostics]
    with progress.stage("checks", count):
        if built.catalogue is not None:
            kept = frozenset(loaded.reused)
            diagnostics.extend(
                checks.run_checks(built.catalogue, passed=passed, kept=kept)
            )
        elif built.stand_in is not None:
            # one typo in catalogue.yaml must not hide what is wrong in the tool files
            diagnostics.extend(
                checks.run_checks(built.stand_in, passed=passed, tools_only=True)
            )
    notes: list[str] = []
    if record is not None and not record.save(keys, diagnostics):
        notes.append(
            f"cannot write the check cache {record.path}; the next build checks everything"
        )
    # what the front cache keeps of a tool is judged by the stages before lint
    before_lint = tuple(diagnostics)
    pieces = ToolPieces(
        None if front is None else front.pieces(),
        None if made is None else made.front.made_pieces,
    )
    pending: PendingSave | None = None
    if built.catalogue is not None:
        with progress.stage("layout"):
            placed = layout.check_layout(built.catalogue, root, others)
        diagnostics.extend(placed.diagnostics)
        if lint_rules:
            with progress.stage("lint", count):
                linted = lint.run(
                    built.catalogue,
                    None if front is None else front.lint_records(),
                    pieces,
                )
            diagnostics.extend(linted.diagnostics)
            if front is not None:
                pending = PendingSave(
                    front, built.catalogue.tools, before_lint, linted.kept, pieces
                )
                if not defer_save:
                    note = pending.save()
                    pending = None
                    if note is not None:
                        notes.append(note)
        if implementations and placed.implementation_readable:
            with progress.stage("implementations", count):
                found = implcheck.check_implementations(built.catalogue, root)
            diagnostics.extend(found)
    unique = sorted(set(diagnostics), key=lambda d: d.sort_key)
    return CheckResult(
        shown,
        built.catalogue,
        tuple(unique),
        tuple(notes),
        tool_files=len(loaded.tool_files),
        catalogue_broken=built.stand_in is not None,
        pieces=pieces,
        pending=pending,
    )


def render(
    result: CheckResult,
    root: Path | None = None,
    progress: Progress = QUIET,
    keep: Scratch | None = None,
    vouch: Vouch | None = None,
) -> write.RenderedFiles | None:
    """The files of a build, or None when the catalogue has errors. With `root`, what did
    not change since the last build there is reused (the render cache); without it,
    everything is rendered (what `build --check` does). With `keep`, the formatted files
    stay there for the write stage to move into place."""
    if not result.ok or result.catalogue is None:
        return None
    return render_catalogue(
        result.catalogue, root, progress, keep, result.pieces, vouch
    )


@dataclass(frozen=True, slots=True)
class BuildResult:
    """One catalogue's build: its check, what was written (None when nothing could be),
    and the one-line reason when writing failed."""

    check: CheckResult
    report: write.WriteReport | None
    failure: str | None = None
    files: write.RenderedFiles | None = None  # what was rendered, when it was

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.check.diagnostics


def build_catalogue(
    folder: Path,
    root: Path,
    *,
    check_only: bool = False,
    others: Sequence[Placement] = (),
    progress: Progress = QUIET,
    vouch: Vouch | None = None,
) -> BuildResult:
    """Check, render and write one catalogue (with `check_only`, compare instead of write).

    A catalogue with errors is not rendered and nothing is written. A real build reuses the
    check and render caches and checks the implementations after writing, since it creates
    the missing stubs; `check_only` uses no cache and checks them first. `vouch` (the
    stamp's `Digests.vouched`) spares load reading the unchanged tool files, the render cache
    reading the files it reuses, and the implementation check reading the implementation
    files of unchanged tools.
    """
    try:
        return _build(folder, root, check_only, others, progress, vouch, reuse=True)
    except Unreadable:
        # a tool the front cache kept cannot be read back: build again without reading
        # it (and write it anew)
        return _build(folder, root, check_only, others, progress, vouch, reuse=False)
    finally:
        tokens.finish()


def _build(
    folder: Path,
    root: Path,
    check_only: bool,
    others: Sequence[Placement],
    progress: Progress,
    vouch: Vouch | None,
    *,
    reuse: bool,
) -> BuildResult:
    result = check_catalogue(
        folder,
        root,
        implementations=check_only,
        cache=not check_only,
        others=others,
        progress=progress,
        defer_save=True,
        reuse=reuse,
        vouch=vouch,
        outputs=True,
    )
    try:
        built = _render_and_write(result, root, check_only, progress, vouch)
    finally:
        note = None if result.pending is None else result.pending.save()
    if note is None:
        return built
    notes = (*built.check.notes, note)
    return replace(built, check=replace(built.check, notes=notes, pending=None))


def _render_and_write(
    result: CheckResult,
    root: Path,
    check_only: bool,
    progress: Progress,
    vouch: Vouch | None,
) -> BuildResult:
    try:
        if check_only:
            files = render(result, None, progress)
            if files is None or result.catalogue is None:
                return BuildResult(result, None)
            with progress.stage("compare"):
                compared = write.check_outputs(files, root)
            return BuildResult(result, compared, files=files)
        # the formatter's files are the build's output, moved into place by write
        with scratch() as kept:
            files = render(result, root, progress, kept, vouch)
            if files is None or result.catalogue is None:
                return BuildResult(result, None)
            with progress.stage("write"):
                report = write.write_outputs(files, root)
        files = replace(files, on_disk={})
    except (FormattingError, write.WriteError) as exc:
        return BuildResult(result, None, str(exc))
    with progress.stage("implementations", len(result.catalogue.tools)):
        found = implcheck.check_implementations(
            result.catalogue, root, result.pieces, vouch
        )
    merged = sorted({*result.diagnostics, *found}, key=lambda d: d.sort_key)
    checked = replace(result, diagnostics=tuple(merged))
    return BuildResult(checked, report, files=files)


@contextmanager
def building(root: Path) -> Iterator[list[str]]:
    """Hold the project's build lock, after cleaning up what an interrupted build left
    (yielded: the paths removed)."""
    with write.build_lock(root):
        yield write.recover(root)
