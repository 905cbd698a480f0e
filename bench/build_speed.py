"""How long a catalogue of N tools takes to check and build, first and again unchanged.

Run: .venv/bin/python bench/build_speed.py [N ...]   (default: 100 1000)

The catalogue is the example inventory catalogue with its six tools copied N/6 times under new
names. Every figure is also given as a ratio to a baseline measured in the same run, so figures
from a noisy machine can still be compared: the baseline is reading and parsing the same YAML
files with PyYAML's C loader (`yaml.load(..., CSafeLoader)`), the least any YAML tool must do.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

from toolgen import pipeline
from toolgen.write import write_outputs

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


def timed(action: object) -> float:
    start = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - start


def main(counts: list[int]) -> None:
    print(f"{'tools':>6} {'baseline s':>11} {'check s':>8} {'build s':>8} {'rebuild s':>10}"
          f" {'check/base':>11} {'build/base':>11} {'rebuild/base':>13} {'files written on rebuild':>25}")  # fmt: skip
    for count in counts:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            folder = make_catalogue(root, count)
            files = sorted(folder.rglob("*.yaml"))
            base = timed(lambda: [yaml.load(f.read_bytes(), yaml.CSafeLoader) for f in files])
            check = timed(lambda: pipeline.check_catalogue(folder, root))

            def build() -> object:
                result = pipeline.check_catalogue(folder, root)
                rendered = pipeline.render(result)
                assert rendered is not None, [d.format_text() for d in result.diagnostics][:5]
                return write_outputs(rendered, root)

            first = timed(build)
            reports: list[object] = []
            again = timed(lambda: reports.append(build()))
            rewritten = len(reports[0].written)  # type: ignore[attr-defined]
            print(f"{count:>6} {base:>11.3f} {check:>8.3f} {first:>8.3f} {again:>10.3f}"
                  f" {check / base:>11.1f} {first / base:>11.1f} {again / base:>13.1f}"
                  f" {rewritten:>25}")  # fmt: skip
            shutil.rmtree(root / "generated", ignore_errors=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000])
