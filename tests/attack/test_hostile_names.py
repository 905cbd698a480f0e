"""Every name a spec can give builds code that works: tools named like what the generated
package or its tests import or define, and return, context and parameter fields named like
Python's and pydantic's own attributes. The catalogue is built, then its package is imported,
`all_tools()` and `tools(...)` are called, and its generated tests, ruff and mypy --strict run
on it."""

from __future__ import annotations

import fcntl
import importlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from generated_lint import ruff_check

from toolgen.cli import main

pytestmark = pytest.mark.slow

# what generated modules import or define at their top level, Python's own names, a name no
# Python name may start with, and names that sort by their numbers
TOOL_NAMES = [
    "tools", "all_tools", "importlib", "json", "datetime", "copy", "pytest", "context",
    "tests", "agents", "pydantic", "toolgen_runtime", "typing", "collections",
    "dataclasses", "module", "builtins", "self", "final", "annotations", "tool_names",
    "toolset", "check_services", "lazy_tool", "require_services", "1read",
    # in ruff's order, read_shelf_2 comes before read_shelf_10
    "read_shelf_2", "read_shelf_10",
]  # fmt: skip
FIELD_NAMES = [
    "__dict__", "__init__", "__class__", "__doc__", "__module__", "__post_init__",
    "__hash__", "__dataclass_fields__", "__pydantic_fields__", "model_config", "self",
    "print", "str", "int", "list", "datetime", "Literal", "Annotated", "Field", "cls",
    "__slots__", "_private", "None_", "model_dump",
]  # fmt: skip
# the catalogue's context fields: names Python's own attributes have, apart from the
# parameters' (a parameter may not have a context field's name)
CONTEXT_NAMES = [
    "__weakref__", "__eq__", "__repr__", "__match_args__", "__annotations__", "__new__",
    "__getattr__", "__setattr__", "__qualname__", "__reduce__", "model_fields",
    "model_validate", "float", "bool", "object", "type", "Any", "Final",
]  # fmt: skip


PACKAGE = "hostile_generated.hostile"
IMPLEMENTATION = "hostile_impl.hostile"
ROOT = Path(__file__).resolve().parents[2]


def _field_key(name: str) -> str:
    return json.dumps(name)


def _catalogue(root: Path) -> Path:
    folder = root / "spec" / "hostile"
    (folder / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'hostile'\n")
    context_names = CONTEXT_NAMES
    context = "\n".join(
        f"  {_field_key(n)}: {{type: string, description: A field named {n}.}}"
        for n in context_names
    )
    # only the names are under test here: the design rules would all fire on these tools
    # packages named apart from this project's generated/ and impl/, so mypy's cache of
    # this project serves their imports (see test_the_generated_code_is_clean)
    (folder / "catalogue.yaml").write_text(
        f"format: 1\nname: hostile\ndescription: Names that collide with Python.\n"
        f"package: {PACKAGE}\nimplementation: {IMPLEMENTATION}\n"
        f"context:\n{context}\nlint: {{ignore: [all]}}\n"
    )
    for index, name in enumerate(TOOL_NAMES):
        # each tool takes a few of the hostile names as parameters, returns and context
        picked = [FIELD_NAMES[(index + k) % len(FIELD_NAMES)] for k in range(4)]
        params = "\n".join(
            f"  {_field_key(n)}: {{type: string, description: The {n} text.}}"
            for n in picked[:2]
        )
        returns = "\n".join(
            f"  {_field_key(n)}: {{type: integer, description: The {n} count.}}"
            for n in picked
        )
        ctx = json.dumps(CONTEXT_NAMES[index % 4 :: 4][:3])
        args = ", ".join(f"{_field_key(n)}: x" for n in picked[:2])
        (folder / "tools" / f"{name}.yaml").write_text(
            textwrap.dedent(
                f"""\
                name: {name}
                intent: Answer the {name} question for the user.
                use_when: The user asks the {name} question.
                effect: read
                context: {ctx}
                params:
                """
            )
            + params
            + "\nreturns:\n"
            + returns
            + f"\nexamples:\n  - args: {{{args}}}\n"
        )
    return folder


def _run(*command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    folder = _catalogue(root)
    status = main(["build", str(folder)])
    assert status in (
        0,
        1,
    )  # lint may warn on these made-up tools; errors are checked next
    check = _run(_bin("toolgen"), "check", "--format", "json", str(folder), cwd=root)
    errors = [d for d in json.loads(check.stdout) if d["severity"] == "error"]
    assert [e for e in errors if e["code"] != "TG151"] == []
    return root


@pytest.fixture(scope="module")
def package(built: Path) -> Iterator[ModuleType]:
    """The generated package, imported in this process (its generated tests run in a new
    one below), and forgotten afterwards."""
    sys.path.insert(0, str(built))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(built))
        for name in [n for n in sys.modules if n.startswith("hostile_")]:
            del sys.modules[name]


def test_the_package_imports_and_lists_every_tool(package: ModuleType) -> None:
    names = [t.name for t in package.all_tools()]
    assert names == list(package.TOOL_NAMES)
    assert len(names) == len(TOOL_NAMES)
    assert [t.name for t in package.tools(*package.TOOL_NAMES)] == names


def test_the_generated_tests_pass(built: Path) -> None:
    done = _run(
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "hostile_generated",
        cwd=built,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:]


def _mypy_cache_lock() -> int:
    """The lock `make test` holds on this project's mypy cache while `make typecheck` runs
    beside the tests (Makefile): taken, this run finds the cache that one wrote."""
    cache = ROOT / ".mypy_cache"
    cache.mkdir(exist_ok=True)
    lock = os.open(cache / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def test_the_generated_code_is_clean(built: Path) -> None:
    # this project's cache: what the generated code imports (the SDK, pydantic, the
    # runtime) is checked once, by `make typecheck` or the first run, not again here
    lock = _mypy_cache_lock()
    try:
        mypy = _run(
            _bin("mypy"), "--strict", f"--cache-dir={ROOT / '.mypy_cache'}",
            "hostile_generated", "hostile_impl", cwd=built,
        )  # fmt: skip
    finally:
        os.close(lock)
    assert mypy.returncode == 0, mypy.stdout[-4000:]
    modules = len(list(built.glob("hostile_*/**/*.py")))
    assert f"no issues found in {modules} source files" in mypy.stdout
    ruff = ruff_check(["hostile_generated", "hostile_impl"], built)
    assert ruff.returncode == 0, ruff.stdout[-4000:]


def test_wire_names_are_kept(package: ModuleType) -> None:
    """What the model sends and reads keeps the spec's names, whatever Python calls them."""
    [tool] = package.tools("self")
    index = TOOL_NAMES.index("self")
    picked = [FIELD_NAMES[(index + k) % len(FIELD_NAMES)] for k in range(2)]
    assert sorted(tool.params_json_schema["properties"]) == sorted(picked)
