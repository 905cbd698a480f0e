"""The pipeline in one place: load -> validate -> model -> lint -> render.

Each stage is its own module with one public function; this module only runs them in order and
gathers their diagnostics. A stage that cannot go on (no catalogue file, format errors) stops
the later stages for that document, never the report: every problem found so far is returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolgen import implcheck, layout, lint, load, model, validate
from toolgen.checkcache import CheckCache, document_key
from toolgen.diagnostics import Diagnostic, has_errors
from toolgen.load import Document
from toolgen.model import Catalogue
from toolgen.paths import display_path
from toolgen.project import Placement
from toolgen.render import render_catalogue
from toolgen.write import RenderedFiles


@dataclass(frozen=True, slots=True)
class CheckResult:
    folder: str
    catalogue: Catalogue | None
    diagnostics: tuple[Diagnostic, ...]
    notes: tuple[
        str, ...
    ] = ()  # about the environment, not the spec (a cache not written)

    @property
    def ok(self) -> bool:
        return self.catalogue is not None and not has_errors(self.diagnostics)


def check_catalogue(
    folder: Path,
    root: Path,
    *,
    implementations: bool = True,
    cache: bool = False,
    others: Sequence[Placement] = (),
) -> CheckResult:
    """Everything `toolgen check` does for one catalogue folder of the project at `root`.

    `others` are the other catalogues of the project, whose folders a build must not write
    into. With `cache` (what `build` passes), the schema and example checks of tool documents
    that passed them in an earlier build with the same content are skipped (see checkcache).
    """
    shown = display_path(folder, root)
    loaded = load.load_catalogue(folder, shown, root)
    record = CheckCache(root, shown) if cache else None
    blamed_by_load = {d.span.file for d in loaded.diagnostics}
    keys = {d.file: document_key(d) for d in loaded.tools} if record is not None else {}

    def trusted(document: Document) -> bool:
        return (
            record is not None
            and document.file not in blamed_by_load
            and keys.get(document.file) in record.passed
        )

    validated = validate.validate(loaded, trusted)
    built = model.build_model(
        validated.catalogue,
        validated.tools,
        folder=shown,
        known_tool_names=validated.tool_names,
        trusted=trusted,
    )
    diagnostics = [*loaded.diagnostics, *validated.diagnostics, *built.diagnostics]
    notes: list[str] = []
    if record is not None and not record.save(keys, diagnostics):
        notes.append(
            f"cannot write the check cache {record.path}; the next build checks everything"
        )
    if built.catalogue is not None:
        placed = layout.check_layout(built.catalogue, root, others)
        diagnostics.extend(placed.diagnostics)
        diagnostics.extend(lint.lint(built.catalogue))
        if implementations and placed.implementation_readable:
            diagnostics.extend(implcheck.check_implementations(built.catalogue, root))
    unique = sorted(set(diagnostics), key=lambda d: d.sort_key)
    return CheckResult(shown, built.catalogue, tuple(unique), tuple(notes))


def render(result: CheckResult, root: Path | None = None) -> RenderedFiles | None:
    """The files of a build, or None when the catalogue has errors.

    With `root`, what did not change since the last build is reused rather than rendered
    again (see `render_catalogue`); `build --check` passes no root and renders everything.
    """
    if not result.ok or result.catalogue is None:
        return None
    return render_catalogue(result.catalogue, root)
