"""The wheels, not only the editable install: built, installed into fresh virtual
environments, and used there.

- the compiler's wheel (with the runtime's): it builds the example catalogue, byte for byte
  as generated/ holds it (whose tests the runtime's wheel runs below), and a project
  `toolgen init` scaffolds outside this repository, whose generated tests pass;
- the runtime's wheel alone, without the compiler: the example's generated package and its
  implementations (standard library and the runtime only) run there, through the SDK and
  through the MCP server `toolgen export --to mcp` writes.

This proves the templates and schemas ship inside the wheel and that nothing reads from the
source tree. The new environments are installed by uv, offline, from the cache that
`make setup` filled when it installed this one: nothing is downloaded while the tests run,
and each environment takes under a second (pip, asking the package index, took about 25 s
for the runtime's). The wheels are built from copies of the sources, since setuptools
writes build/ and *.egg-info beside what it builds, and packs what an earlier build left in
build/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from importlib.metadata import distribution
from pathlib import Path

import pytest

from toolgen.build.manifest import CACHES

ROOT = Path(__file__).parent.parent
UV = Path(sys.executable).parent / "uv"
# what installed this environment's packages: uv, unless `make setup` fell back to pip
INSTALLER = (distribution("openai-agents").read_text("INSTALLER") or "").strip()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        INSTALLER != "uv" or not UV.is_file(),
        reason=f"this environment was installed by {INSTALLER or 'an unknown installer'}, "
        "not uv (`make setup` fell back to pip): the new environments are installed from "
        "uv's cache, offline, which only uv's install fills",
    ),
]


# The new environments' interpreters write the bytecode of what they import (into those
# environments, deleted with them): where the machine sets PYTHONDONTWRITEBYTECODE, as this
# one does, each of their processes compiled the SDK, pydantic and the rest from source
# again (the packages are installed without bytecode, --no-compile below).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def _copy(source: Path, into: Path, parts: tuple[str, ...]) -> Path:
    """The files of `source` a wheel is built from, copied into a new folder."""
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    into.mkdir()
    for part in parts:
        if (source / part).is_dir():
            shutil.copytree(source / part, into / part, ignore=skip)
        else:
            shutil.copy(source / part, into / part)
    return into


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("wheels")
    sources = tmp_path_factory.mktemp("sources")
    runtime_files = ("pyproject.toml", "README.md", "src")
    compiler_files = ("pyproject.toml", "README.md", "generator")
    for source in (
        _copy(ROOT / "runtime", sources / "runtime", runtime_files),
        _copy(ROOT, sources / "compiler", compiler_files),
    ):
        _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "-w", folder, source)  # fmt: skip
    [compiler] = list(folder.glob("toolgen-0*.whl"))
    [runtime] = list(folder.glob("toolgen_runtime-*.whl"))
    return {"compiler": compiler, "runtime": runtime}


def _environment(folder: Path, *packages: str | Path) -> Path:
    """A new virtual environment in `folder` with `packages` and what they require, from
    uv's cache alone (--offline), not byte-compiled: what runs is compiled as it is imported."""
    venv.EnvBuilder(with_pip=False).create(folder)
    _run(UV, "pip", "install", "--quiet", "--offline", "--python",
         folder / "bin" / "python", *packages)  # fmt: skip
    return folder


