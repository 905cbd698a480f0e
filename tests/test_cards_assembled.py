"""The cards module is assembled from entries formatted apart (render/modules.py): it must be,
byte for byte, what the formatter makes of the whole module, for every catalogue and whichever
entries were formatted in an earlier build."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolgen.build import pipeline
from toolgen.render import formatting, modules
from toolgen.spec.ir import Catalogue

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
    head = modules.cards_head(catalogue)
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


def _assembled(catalogue: Catalogue, batches: int = 1) -> str:
    """The cards module as a build assembles it, its entries formatted in `batches` runs
    of the formatter (entries kept from earlier builds were formatted in runs of their own)."""
    tools = list(catalogue.tools)
    by_name: dict[str, str] = {}
    for start in range(batches):
        part = tools[start::batches]
        source = modules.cards_source([modules.card_entry(t) for t in part])
        done = formatting.format_sources({"entries.py": source})["entries.py"]
        names = [t.name for t in part]
        by_name.update(zip(names, modules.cards_entries(done, names), strict=True))
    head = modules.cards_head(catalogue)
    formatted_head = formatting.format_sources({"head.py": head})["head.py"]
    return modules.cards_module(formatted_head, [by_name[t.name] for t in tools])


def test_the_assembled_module_is_the_formatted_whole(tmp_path: Path) -> None:
    catalogues = _catalogues(tmp_path)
    assert len(catalogues) >= 14
    for catalogue in catalogues:
        assert _assembled(catalogue) == _formatted_whole(catalogue), catalogue.folder


def test_entries_formatted_apart_make_the_same_module(tmp_path: Path) -> None:
    bench_catalogue.write_catalogue(tmp_path, 40)
    catalogue = _catalogue(tmp_path / "spec/bench", tmp_path)
    # as after editing some tools: their entries formatted in a run of their own
    assert _assembled(catalogue, batches=3) == _assembled(catalogue)


def test_an_unexpected_layout_is_a_formatting_error(tmp_path: Path) -> None:
    bench_catalogue.write_catalogue(tmp_path, 3)
    catalogue = _catalogue(tmp_path / "spec/bench", tmp_path)
    source = modules.cards_source([modules.card_entry(t) for t in catalogue.tools])
    done = formatting.format_sources({"entries.py": source})["entries.py"]
    # two entries run together: the split must notice
    joined = done.replace('    ),\n    "', '    ), "', 1)
    with pytest.raises(formatting.FormattingError, match="unexpected way"):
        modules.cards_entries(joined, [t.name for t in catalogue.tools])


def test_a_source_ruff_cannot_read_is_a_formatting_error_that_says_why() -> None:
    # a template's bug (a class name that starts with a digit was one): ruff's own words
    # reach the user, where --quiet once left "ruff failed on generated code:" and nothing
    with pytest.raises(formatting.FormattingError) as failure:
        formatting.format_sources({"broken.py": "class 1ReadArgs:\n    pass\n"})
    assert "Expected an identifier" in str(failure.value), failure.value
