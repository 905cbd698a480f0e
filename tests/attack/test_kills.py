"""A build killed at any point leaves the old generated tree or the new one, never a mix, and
the next build cleans up what it left.

The build runs in a forked child whose file-system operations (disk.FS) send it SIGKILL at
the n-th one, for every n; a second set of children is killed after a random delay, which also
lands in rendering and formatting (ruff runs in a folder of the cache). After each kill the
generated package must equal the old tree or the new tree exactly; then a normal build must
leave the new tree and no temporary file or folder anywhere in the project.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from attack import shop_project
from toolgen.build import disk
from toolgen.cli import main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent.parent
TOOLS = (
    "find_customer",
    "read_stock",
    "search_orders",
    "search_returns",
)  # the old tree


class Killer(disk.FileSystem):
    """Counts the build's file-system operations; kills its own process at the n-th."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at
        self.count = 0
        self.paths: list[str] = []  # the path each step is about, in order

    def step(self, path: object) -> None:
        self.count += 1
        self.paths.append(str(path))
        if self.count == self.at:
            os.kill(os.getpid(), signal.SIGKILL)


def _counted(name: str) -> Callable[..., object]:
    method = getattr(disk.FileSystem, name)

    def step(self: Killer, *args: object) -> object:
        self.step(args[0])
        return method(self, *args)

    return step


for _name in ("mkdir", "write_new", "link", "link_new", "exchange", "rename", "replace",
              "unlink", "rmtree"):  # fmt: skip
    setattr(Killer, _name, _counted(_name))


def _fork_build(
    root: Path, folder: Path, at: int = 0, *, wait: bool = True
) -> tuple[int, int]:
    """Build in a forked child (no start-up cost), killed at step `at` (0: never).
    Returns (pid, wait status) with wait, else (pid, 0); the child writes its step count
    to root/.steps."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            os.chdir(root)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            disk.FS = Killer(at)
            code = main(["build", str(folder)])
            (root / ".steps").write_text("\n".join(disk.FS.paths) + "\n")
        finally:
            os._exit(code)
    if not wait:
        return pid, 0
    return pid, os.waitpid(pid, 0)[1]


def _make_new(folder: Path) -> None:
    """Add a tool, change one, remove one."""
    source = ROOT / "spec" / "inventory" / "tools"
    shutil.copy(source / "next_batch.yaml", folder / "tools")
    read_stock = folder / "tools" / "read_stock.yaml"
    read_stock.write_text(
        read_stock.read_text().replace(
            "Read the current stock", "Read the present stock"
        )
    )
    returns = folder / "tools" / "search_returns.yaml"
    returns.unlink()
    orders = folder / "tools" / "search_orders.yaml"
    orders.write_text(
        orders.read_text().replace("use: search_returns", "use: read_stock")
    )


def _package(root: Path) -> dict[str, bytes]:
    base = root / "generated" / "shop"
    if not base.exists():
        return {}
    return {
        p.relative_to(base).as_posix(): p.read_bytes()
        for p in sorted(base.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _leftovers(root: Path) -> list[str]:
    found = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if ".toolgen-" in p.name
        or p.name.startswith(("format-", "journal"))
        or p.suffix == ".tmp"
    ]
    return [f for f in found if f != ".toolgen-cache"]


def _exit_code(status: int) -> int | None:
    return os.waitstatus_to_exitcode(status)


@pytest.fixture(scope="module")
def trees(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, bytes], dict[str, bytes], int]:
    """A template project built at the old state, the old and new trees, and how many
    file-system steps the build from old to new makes."""
    root = tmp_path_factory.mktemp("template")
    folder = shop_project(root, TOOLS)
    assert _exit_code(_fork_build(root, folder)[1]) in (0, 1)
    old = _package(root)
    scratch = tmp_path_factory.mktemp("scratch")
    shutil.copytree(root, scratch, dirs_exist_ok=True)
    _make_new(scratch / "spec" / "shop")
    assert _exit_code(_fork_build(scratch, scratch / "spec" / "shop")[1]) in (0, 1)
    steps = len((scratch / ".steps").read_text().splitlines())
    new = _package(scratch)
    assert old and new and old != new
    return root, old, new, steps


def _fresh(template: Path, tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(template, root)
    shutil.rmtree(
        root / ".toolgen-cache", ignore_errors=True
    )  # no build cache: all of it
    _make_new(root / "spec" / "shop")
    return root


def _after_kill(
    root: Path, old: dict[str, bytes], new: dict[str, bytes], what: str
) -> None:
    now = _package(root)
    assert now in (old, new), f"{what}: the package is a mix of the old and new trees"
    status = _fork_build(root, root / "spec" / "shop")[1]
    assert _exit_code(status) in (0, 1), f"{what}: the next build failed"
    (root / ".steps").unlink()
    assert _package(root) == new, f"{what}: the next build did not reach the new tree"
    assert _leftovers(root) == [], f"{what}: the next build left temporary paths"


def test_a_kill_at_every_file_system_step(
    trees: tuple[Path, dict[str, bytes], dict[str, bytes], int], tmp_path: Path
) -> None:
    template, old, new, steps = trees
    assert steps >= 10
    for at in range(1, steps + 1):
        root = _fresh(template, tmp_path, f"at-{at}")
        status = _fork_build(root, root / "spec" / "shop", at)[1]
        assert _exit_code(status) == -signal.SIGKILL, f"step {at} was not reached"
        _after_kill(root, old, new, f"killed at step {at}")
        shutil.rmtree(root)


def test_kills_at_random_moments(
    trees: tuple[Path, dict[str, bytes], dict[str, bytes], int], tmp_path: Path
) -> None:
    template, old, new, _ = trees
    chance = random.Random(20261201)
    for round_ in range(12):
        root = _fresh(template, tmp_path, f"random-{round_}")
        pid, _ = _fork_build(root, root / "spec" / "shop", wait=False)
        time.sleep(chance.uniform(0.02, 0.6))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _after_kill(root, old, new, f"random kill {round_}")
        shutil.rmtree(root)


# --- an incremental build: the last build's cache is kept -----------------------------------


def _fresh_cached(template: Path, tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(template, root)
    _make_new(root / "spec" / "shop")
    return root


@pytest.fixture(scope="module")
def cached_steps(
    trees: tuple[Path, dict[str, bytes], dict[str, bytes], int],
    tmp_path_factory: pytest.TempPathFactory,
) -> int:
    """The steps of the build from old to new that finds the last build's cache."""
    template = trees[0]
    scratch = _fresh_cached(template, tmp_path_factory.mktemp("cached"), "project")
    assert _exit_code(_fork_build(scratch, scratch / "spec" / "shop")[1]) in (0, 1)
    return len((scratch / ".steps").read_text().splitlines())


def test_a_kill_at_every_step_of_an_incremental_build(
    trees: tuple[Path, dict[str, bytes], dict[str, bytes], int],
    cached_steps: int,
    tmp_path: Path,
) -> None:
    # the build takes the units of the unchanged tools from the cache; killed anywhere,
    # the package is the old tree or the new one, and the next build (which finds the
    # cache as the killed one left it) reaches the new tree
    template, old, new, _ = trees
    assert cached_steps >= 10
    for at in range(1, cached_steps + 1):
        root = _fresh_cached(template, tmp_path, f"at-{at}")
        status = _fork_build(root, root / "spec" / "shop", at)[1]
        assert _exit_code(status) == -signal.SIGKILL, f"step {at} was not reached"
        _after_kill(root, old, new, f"killed at step {at}")
        shutil.rmtree(root)
