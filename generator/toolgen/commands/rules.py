"""`toolgen rules`: list the lint rules, or print their reference; and `toolgen schema`."""

from __future__ import annotations

import argparse
import sys

from toolgen.commands import EXIT_CLEAN
from toolgen.lint import docs
from toolgen.lint.registry import all_rules
from toolgen.spec import validate
from toolgen.text import json_document


def run(args: argparse.Namespace) -> int:
    if args.docs:
        sys.stdout.write(docs.rules_markdown())
        return EXIT_CLEAN
    rules = all_rules()
    if args.format == "json":
        payload = [
            {
                "id": r.id,
                "name": r.name,
                "category": r.category.value,
                "severity": r.severity.value,
                "lifecycle": r.lifecycle.value,
                "summary": r.summary,
            }
            for r in rules
        ]
        print(json_document(payload))
        return EXIT_CLEAN
    rows = [
        (r.id, r.name, r.category.value, r.severity.value, r.lifecycle.value)
        for r in rules
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[4]]))
    return EXIT_CLEAN


def run_schema(args: argparse.Namespace) -> int:
    sys.stdout.write(validate.schema_text(args.kind))
    return EXIT_CLEAN
