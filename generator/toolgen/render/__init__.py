"""Render: the IR becomes the files of a build, `{path: text}` in memory.

`render_catalogue` is the one entry. Every name, import, type annotation and literal is
computed in this package (`annotations`, `imports`, and `source`, through which alone spec text
becomes Python); the templates only lay the pieces out (`modules`, `tests`). The files are then
formatted by ruff in one batch, so they are byte for byte what `ruff format` keeps. Given a
project root, units whose inputs did not change are read back from the disk instead (`cache`),
and stubs that exist are not rendered at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from toolgen import formatting, implcheck, parallel, templating
from toolgen.ir import Catalogue, Tool
from toolgen.paths import CACHE_DIR, Vouch, package_dir
from toolgen.pieces import IMPLEMENTATION, ToolPieces
from toolgen.progress import QUIET, Progress
from toolgen.render.cache import RenderCache, catalogue_inputs, tool_inputs
from toolgen.render.modules import (
    CardsModule,
    package_markers,
    render_context,
    render_package_init,
    render_stub,
    render_tool_module,
)
from toolgen.render.source import docstring
from toolgen.render.tests import render_catalogue_tests, render_tool_tests
from toolgen.review import lockfile
from toolgen.write import Owned, RenderedFiles

__all__ = ["render_catalogue"]

# fresh tools from which a share of them are rendered and formatted in a forked child
# (parallel.py); below it, forking costs more than it saves
PARALLEL_UNITS = 200
# the child's share: the parent renders the catalogue's own files besides its part, from
# per-tool pieces made ahead (a first build of 1,000 tools on 2 cores: at half each, the
# parent asked for the child's part 100 ms to 250 ms after the child had it ready; at 0.6
# it waited 330 ms to 670 ms for it)
CHILD_SHARE = 0.55


@dataclass(frozen=True, slots=True)
class _Work:
    """What a build renders of one tool: its unit (module and tests) when it is not reused,
    and its stub when the implementation does not exist."""

    tool: Tool
    unit: str | None
    paths: tuple[str, str]
    stub: str | None


# of a share of the work: the units' files, the stubs, every text formatted, the scratch
# folder they were formatted in (where each formatted file is, and its status), and the
# implementation check of each stub (a piece, by tool file)
_Part = tuple[
    dict[str, dict[str, str]],
    dict[str, str],
    dict[str, str],
    formatting.Scratch,
    dict[str, implcheck.KeptCheck],
]


def _render(catalogue: Catalogue, work: _Work) -> tuple[dict[str, str], str | None]:
    files = (
        {}
        if work.unit is None
        else {
            work.paths[0]: render_tool_module(catalogue, work.tool),
            work.paths[1]: render_tool_tests(catalogue, work.tool),
        }
    )
    return files, None if work.stub is None else render_stub(catalogue, work.tool)


def _made(
    catalogue: Catalogue, part: list[_Work], advance: Callable[[], None] = lambda: None
) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    units: dict[str, dict[str, str]] = {}
    stubs: dict[str, str] = {}
    for work in part:
        files, stub = _render(catalogue, work)
        if work.unit is not None:
            units[work.unit] = files
        if work.stub is not None and stub is not None:
            stubs[work.stub] = stub
        advance()
    return units, stubs


def _formatted_part(
    catalogue: Catalogue, part: list[_Work], workdir: Path | None, checks: bool
) -> _Part:
    """A share of the work rendered and formatted, as the child does it (its scratch
    folder left for the parent to adopt), with the stubs checked when `checks`."""
    units, stubs = _made(catalogue, part)
    own = formatting.Scratch()
    flat = {p: t for files in units.values() for p, t in files.items()}
    formatted = formatting.format_sources({**flat, **stubs}, workdir, own)
    return units, stubs, formatted, own, _stub_checks(part, formatted, checks)


def _stub_checks(
    part: list[_Work], formatted: Mapping[str, str], checks: bool
) -> dict[str, implcheck.KeptCheck]:
    """The implementation check of each stub of `part` as formatted: what the check after
    the write would find in it (a new catalogue's 1,000 stubs: 100 ms), made here, in the
    share of the work a child may do."""
    return {
        work.tool.file: implcheck.checked_piece(
            work.tool, work.stub, formatted[work.stub].encode("utf-8")
        )
        for work in part
        if checks and work.stub is not None and work.stub in formatted
    }


def _adopt(
    catalogue: Catalogue,
    part: list[_Work],
    workdir: Path | None,
    child: parallel.Child[_Part],
    keep: formatting.Scratch | None,
    checks: bool,
) -> _Part:
    """The child's share: its result, or (the child failed) made here, so the build is the
    serial one or fails with the serial path's error. Its formatted files join `keep`."""
    try:
        done = child.result()
    except parallel.ChildFailed:
        done = _formatted_part(catalogue, part, workdir, checks)
    own = done[3]
    if keep is not None:
        keep.folders.extend(own.folders)
        keep.files.update(own.files)
        keep.statuses.update(own.statuses)
    else:
        own.close()
    return done


def _catalogue_files(
    catalogue: Catalogue, pkg: str, pieces: ToolPieces | None
) -> dict[str, str]:
    """The catalogue's own files but the cards module (`CardsModule`)."""
    return {
        f"{pkg}/__init__.py": render_package_init(catalogue),
        f"{pkg}/context.py": render_context(catalogue),
        f"{pkg}/tests/__init__.py": templating.render(
            "tests_init.py.jinja",
            module_doc=docstring(
                f"Tests of the {catalogue.name} catalogue, generated by toolgen from "
                f"{catalogue.folder}."
            ),
        ),
        f"{pkg}/tests/test_catalogue.py": render_catalogue_tests(catalogue),
        f"{pkg}/{lockfile.LOCK_NAME}": lockfile.catalogue_text(catalogue, pieces),
    }


def _exists(root: Path, rel: str, vouch: Vouch | None) -> bool:
    """Whether the root-relative file `rel` exists (a file the stamp vouches for does,
    and is not looked at again)."""
    return (vouch is not None and vouch(rel) is not None) or (root / rel).exists()


def render_catalogue(
    catalogue: Catalogue,
    root: Path | None = None,
    progress: Progress = QUIET,
    keep: formatting.Scratch | None = None,
    pieces: ToolPieces | None = None,
    vouch: Vouch | None = None,
) -> RenderedFiles:
    """Every file of a catalogue's build, formatted.

    With `root`, a unit whose inputs did not change since the last build there (and whose
    files nobody edited) is read back instead of rendered, and the stub of an implementation
    that exists is not rendered at all. Without it, everything is rendered (what
    `build --check` does, so a hand edit is always found). With `keep`, the formatted files
    stay on disk there and the result says where (`RenderedFiles.on_disk`), for the write
    stage to move into place. With `pieces`, the catalogue-wide files are assembled from
    the per-tool pieces kept for unchanged tools (pieces.py). With `vouch` (the stamp's
    `Digests.vouched`), a reused file whose status vouches for it is not read back.
    """
    pkg = package_dir(catalogue.package)
    impl = package_dir(catalogue.implementation)
    cache = RenderCache(root, catalogue.package, vouch)
    inputs: dict[str, str] = {}  # unit rendered now -> its inputs
    reused: dict[str, str] = {}
    workdir = root / CACHE_DIR if root is not None else None
    templating.keep_compiled(workdir / "templates" if workdir is not None else None)
    work: list[_Work] = []
    for tool in catalogue.tools:
        unit, made_of = f"tool:{tool.name}", tool_inputs(catalogue, tool)
        paths = (f"{pkg}/{tool.py.module}.py", f"{pkg}/tests/test_{tool.py.module}.py")
        kept = cache.reuse(unit, made_of, paths)
        if kept is not None:
            reused.update(kept)
        else:
            inputs[unit] = made_of
        stub = None
        if not tool.derived:  # a prepare tool has no implementation
            stub = f"{impl}/{tool.py.module}.py"
            if root is not None and _exists(root, stub, vouch):
                stub = None
        if kept is None or stub is not None:
            work.append(_Work(tool, None if kept is not None else unit, paths, stub))
    # the stubs are checked with the rest where that check reads them after the write
    checks = root is not None and pieces is not None
    theirs: list[_Work] = []
    child: parallel.Child[_Part] | None = None
    if parallel.worth_it(len(work), PARALLEL_UNITS):
        cut = len(work) - int(len(work) * CHILD_SHARE)
        work, theirs = work[:cut], work[cut:]
        child = parallel.start(
            lambda: _formatted_part(catalogue, theirs, workdir, checks)
        )
    try:
        with progress.stage("render", len(catalogue.tools)) as advance:
            for _ in range(len(catalogue.tools) - len(work)):
                advance()  # reused, or handed to the child
            fresh, create_once = _made(catalogue, work, advance)
            unit, made_of = "catalogue", catalogue_inputs(catalogue)
            own_paths = [
                f"{pkg}/{n}"
                for n in ("__init__.py", "_cards.py", "context.py", "tests/__init__.py")
            ] + [f"{pkg}/tests/test_catalogue.py", f"{pkg}/{lockfile.LOCK_NAME}"]
            kept = cache.reuse(unit, made_of, own_paths)
            cards: CardsModule | None = None
            if kept is not None:
                reused.update(kept)
            else:
                fresh[unit] = _catalogue_files(catalogue, pkg, pieces)
                cards = CardsModule(catalogue, pieces)
                inputs[unit] = made_of
            create_once.update(
                package_markers(
                    catalogue.package, stop=len(catalogue.package.split(".")) - 1
                )
            )
            create_once.update(package_markers(catalogue.implementation))
        rendered = {p: t for files in fresh.values() for p, t in files.items()}
        # the cards module's sources join the batch, under names no file has
        path = f"{pkg}/_cards.py"
        sources = {} if cards is None else cards.sources
        joined = {f"{path}.{name}": text for name, text in sources.items()}
        with progress.stage("format"):
            formatted = formatting.format_sources(
                {**rendered, **create_once, **joined}, workdir, keep
            )
            if cards is not None:
                text = cards.text({n: formatted.pop(f"{path}.{n}") for n in sources})
                if keep is not None:
                    keep.forget(joined)
                fresh[unit][path] = rendered[path] = formatted[path] = text
            checked = _stub_checks(work, formatted, checks)
            if child is not None:
                taken, child = child, None
                units, stubs, done, _, their_checks = _adopt(
                    catalogue, theirs, workdir, taken, keep, checks
                )
                fresh.update(units)
                create_once.update(stubs)
                rendered.update(
                    (p, t) for files in units.values() for p, t in files.items()
                )
                formatted.update(done)
                checked.update(their_checks)
            if pieces is not None:
                pieces.offer(IMPLEMENTATION, checked)
    except BaseException:
        if child is not None:
            child.stop()
        raise
    for unit, files in fresh.items():
        cache.record(unit, inputs[unit], {p: formatted[p] for p in files})
    owned = {**{p: formatted[p] for p in rendered}, **reused}
    return RenderedFiles(
        package=pkg,
        catalogue=catalogue.folder,
        owned=Owned(owned, cache.unread, root),
        create_once={p: formatted[p] for p in sorted(create_once)},
        cache=(cache.rel, cache.text()),
        on_disk=dict(keep.files) if keep is not None else {},
        on_disk_status=dict(keep.statuses) if keep is not None else {},
        read_back={
            p: d for p, d in cache.read_back.items() if p in reused or p in cache.unread
        },
    )
