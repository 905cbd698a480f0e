"""What decides which lint findings are kept across builds: the lint context records every
read of a catalogue-wide member, and only the members it names per-tool (a function of the
tool asked about and catalogue.yaml) read nothing that sets it. A member added to the context
is catalogue-wide unless it is named per-tool on purpose."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolgen import pipeline
from toolgen.lint import engine
from toolgen.lint.context import LintContext
from toolgen.lint.registry import (
    REGISTRY,
    Finding,
    Lifecycle,
    ParamSite,
    ToolPair,
    all_rules,
)

ROOT = Path(__file__).parent.parent


def _context() -> LintContext:
    result = pipeline.check_catalogue(
        ROOT / "spec/inventory", ROOT, implementations=False
    )
    assert result.catalogue is not None
    return LintContext(result.catalogue)


def _use(ctx: LintContext, name: str) -> None:
    """Read the member `name` of the context the way a rule would."""
    tool = ctx._catalogue.tools[0]
    value = getattr(ctx, name)
    if not callable(value):
        return
    parameters = list(inspect.signature(value).parameters.values())
    if not parameters:
        result = value()
    elif parameters[0].name == "tool":
        result = value(tool)
    elif parameters[0].name == "name":
        result = value(tool.name)
    elif parameters[0].name == "siblings":
        result = value(tool.params)
    else:
        raise AssertionError(f"the test does not know how to call LintContext.{name}")
    if isinstance(result, Iterator):
        list(result)


def _members() -> list[str]:
    found = {name for name in dir(LintContext) if not name.startswith("_")}
    ctx = _context()
    found |= {name for name in vars(ctx) if not name.startswith("_")}
    # the engine's side: what a check read, and how to compare it with an earlier build
    engine_side = {"read_wide", "facts", "PER_TOOL", "FACTS", "fingerprint", "still"}
    return sorted(found - engine_side)


def test_every_catalogue_wide_member_records_its_reading() -> None:
    members = _members()
    assert set(LintContext.PER_TOOL) <= set(members)
    assert set(LintContext.FACTS) <= set(members)
    for name in members:
        ctx = _context()
        ctx.read_wide = False
        _use(ctx, name)
        if name in LintContext.PER_TOOL:
            assert not ctx.read_wide, f"{name} is per-tool, yet it read the catalogue"
            assert not ctx.facts, f"{name} is per-tool, yet it read a fact"
        elif name in LintContext.FACTS:
            assert not ctx.read_wide, f"{name} is a fact, yet it read the catalogue"
            assert ctx.facts, f"{name} is a fact and does not record it"
            for key, value in ctx.facts.items():
                assert ctx.fingerprint(key) == value
        else:
            assert ctx.read_wide, f"{name} reads the catalogue and does not say so"


def test_a_fact_changes_its_fingerprint_with_what_it_is_made_of() -> None:
    ctx = _context()
    first, second = ctx._catalogue.tools[:2]
    ctx.profile(first.name)
    ctx.tool(second.name)
    ctx.has_tool("no_such_tool")
    before = dict(ctx.facts)
    assert ctx.still(before.items())
    edited = dataclasses.replace(first, digest="0" * len(first.digest))
    tools = tuple(edited if t is first else t for t in ctx._catalogue.tools)
    later = LintContext(dataclasses.replace(ctx._catalogue, tools=tools))
    changed = {k for k, v in before.items() if later.fingerprint(k) != v}
    assert changed == {f"profile:{first.name}"}
    fewer = LintContext(
        dataclasses.replace(ctx._catalogue, tools=ctx._catalogue.tools[1:])
    )
    assert fewer.fingerprint(f"profile:{first.name}") != before[f"profile:{first.name}"]
    assert fewer.fingerprint("has_tool:no_such_tool") == before["has_tool:no_such_tool"]


def test_a_cached_member_says_so_on_every_read() -> None:
    ctx = _context()
    for name in ("profiles", "object_counts", "common_params", "tokens"):
        getattr(ctx, name)
        ctx.read_wide = False
        ctx.facts = {}
        getattr(ctx, name)  # computed already: the second read must record too
        assert ctx.read_wide or name in ctx.facts, name


def test_kept_records_give_the_same_diagnostics_as_a_fresh_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a check that reads the catalogue over some elements of a tool only: re-run over
    # them all, its findings are neither lost nor found twice
    result = pipeline.check_catalogue(
        ROOT / "spec/inventory", ROOT, implementations=False
    )
    catalogue = result.catalogue
    assert catalogue is not None
    rule_id = next(
        r.id
        for r in all_rules()
        if r.kind is ParamSite and r.lifecycle is Lifecycle.STABLE
    )

    def sometimes_wide(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
        if site.path == (site.tool.params[0].name,):
            _ = ctx.profiles
        yield Finding(f"found at {site.dotted}")

    monkeypatch.setitem(
        REGISTRY, rule_id, dataclasses.replace(REGISTRY[rule_id], check=sometimes_wide)
    )
    fresh = engine.run(catalogue)
    assert any(d.code == rule_id for d in fresh.diagnostics)
    assert all(rule_id in record.live for record in fresh.kept.values() if record.hits)
    again = engine.run(catalogue, fresh.kept)
    assert again.diagnostics == fresh.diagnostics
    assert again.kept == fresh.kept


def test_a_rule_that_asked_about_a_changed_tool_runs_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A check that read a fact about another tool is kept with its fingerprint: it is run
    again over the tools that asked when that tool changes, and only then."""
    result = pipeline.check_catalogue(
        ROOT / "spec/inventory", ROOT, implementations=False
    )
    catalogue = result.catalogue
    assert catalogue is not None
    asked = catalogue.tools[0]
    rule_id = next(
        r.id
        for r in all_rules()
        if r.kind is ParamSite and r.lifecycle is Lifecycle.STABLE
    )
    runs: list[str] = []

    def asks(site: ParamSite, ctx: LintContext) -> Iterator[Finding]:
        runs.append(site.tool.name)
        other = ctx.tool(asked.name)
        assert other is not None
        yield Finding(f"{site.dotted} next to a tool of digest {other.digest[:8]}")

    monkeypatch.setitem(
        REGISTRY, rule_id, dataclasses.replace(REGISTRY[rule_id], check=asks)
    )
    fresh = engine.run(catalogue)
    assert runs and all(rule_id not in r.live for r in fresh.kept.values())
    runs.clear()
    again = engine.run(catalogue, fresh.kept)
    assert runs == []  # nothing it asked about changed
    assert again.diagnostics == fresh.diagnostics
    assert again.kept == fresh.kept
    edited = dataclasses.replace(asked, digest="f" * len(asked.digest))
    changed = dataclasses.replace(
        catalogue, tools=tuple(edited if t is asked else t for t in catalogue.tools)
    )
    # the edited tool itself is linted afresh; every other tool that asked runs again
    kept = {f: r for f, r in fresh.kept.items() if f != asked.file}
    runs.clear()
    later = engine.run(changed, kept)
    expected = engine.run(changed)
    assert later.diagnostics == expected.diagnostics
    assert later.kept == expected.kept
    askers = {t.name for t in catalogue.tools if t.params and not t.derived}
    assert set(runs) == askers


