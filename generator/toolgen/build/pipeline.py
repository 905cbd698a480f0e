"""The pipeline in one place.

Each tool file goes load -> validate -> model -> checks -> lint (-> render) on its own, in
catalogue.yaml's settings and knowing the catalogue's tool names: a `ToolUnit` (that half is
tool_files.py's). Then, in this module, the catalogue as a whole, each tool seen through its
summary: the checks and lint rules over the catalogue and over pairs of tools, the layout,
the package's own files, the write, and the implementation check.

Each stage is its own module, a function of its inputs; this module runs them in order and
gathers their diagnostics. A stage that cannot go on (no catalogue file, format errors) stops
the later stages for that document, never the report: every problem found so far is returned.

A build keeps each unit in the build cache (cache.py) under the key of everything it is a
function of, and takes it from there the next time instead of compiling the file again; a
build whose inputs and outputs are as the last one left them replays its report. `check` and
`build --check` read no cache. No stage knows whether its input came from the cache.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolgen import checks
from toolgen.build import layout, write
from toolgen.build.cache import (
    BuildCache,
    Found,
    Read,
    Stamp,
    ToolUnit,
    read_status,
    stamped_status,
    status_of,
)
from toolgen.build.manifest import content_digest
from toolgen.build.progress import QUIET, Progress
from toolgen.build.project import Placement
from toolgen.build.tool_files import Fresh, Run, catalogue_settings
from toolgen.checks import implementations as implcheck
from toolgen.diagnostics import Diagnostic, has_errors
from toolgen.lint import enabled_rules, lint_catalogue
from toolgen.lint.context import CatalogueContext
from toolgen.paths import cache_folder, display_path, package_dir
from toolgen.render.formatting import Formatter, FormattingError
from toolgen.spec import load, tokens
from toolgen.spec.groups import with_toolsets
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary
from toolgen.spec.tokens import TokenReport, ToolTokens


@dataclass(frozen=True, slots=True)
class CheckResult:
    folder: str
    # catalogue.yaml's settings; with every tool's IR (`tools`) from `check_catalogue` only
    catalogue: Catalogue | None
    diagnostics: tuple[Diagnostic, ...]
    # about the environment, not the spec (a cache that could not be written)
    notes: tuple[str, ...] = ()
    tool_files: int = 0  # in tools/, those that could not be read included
    # catalogue.yaml has format errors: the tool files were checked one by one, no lint ran
    catalogue_broken: bool = False
    tools: tuple[ToolSummary, ...] = ()  # every tool, in name order
    tokens: TokenReport | None = None

    @property
    def ok(self) -> bool:
        return self.catalogue is not None and not has_errors(self.diagnostics)


@dataclass(frozen=True, slots=True)
class BuildResult:
    """One catalogue's build: its check, what was written (None when nothing could be),
    and the one-line reason when writing failed."""

    check: CheckResult
    report: write.WriteReport | None
    failure: str | None = None

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.check.diagnostics


# --- the catalogue as a whole -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Whole:
    """The catalogue-wide results of a run over its units."""

    catalogue: Catalogue
    tools: tuple[ToolSummary, ...]
    tokens: TokenReport
    diagnostics: tuple[Diagnostic, ...]
    implementation_readable: bool


def _whole(
    run: Run,
    units: Sequence[ToolUnit],
    others: Sequence[Placement],
) -> _Whole:
    """The checks and lint of the catalogue as a whole, over every unit's summaries."""
    settings = run.settings.catalogue
    assert settings is not None
    tools = tuple(sorted((t for u in units for t in u.tools), key=lambda t: t.name))
    broken = tuple(sorted({u.broken for u in units if u.broken is not None}))
    catalogue = with_toolsets(replace(settings, broken_tools=broken), tools)
    counts = {name: n for u in units for name, n in u.tokens.items()}
    report = TokenReport(
        tokens.ENCODING, tuple(ToolTokens(t.name, counts[t.name]) for t in tools)
    )
    found: list[Diagnostic] = [d for u in units for d in u.diagnostics]
    tools_only = run.settings.broken
    found.extend(checks.check_catalogue(catalogue, tools, tools_only=tools_only))
    if tools_only:
        return _Whole(catalogue, tools, report, tuple(found), False)
    with run.progress.stage("layout"):
        placed = layout.check_layout(catalogue, tools, run.root, others)
    found.extend(placed.diagnostics)
    if run.lint:
        with run.progress.stage("lint", len(tools)):
            ctx = CatalogueContext(catalogue, tools, counts, broken)
            hits = [h for u in units for h in u.hits]
            found.extend(lint_catalogue(ctx, hits, enabled_rules(catalogue)))
    return _Whole(
        catalogue, tools, report, tuple(found), placed.implementation_readable
    )


