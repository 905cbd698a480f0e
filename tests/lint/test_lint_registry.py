"""The registry: stable ids, documentation from code, and docs/rules.md kept current."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from toolgen.diagnostics import Severity
from toolgen.lint import docs
from toolgen.lint.context import CatalogueContext, LintContext
from toolgen.lint.registry import (
    CATALOGUE_KINDS,
    REGISTRY,
    RETIRED,
    TOOL_KINDS,
    Category,
    Rule,
    all_rules,
    engine_rule,
)

ROOT = Path(__file__).resolve().parents[2]

# Every id ever given, with its rule's name. An id is never reused: a rule that goes away moves
# to RETIRED, and this table only grows.
IDS = {
    "TG201": "tool-name-target-limit",
    "TG202": "names-differ-only-in-case",
    "TG203": "tool-name-not-verb-noun",
    "TG204": "generic-tool-name",
    "TG205": "vague-parameter-name",
    "TG206": "overlapping-tool-names",
    "TG207": "parameter-names-differ-only-in-case",
    "TG208": "parameter-name-not-snake-case",
    "TG301": "intent-too-short",
    "TG302": "missing-use-when",
    "TG303": "neighbour-without-not-when",
    "TG304": "not-when-not-covered",
    "TG305": "not-when-loops-back",
    "TG306": "description-over-target-limit",
    "TG307": "promotional-language",
    "TG308": "shouting-or-threats",
    "TG309": "implementation-details",
    "TG310": "parameter-without-description",
    "TG311": "return-field-without-description",
    "TG312": "options-listed-without-enum",
    "TG313": "todo-left-in-contract",
    "TG401": "near-twin-tools",
    "TG402": "action-spans-read-and-write",
    "TG403": "too-generic-tool",
    "TG404": "always-call-after",
    "TG501": "free-string-should-be-enum",
    "TG502": "date-as-free-string",
    "TG503": "contact-as-free-string",
    "TG504": "unbounded-number",
    "TG505": "unbounded-array",
    "TG506": "many-parameters",
    "TG507": "too-many-parameters",
    "TG508": "nesting-over-target-limit",
    "TG509": "paired-booleans",
    "TG510": "schema-properties-over-target-limit",
    "TG511": "enum-over-target-limit",
    "TG512": "schema-size-over-target-limit",
    "TG601": "parameter-shadows-context",
    "TG602": "identity-parameter",
    "TG603": "secret-parameter",
    "TG604": "literal-secret",
    "TG605": "raw-code-parameter",
    "TG606": "path-parameter-as-string",
    "TG607": "url-parameter-as-string",
    "TG608": "url-without-allow-list",
    "TG609": "path-without-root",
    "TG610": "sensitive-return-not-marked",
    "TG701": "write-without-idempotency",
    "TG702": "destructive-without-confirmation",
    "TG703": "read-tool-with-write-name",
    "TG704": "read-tool-with-confirmation",
    "TG705": "effect-understated",
    "TG706": "write-tool-with-read-name",
    "TG801": "list-without-pagination",
    "TG802": "quantity-without-unit",
    "TG803": "boolean-status-without-reason",
    "TG804": "error-code-not-snake-case",
    "TG805": "how-to-fix-not-instruction",
    "TG806": "how-to-fix-names-nothing",
    "TG807": "free-text-result",
    "TG808": "open-world-free-text-result",
    "TG809": "too-many-return-fields",
    "TG901": "hidden-instructions",
    "TG902": "invisible-characters",
    "TG903": "mixed-script-lookalike",
    "TG904": "directs-to-other-tools",
    "TG905": "sensitive-file-reference",
    "TG906": "exfiltration-shaped-parameter",
    "TG951": "too-many-tools",
    "TG952": "tool-count-over-target-limit",
    "TG953": "catalogue-over-token-budget",
    "TG954": "tool-over-token-budget",
    "TG955": "no-token-budget",
    "TG961": "namespace-too-large",
    "TG962": "namespace-too-thin-to-find",
    "TG963": "deferred-tool-too-thin-to-find",
    "TG964": "ask-goes-elsewhere",
    "TG965": "toolset-over-budget",
    "TG966": "tool-in-no-toolset",
    "TG967": "required-tool-deferred",
    "TG968": "timeout-retries-a-write",
    "TG990": "unknown-lint-selector",
    "TG991": "unknown-suppressed-rule",
    "TG992": "unused-suppression",
}
FAMILY = {
    Category.NAMES: "TG2",
    Category.DESCRIPTIONS: "TG3",
    Category.TWO_TOOL: "TG4",
    Category.PARAMETERS: "TG5",
    Category.IDENTITY: "TG6",
    Category.EFFECTS: "TG7",
    Category.RETURNS: "TG8",
    Category.SECURITY: "TG90",
    Category.CATALOGUE: "TG95",
    Category.TOOLSETS: "TG96",
    Category.CONFIG: "TG99",
}
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead")


def test_ids_are_stable_and_never_reused() -> None:
    current = {r.id: r.name for r in all_rules()}
    assert current == {i: n for i, n in IDS.items() if i not in RETIRED}
    assert set(RETIRED) <= set(IDS)
    assert len(all_rules()) >= 40


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_rule_is_documented_from_code(rule: Rule) -> None:
    assert rule.id.startswith(FAMILY[rule.category])
    assert re.fullmatch(r"[A-Z][^\n]+\.", rule.summary), rule.summary
    positions = [rule.doc.find(s) for s in SECTIONS]
    assert -1 not in positions and positions == sorted(positions), rule.id
    example = rule.doc[positions[2] : positions[3]]
    use_instead = rule.doc[positions[3] :]
    assert "```yaml" in example and "```yaml" in use_instead
    assert rule.fix.endswith(".") and rule.source
    assert (rule.kind is None) == (rule.check is None)
    assert rule.kind is None or rule.kind in (*TOOL_KINDS, *CATALOGUE_KINDS)


@pytest.mark.parametrize(
    "rule", [r for r in all_rules() if r.check is not None], ids=lambda r: r.id
)
def test_a_rule_over_one_tool_reads_nothing_of_the_other_tools(rule: Rule) -> None:
    # what the rules over a tool's own elements find is kept with the tool between builds:
    # they see a LintContext (catalogue.yaml and the names), never the other tools'
    # summaries, which only the rules over the catalogue, pairs and references see
    assert rule.check is not None
    context = typing.get_type_hints(rule.check)["ctx"]
    if rule.kind in TOOL_KINDS:
        assert context is LintContext
    else:
        assert rule.kind in CATALOGUE_KINDS and context is CatalogueContext


def test_a_taken_or_retired_id_cannot_be_registered_again() -> None:
    with pytest.raises(ValueError, match="already taken"):
        engine_rule(
            id="TG205",
            name="another-rule",
            severity=Severity.WARNING,
            fix="x.",
            source="x",
            doc="x.",
        )
    assert "another-rule" not in {r.name for r in REGISTRY.values()}


def test_docs_list_every_rule_with_its_anchor() -> None:
    text = docs.rules_markdown()
    for rule in all_rules():
        assert f'<a id="{rule.id}"></a>\n### {rule.id} `{rule.name}`' in text
        assert f"| [{rule.id}](#{rule.id}) | `{rule.name}` |" in text
    assert "#### What it does" in text and "\n## What it does" not in text


def test_committed_rules_reference_is_current() -> None:
    committed = (ROOT / docs.DOCS_PATH).read_text(encoding="utf-8")
    assert committed == docs.rules_markdown(), (
        "run: toolgen rules --docs > docs/rules.md"
    )
