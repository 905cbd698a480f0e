"""The catalogue's lint section (select, ignore, severity, preview) and tool suppressions."""

from __future__ import annotations

import shutil
from pathlib import Path

from lint_cases import _cancel_order, _find, catalogue, swap
from lint_fixtures import MARK, block, check, files, spots_of, tool

from toolgen.diagnostics import Severity
from toolgen.lint import config
from toolgen.lint.registry import REGISTRY, Lifecycle, all_rules
from toolgen.spec.ir import LintConfig

VAGUE = tool(
    intent="Reads stock.",
    params=block("""
        val:
          type: string
          pattern: '^SKU-\\d{2,6}$'
          description: The product code."""),
    examples=block("- args: {val: SKU-11}"),
)  # trips TG205 (names) and TG301 (descriptions)


def _codes(root: Path, catalogue_text: str, *tools: str) -> dict[str, Severity]:
    diagnostics, _ = check(root, files(*tools, catalogue=catalogue_text))
    return {d.code: d.severity for d in diagnostics}


def test_by_default_every_stable_rule_runs_and_no_preview_rule() -> None:
    enabled = config.resolve(LintConfig(), all_rules())
    stable = {r.id for r in all_rules() if r.lifecycle is Lifecycle.STABLE}
    assert set(enabled) == stable
    assert {"TG808", "TG809"}.isdisjoint(enabled)
    assert all(enabled[i] is REGISTRY[i].severity for i in enabled)


def test_preview_true_adds_the_preview_rules() -> None:
    enabled = config.resolve(LintConfig(preview=True), all_rules())
    assert set(enabled) == {r.id for r in all_rules()}


# the rules over the lint section and the suppressions, which run whatever select says
CONFIG_RULES = {"TG990", "TG991", "TG992"}


def test_select_by_category_prefix_and_id() -> None:
    by_category = config.resolve(LintConfig(select=("names",)), all_rules())
    assert (
        set(by_category)
        == {r.id for r in all_rules() if r.category.value == "names"} | CONFIG_RULES
    )
    by_prefix = config.resolve(LintConfig(select=("TG30",)), all_rules())
    assert set(by_prefix) == {f"TG30{i}" for i in range(1, 10)} | CONFIG_RULES
    # an exact id selects a preview rule even without preview: true; a prefix does not
    by_id = config.resolve(LintConfig(select=("TG808",)), all_rules())
    assert set(by_id) == {"TG808"} | CONFIG_RULES
    assert "TG808" not in config.resolve(LintConfig(select=("TG8",)), all_rules())


def test_a_misspelt_select_is_reported_not_a_silent_end_of_every_rule(
    tmp_path: Path,
) -> None:
    """A selector that names no rule selected no rule, TG990 included: `check` said
    0 errors, and no suppression was judged either."""
    found = _codes(tmp_path, catalogue("lint:\n  select: [nmaes]\n"), VAGUE)
    assert found == {"TG990": Severity.ERROR}
    assert {r.id for r in all_rules() if r.category.value == "config"} == CONFIG_RULES


def test_ignore_wins_over_select() -> None:
    enabled = config.resolve(
        LintConfig(select=("names",), ignore=("TG205",)), all_rules()
    )
    assert "TG205" not in enabled
    assert "TG201" in enabled


def test_the_most_specific_severity_wins_and_off_disables() -> None:
    severity = {
        "descriptions": "info",
        "TG30": "warning",
        "TG301": "error",
        "TG309": "off",
    }
    enabled = config.resolve(LintConfig(severity=severity), all_rules())
    assert enabled["TG301"] is Severity.ERROR  # id beats prefix beats category
    assert enabled["TG302"] is Severity.WARNING  # prefix TG30 beats the category
    assert enabled["TG310"] is Severity.INFO  # category only
    assert "TG309" not in enabled


def test_lint_section_changes_what_check_reports(tmp_path: Path) -> None:
    default = _codes(tmp_path / "a", catalogue(), VAGUE)
    assert default["TG205"] is Severity.WARNING and default["TG301"] is Severity.WARNING
    quiet = catalogue("lint:\n  ignore: [names]\n  severity: {descriptions: info}\n")
    tuned = _codes(tmp_path / "b", quiet, VAGUE)
    assert "TG205" not in tuned
    assert tuned["TG301"] is Severity.INFO