def _sorted(diagnostics: Sequence[Diagnostic]) -> tuple[Diagnostic, ...]:
    return tuple(sorted(set(diagnostics), key=lambda d: d.sort_key))


def _result(
    run: Run,
    whole: _Whole | None,
    extra: Sequence[Diagnostic] = (),
    full_ir: Sequence[Tool] = (),
) -> CheckResult:
    found = [*run.sources.diagnostics, *run.settings.diagnostics, *extra]
    if whole is None:
        return CheckResult(
            run.sources.folder,
            None,
            _sorted(found),
            tool_files=len(run.sources.tools),
        )
    found.extend(whole.diagnostics)
    catalogue = whole.catalogue
    if full_ir:
        catalogue = replace(
            catalogue, tools=tuple(sorted(full_ir, key=lambda t: t.name))
        )
    return CheckResult(
        run.sources.folder,
        None if run.settings.broken else catalogue,
        _sorted(found),
        tool_files=len(run.sources.tools),
        catalogue_broken=run.settings.broken,
        tools=whole.tools,
        tokens=whole.tokens,
    )


def _start(
    folder: Path,
    root: Path,
    progress: Progress,
    *,
    cache: BuildCache | None = None,
    stamp: Stamp | None = None,
    sources: load.Sources | None = None,
) -> Run:
    with progress.stage("read"):
        if sources is None:
            sources = load.read_sources(folder, display_path(folder, root), root)
        settings = catalogue_settings(sources)
    kept = cache.units() if cache is not None and not settings.broken else {}
    outputs = stamp.outputs if stamp is not None else {}
    return Run(root, sources, settings, kept, progress, outputs)


def check_catalogue(
    folder: Path,
    root: Path,
    *,
    implementations: bool = True,
    others: Sequence[Placement] = (),
    progress: Progress = QUIET,
    lint_rules: bool = True,
) -> CheckResult:
    """Everything `toolgen check` does for one catalogue folder of the project at `root`:
    every stage but render and write, from the files alone (no cache). The result holds
    every tool's IR (`CheckResult.catalogue.tools`). `others` are the other catalogues of
    the project, whose folders a build must not write into. Without `lint_rules`, no lint
    rule runs (what `import` asks of its drafts: whether they build)."""
    run = _start(folder, root, progress)
    run.lint = lint_rules
    if run.settings.catalogue is None:
        return _result(run, None)
    units, _, ir = run.units(full_ir=True)
    whole = _whole(run, units, others)
    found: list[Diagnostic] = []
    if implementations and whole.implementation_readable:
        with progress.stage("implementations", len(whole.tools)):
            found = implcheck.check_implementations(whole.catalogue, root, whole.tools)
    return _result(run, whole, found, full_ir=ir)


# --- a build ------------------------------------------------------------------------------


