"""The catalogue-wide outputs assembled from per-tool pieces are the outputs made whole: the
lockfile from pieces is the snapshot's lockfile byte for byte, and a kept piece is used only
when it has the shape of one."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolgen import pipeline, snapshot, tokens
from toolgen.ir import Catalogue
from toolgen.pieces import ToolPieces
from toolgen.render.modules import render_cards
from toolgen.review import lockfile

ROOT = Path(__file__).parent.parent
GOLDEN = sorted(
    p.parent for p in (ROOT / "tests/golden").glob("*/spec/*/catalogue.yaml")
)


def _catalogue(folder: Path, root: Path) -> Catalogue:
    result = pipeline.check_catalogue(folder, root, implementations=False)
    assert result.catalogue is not None
    return result.catalogue


CATALOGUES = [(ROOT / "spec/inventory", ROOT), *((g, g.parent.parent) for g in GOLDEN)]


@pytest.mark.parametrize(
    ("folder", "root"),
    CATALOGUES,
    ids=[str(f.relative_to(ROOT)) for f, _ in CATALOGUES],
)
def test_the_lockfile_from_pieces_is_the_snapshots(folder: Path, root: Path) -> None:
    catalogue = _catalogue(folder, root)
    whole = lockfile.text(snapshot.catalogue_snapshot(catalogue))
    assert lockfile.catalogue_text(catalogue) == whole
    # and from the pieces a first build kept
    first = ToolPieces()
    lockfile.catalogue_text(catalogue, first)
    render_cards(catalogue, first)
    kept = {t.file: first.to_keep(t.file) for t in catalogue.tools if not t.derived}
    again = ToolPieces(kept)
    assert lockfile.catalogue_text(catalogue, again) == whole
    assert render_cards(catalogue, again) == render_cards(catalogue)


def test_a_kept_piece_is_used_only_in_its_shape() -> None:
    catalogue = _catalogue(ROOT / "spec/inventory", ROOT)
    tool = next(t for t in catalogue.tools if not t.derived)
    kept = ToolPieces({tool.file: {"tokens": 7}})
    assert tokens.measure(catalogue, kept).by_name()[tool.name] == 7
    for wrong in (-1, 1.5, True, "7", None):
        held = ToolPieces({tool.file: {"tokens": wrong}})
        measured = tokens.measure(catalogue, held).by_name()[tool.name]
        assert measured == tokens.tool_tokens(tool)
