"""The benchmark suite cannot rot: its smoke run works, its inputs are what it says they are,
and the figures in the docs are those of the committed run.

The smoke run (`bench/run.py --quick`) builds 10 tools once with every command and imports 20
tools four ways, each in a fresh interpreter: about 20 seconds here, most of it interpreters
importing the Agents SDK. openapi-python-client is left out (installing it is the full run's
business, `make bench`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolgen.build import pipeline

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))

import catalogue  # noqa: E402
import openapi_doc  # noqa: E402
import report  # noqa: E402
import sizes  # noqa: E402


@pytest.mark.slow
def test_quick_run_measures_every_figure(tmp_path: Path) -> None:
    command = [sys.executable, str(BENCH / "run.py"), "--quick", "--no-openapi"]
    done = subprocess.run(
        [*command, "--output", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    [size] = results["build"]
    assert size["tools"] == 10
    measured = {
        "floor",
        "first_build",
        "rebuild",
        "build_check",
        "check",
        "one_changed",
    }
    assert set(size["seconds"]) == measured
    assert all(
        len(samples) == 1 and samples[0] > 0 for samples in size["seconds"].values()
    )
    assert all(rss[0] > 10 for rss in size["rss_mb"].values())  # MB: a Python process
    # counted on disk: nothing is written when nothing changed, the edited tool's module is
    assert size["written_on_rebuild"] == [0]
    assert size["written_on_one_changed"][0] >= 1
    imports = results["imports"]
    assert imports["equivalence"] == {"tools": 20, "same_names": True, "mismatched": []}
    for mode in ("on", "off"):
        assert set(imports["extra"][mode]) == {"toolgen", "decorator"}
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "`toolgen build`, nothing changed" in markdown
    assert "`all_tools()`, 20 tools" in markdown


@pytest.mark.parametrize("count", [1, 7, 60])
def test_the_openapi_document_declares_what_the_catalogue_does(
    tmp_path: Path, count: int
) -> None:
    folder = catalogue.write_catalogue(tmp_path, count)
    document = openapi_doc.write_openapi(tmp_path / "openapi.json", count)
    ours, theirs = sizes.toolgen_size(folder), sizes.openapi_size(document)
    assert ours.operations == theirs.operations == count
    assert (ours.fields, ours.error_codes, ours.enum_values, ours.constraints) == (
        theirs.fields,
        theirs.error_codes,
        theirs.enum_values,
        theirs.constraints,
    )
    assert ours.fields > 5 * count  # parameters, nested fields, returns, context


def test_the_synthetic_catalogue_is_clean_and_covers_every_type(tmp_path: Path) -> None:
    count = 100
    folder = catalogue.write_catalogue(tmp_path, count)
    result = pipeline.check_catalogue(folder, tmp_path, implementations=False)
    assert [d.format_text() for d in result.diagnostics] == []
    assert result.catalogue is not None
    assert len(result.catalogue.tools) == count
    kinds = {p.type for tool in result.catalogue.tools for p in tool.all_params()}
    assert kinds >= {
        "string",
        "integer",
        "number",
        "boolean",
        "date",
        "datetime",
        "array",
        "object",
    }
    names = [tool.name for tool in result.catalogue.tools]
    assert len(set(names)) == count


def test_docs_show_the_committed_results() -> None:
    """docs/performance.md and the README hold the figures of bench/results.json, as
    `make bench` writes them; a hand edit or a stale copy fails here."""
    results = json.loads((BENCH / "results.json").read_text(encoding="utf-8"))
    for rel, blocks in report.DOC_BLOCKS.items():
        text = (ROOT / rel).read_text(encoding="utf-8")
        for name, render in blocks.items():
            assert (
                report.read_block(text, name) == render(results).rstrip("\n") + "\n"
            ), (
                f"{rel}: block {name} is not bench/results.json's; run "
                "bench/run.py --render bench/results.json"
            )
    assert (BENCH / "results.md").read_text(
        encoding="utf-8"
    ) == report.results_markdown(results)