@pytest.fixture(scope="module")
def runtime_env(
    wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A new environment with the runtime's wheel and pytest, without the compiler."""
    folder = tmp_path_factory.mktemp("runtime") / "venv"
    return _environment(folder, wheels["runtime"], "pytest")


@pytest.fixture(scope="module")
def compiler_env(
    wheels: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A new environment with the compiler's wheel and the runtime's, with its testing
    extra (the generated tests need it)."""
    folder = tmp_path_factory.mktemp("compiler") / "venv"
    return _environment(folder, f"{wheels['runtime']}[testing]", wheels["compiler"])


def _tree(root: Path) -> dict[str, bytes]:
    """The files of a tree, without the caches Python and ruff keep in it."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not CACHES.intersection(p.parts)
    }


def test_wheel_installs_and_builds_the_example(
    compiler_env: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "spec", project / "spec")
    shutil.copytree(
        ROOT / "impl", project / "impl", ignore=shutil.ignore_patterns("__pycache__")
    )
    toolgen = compiler_env / "bin" / "toolgen"
    # run from elsewhere so nothing can be imported from the source tree by accident
    out = _run(
        toolgen,
        "build",
        "--root",
        project,
        project / "spec" / "inventory",
        cwd=tmp_path,
    )
    # 12 tool modules, 12 test modules and the catalogue's own 7 files (with the search
    # index of its deferred tools)
    assert "spec/inventory: 32 written" in out
    for rel in ("generated/inventory/create_reorder.py", "generated/inventory/tests"):
        assert (project / rel).exists()
    check = _run(
        toolgen, "build", "--check", "--root", project, project / "spec/inventory"
    )
    assert "up to date" in check
    # what the editable install wrote, to the byte: the suite runs those tests, and the
    # runtime's wheel runs them again below
    assert _tree(project / "generated") == _tree(ROOT / "generated")
    # the review templates ship in the wheel too
    _run(toolgen, "docs", "--root", project, "--out", tmp_path / "review",
         project / "spec/inventory", cwd=tmp_path)  # fmt: skip
    assert "create_reorder" in (tmp_path / "review/inventory.html").read_text()
    schema = _run(toolgen, "schema", cwd=tmp_path)
    assert '"title": "toolgen tool contract, format 1"' in schema


def test_an_init_project_builds_and_passes_its_tests(
    compiler_env: Path, tmp_path: Path
) -> None:
    project = tmp_path / "order_desk"  # outside this repository
    toolgen = compiler_env / "bin" / "toolgen"
    _run(toolgen, "init", project, cwd=tmp_path)
    assert "0 errors, 0 warnings" in _run(toolgen, "check", cwd=project)
    assert "spec/order_desk: 9 written, 4 created" in _run(
        toolgen, "build", cwd=project
    )
    assert (project / "impl/order_desk/read_order_status.py").is_file()
    assert "up to date" in _run(toolgen, "build", "--check", cwd=project)
    python = compiler_env / "bin" / "python"
    # the pytest settings init wrote (pythonpath, testpaths) find the generated tests
    tests = _run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project)
    assert " passed" in tests and "failed" not in tests


_MCP_CLIENT = """
import anyio, json, os, sys, tempfile
from mcp import ClientSession, StdioServerParameters, stdio_client

# the store and secret of the write tools: the test session's (the runtime's pytest plugin);
# and the folder of read_document's root, without which the server does not start
services = {k: os.environ[k] for k in ("TOOLGEN_STORE_URL", "TOOLGEN_SECRET")}
archive = tempfile.TemporaryDirectory()
services["TOOLGEN_ROOT_ARCHIVE"] = archive.name

async def main():
    server = StdioServerParameters(
        command=sys.executable, args=["inventory_mcp.py"], cwd=".",
        env={"PYTHONPATH": ".", "INVENTORY_CUSTOMER_ID": "1", "INVENTORY_RUN_ID": "r-1",
             **services})
    async with stdio_client(server) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        names = [t.name for t in (await s.list_tools()).tools]
        result = await s.call_tool("read_stock", {"sku": "SKU-11"})
        print(json.dumps({"names": names, "answer": result.structured_content}))

anyio.run(main)
"""

_SDK_RUN = """
import asyncio, json
from agents import Agent, Runner
from agents.testing import ScriptedModel, assistant_message, function_call
from generated.inventory import InventoryContext, tools

model = ScriptedModel([[function_call("read_stock", {"sku": "SKU-11"}, call_id="c1")],
                       [assistant_message("done")]])
agent = Agent(name="warehouse", instructions="x", tools=tools("read_stock"), model=model)
result = asyncio.run(Runner.run(agent, "stock?", context=InventoryContext(1, "r-1")))
print([item.output for item in result.new_items if hasattr(item, "output")][0])
"""


def test_the_runtime_alone_runs_a_generated_catalogue(
    runtime_env: Path, tmp_path: Path
) -> None:
    python = runtime_env / "bin" / "python"
    project = tmp_path / "agent"
    project.mkdir()
    for folder in ("generated", "impl"):
        shutil.copytree(
            ROOT / folder,
            project / folder,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    # the fixtures of the example's implementation tests
    shutil.copy(ROOT / "conftest.py", project / "conftest.py")
    # the MCP server module is written by the compiler, here, and runs there
    done = subprocess.run(
        [sys.executable, "-m", "toolgen.cli", "export", "--to", "mcp",
         ROOT / "spec/inventory", "--out", project / "inventory_mcp.py"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # what only the compiler needs (jsonschema is not among them: mcp, which the SDK
    # requires, brings it)
    for absent in ("toolgen", "jinja2", "yaml", "ruff", "bpe_openai", "fastjsonschema"):
        probe = subprocess.run(
            [python, "-c", f"import {absent}"], capture_output=True, check=False
        )
        assert probe.returncode != 0, f"{absent} is installed with the runtime"
    tests = _run(
        python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "generated", cwd=project
    )
    assert " passed" in tests and "failed" not in tests
    answer = '"sku":"SKU-11","on_hand_units":4'
    assert answer in _run(python, "-c", _SDK_RUN, cwd=project)
    served = _run(python, "-c", _MCP_CLIENT, cwd=project)
    assert '"read_stock"' in served and '"on_hand_units": 4' in served