def _pair_rule(monkeypatch: pytest.MonkeyPatch, check: object) -> str:
    rule_id = next(
        r.id
        for r in all_rules()
        if r.kind is ToolPair and r.lifecycle is Lifecycle.STABLE
    )
    monkeypatch.setitem(
        REGISTRY, rule_id, dataclasses.replace(REGISTRY[rule_id], check=check)
    )
    return rule_id


def test_a_pair_of_unchanged_tools_keeps_its_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pair rules run again over the pairs of a changed tool only, and over a pair whose
    check asked about a tool that changed; a kept pair gives the findings a fresh run gives."""
    result = pipeline.check_catalogue(
        ROOT / "spec/inventory", ROOT, implementations=False
    )
    catalogue = result.catalogue
    assert catalogue is not None
    runs: list[tuple[str, str]] = []
    asked = catalogue.tools[-1]

    def pair_check(pair: ToolPair, ctx: LintContext) -> Iterator[Finding]:
        runs.append((pair.first.name, pair.second.name))
        ctx.profile(asked.name)  # a fact about a tool that may be neither of the two
        yield Finding(f"{pair.first.name} beside {pair.second.name}")

    rule_id = _pair_rule(monkeypatch, pair_check)
    fresh = engine.run(catalogue)
    pairs = list(runs)
    assert len(pairs) >= 3
    assert sum(d.code == rule_id for d in fresh.diagnostics) == len(pairs)
    # a pair with a prepare tool (made of its token contract every build) runs every time
    derived = {t.name for t in catalogue.tools if t.derived}
    always = {p for p in pairs if derived & set(p)}
    assert always and len(always) < len(pairs)
    assert sum(len(r.pairs) for r in fresh.kept.values()) == len(pairs) - len(always)
    runs.clear()
    again = engine.run(catalogue, fresh.kept)
    assert set(runs) == always
    assert again.diagnostics == fresh.diagnostics
    assert again.kept == fresh.kept
    # one tool edited: its pairs run again, and so do those that asked about it
    edited_tool = next(t for t in catalogue.tools if t.name == pairs[0][0])
    edited = dataclasses.replace(edited_tool, digest="f" * len(edited_tool.digest))
    changed = dataclasses.replace(
        catalogue,
        tools=tuple(edited if t is edited_tool else t for t in catalogue.tools),
    )
    kept = {f: r for f, r in fresh.kept.items() if f != edited_tool.file}
    runs.clear()
    later = engine.run(changed, kept)
    expected = engine.run(changed)
    assert later.diagnostics == expected.diagnostics
    assert later.kept == expected.kept
    ran = set(runs[: len(runs) - len(pairs)])  # the first run's, before `expected`'s
    assert asked is not edited_tool
    assert ran == always | {p for p in pairs if edited_tool.name in p}
    # the tool every check asked about edited: every pair runs again
    edited = dataclasses.replace(asked, digest="f" * len(asked.digest))
    changed = dataclasses.replace(
        catalogue, tools=tuple(edited if t is asked else t for t in catalogue.tools)
    )
    kept = {f: r for f, r in fresh.kept.items() if f != asked.file}
    runs.clear()
    later = engine.run(changed, kept)
    assert set(runs) == set(pairs)
    assert later.diagnostics == engine.run(changed).diagnostics


def test_a_pair_check_that_reads_the_catalogue_runs_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    result = pipeline.check_catalogue(
        ROOT / "spec/inventory", ROOT, implementations=False
    )
    catalogue = result.catalogue
    assert catalogue is not None
    runs: list[str] = []

    def wide(pair: ToolPair, ctx: LintContext) -> Iterator[Finding]:
        runs.append(pair.first.name)
        yield Finding(f"{pair.first.name} in a catalogue of {len(ctx.catalogue.tools)}")

    _pair_rule(monkeypatch, wide)
    fresh = engine.run(catalogue)
    assert runs and not any(r.pairs for r in fresh.kept.values())
    count = len(runs)
    again = engine.run(catalogue, fresh.kept)
    assert len(runs) == 2 * count
    assert again.diagnostics == fresh.diagnostics
