"""The README's contract example is a real contract: it loads, validates and builds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from toolgen.build import pipeline
from toolgen.diagnostics import Severity

ROOT = Path(__file__).parent.parent


def test_readme_contract_compiles(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [block] = re.findall(
        r"```yaml\n(# spec/inventory/tools/create_reorder.yaml\n.*?)```", readme, re.S
    )
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    (tmp_path / "spec/inventory/tools/create_reorder.yaml").write_text(block)
    result = pipeline.check_catalogue(
        tmp_path / "spec/inventory", tmp_path, implementations=False
    )
    errors = [
        d.format_text() for d in result.diagnostics if d.severity is Severity.ERROR
    ]
    assert errors == []
    assert pipeline.render(result) is not None
