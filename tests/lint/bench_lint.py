"""Time lint and token counting on a synthetic catalogue.

    .venv/bin/python tests/lint/bench_lint.py [TOOLS]

Each stage runs in this fresh process, so "tokens, first call" includes loading o200k_base.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loading import build_model, load_catalogue, validate
from synthetic import write_catalogue

from toolgen.lint import engine
from toolgen.lint.context import LintContext
from toolgen.spec import tokens


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder = write_catalogue(Path(temp) / "synthetic", count)
        started = time.perf_counter()
        loaded = load_catalogue(folder, "synthetic")
        checked = validate(loaded)
        built = build_model(
            checked.catalogue,
            checked.tools,
            folder="synthetic",
            broken_tools=checked.broken,
        )
        catalogue = built.catalogue
        assert catalogue is not None
        spec_time = time.perf_counter() - started

        started = time.perf_counter()
        measured = tokens.measure(catalogue)
        first_tokens = time.perf_counter() - started
        tokens.count.cache_clear()
        started = time.perf_counter()
        tokens.measure(catalogue)
        warm_tokens = time.perf_counter() - started

        pairs = sum(1 for _ in LintContext(catalogue).pairs())
        started = time.perf_counter()
        result = engine.run(catalogue)
        lint_time = time.perf_counter() - started

    print(f"tools: {len(catalogue.tools)}, pairs seen by pair rules: {pairs:,}")
    print(f"load + validate + model:        {spec_time:6.3f} s")
    print(
        f"tokens, first call (load enc.): {first_tokens:6.3f} s  ({measured.total:,} tokens)"
    )
    print(f"tokens, encoding loaded:        {warm_tokens:6.3f} s")
    findings = len(result.diagnostics)
    print(
        f"lint (every rule, cached enc.): {lint_time:6.3f} s  ({findings:,} findings)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
