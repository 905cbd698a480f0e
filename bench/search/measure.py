"""Measure the tool search (toolgen_runtime.search) on the benchmark catalogue.

    .venv/bin/python bench/search/measure.py [--write]

Reports, for toolgen's BM25F and for a plain BM25 over name and description (the baseline):
- top-1 and top-3 accuracy on the catalogue's asks, leave-one-out: each ask is searched over
  the whole catalogue with that ask left out of its own tool's document (one index per ask),
  so it measures how the search generalises, not what it remembers;
- top-1 and top-3 accuracy on the held-out requests of tests/runtime/search_requests.py,
  written apart from the asks and never used to build or tune anything;
- search time per query (median and p95) at 300 tools and at 1,000 (the catalogue grown with
  copies for other markets, bench/search/catalogue.py `grow`), and for hostile queries;
- index build time, the size of its data form, and what loading it costs.

`--write` also writes bench/search/results.md.
"""

from __future__ import annotations

import argparse
import json
import marshal
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from toolgen_runtime.search import SearchDocument, ToolIndex, Tuning, terms  # noqa: E402

from bench.search.catalogue import Tool, grow, load  # noqa: E402
from tests.runtime.search_requests import REQUESTS  # noqa: E402

DEFAULT = Tuning()
RESULTS = Path(__file__).resolve().parent / "results.md"
# plain BM25 on one field, the name's words and the description the model reads
BASELINE = Tuning(
    name=0,
    intent=1,
    use_when=0,
    not_when=0,
    asks=0,
    parameters=0,
    namespace=0,
    k1=1.2,
    b=0.75,
)
Case = tuple[str, str]  # (query, the right tool)


@dataclass(frozen=True, slots=True)
class Accuracy:
    top1: float
    top3: float
    cases: int
    misses: tuple[tuple[str, str, tuple[str, ...]], ...]  # query, wanted, top 3 found

    def __str__(self) -> str:
        return f"top-1 {self.top1:.1%}, top-3 {self.top3:.1%} ({self.cases} queries)"


def accuracy(
    search: Callable[[str, str], list[str]], cases: Sequence[Case]
) -> Accuracy:
    """`search(query, wanted)` gives the top 3 names; how often `wanted` is first, in the 3."""
    first = in_three = 0
    misses = []
    for query, wanted in cases:
        found = search(query, wanted)
        first += found[:1] == [wanted]
        in_three += wanted in found
        if wanted not in found:
            misses.append((query, wanted, tuple(found)))
    return Accuracy(
        first / len(cases), in_three / len(cases), len(cases), tuple(misses)
    )


def asks_left_out(tools: Sequence[Tool], tuning: Tuning = DEFAULT) -> Accuracy:
    """Each ask searched with an index where its own tool's document lacks that ask."""
    documents = {tool.name: tool.document() for tool in tools}
    cases = [(ask, tool.name) for tool in tools for ask in tool.asks]
    by_name = {tool.name: tool for tool in tools}

    def search(query: str, wanted: str) -> list[str]:
        tool = by_name[wanted]
        held = tool.document(tuple(ask for ask in tool.asks if ask != query))
        index = ToolIndex.build([*_others(documents, wanted), held], tuning)
        return [hit.name for hit in index.search(query, 3)]

    return accuracy(search, cases)


def _others(documents: dict[str, SearchDocument], name: str) -> list[SearchDocument]:
    return [document for key, document in documents.items() if key != name]


def held_out(
    tools: Sequence[Tool], tuning: Tuning = DEFAULT, *, baseline: bool = False
) -> Accuracy:
    index = build(tools, tuning, baseline=baseline)
    return accuracy(
        lambda query, _: [hit.name for hit in index.search(query, 3)], REQUESTS
    )


