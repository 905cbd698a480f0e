"""Golden trees: the whole generated output of a fixture catalogue, compared file by file.

Each case under tests/golden/<case>/ holds `spec/` (the catalogue, built with the case folder
as the project root) and `expected/` (every file a first build writes, stubs included). A
missing or an extra file fails as a changed one does. The generated code is then executed,
once: ruff here, mypy --strict in `make typecheck`, and the generated tests of each tree are
collected by pytest with the rest of the suite (tests/golden/<case>/expected/*/*/tests).

To accept a deliberate change of the output: UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import toolgen_runtime.testing as testing
from generated_lint import ruff_check
from loading import render

from toolgen.build import pipeline
from toolgen.build.manifest import MANIFEST_NAME
from toolgen.build.write import check_outputs, write_outputs
from toolgen.cli import main
from toolgen.codes import Severity
from toolgen.render.lockfile import LOCK_NAME
from toolgen.spec import validate
from toolgen.spec.ir import Param, ReturnField

HERE = Path(__file__).parent / "golden"
ROOT = Path(__file__).parent.parent
CASES = sorted(p.name for p in HERE.iterdir() if (p / "spec").is_dir())


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and (p.suffix == ".py" or p.name in (MANIFEST_NAME, LOCK_NAME, "ruff.toml"))
        and "__pycache__" not in p.parts
        and p.relative_to(root).parts[0] != "spec"
    }


def _catalogues(root: Path) -> list[Path]:
    return sorted(p.parent for p in (root / "spec").glob("*/catalogue.yaml"))


def _build_once(root: Path) -> list[str]:
    """What `toolgen build` does. The golden catalogues check clean (only the notes that
    their tools are stubs): a warning there is a rule that changed under them, such as a
    suppression that no longer matches anything (TG992)."""
    written = []
    for folder in _catalogues(root):
        result = pipeline.check_catalogue(folder, root)
        shown = [d for d in result.diagnostics if d.severity is not Severity.INFO]
        assert shown == [], [d.format_text() for d in shown]
        rendered = render(result, root)
        assert rendered is not None
        report = write_outputs(rendered, root)
        written += [*report.written, *report.created, *report.removed]
    return written


def _build(case: str, tmp_path: Path) -> Path:
    root = tmp_path / case
    shutil.copytree(HERE / case / "spec", root / "spec")
    assert _build_once(root)
    return root


@pytest.mark.parametrize("case", CASES)
def test_generated_tree_matches_golden(case: str, tmp_path: Path) -> None:
    root = _build(case, tmp_path)
    got = _tree(root)
    expected_dir = HERE / case / "expected"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        shutil.rmtree(expected_dir, ignore_errors=True)
        for rel, text in got.items():
            (expected_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / rel).write_text(text, encoding="utf-8")
    expected = _tree(expected_dir)
    assert sorted(got) == sorted(expected), "missing or extra generated files"
    for rel, text in expected.items():
        assert got[rel] == text, f"{rel} differs from the golden copy"


@pytest.mark.parametrize("case", CASES)
def test_second_build_writes_nothing(case: str, tmp_path: Path) -> None:
    root = _build(case, tmp_path)
    before = {p: p.stat().st_mtime_ns for p in root.rglob("*.py")}
    assert _build_once(root) == []
    for folder in _catalogues(root):
        result = pipeline.check_catalogue(folder, root)
        rendered = render(result)  # no root: everything rendered again
        assert rendered is not None
        assert not check_outputs(rendered, root).changed
    after = {p: p.stat().st_mtime_ns for p in root.rglob("*.py")}
    assert after == before


def test_a_hand_edit_is_found_and_undone(tmp_path: Path) -> None:
    root = _build(CASES[0], tmp_path)
    module = next(p for p in root.rglob("*.py") if "DESCRIPTION" in p.read_text())
    module.write_text(
        module.read_text().replace("DESCRIPTION", "DESCRIPTION_EDITED", 1)
    )
    [folder] = _catalogues(root)
    assert main(["build", "--check", "--root", str(root), str(folder)]) == 1
    assert module.relative_to(root).as_posix() in _build_once(root)
    assert "DESCRIPTION_EDITED" not in module.read_text()


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"{name} is a dev dependency and must be installed beside python"
    return found


@pytest.mark.parametrize("case", CASES)
def test_generated_code_is_clean(case: str) -> None:
    """ruff on the golden tree, which the first test holds equal to what a build writes:
    the rules of the pinned ruff's defaults (what a project without a ruff configuration
    gets) and those this repository selects.

    The rest of what "executed" means runs once, on the same tree, elsewhere: pytest
    collects the generated tests under tests/golden/*/expected with the rest of the suite,
    and `make typecheck` runs mypy --strict on the golden packages with generated/ and impl/.
    """
    root = HERE / case / "expected"
    packages = sorted(p.name for p in root.iterdir() if (p / "__init__.py").is_file())
    ruff = ruff_check(packages, root)
    assert ruff.returncode == 0, ruff.stdout
    fmt = subprocess.run(
        [_tool("ruff"), "format", "--isolated", "--no-cache", "--check", *packages],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert fmt.returncode == 0, fmt.stdout


def test_generated_tests_annotate_class_variables_as_their_bases_do() -> None:
    """pyright (Pylance, in VS Code) holds the type a subclass gives a class variable to
    exactly its base's, where mypy lets it narrow: each annotation of a generated test class
    is the one its base in toolgen_runtime.testing declares."""
    modules = [*HERE.glob("*/expected/*/*/tests/test_*.py")]
    modules += (ROOT / "generated").glob("*/tests/test_*.py")
    checked = 0
    for path in sorted(modules):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
            bases = [getattr(testing, ast.unparse(base)) for base in cls.bases]
            declared = {
                name: annotation
                for base in bases
                for ancestor in reversed(base.__mro__)
                for name, annotation in vars(ancestor)
                .get("__annotations__", {})
                .items()
            }
            for statement in cls.body:
                if isinstance(statement, ast.AnnAssign):
                    name = ast.unparse(statement.target)
                    annotation = ast.unparse(statement.annotation)
                    assert annotation == declared[name], (path.name, name)
                    checked += 1
    # every module annotates its sample_json, rejected, boundary and contract
    assert checked > 30


