"""Attacks on the compiler from outside: hostile names and inputs, full and read-only disks,
kills mid-build. Each test builds a project of a few of the example catalogue's tools."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).parent.parent.parent


def shop_project(root: Path, tools: tuple[str, ...]) -> Path:
    """A project under `root` holding `tools` of the example catalogue as the catalogue
    `shop`, whose toolsets (which name tools left out) are left out; its catalogue folder."""
    folder = root / "spec" / "shop"
    (folder / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    source = ROOT / "spec" / "inventory"
    catalogue = yaml.safe_load((source / "catalogue.yaml").read_text())
    catalogue["name"] = "shop"
    del catalogue["toolsets"]
    (folder / "catalogue.yaml").write_text(yaml.safe_dump(catalogue, sort_keys=False))
    for tool in tools:
        shutil.copy(source / "tools" / f"{tool}.yaml", folder / "tools")
    return folder