def _files(
    whole: _Whole,
    units: list[ToolUnit],
    fresh: Sequence[Fresh],
    formatter: Formatter,
    progress: Progress,
) -> write.RenderedFiles:
    """What the build writes: the fresh units' files and the package's own, formatted,
    and the files of the kept units as they are. `formatter` has the fresh units' files
    and stubs already; it is handed the package's own files, the markers and the fresh
    units' cards, and each fresh unit gets its formatted cards and the digests of its
    files (`outputs`), in `units` too."""
    # imported here, as in tool_files.Fresh.render: `check` never renders
    from toolgen.render.files import CARDS_PATH, render_catalogue
    from toolgen.render.modules import cards_entries, cards_module, cards_source

    catalogue = whole.catalogue
    package = package_dir(catalogue.package)
    locks = [piece for u in units for piece in u.locks.values()]
    own, markers = render_catalogue(catalogue, whole.tools, locks, whole.tokens.total)
    with progress.stage("format"):
        fresh_cards = [(name, text) for f in fresh for name, text in f.cards.items()]
        names = [name for name, _ in fresh_cards]
        cards_key = f"{package}/{CARDS_PATH}.entries.py"
        formatter.add(
            {**own, **markers, cards_key: cards_source([t for _, t in fresh_cards])}
        )
        done = formatter.results()
        by_name = dict(
            zip(names, cards_entries(done.pop(cards_key), names), strict=True)
        )
        for f in fresh:
            f.unit = replace(
                f.unit,
                cards={name: by_name[name] for name in f.cards},
                outputs={rel: content_digest(done[rel]) for rel in f.files},
            )
        owned = {rel: done[rel] for f in fresh for rel in f.files}
        owned.update((rel, done[rel]) for rel in own)
        created = {rel: done[rel] for f in fresh for rel in f.stubs}
        created.update((rel, done[rel]) for rel in markers)
    made = {f.unit.file: f.unit for f in fresh}
    units[:] = [made.get(u.file, u) for u in units]
    entries = {name: text for u in units for name, text in u.cards.items()}
    cards = f"{package}/{CARDS_PATH}"
    owned[cards] = cards_module(owned[cards], [entries[t.name] for t in whole.tools])
    # every other file is its formatted copy's text, which the write moves into place
    copies = formatter.copies()
    formatted = {rel: copies[rel] for rel in (*owned, *created) if rel in copies}
    formatted.pop(cards, None)
    return write.RenderedFiles(
        package=package,
        catalogue=catalogue.folder,
        owned=owned,
        create_once=created,
        formatted=formatted,
        kept={
            rel: d for u in units if u.file not in made for rel, d in u.outputs.items()
        },
    )


def _build(
    run: Run,
    others: Sequence[Placement],
    check_only: bool,
    checked: implcheck.Checked | None = None,
) -> tuple[BuildResult, list[ToolUnit]]:
    if run.settings.catalogue is None:
        return BuildResult(_result(run, None), None), []
    # a build formats in the project's cache folder (its disk, not the system's), and
    # deletes the formatter's copies only after the write: on some disks, files created
    # just after thousands are deleted cost up to ten times as much (the system's folder
    # when the cache folder is a link)
    with Formatter(None if check_only else cache_folder(run.root)) as formatter:
        run.formatter = formatter
        units, fresh, _ = run.units(full_ir=False)
        whole = _whole(run, units, others)
        result = _result(run, whole)
        if not result.ok:
            return BuildResult(result, None), units
        try:
            files = _files(whole, units, fresh, formatter, run.progress)
        except FormattingError as exc:
            return BuildResult(result, None, str(exc)), units
        return _written(run, whole, result, files, check_only, checked), units


