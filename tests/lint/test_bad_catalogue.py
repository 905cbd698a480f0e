"""tests/fixtures/bad_catalogue trips every lint rule.

Two rules are left out because they exclude each other's catalogue, and each has its own
bad and good fixture in lint_cases.py:

- TG952 (more than 128 tools, the hard limit) and TG951 (more than 20, the advice) count the
  same tools: TG951 stops where TG952 takes over, and a catalogue has one tool count. The bad
  catalogue has 33 tools, so TG951 fires.
- TG955 (no token budget) and TG953/TG954 (over the budget) need a catalogue without and with
  budget: in catalogue.yaml. The bad catalogue has a budget, so TG953 and TG954 fire.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from toolgen.build import pipeline
from toolgen.lint.registry import REGISTRY, all_rules

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "fixtures" / "bad_catalogue"
EXCLUDED = {"TG952", "TG955"}
# Format and semantic errors the bad catalogue makes on purpose, so that lint also runs on a
# catalogue the model reports errors for.
SPEC_ERRORS = {
    "TG110": 1,  # stock.read: not a valid OpenAI name (TG201 says it per target)
    "TG130": 1,  # update_shop_settings: no example for 5,001 flags
}
WIDE_FLAGS = (
    5001  # over OpenAI's 5,000 properties; 25-character names: over 120,000 characters
)


def wide_tool() -> str:
    """tools/update_shop_settings.yaml, too big to write by hand."""
    flags = "".join(
        f"      shelf_{i:04d}_label_is_shown: {{type: boolean}}\n"
        for i in range(WIDE_FLAGS)
    )
    return (
        "# TG507, TG510 and TG512 (and TG130, no example): written by wide_tool() in\n"
        "# tests/lint/test_bad_catalogue.py, which checks this file is current\n"
        "name: update_shop_settings\n"
        "intent: Update the display settings of the shop's web pages in one call.\n"
        "use_when: The user asks to change how the shop's pages look.\n"
        "effect: write\n"
        "idempotency: natural\n"
        "params:\n"
        "  settings:\n"
        "    type: object\n"
        "    description: Every display flag of the shop.\n"
        "    properties:\n"
        f"{flags}"
        "returns:\n"
        "  updated: {type: boolean, description: False when nothing changed.}\n"
    )


def test_the_generated_wide_tool_is_current() -> None:
    path = BAD / "tools" / "update_shop_settings.yaml"
    assert path.read_text(encoding="utf-8") == wide_tool()


def test_bad_catalogue_trips_every_rule() -> None:
    result = pipeline.check_catalogue(BAD, ROOT, implementations=False)
    assert result.catalogue is not None
    assert len(result.catalogue.tools) == 33
    tripped = {d.code for d in result.diagnostics if d.code in REGISTRY}
    assert tripped == {r.id for r in all_rules()} - EXCLUDED
    spec = Counter(d.code for d in result.diagnostics if d.code not in REGISTRY)
    assert spec == SPEC_ERRORS