def asks_without_a_shared_term(tools: Sequence[Tool]) -> int:
    """How many asks share no term with their tool's document once they are left out of it.

    No search over words can find these from the tool's own text: the count bounds what
    leave-one-out can reach (what is left may still be found, by luck, only through others).
    """
    count = 0
    for tool in tools:
        for ask in tool.asks:
            held = tool.document(tuple(other for other in tool.asks if other != ask))
            words = {
                term for text in held.field_texts().values() for term in terms(text)
            }
            count += not words & set(terms(ask))
    return count


def asks_kept(tools: Sequence[Tool]) -> Accuracy:
    """Each ask searched over the index that holds it: what lint's check of asks sees."""
    index = build(tools, Tuning())
    cases = [(ask, tool.name) for tool in tools for ask in tool.asks]
    return accuracy(
        lambda query, _: [hit.name for hit in index.search(query, 3)], cases
    )


def baseline_asks(tools: Sequence[Tool]) -> Accuracy:
    """The baseline never reads asks: searching them over its one index is leave-one-out."""
    index = build(tools, BASELINE, baseline=True)
    cases = [(ask, tool.name) for tool in tools for ask in tool.asks]
    return accuracy(
        lambda query, _: [hit.name for hit in index.search(query, 3)], cases
    )


def build(
    tools: Sequence[Tool], tuning: Tuning, *, baseline: bool = False
) -> ToolIndex:
    if baseline:
        return ToolIndex.build([tool.baseline_document() for tool in tools], BASELINE)
    return ToolIndex.build([tool.document() for tool in tools], tuning)


def query_times_us(
    index: ToolIndex, queries: Sequence[str], rounds: int = 5
) -> list[float]:
    """Each query's best time over `rounds` runs, in microseconds (the first run warms up)."""
    best = [float("inf")] * len(queries)
    for _ in range(rounds + 1):
        for number, query in enumerate(queries):
            start = time.perf_counter_ns()
            index.search(query, 5)
            best[number] = min(best[number], (time.perf_counter_ns() - start) / 1000)
    return best


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


HOSTILE = {
    "1 MB of words": " ".join(f"word{n}" for n in range(120_000))[:1_000_000],
    "1 MB of one word": "refund " * 142_857,
    "1 MB of lone surrogates": "\udc80" * 1_000_000,
    "1 MB without a space": "x" * 1_000_000,
}


def timings(tools: list[Tool]) -> dict[str, object]:
    """Build, size, load and query figures at 300 and 1,000 tools."""
    figures: dict[str, object] = {}
    queries = [query for query, _ in REQUESTS] + [
        ask for tool in tools for ask in tool.asks
    ]
    for size in (1_000, len(tools)):  # 1,000 first: its build is the cold one
        catalogue = grow(tools, size)
        start = time.perf_counter()
        index = build(catalogue, Tuning())
        cold = time.perf_counter() - start
        start = time.perf_counter()
        index = build(catalogue, Tuning())
        warm = time.perf_counter() - start
        data = index.to_data()
        text = json.dumps(data, separators=(",", ":"))
        source = f"INDEX = {data!r}\n"
        start = time.perf_counter()
        code = compile(source, "_search.py", "exec")
        compiled = time.perf_counter() - start
        frozen = marshal.dumps(code)
        start = time.perf_counter()
        namespace: dict[str, object] = {}
        exec(marshal.loads(frozen), namespace)
        ToolIndex.from_data(namespace["INDEX"])  # type: ignore[arg-type]
        imported = time.perf_counter() - start
        start = time.perf_counter()
        ToolIndex.from_data(json.loads(text))
        from_json = time.perf_counter() - start
        times = query_times_us(index, queries)
        hostile = {
            name: min(query_times_us(index, [query], 2))
            for name, query in HOSTILE.items()
        }
        figures[str(size)] = {
            "tools": size,
            "terms": len(data["terms"]),
            "postings": len(data["ids"]),
            "build_cold_ms": cold * 1000,
            "build_warm_ms": warm * 1000,
            "json_kb": len(text) / 1024,
            "module_kb": len(source) / 1024,
            "pyc_kb": len(frozen) / 1024,
            "compile_ms": compiled * 1000,
            "import_ms": imported * 1000,
            "from_json_ms": from_json * 1000,
            "queries": len(queries),
            "median_us": statistics.median(times),
            "p95_us": percentile(times, 0.95),
            "max_us": max(times),
            "hostile_us": hostile,
        }
    return figures


