"""Tune the search's field weights and BM25 parameters on the catalogue's asks only.

    .venv/bin/python bench/search/tune.py

The held-out requests are never read here. Each setting is scored on the asks in five folds:
fold j searches every tool's j-th ask over an index where every tool lacks its j-th ask
(five builds per setting instead of one per ask, and a little harder than leave-one-out,
since the other tools lack an ask too). A setting must also find at least 99% of the asks
in their tool's top 3 when they are in the index: an ask written in the catalogue finds its
tool (lint checks asks that way), and without this bound the folds favour asks so light
(0.5) that a quarter of the kept asks land elsewhere at 0.25. Coordinate ascent from the
defaults of `Tuning`: each parameter in turn takes the value of its grid that scores best
(top-3, then top-1), until a round changes nothing. Prints each step and the setting found.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolgen_runtime.search import ToolIndex, Tuning  # noqa: E402

from bench.search.catalogue import Tool, load  # noqa: E402

GRID: dict[str, tuple[float, ...]] = {
    "name": (0.5, 1, 2, 3, 4, 6),
    "intent": (0.5, 1, 2, 3, 4),
    "use_when": (0, 0.5, 1, 1.5, 2, 3),
    "not_when": (-2, -1, -0.5, -0.25, 0, 0.25, 0.5),
    "asks": (0.5, 1, 2, 3, 4, 6, 8),
    "parameters": (0, 0.25, 0.5, 1, 1.5),
    "namespace": (0, 0.25, 0.5, 1, 1.5),
    "k1": (0.6, 0.9, 1.2, 1.6, 2.0, 3.0),
    "b": (0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9),
}


KEPT = (
    0.99  # the share of asks kept in the index that must find their tool in the top 3
)


def kept(tools: list[Tool], tuning: Tuning) -> float:
    """The share of asks in their own tool's top 3, over the index that holds them."""
    index = ToolIndex.build([tool.document() for tool in tools], tuning)
    found = [
        tool.name in {hit.name for hit in index.search(ask, 3)}
        for tool in tools
        for ask in tool.asks
    ]
    return sum(found) / len(found)


def folds(tools: list[Tool], tuning: Tuning) -> tuple[int, int, int]:
    """(in top 3, first, asks) over the five folds."""
    top3 = top1 = total = 0
    for fold in range(max(len(tool.asks) for tool in tools)):
        documents = [
            tool.document(tuple(a for n, a in enumerate(tool.asks) if n != fold))
            for tool in tools
        ]
        index = ToolIndex.build(documents, tuning)
        for tool in tools:
            if fold < len(tool.asks):
                found = [hit.name for hit in index.search(tool.asks[fold], 3)]
                top3 += tool.name in found
                top1 += found[:1] == [tool.name]
                total += 1
    return top3, top1, total


def main() -> None:
    tools = load()
    best = Tuning()
    score = folds(tools, best)
    assert kept(tools, best) >= KEPT, "the start must keep its asks"
    print(f"start {best}: top-3 {score[0]}/{score[2]}, top-1 {score[1]}/{score[2]}")
    changed = True
    while changed:
        changed = False
        for key, values in GRID.items():
            for value in values:
                trial = dataclasses.replace(best, **{key: value})
                result = folds(tools, trial)
                if result[:2] > score[:2] and kept(tools, trial) >= KEPT:
                    best, score, changed = trial, result, True
                    print(
                        f"{key}={value}: top-3 {score[0]}/{score[2]}, top-1 {score[1]}/{score[2]}"
                    )
    print(f"found {best}")


if __name__ == "__main__":
    main()
