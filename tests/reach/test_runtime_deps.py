"""What the runtime imports stays within what toolgen-runtime declares.

Every module the runtime's source imports is the standard library, the runtime itself, or
provided by a distribution in the closure of its declared requirements (its `postgres` extra
counts for the PostgreSQL store, which imports the driver only when that store is used, and
its `testing` extra for the fuzzer and the generated test suites).
tests/test_wheel.py installs the runtime alone into a fresh venv and runs a catalogue there.
"""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import re
import sys
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "runtime" / "src" / "toolgen_runtime"


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(root: str, extras: tuple[str, ...]) -> set[str]:
    seen: set[str] = set()
    stack = [(root, extras)]
    while stack:
        name, wanted = stack.pop()
        if _normal(name) in seen:
            continue
        seen.add(_normal(name))
        for text in metadata.requires(name) or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is None or any(
                marker.evaluate({"extra": extra}) for extra in (*wanted, "")
            ):
                stack.append((requirement.name, tuple(requirement.extras)))
    return seen


def test_the_runtime_imports_only_what_it_declares() -> None:
    modules: set[str] = set()
    for path in RUNTIME.rglob("*.py"):
        modules |= _imported(path)
    third_party = sorted(
        m for m in modules - {"toolgen_runtime"} if m not in sys.stdlib_module_names
    )
    assert "toolgen" not in third_party  # the compiler is never needed where agents run
    allowed = _closure("toolgen-runtime", ("postgres", "testing"))
    providers = metadata.packages_distributions()
    undeclared = {
        module: providers.get(module)
        for module in third_party
        if not {_normal(d) for d in providers.get(module, [])} & allowed
    }
    assert undeclared == {}
    # the MCP server needs nothing beyond the SDK: mcp comes with openai-agents
    assert "mcp" in third_party and "mcp" in _closure("openai-agents", ())
