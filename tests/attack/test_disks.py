"""Read-only folders and full disks, for real: a read-only bind mount over generated/, impl/
or .toolgen-cache/, and a project on a tiny tmpfs. Each failure is one line naming the path and
the cause, exit 1, nothing changed; a cache that cannot be written is a warning.

Mounting needs root (CI runs as root); elsewhere these tests skip and say so. The write stage's
own tests (tests/test_write.py) inject the same failures at every step without mounting.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from attack import shop_project

ROOT = Path(__file__).parent.parent.parent
TOOLGEN = str(Path(sys.executable).parent / "toolgen")


def _can_mount() -> str | None:
    """None when this process may mount file systems, else why not."""
    if os.geteuid() != 0:
        return "mounting a read-only folder or a small tmpfs needs root"
    # a folder of this process's own: test processes running side by side each probe theirs
    probe = tempfile.mkdtemp(prefix="toolgen-mount-probe-")
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", probe],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            return f"this machine does not let tests mount ({done.stderr.strip()})"
        subprocess.run(["umount", probe], check=False)
        return None
    finally:
        os.rmdir(probe)


WHY_NOT = _can_mount()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def _toolgen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLGEN, *args], cwd=root, capture_output=True, text=True, check=False
    )


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and "__pycache__" not in p.parts
        and ".toolgen-cache" not in p.parts
    }


def _add_tool(folder: Path) -> None:
    shutil.copy(
        ROOT / "spec" / "inventory" / "tools" / "find_customer.yaml", folder / "tools"
    )


@pytest.mark.parametrize(
    ("where", "cause"),
    [
        ("generated", "the file system is read-only"),
        ("impl", "the file system is read-only"),
        # the package folder is then a mount point, which cannot be replaced at all
        ("generated/shop", "device or resource busy"),
    ],
)
def test_a_read_only_folder_is_one_line_and_changes_nothing(
    tmp_path: Path, where: str, cause: str
) -> None:
    folder = shop_project(tmp_path, ("read_stock",))
    assert _toolgen(tmp_path, "build").returncode in (0, 1)
    _add_tool(folder)  # needs a new module in generated/ and a new stub in impl/
    before = _snapshot(tmp_path)
    with read_only(tmp_path / where):
        done = _toolgen(tmp_path, "build")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    errors = [
        line for line in done.stderr.splitlines() if line.startswith("toolgen: error")
    ]
    assert len(errors) == 1, done.stderr
    assert f"{cause}; nothing was changed" in errors[0]
    assert where.split("/")[0] in errors[0]
    assert _snapshot(tmp_path) == before
    # and once the folder is writable again, the build goes through
    assert _toolgen(tmp_path, "build").returncode in (0, 1)
    assert (tmp_path / "generated/shop/find_customer.py").is_file()


def test_a_read_only_cache_is_a_warning(tmp_path: Path) -> None:
    folder = shop_project(tmp_path, ("read_stock",))
    assert _toolgen(tmp_path, "build").returncode in (0, 1)
    _add_tool(folder)
    with read_only(tmp_path / ".toolgen-cache"):
        done = _toolgen(tmp_path, "build")
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 1)
    assert "toolgen: warning: cannot write the" in done.stderr
    assert (tmp_path / "generated/shop/find_customer.py").is_file()


def test_a_full_disk_changes_nothing_and_leaves_nothing(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    # room for the first build of one tool (112k with the spec and the build cache), not
    # for the second build of all six (224k, and the staged package beside the old one)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(disk)], check=True
    )
    try:
        folder = shop_project(disk, ("read_stock",))
        first = _toolgen(disk, "build")
        assert first.returncode in (0, 1), first.stderr
        for tool in (
            "find_customer",
            "create_reorder",
            "next_batch",
            "search_orders",
            "search_returns",
        ):
            shutil.copy(
                ROOT / "spec/inventory/tools" / f"{tool}.yaml", folder / "tools"
            )
        before = _snapshot(disk)
        done = _toolgen(disk, "build")
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr
        assert "no space left on the device; nothing was changed" in done.stderr
        assert _snapshot(disk) == before
        leftovers = [
            p.name
            for p in disk.rglob("*")
            if ".toolgen-new" in p.name or p.suffix == ".tmp"
        ]
        assert leftovers == []
    finally:
        subprocess.run(["umount", str(disk)], check=True)
