"""A catalogue folder loaded and format-checked as a whole, for the tests of those stages.

A build reads each file on its own (build/tool_files.py), so toolgen itself has no function
for a whole folder; these are the first two stages run over every file at once, with what
the model stage takes (`spec.model.build_model`). And `render`: every file of a build of a
checked catalogue, in memory, whatever its findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolgen.build import pipeline
from toolgen.build.cache import ToolUnit
from toolgen.build.progress import QUIET
from toolgen.build.tool_files import Fresh, is_present
from toolgen.build.write import RenderedFiles
from toolgen.checks import check_catalogue, check_tool
from toolgen.checks.implementations import implementation_path
from toolgen.diagnostics import Diagnostic
from toolgen.render.formatting import Formatter
from toolgen.render.lockfile import lock_piece
from toolgen.spec.groups import with_toolsets
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.load import Document, parse, read_sources
from toolgen.spec.model import build_settings, build_tools
from toolgen.spec.summary import summary
from toolgen.spec.validate import broken_name, check_document, stem


@dataclass(frozen=True, slots=True)
class LoadedCatalogue:
    folder: str
    catalogue: Document | None
    tools: tuple[Document, ...]
    diagnostics: tuple[Diagnostic, ...]
    # every tool entry of tools/, by display path, including those that could not be read
    tool_files: tuple[str, ...] = ()


def load_catalogue(
    folder: Path, display: str | None = None, root: Path | None = None
) -> LoadedCatalogue:
    """Load catalogue.yaml and every tools/*.yaml of one catalogue folder."""
    sources = read_sources(folder, display, root)
    diagnostics = list(sources.diagnostics)
    catalogue = None
    if sources.catalogue is not None:
        catalogue, found = parse(sources.catalogue)
        diagnostics.extend(found)
    tools = []
    for source in sources.tools:
        document, found = parse(source)
        diagnostics.extend(found)
        if document is not None:
            tools.append(document)
    files = tuple(s.file for s in sources.tools)
    return LoadedCatalogue(
        sources.folder, catalogue, tuple(tools), tuple(diagnostics), files
    )


@dataclass(frozen=True, slots=True)
class ValidationResult:
    catalogue: Document | None  # None when missing or broken
    tools: tuple[Document, ...]  # the tool documents that passed
    broken: tuple[str, ...]  # the tool files that did not pass or could not be read
    diagnostics: tuple[Diagnostic, ...]


def validate(loaded: LoadedCatalogue) -> ValidationResult:
    """Check every document against the format, as a build checks each file."""
    diagnostics: list[Diagnostic] = []
    # a value load already reported is read as null: not blamed again
    reported = {d.span for d in loaded.diagnostics}
    catalogue = None
    if loaded.catalogue is not None:
        found = check_document(loaded.catalogue, "catalogue")
        diagnostics.extend(d for d in found if d.span not in reported)
        catalogue = None if found else loaded.catalogue
    tools = []
    broken = {stem(file) for file in loaded.tool_files}
    for document in loaded.tools:
        found = check_document(document, "tool")
        diagnostics.extend(d for d in found if d.span not in reported)
        broken.discard(stem(document.file))
        if not found:
            tools.append(document)
            continue
        broken.add(broken_name(document))
    return ValidationResult(
        catalogue, tuple(tools), tuple(sorted(broken)), tuple(diagnostics)
    )


@dataclass(frozen=True, slots=True)
class ModelResult:
    catalogue: Catalogue | None
    diagnostics: tuple[Diagnostic, ...]


def build_model(
    catalogue_doc: Document | None,
    tool_docs: Sequence[Document],
    *,
    folder: str,
    broken_tools: Sequence[str] = (),
) -> ModelResult:
    """The IR of a catalogue, from the documents that passed the format check, as a build
    makes it of each file (`broken_tools`: the names of the tool files that did not pass)."""
    if catalogue_doc is None:
        return ModelResult(None, ())
    settings, found = build_settings(catalogue_doc, folder)
    settings = replace(settings, broken_tools=tuple(sorted(set(broken_tools))))
    diagnostics: list[Diagnostic] = list(found)
    tools: list[Tool] = []
    for document in tool_docs:
        made, more = build_tools(document, settings)
        diagnostics.extend(more)
        tools.extend(made)
    ordered = tuple(sorted(tools, key=lambda t: t.name))
    catalogue = replace(settings, tools=ordered)
    catalogue = with_toolsets(catalogue, [summary(t) for t in ordered])
    return ModelResult(catalogue, tuple(diagnostics))


def run_checks(catalogue: Catalogue) -> list[Diagnostic]:
    """Every check over a catalogue whose every tool's IR is at hand."""
    found = [d for tool in catalogue.tools for d in check_tool(tool, catalogue)]
    tools = tuple(summary(t) for t in catalogue.tools)
    return found + check_catalogue(catalogue, tools)


def tool_named(catalogue: Catalogue, name: str) -> Tool:
    """The tool of that name of a catalogue whose every tool's IR is at hand."""
    found = next((tool for tool in catalogue.tools if tool.name == name), None)
    assert found is not None, name
    return found


def render(
    result: pipeline.CheckResult, root: Path | None = None
) -> RenderedFiles | None:
    """Every file of the build of a checked catalogue (`pipeline.check_catalogue`'s result),
    in memory and formatted; None when there is no catalogue to render. It renders whatever
    the catalogue's findings (a build renders nothing when they hold an error: `ok`). With
    `root`, the stubs of the implementations missing there only, else every stub."""
    catalogue = result.catalogue
    if catalogue is None or result.tokens is None:
        return None
    counts = {t.name: t.tokens for t in result.tokens.tools}
    by_file: dict[str, list[Tool]] = {}
    for tool in catalogue.tools:
        by_file.setdefault(tool.file, []).append(tool)
    fresh = []
    for file, tools in by_file.items():
        unit = ToolUnit(
            file,
            tools=tuple(summary(t) for t in tools),
            tokens={t.name: counts[t.name] for t in tools},
            locks={t.name: lock_piece(t, counts[t.name]) for t in tools},
        )
        made = Fresh(unit, {}, {}, {})
        for tool in tools:
            path = implementation_path(catalogue, tool)
            stub = root is None or not is_present(root / path)
            made.render(catalogue, tool, stub=stub)
        fresh.append(made)
    whole = pipeline._Whole(catalogue, result.tools, result.tokens, (), True)
    with Formatter() as formatter:
        formatter.add({k: v for f in fresh for k, v in {**f.files, **f.stubs}.items()})
        files = pipeline._files(whole, [f.unit for f in fresh], fresh, formatter, QUIET)
    # the formatter's copies went with it: nothing is left to move
    return replace(files, formatted={})
