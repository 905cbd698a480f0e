"""`toolgen check` against hand-written implementations: signatures that drift from their
contract are reported at their line; stubs are noted; nothing is imported or run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolgen.build import pipeline
from toolgen.checks.implementations import implementation_state

ROOT = Path(__file__).parent.parent


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(ROOT / "impl", tmp_path / "impl")
    return tmp_path


def ids(project: Path) -> list[tuple[str, str, int]]:
    result = pipeline.check_catalogue(project / "spec/inventory", project)
    return [
        (d.code, d.span.file, d.span.line)
        for d in result.diagnostics
        if d.code.startswith("TG15")
    ]


def test_the_example_implementations_match_their_contracts(project: Path) -> None:
    assert ids(project) == []


def test_a_signature_that_drifted_is_reported_at_its_line(project: Path) -> None:
    module = project / "impl/inventory/read_stock.py"
    text = module.read_text()
    module.write_text(
        text.replace("(args: ReadStockArgs)", "(args: ReadStockArgs, extra: int)")
    )
    line = next(
        n
        for n, row in enumerate(module.read_text().splitlines(), 1)
        if "def read_stock" in row
    )
    assert ids(project) == [("TG150", "impl/inventory/read_stock.py", line)]


def test_a_contract_that_gained_context_is_reported(project: Path) -> None:
    spec = project / "spec/inventory/tools/next_batch.yaml"
    spec.write_text(spec.read_text() + "context: [run_id]\n")
    [(code, file, _)] = ids(project)
    assert (code, file) == ("TG150", "impl/inventory/next_batch.py")


def test_a_missing_function_and_a_stub(project: Path) -> None:
    (project / "impl/inventory/next_batch.py").write_text("def other() -> None: ...\n")
    (project / "impl/inventory/read_stock.py").write_text(
        "from generated.inventory.read_stock import ReadStockArgs, ReadStockResult\n"
        "from toolgen_runtime import NotImplementedYet\n\n\n"
        "def read_stock(args: ReadStockArgs) -> ReadStockResult:\n"
        '    raise NotImplementedYet("read_stock", "impl/inventory/read_stock.py")\n'
    )
    assert ids(project) == [
        ("TG152", "impl/inventory/next_batch.py", 1),
        ("TG151", "impl/inventory/read_stock.py", 5),
    ]
    result = pipeline.check_catalogue(project / "spec/inventory", project)
    stub = next(d for d in result.diagnostics if d.code == "TG151")
    assert stub.severity.value == "info"  # a stub is work to do, not a failed check


def test_an_implementation_saved_with_a_byte_order_mark_is_read_as_python_reads_it(
    project: Path,
) -> None:
    """Some editors start a UTF-8 file with U+FEFF, which Python's import skips: the
    implementation is the same, and the check says so, as the review page's does."""
    module = project / "impl/inventory/read_stock.py"
    module.write_bytes(b"\xef\xbb\xbf" + module.read_bytes())
    assert ids(project) == []
    catalogue = pipeline.check_catalogue(project / "spec/inventory", project).catalogue
    assert catalogue is not None
    tool = next(t for t in catalogue.tools if t.name == "read_stock")
    assert implementation_state(catalogue, tool, project) == "implemented"
    # not UTF-8 at all is still said so, with the fix
    module.write_bytes(b"\xff" + module.read_bytes()[3:])
    assert ids(project) == [("TG150", "impl/inventory/read_stock.py", 1)]