def report(tools: list[Tool]) -> str:
    lines = ["# Tool search: measured figures", ""]
    lines.append(
        f"Catalogue: {len(tools)} tools in {len({t.namespace.name for t in tools})} namespaces, "
        f"{sum(len(t.asks) for t in tools)} asks; {len(REQUESTS)} held-out requests. "
        f"Python {sys.version.split()[0]}."
    )
    lines += ["", "| engine | set | top-1 | top-3 |", "| --- | --- | --- | --- |"]
    rows = [
        ("BM25F (toolgen)", "asks, leave-one-out", asks_left_out(tools)),
        ("BM25F (toolgen)", "held-out requests", held_out(tools)),
        ("BM25F (toolgen)", "asks, kept in the index", asks_kept(tools)),
        ("BM25, name + description", "asks (never in its index)", baseline_asks(tools)),
        (
            "BM25, name + description",
            "held-out requests",
            held_out(tools, baseline=True),
        ),
    ]
    unreachable = asks_without_a_shared_term(tools)
    asks = sum(len(tool.asks) for tool in tools)
    misses: list[str] = []
    for engine, cases, result in rows:
        lines.append(f"| {engine} | {cases} | {result.top1:.1%} | {result.top3:.1%} |")
        if engine.startswith("BM25F") and "kept" not in cases:
            misses += [
                f"- ({cases}) {q!r}: wanted {w}, got {', '.join(f)}"
                for q, w, f in result.misses
            ]
    lines += [
        "",
        f"{unreachable} of the {asks} asks ({unreachable / asks:.1%}) share no term (after stop "
        "words and stemming) with their own tool's document once they are left out of it: "
        "leave-one-out over words cannot exceed "
        f"{1 - unreachable / asks:.1%} top-3 on this catalogue.",
    ]
    header = (
        "| tools | build cold / warm | terms / postings | data: JSON / module / pyc "
        "| load: from JSON / import | query median / p95 / max |"
    )
    lines += ["", header, "| --- " * 6 + "|"]
    figures = timings(tools)
    for size in (str(len(tools)), "1000"):
        f = figures[size]
        assert isinstance(f, dict)
        lines.append(
            f"| {f['tools']} | {f['build_cold_ms']:.0f} / {f['build_warm_ms']:.0f} ms "
            f"| {f['terms']} / {f['postings']} "
            f"| {f['json_kb']:.0f} / {f['module_kb']:.0f} / {f['pyc_kb']:.0f} KB "
            f"| {f['from_json_ms']:.1f} / {f['import_ms']:.1f} ms "
            f"| {f['median_us']:.0f} / {f['p95_us']:.0f} / {f['max_us']:.0f} µs |"
        )
    compiled = ", ".join(
        f"{figures[size]['compile_ms']:.0f} ms at {size} tools"  # type: ignore[index]
        for size in (str(len(tools)), "1000")
    )
    lines += [
        "",
        "Import is the index loaded from a literal module's compiled form (`INDEX = {...}`, "
        "unmarshalled and passed to `ToolIndex.from_data`); compiling that module once, "
        f"where no .pyc can be written, costs {compiled}.",
    ]
    hostile = figures["1000"]["hostile_us"]  # type: ignore[index]
    lines += [
        "",
        "Hostile queries at 1,000 tools (each cut to its first 1,000 characters):",
        "",
    ]
    lines += [f"- {name}: {us:.0f} µs" for name, us in hostile.items()]
    lines += ["", "Top-3 misses of BM25F:", "", *misses, ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--write", action="store_true", help="write bench/search/results.md"
    )
    args = parser.parse_args()
    text = report(load())
    print(text)
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
