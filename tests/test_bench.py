"""The benchmark suite cannot rot: its smoke run works, its inputs are what it says they are,
and the figures in the docs are those of the committed run.

The smoke run (`bench/run.py --quick`) checks the example catalogue five times, builds 10
realistic tools once with every command and imports 20 tools four ways, each in a fresh
interpreter: about 20 seconds here, most of it interpreters importing the Agents SDK.
openapi-python-client is left out (installing it is the full run's business, `make bench`).

The suite reaches toolgen through its command only, as a user does: these tests too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
TOOLGEN = str(Path(sys.executable).with_name("toolgen"))
sys.path.insert(0, str(BENCH))

import catalogue  # noqa: E402
import openapi_doc  # noqa: E402
import realistic  # noqa: E402
import report  # noqa: E402
import sizes  # noqa: E402
import targets  # noqa: E402

CATALOGUES = [realistic, catalogue]


@pytest.mark.slow
def test_quick_run_measures_every_figure(tmp_path: Path) -> None:
    command = [sys.executable, str(BENCH / "run.py"), "--quick", "--no-openapi"]
    done = subprocess.run(
        [*command, "--output", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    [size] = results["build"]
    assert (size["catalogue"], size["tools"]) == ("realistic", 10)
    example = results["example_check"]
    assert len(example["seconds"]) == 5 and all(s > 0 for s in example["seconds"])
    measured = {
        "floor",
        "first_build",
        "rebuild",
        "build_check",
        "check",
        "one_changed",
    }
    assert set(size["seconds"]) == measured
    assert all(
        len(samples) == 1 and samples[0] > 0 for samples in size["seconds"].values()
    )
    assert all(rss[0] > 10 for rss in size["rss_mb"].values())  # MB: a Python process
    # counted on disk: nothing is written when nothing changed, the edited tool's module is
    assert size["written_on_rebuild"] == [0]
    assert size["written_on_one_changed"][0] >= 1
    described = results["openapi_import"]
    assert (described["operations"], described["tools"]) == (100, 100)
    assert all(len(described["samples"][k]) == 1 for k in ("floor", "import"))
    imports = results["imports"]
    assert imports["equivalence"] == {"tools": 20, "same_names": True, "mismatched": []}
    for mode in ("on", "off"):
        assert set(imports["extra"][mode]) == {"toolgen", "decorator"}
    markdown = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "`toolgen build`, nothing changed" in markdown
    assert "`all_tools()`, 20 tools" in markdown
    assert (
        "description the size of GitHub's (bench/github_doc.py: 100 operations"
        in markdown
    )
    # every target is listed; what a smoke run does not reach is "not measured", not faked
    verdicts = {t["target"]: t["verdict"] for t in results["targets"]}
    assert len(verdicts) == 9
    # a count, measured by every run (bench/search/compiled.py), issue 36's 0.15x
    deferral = "tokens loaded up front per turn with deferral, against every definition"
    assert verdicts[deferral] == "met"
    assert results["deferral"]["ratio"] <= targets.DEFERRED_UP_FRONT
    assert verdicts["`toolgen check` of the example catalogue (spec/inventory)"] in (
        "met",
        "missed",
        "met (missed on CPU time)",
        "missed (met on CPU time)",
    )
    assert verdicts["`toolgen check` of 100 realistic tools"] == "not measured"


def test_a_smoke_run_leaves_the_committed_results_alone() -> None:
    """`make bench BENCH_ARGS=--quick` once wrote its figures over bench/results.* and the
    docs; now only a run asked to write into bench/ does."""
    import run

    assert run.output_folder(run.parser().parse_args(["--quick"])) != BENCH
    assert run.output_folder(run.parser().parse_args([])) == BENCH
    chosen = run.parser().parse_args(["--quick", "--output", str(BENCH)])
    assert run.output_folder(chosen) == BENCH


@pytest.mark.parametrize("kind", CATALOGUES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("count", [1, 7, 60])
def test_the_openapi_document_declares_what_the_catalogue_does(
    tmp_path: Path, count: int, kind: ModuleType
) -> None:
    folder = kind.write_catalogue(tmp_path, count)
    document = openapi_doc.write_openapi(tmp_path / "openapi.json", kind, count)
    ours, theirs = sizes.toolgen_size(folder), sizes.openapi_size(document)
    assert ours.operations == theirs.operations == count
    assert (ours.fields, ours.error_codes, ours.enum_values, ours.constraints) == (
        theirs.fields,
        theirs.error_codes,
        theirs.enum_values,
        theirs.constraints,
    )
    assert ours.fields > 5 * count  # parameters, nested fields, returns, context


def _check(tmp_path: Path, kind: ModuleType, count: int) -> list[dict[str, Any]]:
    """What `toolgen check` reports of the first `count` tools of `kind`."""
    (tmp_path / "pyproject.toml").touch()
    kind.write_catalogue(tmp_path, count)
    done = subprocess.run(
        [TOOLGEN, "check", "--format", "json", f"spec/{kind.CATALOGUE_NAME}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found: list[dict[str, Any]] = json.loads(done.stdout)
    # the implementations are not written: that one info is all there may be
    return [d for d in found if d["code"] != "TG151"]


@pytest.mark.parametrize(
    ("kind", "count"), [(catalogue, 100), (realistic, 17), (realistic, 120)]
)
def test_the_catalogues_are_clean(tmp_path: Path, kind: ModuleType, count: int) -> None:
    assert _check(tmp_path, kind, count) == []


def _walk(spec: Any) -> Any:
    """Every mapping inside a tool's dictionary, itself included."""
    if isinstance(spec, dict):
        yield spec
        for value in spec.values():
            yield from _walk(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _walk(value)


def test_the_realistic_catalogue_has_every_feature_of_the_example() -> None:
    """The first 17 tools (one record's) already use every feature: a catalogue of any
    size from 17 on does."""
    specs = list(realistic.tool_specs(17))
    params = [p for s in specs for p in _walk(s["params"]) if "type" in p]
    kinds = {p["type"] for p in params}
    assert kinds >= {"string", "integer", "number", "boolean", "date", "datetime"} | {
        "array",
        "object",
        "path",
        "url",
    }
    assert any(p.get("root") and p.get("suffixes") for p in params)
    assert any(p.get("hosts") and p.get("hosts_from") for p in params)
    assert any(p["type"] == "integer" and "enum" in p for p in params)
    assert any(p["type"] == "string" and "enum" in p for p in params)
    # an array of objects, and an object holding an object
    assert any(p["type"] == "array" and p["items"]["type"] == "object" for p in params)
    assert any(
        p["type"] == "object"
        and any(q["type"] == "object" for q in p["properties"].values())
        for p in params
    )
    assert any(isinstance(s.get("idempotency"), dict) for s in specs)
    assert any(s.get("idempotency") == "natural" for s in specs)
    assert {s.get("confirmation") for s in specs} >= {"token", "approval"}
    assert any("pagination" in s for s in specs)
    assert any(s.get("open_world") for s in specs)
    assert {s["effect"] for s in specs} == {"read", "write", "destructive"}
    assert all(s["context"] for s in specs)
    assert any(s.get("not_when") for s in specs) and any(
        s.get("requires") for s in specs
    )
    errors = [e for s in specs for e in s.get("errors", {}).values()]
    assert errors and all(e["how_to_fix"] for e in errors)
    assert all(
        any("rejected_on" not in x for x in s["examples"])
        and any("rejected_on" in x for x in s["examples"])
        for s in specs
    )
    # issue 36: namespaces (one deferred), toolsets, asks and a timeout
    assert all(s["namespace"] == "clinic" and s["asks"] for s in specs)
    assert any("timeout" in s for s in specs)
    groups = realistic.catalogue_spec(len(specs) + 1)
    assert [n["deferred"] for n in groups["namespaces"].values()] == [False, True]
    assert groups["toolsets"]["assistant"]["tools"] == ["clinic", "pharmacy"]


def test_the_realistic_catalogue_is_the_same_at_every_size() -> None:
    """Tool i does not depend on the size; names are distinct, and a tool refers only to
    tools before it (a catalogue of N tools is the first N)."""
    specs = list(realistic.tool_specs(realistic.max_tools()))
    assert specs[:40] == list(realistic.tool_specs(40))
    names = [s["name"] for s in specs]
    assert len(set(names)) == len(names) == realistic.max_tools() >= 5000
    seen: set[str] = set()
    for spec in specs:
        named = {
            *spec.get("requires", ()),
            *(n["use"] for n in spec.get("not_when", ())),
        }
        assert named <= seen, spec["name"]
        seen.add(spec["name"])
        seen.add(spec["name"].replace("confirm_", "prepare_", 1))
    domains = {realistic.tool_domain(i) for i in range(realistic.max_tools())}
    assert len(domains) == 30


def test_docs_show_the_committed_results() -> None:
    """docs/performance.md and CONTRIBUTING.md hold the figures of bench/results.json, as
    `make bench` writes them; a hand edit or a stale copy fails here.

    The committed run may come from before the realistic catalogue: its rows are then the
    synthetic catalogue's, and every target it did not measure reads "not measured" (never a
    figure of another catalogue) until the next full run replaces it."""
    results = json.loads((BENCH / "results.json").read_text(encoding="utf-8"))
    if not any(row.get("catalogue") == "realistic" for row in results["build"]):
        # every target but the example's check is read on the realistic catalogue; the
        # last, deferral's, is a count of its own (bench/search/compiled.py)
        read = targets.targets(results)[1:-1]
        assert [t["verdict"] for t in read] == ["not measured"] * len(read)
    for rel, blocks in report.DOC_BLOCKS.items():
        text = (ROOT / rel).read_text(encoding="utf-8")
        for name, render in blocks.items():
            assert (
                report.read_block(text, name) == render(results).rstrip("\n") + "\n"
            ), (
                f"{rel}: block {name} is not bench/results.json's; run "
                "bench/run.py --render bench/results.json"
            )
    assert (BENCH / "results.md").read_text(
        encoding="utf-8"
    ) == report.results_markdown(results)