def _written(
    run: Run,
    whole: _Whole,
    result: CheckResult,
    files: write.RenderedFiles,
    check_only: bool,
    checked: implcheck.Checked | None,
) -> BuildResult:
    """The build's result once `files` are written (or, with `check_only`, compared)."""
    found: list[Diagnostic] = []
    try:
        if check_only:
            found = implcheck.check_implementations(
                whole.catalogue, run.root, whole.tools
            )
            with run.progress.stage("compare"):
                report = write.check_outputs(files, run.root)
        else:
            with run.progress.stage("write"):
                report = write.write_outputs(files, run.root)
            # after the write, which creates the missing stubs; their status before the
            # check reads them (an edit meanwhile moves it, and the next build runs)
            folder = package_dir(whole.catalogue.implementation)
            left = _left(report, package_dir(whole.catalogue.package), folder, run.root)
            report = replace(report, warnings=(*report.warnings, *left))
            run.implementations = read_status([run.root / folder])
            with run.progress.stage("implementations", len(whole.tools)):
                found = implcheck.check_implementations(
                    whole.catalogue, run.root, whole.tools, checked
                )
    except write.WriteError as exc:
        return BuildResult(result, None, str(exc))
    merged = replace(result, diagnostics=_sorted([*result.diagnostics, *found]))
    return BuildResult(merged, report)


def _left(report: write.WriteReport, package: str, impl: str, root: Path) -> list[str]:
    """The implementations of the tools whose modules the write removed: kept, and said."""
    return [
        f"{impl}/{name} is kept, though its tool is gone (renamed or removed): move its "
        "logic into the file of the tool that replaced it, or delete it"
        for folder, _, name in (rel.rpartition("/") for rel in report.removed)
        if folder == package and (root / impl / name).is_file()
    ]


def build_catalogue(
    folder: Path,
    root: Path,
    *,
    check_only: bool = False,
    others: Sequence[Placement] = (),
    progress: Progress = QUIET,
    found: Found | None = None,
) -> BuildResult:
    """Check, render and write one catalogue (with `check_only`, compare instead of write).

    A catalogue with errors is not rendered and nothing is written. A build takes from the
    build cache the units of the tool files that did not change and keeps its own for the
    next one, with a stamp of what it read and left (`found`: the status of the files it
    reads, taken before, `cache.replay`); `check_only` uses no cache."""
    if check_only:
        return _build(_start(folder, root, progress), others, check_only=True)[0]
    cache = BuildCache(root, display_path(folder, root))
    stamp = found.last if found else cache.stamp()
    run = _start(folder, root, progress, cache=cache, stamp=stamp)
    checked = implcheck.Checked(cache.checked())
    try:
        built, units = _build(run, others, check_only=False, checked=checked)
    except write.KeptChanged:
        # a file the cache vouched for is not what the manifest says: render everything
        run = _start(folder, root, progress, sources=run.sources)
        built, units = _build(run, others, check_only=False, checked=checked)
    with progress.stage("cache"):
        specs = found.specs if found else None
        note = cache.save(_stamp(run, built, specs), units, checked.kept)
    if note is None:
        return built
    return replace(built, check=replace(built.check, notes=(*built.check.notes, note)))


def _stamp(run: Run, built: BuildResult, specs: Read | None) -> Stamp | None:
    """The stamp of a build that wrote without trouble, else None (the next build does
    everything again): the spec files' status (`specs`) as before the build read them, the
    implementations' as the build took it before it read them, and the package's now."""
    catalogue = built.check.catalogue
    report = built.report
    if catalogue is None or report is None or built.failure or report.warnings:
        return None
    package = package_dir(catalogue.package)
    listed = write.manifest_files(run.root / package)
    outputs = {}
    # joined as text: a Path made for each of 2,000 files costs as much as its status
    base = f"{os.fspath(run.root)}/{package}"
    for rel in listed:
        status = status_of(f"{base}/{rel}")
        if status is None:
            return None
        outputs[f"{package}/{rel}"] = status
    read = stamped_status(run.root, package, specs, run.implementations)
    return Stamp(
        package=package,
        implementation=package_dir(catalogue.implementation),
        outputs=outputs,
        diagnostics=built.check.diagnostics,
        unchanged=len(listed) - 1,  # the manifest is not an output
        max_warnings=catalogue.lint.max_warnings,
        read="" if read is None else read[0],
    )
