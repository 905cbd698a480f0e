"""The first half of a build: catalogue.yaml, then each tool file on its own, through load,
validate, model, the checks and lint (and render), in catalogue.yaml's settings and knowing
the catalogue's tool names. A tool file makes a `ToolUnit`; a build takes the unit from the
build cache instead when everything it is a function of is unchanged (and, when files are
rendered, its files are as the last build left them). The second half, the catalogue as a
whole, is pipeline.py's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolgen import checks
from toolgen.build.cache import Read, Status, ToolUnit, digest, status_of
from toolgen.build.manifest import content_digest, owned_text
from toolgen.build.progress import Progress
from toolgen.checks.implementations import implementation_path
from toolgen.diagnostics import Diagnostic
from toolgen.lint import Hit, ToolLinter, enabled_rules
from toolgen.lint.context import LintContext, Names
from toolgen.render import lockfile
from toolgen.render.formatting import Formatter
from toolgen.spec import load, model, tokens, validate
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import ToolSummary, summary


@dataclass(frozen=True, slots=True)
class _Front:
    """A tool file through load, the format check and the model."""

    tools: tuple[Tool, ...]
    broken: str | None
    diagnostics: tuple[Diagnostic, ...]


def _front(source: load.SourceFile, catalogue: Catalogue) -> _Front:
    document, found = load.parse(source)
    if document is None:
        return _Front((), validate.stem(source.file), tuple(found))
    # a value load already reported (a foreign tag, an alias) is read as null; saying so
    # again here would blame the reader for a null they never wrote
    problems = validate.check_document(document, "tool")
    if problems:
        reported = {d.span for d in found}
        found.extend(d for d in problems if d.span not in reported)
        return _Front((), validate.broken_name(document), tuple(found))
    made, more = model.build_tools(document, catalogue)
    return _Front(made, None, (*found, *more))


@dataclass(slots=True)
class Fresh:
    """A tool file compiled in this build: its unit but for what formatting gives."""

    unit: ToolUnit
    files: dict[str, str]  # owned, by root-relative path, as rendered
    cards: dict[str, str]  # entries of the cards module, by tool name, as rendered
    stubs: dict[str, str]  # implementation stubs to create, by root-relative path

    def render(self, catalogue: Catalogue, tool: Tool, *, stub: bool) -> None:
        """Add `tool`'s files and card, as rendered, and with `stub` its stub."""
        from toolgen.render.files import render_tool  # here: `check` never renders

        made = render_tool(catalogue, tool, stub=stub)
        self.files.update(made.files)
        self.cards[tool.name] = made.card
        if made.stub is not None:
            self.stubs[implementation_path(catalogue, tool)] = made.stub


def _compile_file(
    source: load.SourceFile,
    front: _Front,
    keys: tuple[str, str],
    catalogue: Catalogue,
    linter: ToolLinter | None,
    render: Sequence[str] | None,
    *,
    tools_only: bool,
) -> Fresh:
    """A tool file's unit: `linter` lints it (None: no lint), and with `render` (the tools
    whose stub to make) its files and lockfile pieces are made; with `tools_only`, the
    checks that read catalogue.yaml are left out (it is broken)."""
    rendered = front.tools if render is not None else ()
    found = list(front.diagnostics)
    hits: list[Hit] = []
    for tool in front.tools:
        found.extend(checks.check_tool(tool, catalogue, tools_only=tools_only))
        if linter is not None:
            hits.extend(linter.lint(tool))
    counts = {t.name: tokens.tool_tokens(t) for t in front.tools}
    unit = ToolUnit(
        file=source.file,
        front=keys[0],
        key=keys[1],
        broken=front.broken,
        tools=tuple(summary(t) for t in front.tools),
        diagnostics=tuple(found),
        hits=tuple(hits),
        tokens=counts,
        locks={t.name: lockfile.lock_piece(t, counts[t.name]) for t in rendered},
    )
    fresh = Fresh(unit, {}, {}, {})
    for tool in rendered:
        fresh.render(catalogue, tool, stub=tool.name in (render or ()))
    return fresh


@dataclass(frozen=True, slots=True)
class Settings:
    """catalogue.yaml through load, the format check and the model: the catalogue without
    its tools, or the stand-in the tools are checked in when catalogue.yaml is broken."""

    catalogue: Catalogue | None
    broken: bool
    diagnostics: tuple[Diagnostic, ...]


def catalogue_settings(sources: load.Sources) -> Settings:
    if sources.catalogue is None:
        return Settings(None, False, ())
    document, found = load.parse(sources.catalogue)
    if document is None:
        return Settings(None, False, tuple(found))
    problems = validate.check_document(document, "catalogue")
    reported = {d.span for d in found}
    found.extend(d for d in problems if d.span not in reported)
    made, more = model.build_settings(document, sources.folder, trusted=not problems)
    return Settings(made, bool(problems), (*found, *more))


