"""Diagnostics as text, JSON, GitHub annotations or SARIF 2.1.0: one function per format.

Every format carries the same facts (id, severity, message, hint, file, line, column); the
SARIF log also describes every lint rule, with a link to its section of docs/rules.md, so a
code-scanning dashboard can show what a rule is for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from toolgen import __version__
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.lint.registry import Rule, all_rules

FORMATS = ("text", "json", "github", "sarif")
DOCS_URL = "https://toolgen.dev/docs/rules.md"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
}
_GITHUB_COMMAND = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
}


def format_text(diagnostics: Sequence[Diagnostic]) -> str:
    """`path:line:col: ID message`, then `  help: ...`, one diagnostic after another."""
    return "".join(d.format_text() + "\n" for d in diagnostics)


def format_json(diagnostics: Sequence[Diagnostic]) -> str:
    payload = [
        {
            "code": d.code,
            "severity": d.severity.value,
            "message": d.message,
            "hint": d.hint,
            "file": d.span.file,
            "line": d.span.line,
            "col": d.span.col,
        }
        for d in diagnostics
    ]
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(diagnostics: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands: one annotation per diagnostic, on its line."""
    lines = []
    for d in diagnostics:
        properties = ",".join(
            f"{key}={_escape_property(str(value))}"
            for key, value in (
                ("file", d.span.file),
                ("line", d.span.line),
                ("col", d.span.col),
                ("title", d.code),
            )
        )
        message = d.message + (f"\nhelp: {d.hint}" if d.hint else "")
        lines.append(
            f"::{_GITHUB_COMMAND[d.severity]} {properties}::{_escape_data(message)}"
        )
    return "".join(line + "\n" for line in lines)


def _rule_descriptor(rule_: Rule) -> dict[str, object]:
    return {
        "id": rule_.id,
        "name": rule_.name,
        "shortDescription": {"text": rule_.summary},
        "fullDescription": {"text": rule_.doc},
        "help": {"text": rule_.fix, "markdown": rule_.doc + f"\n\n## Fix\n{rule_.fix}"},
        "helpUri": f"{DOCS_URL}#{rule_.id}",
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule_.severity]},
        "properties": {
            "tags": [rule_.category.value],
            "category": rule_.category.value,
            "lifecycle": rule_.lifecycle.value,
            "source": rule_.source,
        },
    }


def _spec_descriptor(code: str) -> dict[str, object]:
    """Load and format errors (TG0xx, TG1xx) are not lint rules but still need an entry."""
    return {
        "id": code,
        "shortDescription": {
            "text": "toolgen spec check (load, format or semantic error)"
        },
        "defaultConfiguration": {"level": "error"},
    }


def format_sarif(
    diagnostics: Sequence[Diagnostic],
    rules: Sequence[Mapping[str, object]] | None = None,
) -> str:
    """A SARIF 2.1.0 log with one run: every lint rule described, every diagnostic a result.

    `rules` replaces the lint rules' descriptors for diagnostics of another rule set (the
    diff rules of `toolgen diff`); each needs at least an `id`."""
    if rules is None:
        descriptors = [_rule_descriptor(r) for r in all_rules()]
    else:
        descriptors = [dict(r) for r in rules]
    index = {str(r["id"]): i for i, r in enumerate(descriptors)}
    for code in sorted({d.code for d in diagnostics} - set(index)):
        index[code] = len(descriptors)
        descriptors.append(_spec_descriptor(code))
    results = []
    for d in diagnostics:
        text = d.message + (f"\nhelp: {d.hint}" if d.hint else "")
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": text},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {
                                "uri": d.span.file,
                                "uriBaseId": "%SRCROOT%",
                            },
                            "region": {
                                "startLine": d.span.line,
                                "startColumn": d.span.col,
                            },
                        }
                    }
                ],
            }
        )
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolgen",
                        "version": __version__,
                        "informationUri": "https://toolgen.dev",
                        "rules": descriptors,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


FORMATTERS: Mapping[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "sarif": format_sarif,
}


def render(diagnostics: Sequence[Diagnostic], fmt: str) -> str:
    return FORMATTERS[fmt](diagnostics)
