"""Dependencies point one way, down the layers of the compiler (spec -> checks -> lint -> render
-> build -> review, interop -> commands): a stage never imports one after it, so each can be
read and tested on its own. The graph is scripts/import_graph.py's (an import inside a
function counts); the compiler never imports the Agents SDK; no module is hidden from git
and ruff by .gitignore; and no module is over 600 lines nor function over 80 (the last
tests)."""

from __future__ import annotations

import importlib.util
import json
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

# The layers of the compiler, lowest first: a module may import its own layer and those below
# it, never one above. The pipeline reads top to bottom (spec -> checks -> lint -> render ->
# build), then what is built on it (review, interop), then the command line.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # the leaves every layer shares: codes and diagnostics, wording, names, paths, templates
    (
        "base",
        (
            "toolgen",
            "toolgen.codes",
            "toolgen.diagnostics",
            "toolgen.text",
            "toolgen.names",
            "toolgen.paths",
            "toolgen.templating",
            "toolgen.templates",
        ),
    ),
    ("spec", ("toolgen.spec",)),  # load, the format's schemas, the model and the IR
    ("checks", ("toolgen.checks",)),  # the semantic checks, implementations included
    ("lint", ("toolgen.lint",)),  # the rules
    ("report", ("toolgen.report",)),  # diagnostics as text, JSON, GitHub, SARIF
    ("render", ("toolgen.render",)),  # the files of a build, formatted; the lockfile
    ("build", ("toolgen.build",)),  # the pipeline, its cache, the write, the layout
    ("review", ("toolgen.review",)),  # diff, the review page and reference
    ("interop", ("toolgen.interop",)),  # import, export, a new project's scaffold
    ("commands", ("toolgen.commands", "toolgen.refdocs", "toolgen.cli")),
)


def layer(module: str) -> int | None:
    """The index of the layer a module of toolgen belongs to (the longest prefix)."""
    found = [
        (len(prefix), index)
        for index, (_, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or (prefix != "toolgen" and module.startswith(prefix + "."))
    ]
    return max(found)[1] if found else None


def test_every_module_has_a_layer() -> None:
    toolgen = [m for m in GRAPH if m.split(".")[0] == "toolgen"]
    assert len(toolgen) > 80
    assert [m for m in toolgen if layer(m) is None] == []


def test_no_module_imports_a_layer_above_its_own() -> None:
    wrong = []
    for module, targets in GRAPH.items():
        own = layer(module)
        if own is None:
            continue  # not toolgen's (the graph holds toolgen_runtime's it imports)
        for target in targets:
            theirs = layer(target)
            if theirs is not None and theirs > own:
                wrong.append(
                    f"{module} ({LAYERS[own][0]}) imports {target} ({LAYERS[theirs][0]})"
                )
    assert wrong == []


def test_the_graph_sees_imports_inside_functions() -> None:
    # the rule would be empty if the script missed the imports hidden in function bodies
    # (the command line imports each command's module only when it runs)
    assert "toolgen.spec.validate" in GRAPH["toolgen.commands.rules"]
    assert "toolgen.review.page" in GRAPH["toolgen.commands.review"]


_LOADED_SDK = """
import sys
from toolgen.cli import main
code = main([sys.argv[1], "spec/shop"])
sdk = sorted(m for m in sys.modules if m == "agents" or m.startswith("agents."))
print(code, len(sdk), "toolgen.render.files" in sys.modules)
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
    code, modules, rendered = done.stdout.split()[-3:]
    assert code in ("0", "1"), done.stderr
    assert modules == "0", done.stdout + done.stderr
    # and `check`, which renders nothing, imports none of render's modules but the
    # lockfile's (render/__init__.py)
    assert rendered == str(command == "build"), done.stdout


_LOADED_ON_REPLAY = """
import json, sys
from toolgen.cli import main
code = main(["build", "spec/shop"])
heavy = ("yaml", "jsonschema", "jinja2", "toolgen.spec.ir", "toolgen.build.pipeline")
print(json.dumps([code, [m for m in heavy if m in sys.modules]]))
"""


def test_a_rebuild_with_nothing_changed_loads_no_stage(tmp_path: Path) -> None:
    # the stamp replays it (build/cache.py), reading the status of files: no stage runs, so
    # none is imported, nor the IR or the libraries they use (a rebuild of 1,000 tools spent
    # a third of its 290 ms importing toolgen.spec.ir and PyYAML through the cache's types)
    import subprocess

    tools = tuple(p.stem for p in (ROOT / "spec/inventory/tools").glob("*.yaml"))
    _shop(tmp_path, tools)
    first = subprocess.run(
        [sys.executable, "-m", "toolgen.cli", "build", "spec/shop"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_ON_REPLAY],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "nothing changed since the last build" in done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [0, []], done.stdout


def test_no_module_is_ignored_by_git() -> None:
    # a pattern of .gitignore that matches a package (build/ matched toolgen.build) hides its
    # new modules from git, and from ruff, which reads .gitignore: they are neither committed
    # nor linted
    import subprocess

    sources = [
        str(p.relative_to(ROOT))
        for folder in ("generator/toolgen", "runtime/src/toolgen_runtime")
        for p in (ROOT / folder).rglob("*.py")
    ]
    assert len(sources) > 150
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT,
        input="\n".join(sources),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: nothing is ignored
    assert done.stdout.split() == []


MAX_MODULE_LINES, MAX_FUNCTION_LINES = 600, 80


def test_no_module_or_function_is_too_long_to_read() -> None:
    # a module reads as one concern and a function as one step (issue 35): the compiler and
    # the runtime, docstrings included
    import ast

    found = []
    for package in (ROOT / "generator/toolgen", ROOT / "runtime/src/toolgen_runtime"):
        for path in sorted(package.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            where = path.relative_to(ROOT).as_posix()
            if text.count("\n") > MAX_MODULE_LINES:
                found.append(f"{where}: {text.count(chr(10))} lines")
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    size = (node.end_lineno or node.lineno) - node.lineno + 1
                    if size > MAX_FUNCTION_LINES:
                        found.append(
                            f"{where}:{node.lineno}: {node.name}, {size} lines"
                        )
    assert found == []