@dataclass(slots=True)
class Run:
    """One catalogue going through the pipeline: what it needs and what it found."""

    root: Path
    sources: load.Sources
    settings: Settings
    kept: Mapping[str, ToolUnit]  # the build cache's units, by tool file
    progress: Progress
    # the last build's files and their status
    outputs: Mapping[str, Status]
    lint: bool = True  # False: the lint rules do not run
    # takes the files of each unit compiled, to format them while the next are compiled
    formatter: Formatter | None = None
    # the status of the implementations, taken after the write and before they are read
    implementations: Read | None = None

    def units(self, full_ir: bool) -> tuple[list[ToolUnit], list[Fresh], list[Tool]]:
        """Every tool file's unit: kept where the build cache holds it for the same
        inputs (and its files are as the last build left them), else compiled and rendered;
        which were compiled. With `full_ir` (a check), every file is compiled, nothing is
        rendered, and the IR of every tool is returned too."""
        catalogue = self.settings.catalogue
        assert catalogue is not None
        sources = self.sources.tools
        fronts: dict[str, _Front] = {}
        front_keys = {
            s.file: digest([catalogue.digest, s.file, s.digest]) for s in sources
        }
        with self.progress.stage("model", len(sources), "tool files") as step:
            for source in sources:
                old = self.kept.get(source.file)
                if full_ir or old is None or old.front != front_keys[source.file]:
                    fronts[source.file] = _front(source, catalogue)
                step()
        # each file's tool names and whether it is broken, read now or kept
        known = [
            ([t.name for t in fronts[s.file].tools], fronts[s.file].broken)
            if s.file in fronts
            else (self.kept[s.file].names, self.kept[s.file].broken)
            for s in sources
        ]
        names = Names.of(
            (n for file_names, _ in known for n in file_names),
            (broken for _, broken in known if broken),
        )
        catalogue = replace(catalogue, broken_tools=names.broken)
        linter = None
        if self.lint and not self.settings.broken:
            linter = ToolLinter(LintContext(catalogue, names), enabled_rules(catalogue))
        units: list[ToolUnit] = []
        fresh: list[Fresh] = []
        with self.progress.stage("compile", len(sources), "tool files") as step:
            for source in sources:
                keys = (
                    front_keys[source.file],
                    digest([front_keys[source.file], names.digest]),
                )
                old = self.kept.get(source.file)
                if not full_ir and old is not None and self._still(old, keys[1]):
                    units.append(old)
                else:
                    front = fronts.get(source.file) or _front(source, catalogue)
                    made = _compile_file(
                        source,
                        front,
                        keys,
                        catalogue,
                        linter,
                        None if full_ir else self._stubs(front.tools),
                        tools_only=self.settings.broken,
                    )
                    fresh.append(made)
                    units.append(made.unit)
                    if self.formatter is not None:
                        self.formatter.add({**made.files, **made.stubs})
                step()
        ir = [t for front in fronts.values() for t in front.tools] if full_ir else []
        return units, fresh, ir

    def _stubs(self, tools: Sequence[Tool | ToolSummary]) -> list[str]:
        """The tools whose stub to render (those without an implementation file)."""
        catalogue = self.settings.catalogue
        assert catalogue is not None
        root = os.fspath(self.root)  # joined as text: a Path costs as much as the stat
        return [
            t.name
            for t in tools
            if not t.derived
            and not is_present(f"{root}/{implementation_path(catalogue, t)}")
        ]

    def _still(self, unit: ToolUnit, key: str) -> bool:
        """Whether a kept unit serves this build (only a build, which renders, reads the
        cache): made of the same inputs, and rendered (a build stopped by errors keeps its
        units without their files and cards), with every file it made as the last build
        left it and every stub in place."""
        if unit.key != key or len(unit.cards) != len(unit.tools):
            return False
        root = os.fspath(self.root)
        return all(
            _unchanged(f"{root}/{rel}", self.outputs.get(rel), wanted)
            for rel, wanted in unit.outputs.items()
        ) and not self._stubs(unit.tools)


def is_present(path: str | Path) -> bool:
    return os.path.isfile(path) or os.path.islink(path)


def _unchanged(path: str, status: Status | None, wanted: str) -> bool:
    """Whether the file holds the text of digest `wanted`: known by its status when it is
    the one the last build recorded, else read."""
    if status is not None and status_of(path) == status:
        return True
    text = owned_text(Path(path))
    return text is not None and content_digest(text) == wanted