def test_a_suppression_silences_its_rule_in_its_tool_only(tmp_path: Path) -> None:
    silenced = swap(
        VAGUE,
        "examples:",
        "suppress:\n  - rule: TG205\n    reason: Kept for the demo.\nexamples:",
    )
    other = swap(
        swap(VAGUE, "name: read_stock", "name: read_stock_level"),
        "Reads stock.",
        "Reads levels.",
    )
    diagnostics, _ = check(tmp_path, files(silenced, other))
    vague = {(d.span.file, d.code) for d in diagnostics if d.code in ("TG205", "TG992")}
    assert vague == {("shop/tools/read_stock_level.yaml", "TG205")}


def test_a_pair_finding_is_silenced_by_either_tool(tmp_path: Path) -> None:
    first = (
        _find
        + "suppress:\n  - rule: TG206\n    reason: The shop keeps both while clients migrate.\n"
    )
    second = swap(_find, "name: find_order", "name: search_order")
    diagnostics, _ = check(tmp_path, files(first, second))
    assert {d.code for d in diagnostics} == set()


def test_unused_suppressions_are_reported_with_the_reason(tmp_path: Path) -> None:
    text = tool(
        suppress=block("""
            - rule: ▸TG205
              reason: Nothing vague here any more.
            - rule: ▸TG808
              reason: A preview rule this catalogue does not run.""")
    )
    diagnostics, marked = check(tmp_path, files(text))
    assert spots_of(diagnostics, "TG992") == marked
    messages = sorted(d.message for d in diagnostics if d.code == "TG992")
    assert messages == [
        "suppression of TG205 in tool 'read_stock' matches nothing; expected a finding of "
        "TG205 (vague-parameter-name) in this tool",
        "suppression of TG808 in tool 'read_stock' is not needed: TG808 is not enabled for "
        "this catalogue",
    ]


def test_a_rule_suppressed_twice_reports_the_second(tmp_path: Path) -> None:
    text = swap(
        VAGUE,
        "examples:",
        "suppress:\n  - rule: TG205\n    reason: One.\n"
        "  - rule: ▸TG205\n    reason: Two.\nexamples:",
    )
    diagnostics, marked = check(tmp_path, files(text))
    assert spots_of(diagnostics, "TG992") == marked
    assert spots_of(diagnostics, "TG205") == set()


def test_configuration_findings_cannot_be_suppressed(tmp_path: Path) -> None:
    text = tool(
        suppress=block("""
            - rule: ▸TG991
              reason: Trying to hide the typo below.
            - rule: ▸TG2O5
              reason: A typo.""")
    )
    diagnostics, marked = check(tmp_path, files(text))
    suppression_of_tg991, typo = sorted(marked)
    assert spots_of(diagnostics, "TG992") == {suppression_of_tg991}
    assert spots_of(diagnostics, "TG991") == {typo}
    assert {d.code for d in diagnostics} == {"TG991", "TG992"}


def test_a_suppressed_destructive_tool_is_clean(tmp_path: Path) -> None:
    text = swap(
        swap(_cancel_order, "effect: write", "effect: destructive"),
        "examples:",
        "suppress:\n  - rule: TG702\n    reason: The front end asks the user first.\nexamples:",
    )
    diagnostics, _ = check(tmp_path, files(text.replace(MARK, "")))
    assert diagnostics == []


def test_a_broken_file_makes_no_suppression_elsewhere_unused(tmp_path: Path) -> None:
    """search_order fails to load: find_order's suppression of the pair rule it would
    silence is not reported as matching nothing, and how_to_fix or prose naming the broken
    tool names a tool. A suppression of a rule that is not enabled is still reported."""
    first = (
        _find
        + "suppress:\n  - rule: TG206\n    reason: The shop keeps both while clients migrate.\n"
        + "  - rule: ▸TG808\n    reason: A preview rule this catalogue does not run.\n"
    )
    broken = "name: search_order\nintent: Search orders: [by number\n"
    contents = files(first)
    contents["tools/search_order.yaml"] = broken
    diagnostics, marked = check(tmp_path, contents)
    assert spots_of(diagnostics, "TG992") == marked
    assert "TG001" in {d.code for d in diagnostics}


def test_text_naming_a_broken_tool_names_a_tool(tmp_path: Path) -> None:
    text = swap(
        _find,
        "examples:",
        "errors:\n  unknown_order:\n    how_to_fix: Call search_order.\nexamples:",
    )
    contents = files(text)
    contents["tools/search_order.yaml"] = "name: search_order\nintent: [broken\n"
    diagnostics, _ = check(tmp_path, contents)
    assert "TG806" not in {d.code for d in diagnostics}
    contents.pop("tools/search_order.yaml")
    shutil.rmtree(tmp_path / "shop")
    diagnostics, _ = check(tmp_path, contents)
    assert "TG806" in {d.code for d in diagnostics}, "the rule fires without the file"
