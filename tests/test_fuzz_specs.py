"""Random damage to the example catalogue never makes toolgen crash.

A fixed seed makes every run the same: 200 mutations of the inventory spec files (lines
deleted, duplicated, swapped or cut short, values replaced by hostile YAML), each checked by the
whole pipeline and, when it still checks clean, rendered. Every problem must come back as a
diagnostic that points inside a real file, never as an exception.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from loading import render

from toolgen.build import pipeline

ROOT = Path(__file__).parent.parent
JUNK = [
    "",
    "null",
    "[",
    "{a: 1}",
    "yes",
    "-1",
    "1e999",
    ".nan",
    "'\u202eevil'",
    "!!python/object/apply:os.system ['touch PWNED']",
    "*nowhere",
    "&anchor x",
    "\t",
    '"unterminated',
    "[1, 2, [3, {4: 5}]]",
    "2026-13-45",
    "'^(unclosed'",
    "99999999999999999999999999",
]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True) or ["\n"]
    kind = rng.randrange(5)
    index = rng.randrange(len(lines))
    if kind == 0:
        del lines[index]
    elif kind == 1:
        lines.insert(index, lines[index])
    elif kind == 2:
        other = rng.randrange(len(lines))
        lines[index], lines[other] = lines[other], lines[index]
    elif kind == 3:
        return "".join(lines)[: rng.randrange(len(text) + 1)]
    else:
        line = lines[index]
        head = line.split(":", 1)[0] if ":" in line else line.rstrip("\n")
        lines[index] = f"{head}: {rng.choice(JUNK)}\n"
    return "".join(lines)


@pytest.mark.parametrize("seed", range(200))
def test_damaged_specs_give_diagnostics_not_crashes(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(ROOT / "impl", tmp_path / "impl")
    files = sorted((tmp_path / "spec/inventory").rglob("*.yaml"))
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(files)
        target.write_text(
            mutate(target.read_text(encoding="utf-8"), rng), encoding="utf-8"
        )

    result = pipeline.check_catalogue(tmp_path / "spec/inventory", tmp_path)
    for d in result.diagnostics:
        path = tmp_path / d.span.file
        assert path.exists(), d.format_text()
        if path.is_file():
            rows = path.read_text(encoding="utf-8", errors="replace").splitlines()
            assert 1 <= d.span.line <= len(rows) + 1, d.format_text()
        assert d.span.col >= 1 and d.code.startswith("TG") and d.message
    if result.ok:
        assert render(result) is not None
    assert not (tmp_path / "PWNED").exists()
