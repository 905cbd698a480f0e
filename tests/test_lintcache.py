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
from toolgen.lint.registry import REGISTRY, Finding, Lifecycle, ParamSite, all_rules

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
    return sorted(found - {"read_wide", "PER_TOOL"})


def test_every_catalogue_wide_member_records_its_reading() -> None:
    members = _members()
    assert set(LintContext.PER_TOOL) <= set(members)
    for name in members:
        ctx = _context()
        ctx.read_wide = False
        _use(ctx, name)
        if name in LintContext.PER_TOOL:
            assert not ctx.read_wide, f"{name} is per-tool, yet it read the catalogue"
        else:
            assert ctx.read_wide, f"{name} reads the catalogue and does not say so"


def test_a_cached_member_says_so_on_every_read() -> None:
    ctx = _context()
    for name in ("profiles", "object_counts", "common_params", "tokens"):
        getattr(ctx, name)
        ctx.read_wide = False
        getattr(ctx, name)  # computed already: the second read must record too
        assert ctx.read_wide, name


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
            _ = ctx.tool_names
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
