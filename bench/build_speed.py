"""How long a catalogue of N tools takes to check and build, first and again unchanged.

Run: .venv/bin/python bench/build_speed.py [N ...]   (default: 100 1000)

The catalogue is the example inventory catalogue with its six tools copied N/6 times under new
names. Every figure is also given as a ratio to a baseline measured in the same run, so figures
from a noisy machine can still be compared: the baseline is reading and parsing the same YAML
files with PyYAML's C loader (`yaml.load(..., CSafeLoader)`), the least any YAML tool must do.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from toolgen import pipeline
from toolgen.write import WriteReport, write_outputs

ROOT = Path(__file__).resolve().parent.parent


def make_catalogue(root: Path, count: int) -> Path:
    folder = root / "spec" / "bench"
    (folder / "tools").mkdir(parents=True)
    catalogue = (ROOT / "spec/inventory/catalogue.yaml").read_text()
    catalogue = catalogue.replace("name: inventory", "name: bench")
    catalogue = re.sub(r"budget:.*\n(  .*\n)*", "", catalogue)
    (folder / "catalogue.yaml").write_text(catalogue)
    sources = sorted((ROOT / "spec/inventory/tools").glob("*.yaml"))
    names = [p.stem for p in sources]
    for index in range(count):
        source = sources[index % len(sources)]
        suffix = f"_{index // len(sources)}"
        text = source.read_text()
        for name in names:  # rename the tool and its references consistently
            text = re.sub(rf"\b{name}\b", name + suffix, text)
        (folder / "tools" / f"{source.stem}{suffix}.yaml").write_text(text)
    return folder


def timed(action: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    outcome = action()
    return time.perf_counter() - start, outcome


def build(folder: Path, root: Path) -> WriteReport:
    result = pipeline.check_catalogue(folder, root)
    rendered = pipeline.render(result, root)
    assert rendered is not None, [d.format_text() for d in result.diagnostics][:5]
    return write_outputs(rendered, root)


def measure(count: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = make_catalogue(root, count)
        files = sorted(folder.rglob("*.yaml"))
        base, _ = timed(
            lambda: [yaml.load(f.read_bytes(), yaml.CSafeLoader) for f in files]
        )
        check, _ = timed(lambda: pipeline.check_catalogue(folder, root))
        first, _ = timed(lambda: build(folder, root))
        again, report = timed(lambda: build(folder, root))
        assert isinstance(report, WriteReport)
        return (
            f"{count:>6} {base:>9.3f} {check:>8.3f} {first:>8.3f} {again:>10.3f}"
            f" {check / base:>11.1f} {first / base:>11.1f} {again / base:>13.1f}"
            f" {len(report.written):>8}"
        )


def main(counts: list[int]) -> None:
    print(
        f"{'tools':>6} {'base s':>9} {'check s':>8} {'build s':>8} {'rebuild s':>10}"
        f" {'check/base':>11} {'build/base':>11} {'rebuild/base':>13} {'rewrote':>8}"
    )
    for count in counts:
        print(measure(count), flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000])
