"""The cards module is assembled from entries formatted one tool at a time (render/modules.py):
it must be, byte for byte, what the formatter makes of the whole module, for every catalogue
and whichever entries were kept from an earlier build."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolgen import formatting, pipeline, templating
from toolgen.ir import Catalogue
from toolgen.pieces import ToolPieces
from toolgen.render import modules

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS.parent / "bench"))
sys.path.insert(0, str(TESTS))
import catalogue as bench_catalogue  # noqa: E402
from test_injection import write_spec  # noqa: E402


def _catalogue(folder: Path, root: Path) -> Catalogue:
    result = pipeline.check_catalogue(folder, root, implementations=False)
    assert result.catalogue is not None, result.diagnostics
    return result.catalogue


def _formatted_whole(catalogue: Catalogue) -> str:
    """The cards module as the formatter makes it of one rendered text."""
    head = templating.render(
        "cards.py.jinja", module_doc=modules.render_cards_doc(catalogue)
    )
    entries = "".join(modules.card_entry(tool) for tool in catalogue.tools)
    whole = f"{head}\n{modules.CARDS_OPEN}{entries}}}\n"
    return formatting.format_sources({"cards.py": whole})["cards.py"]


def _catalogues(tmp_path: Path) -> list[Catalogue]:
    found = []
    for root in (TESTS / "golden/every_type", TESTS / "golden/kitchen_sink"):
        found += [
            _catalogue(p.parent, root)
            for p in sorted(root.glob("spec/*/catalogue.yaml"))
        ]
    realworld = TESTS / "lint/realworld/catalogues"
    found += [
        _catalogue(p.parent, realworld)
        for p in sorted(realworld.glob("*/catalogue.yaml"))
    ]
    bench_catalogue.write_catalogue(tmp_path / "bench", 40)
    found.append(_catalogue(tmp_path / "bench/spec/bench", tmp_path / "bench"))
    hostile = write_spec(tmp_path / "hostile")
    found.append(_catalogue(hostile, tmp_path / "hostile"))
    return found


def test_the_assembled_module_is_the_formatted_whole(tmp_path: Path) -> None:
    catalogues = _catalogues(tmp_path)
    assert len(catalogues) >= 14
    for catalogue in catalogues:
        assert modules.render_cards(catalogue) == _formatted_whole(catalogue), (
            catalogue.folder
        )


def test_kept_entries_make_the_same_module(tmp_path: Path) -> None:
    bench_catalogue.write_catalogue(tmp_path, 40)
    catalogue = _catalogue(tmp_path / "spec/bench", tmp_path)
    first = ToolPieces()
    whole = modules.render_cards(catalogue, first)
    # every other entry kept, the rest made again (as after editing half the tools)
    kept = {
        tool.file: first.made[tool.file]
        for index, tool in enumerate(catalogue.tools)
        if index % 2 and tool.file in first.made
    }
    again = ToolPieces(kept)
    assert modules.render_cards(catalogue, again) == whole
    assert modules.render_cards(catalogue, ToolPieces(first.made)) == whole


def test_an_unexpected_layout_is_a_formatting_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench_catalogue.write_catalogue(tmp_path, 3)
    catalogue = _catalogue(tmp_path / "spec/bench", tmp_path)
    real = formatting.format_sources

    def joined(sources: dict[str, str], *args: object) -> dict[str, str]:
        done = real(sources)
        if "entries.py" in done:  # two entries run together: the split must notice
            done["entries.py"] = done["entries.py"].replace(
                '    ),\n    "', '    ), "', 1
            )
        return done

    monkeypatch.setattr(formatting, "format_sources", joined)
    with pytest.raises(formatting.FormattingError, match="unexpected way"):
        modules.render_cards(catalogue)
