"""Catalogues written from inline YAML, with the places where a rule must report marked.

A `▸` in a fixture marks where a finding must point: the marker is removed before the file is
written, and its line and column (1-based, in the written file) become the expected span.
So the expectation sits in the fixture itself, at the character the diagnostic names.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

from toolgen.build import pipeline
from toolgen.diagnostics import Diagnostic
from toolgen.lint.registry import REGISTRY
from toolgen.spec import tokens
from toolgen.spec.ir import Catalogue
from toolgen.spec.tokens import TokenReport, ToolTokens

MARK = "▸"
FOLDER = "shop"

CATALOGUE = """\
format: 1
name: shop
description: Look up and change the orders and the stock of a small shop.
context:
  customer_id:
    type: integer
    description: The authenticated customer, set by the application.
  run_id:
    type: string
    description: The identifier of the current agent run, set by the application.
budget:
  tokens: 20000
"""

_ORDER = (
    "name",
    "intent",
    "use_when",
    "not_when",
    "requires",
    "effect",
    "open_world",
    "idempotency",
    "confirmation",
    "context",
    "params",
    "returns",
    "errors",
    "examples",
    "suppress",
)
_BASE: dict[str, str | None] = {
    "name": "read_stock",
    "intent": "Read the current stock of a product in the warehouse.",
    "use_when": "The user asks how many pieces of a product are in stock.",
    "effect": "read",
    "params": """
  sku:
    type: string
    pattern: '^SKU-\\d{2,6}$'
    description: The product code.""",
    "returns": """
  on_hand_units:
    type: integer
    description: Pieces in the warehouse now.""",
    "examples": """
  - args: {sku: SKU-11}""",
}


def block(text: str) -> str:
    """A YAML block for one top-level key: dedented, indented by two, on its own lines."""
    body = textwrap.indent(textwrap.dedent(text).strip("\n"), "  ")
    return "\n" + body


def tool(**keys: str | None) -> str:
    """A clean tool (read_stock), with top-level keys replaced (None removes a key)."""
    merged = {**_BASE, **keys}
    lines = []
    for key in _ORDER:
        value = merged.get(key)
        if value is not None:
            lines.append(
                f"{key}:{value}" if value.startswith("\n") else f"{key}: {value}"
            )
    return "\n".join(lines) + "\n"


def tool_file(text: str) -> str:
    """tools/<name>.yaml for a tool's text."""
    for line in text.splitlines():
        if line.startswith("name:"):
            return f"tools/{line.split(':', 1)[1].strip().replace(MARK, '')}.yaml"
    raise ValueError("no name: line")


def files(*tools: str, catalogue: str = CATALOGUE) -> dict[str, str]:
    found = {"catalogue.yaml": catalogue}
    for text in tools:
        found[tool_file(text)] = text
    return found


Spot = tuple[str, int, int]


def write(root: Path, contents: Mapping[str, str | None]) -> tuple[Path, set[Spot]]:
    """Write a catalogue under root/shop; return the folder and the marked spots."""
    folder = root / FOLDER
    spots: set[Spot] = set()
    for relative, text in contents.items():
        if text is None:
            continue
        clean_lines = []
        for number, line in enumerate(text.split("\n"), start=1):
            while MARK in line:
                col = line.index(MARK) + 1
                spots.add((f"{FOLDER}/{relative}", number, col))
                line = line.replace(MARK, "", 1)
            clean_lines.append(line)
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(clean_lines), encoding="utf-8")
    return folder, spots


def check(
    root: Path, contents: Mapping[str, str | None]
) -> tuple[list[Diagnostic], set[Spot]]:
    folder, spots = write(root, contents)
    result = pipeline.check_catalogue(folder, root, implementations=False)
    assert result.catalogue is not None, [d.format_text() for d in result.diagnostics]
    return list(result.diagnostics), spots


def lint_codes(diagnostics: list[Diagnostic]) -> set[str]:
    return {d.code for d in diagnostics if d.code in REGISTRY}


def spots_of(diagnostics: list[Diagnostic], code: str) -> set[Spot]:
    return {
        (d.span.file, d.span.line, d.span.col) for d in diagnostics if d.code == code
    }


def measure(catalogue: Catalogue) -> TokenReport:
    """Tokens per tool of a catalogue whose every tool's IR is at hand, counted one by one
    (a check's report gathers each file's counts)."""
    return TokenReport(
        tokens.ENCODING,
        tuple(ToolTokens(t.name, tokens.tool_tokens(t)) for t in catalogue.tools),
    )
