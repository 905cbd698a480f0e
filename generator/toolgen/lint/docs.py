"""docs/rules.md, generated from the rules' own documentation.

`toolgen rules --docs` prints it; `python -m toolgen.refdocs --check` (what CI runs) fails when
the committed file differs, so the reference can never drift from the code.
"""

from __future__ import annotations

from toolgen.lint.registry import KIND_NAMES, Category, Rule, all_rules
from toolgen.text import deeper_headings, reference_page, reference_section

DOCS_PATH = "docs/rules.md"

_INTRO = """\
# Lint rules

<!-- Generated from the rules' docstrings by `python -m toolgen.refdocs`; do not edit by
     hand. `python -m toolgen.refdocs --check` fails when this file is stale. -->

`toolgen check` and `toolgen build` lint every catalogue after validating it: the design traps
of tool contracts, the published guidance of the model vendors, the limits of each target and
what tool-poisoning scanners look for. Each rule has a stable id (never reused), a category, a
default severity and a lifecycle; preview rules run only when asked for.

Configure them in catalogue.yaml:

```yaml
targets: [openai, mcp]           # every declared target's limits apply (default: openai)
budget:
  tokens: 2500                   # what all tools may cost per turn (o200k_base)
  tool_tokens: 400               # what one tool may cost
lint:
  select: [names, TG3, TG701]    # categories, id prefixes or ids (default: every stable rule)
  ignore: [TG208]                # ignore wins over select
  severity: {descriptions: info, TG301: error, TG309: off}   # the most specific key wins
  preview: true                  # also run preview rules
```

and silence one rule in one tool, with the reason a reviewer reads:

```yaml
suppress:
  - rule: TG203
    reason: The name is kept from the published lesson this catalogue illustrates.
```

A suppression that silences nothing is reported (TG992), and so is one that names no rule
(TG991). An error fails a run; a warning fails it only past `--max-warnings N` or the
catalogue's `lint.max_warnings`; an `info` finding never does.
"""


def _rule_section(rule_: Rule) -> str:
    meta = (
        f"Category `{rule_.category.value}` · default severity `{rule_.severity.value}` · "
        f"{rule_.lifecycle.value} · checks {KIND_NAMES[rule_.kind]}"
    )
    return reference_section(
        rule_.id,
        f"{rule_.id} `{rule_.name}`",
        rule_.summary,
        meta,
        deeper_headings(rule_.doc.partition("\n")[2].strip()),
        f"#### Fix\n{rule_.fix}",
        f"#### Source\n{rule_.source}",
    )


def rules_markdown() -> str:
    rules = all_rules()
    rows = [
        (
            f"[{r.id}](#{r.id})",
            f"`{r.name}`",
            r.category.value,
            r.severity.value,
            r.lifecycle.value,
        )
        for r in rules
    ]
    groups = [
        (c.title, [_rule_section(r) for r in rules if r.category is c])
        for c in Category
    ]
    columns = ("Id", "Name", "Category", "Severity", "Lifecycle")
    return reference_page(_INTRO + "\n## Index\n", columns, rows, groups)
