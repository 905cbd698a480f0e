"""How long a catalogue of N tools takes to check and build, first and again unchanged.

Run: .venv/bin/python bench/build_speed.py [N ...]   (default: 100 1000)

Two catalogues of N tools each:
- `distinct`: the synthetic catalogue of tests/lint/synthetic.py (100 objects times 10
  actions, three parameters, three return fields, an error and an example each), shaped like
  a real catalogue of a hundred services;
- `copies`: the example inventory catalogue's six tools copied N/6 times under new names, the
  worst case for the pair rules, since every copy is a near twin of the others.
Every figure is also given as a ratio to a baseline measured in the same run, so figures from a
noisy machine can still be compared: the baseline is reading and parsing the same YAML files
with PyYAML's C loader (`yaml.load(..., CSafeLoader)`), the least any YAML tool must do.
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


def distinct_catalogue(root: Path, count: int) -> Path:
    sys.path.insert(0, str(ROOT / "tests" / "lint"))
    from synthetic import write_catalogue

    folder = write_catalogue(root / "spec" / "synthetic", count)
    with (folder / "catalogue.yaml").open("a", encoding="utf-8") as handle:
        handle.write("lint:\n  ignore: [TG951, TG952]\n")
    return folder


def make_catalogue(root: Path, count: int) -> Path:
    folder = root / "spec" / "bench"
    (folder / "tools").mkdir(parents=True)
    catalogue = (ROOT / "spec/inventory/catalogue.yaml").read_text()
    catalogue = catalogue.replace("name: inventory", "name: bench")
    catalogue = re.sub(r"budget:.*\n(  .*\n)*", "", catalogue)
    # a big catalogue is the point here: no budget, and no limit on the number of tools
    # (OpenAI's limit of 128 applies per agent, not per catalogue)
    catalogue += "lint:\n  ignore: [TG951, TG952, TG955]\n"
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
    result = pipeline.check_catalogue(folder, root, implementations=False, cache=True)
    rendered = pipeline.render(result, root)
    assert rendered is not None, [d.format_text() for d in result.diagnostics][:5]
    return write_outputs(rendered, root)


def measure(kind: str, count: int) -> str:
    # in the project's own folder, as a real catalogue is: the system's temporary disk here
    # creates files several times slower
    (ROOT / "build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "build") as tmp:
        root = Path(tmp)
        make = distinct_catalogue if kind == "distinct" else make_catalogue
        folder = make(root, count)
        files = sorted(folder.rglob("*.yaml"))
        base, _ = timed(
            lambda: [yaml.load(f.read_bytes(), yaml.CSafeLoader) for f in files]
        )
        check, _ = timed(lambda: pipeline.check_catalogue(folder, root))
        first, _ = timed(lambda: build(folder, root))
        again, report = timed(lambda: build(folder, root))
        assert isinstance(report, WriteReport)
        return (
            f"{kind:>9} {count:>6} {base:>9.3f} {check:>8.3f} {first:>8.3f} {again:>10.3f}"
            f" {check / base:>11.1f} {first / base:>11.1f} {again / base:>13.1f}"
            f" {len(report.written):>8}"
        )


def main(counts: list[int]) -> None:
    print(
        f"{'catalogue':>9} {'tools':>6} {'base s':>9} {'check s':>8} {'build s':>8}"
        f" {'rebuild s':>10} {'check/base':>11} {'build/base':>11}"
        f" {'rebuild/base':>13} {'rewrote':>8}"
    )
    for kind in ("distinct", "copies"):
        for count in counts:
            print(measure(kind, count), flush=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000])
