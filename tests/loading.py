"""A catalogue folder loaded and format-checked as a whole, for the tests of those stages.

A build reads each file on its own (build/tool_files.py), so toolgen itself has no function
for a whole folder; these are the first two stages run over every file at once, with what
the model stage takes (`spec.model.build_model`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolgen.checks import check_catalogue, check_tool
from toolgen.diagnostics import Diagnostic
from toolgen.spec.groups import with_toolsets
from toolgen.spec.ir import Catalogue, Tool, summary
from toolgen.spec.load import Document, parse, read_sources
from toolgen.spec.model import build_settings, build_tools
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
    settings, found = build_settings(catalogue_doc, folder, broken_tools)
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