def test_the_golden_trees_are_collected_and_type_checked() -> None:
    """What keeps the two checks above from going quiet: pytest's test paths reach every
    golden tree's generated tests, and `make typecheck` names every golden package."""
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'testpaths = ["tests", "generated"]' in config
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "$(wildcard tests/golden/*/expected/*)" in makefile
    for case in CASES:
        expected = HERE / case / "expected"
        assert list(expected.glob("*/*/tests/test_*.py")), case


# --- every type the format allows, in every form, is built and its tests run ------------------

EVERY_TYPE = HERE / "every_type"


def _format_types(definition: str) -> set[str]:
    schema = json.loads(validate.schema_text("tool"))
    return set(schema["$defs"][definition]["properties"]["type"]["enum"])


def _forms(node: Param | ReturnField, inside: str) -> Iterator[tuple[str, str]]:
    """(type, form) of a field and of everything nested in it: `top`, `optional`, `item`
    (an array's items), `property` (an object's field), and `enum` for an enum-bearing one."""
    yield node.type, inside
    if node.optional and inside == "top":
        yield node.type, "optional"
    enum = node.constraints.enum if isinstance(node, Param) else node.enum
    if enum is not None:
        yield node.type, f"enum {inside}"
    if node.items is not None:
        yield from _forms(node.items, "item")
    for prop in node.properties:
        yield from _forms(prop, "property")


def test_the_every_type_case_covers_every_type_of_the_format() -> None:
    """A type the format gains is not covered until this golden case uses it in every form;
    the tests above build the case, and its generated tests run with the suite."""
    [folder] = _catalogues(EVERY_TYPE)
    result = pipeline.check_catalogue(folder, EVERY_TYPE, implementations=False)
    assert result.catalogue is not None
    params = {
        f for t in result.catalogue.tools for p in t.params for f in _forms(p, "top")
    }
    fields = {
        f for t in result.catalogue.tools for r in t.returns for f in _forms(r, "top")
    }
    scalars_and_objects = ("top", "optional", "item", "property")
    for kind, found, types in (
        ("parameter", params, _format_types("param")),
        ("return field", fields, _format_types("field")),
    ):
        wanted = {(t, form) for t in types for form in scalars_and_objects}
        wanted |= {("string", "enum top"), ("integer", "enum top")}
        wanted |= {("string", "enum item"), ("integer", "enum item")}
        # The guarded types need a deployment's roots and hosts: the example catalogue's
        # read_document and read_supplier_notice use them, and tests/test_boundaries_e2e.py
        # drives them through their generated tools. Any other new type must come here.
        wanted = {(t, form) for t, form in wanted if t not in ("path", "url")}
        missing = sorted(wanted - found)
        assert not missing, f"no {kind} of every_type uses {missing}"
