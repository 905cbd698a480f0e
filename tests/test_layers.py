"""Dependencies point one way, down the pipeline (load -> validate -> model -> checks -> lint ->
render -> write, run by pipeline, driven by cli): a stage never imports one after it, so
`check` never loads the render stage and each stage can be read and tested on its own. The
graph is scripts/import_graph.py's (an import inside a function counts)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "import_graph", ROOT / "scripts/import_graph.py"
)
assert _spec is not None and _spec.loader is not None
import_graph = importlib.util.module_from_spec(_spec)
sys.modules["import_graph"] = import_graph
_spec.loader.exec_module(import_graph)
GRAPH: dict[str, set[str]] = import_graph.graph()

LATER = ("toolgen.render", "toolgen.write", "toolgen.pipeline", "toolgen.cli",
         "toolgen.review", "toolgen.export", "toolgen.importers")  # fmt: skip
# each stage, and what it may never import
FORBIDDEN = {
    "toolgen.load": (*LATER, "toolgen.lint", "toolgen.model", "toolgen.validate"),
    "toolgen.validate": (*LATER, "toolgen.lint", "toolgen.model"),
    "toolgen.ir": (*LATER, "toolgen.lint", "toolgen.model", "toolgen.validate"),
    "toolgen.model": (*LATER, "toolgen.lint", "toolgen.checks"),
    "toolgen.checks": (*LATER, "toolgen.lint"),
    "toolgen.implcheck": (*LATER, "toolgen.lint"),
    "toolgen.lint": LATER,
    "toolgen.render": ("toolgen.lint", "toolgen.pipeline", "toolgen.cli"),
    "toolgen.write": (
        "toolgen.render",
        "toolgen.lint",
        "toolgen.pipeline",
        "toolgen.cli",
    ),
}


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("stage", sorted(FORBIDDEN))
def test_a_stage_never_imports_a_later_one(stage: str) -> None:
    members = [m for m in GRAPH if _under(m, stage)]
    assert members, f"no module {stage}"
    wrong = sorted(
        f"{m} imports {target}"
        for m in members
        for target in GRAPH[m]
        if any(_under(target, later) for later in FORBIDDEN[stage])
    )
    assert wrong == []


def test_the_graph_sees_imports_inside_functions() -> None:
    # the rule would be empty if the script missed the imports hidden in function bodies
    assert "toolgen.review.commands" in GRAPH["toolgen.cli"]


_LOADED_SDK = """
import sys
from toolgen.cli import main
code = main([sys.argv[1], "spec/shop"])
sdk = sorted(m for m in sys.modules if m == "agents" or m.startswith("agents."))
print(code, len(sdk))
"""


def _shop(root: Path, tools: tuple[str, ...]) -> None:
    folder = root / "spec" / "shop"
    (folder / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    source = ROOT / "spec" / "inventory"
    catalogue = (source / "catalogue.yaml").read_text(encoding="utf-8")
    (folder / "catalogue.yaml").write_text(
        catalogue.replace("name: inventory", "name: shop"), encoding="utf-8"
    )
    for tool in tools:
        text = (source / "tools" / f"{tool}.yaml").read_text(encoding="utf-8")
        (folder / "tools" / f"{tool}.yaml").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("command", ["check", "build"])
def test_the_compiler_never_loads_the_agents_sdk(tmp_path: Path, command: str) -> None:
    # importing the SDK is a second or more; the compiler checks a contract's examples
    # and hosts with the runtime's guards, which load it only where a run needs it. Every
    # tool of the example: paths, URLs, pages, tokens, keys, approval
    import subprocess

    tools = tuple(p.stem for p in (ROOT / "spec/inventory/tools").glob("*.yaml"))
    _shop(tmp_path, tools)
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_SDK, command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    code, modules = done.stdout.split()[-2:]
    assert code in ("0", "1"), done.stderr
    assert modules == "0", done.stdout + done.stderr
