"""Diagnostics as text, JSON, GitHub annotations or SARIF 2.1.0: one function per format.

Every format carries the same facts (id, severity, message, hint, file, line, column); the
SARIF log also describes every code of the table (codes.py), with a link to its section of
docs/codes.md or docs/rules.md, so a code-scanning dashboard can show what each is for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from toolgen import __version__
from toolgen.codes import CODES, Code
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.text import json_document, printable

FORMATS = ("text", "json", "github", "sarif")
DOCS_URL = "https://toolgen.dev/docs"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
}
_GITHUB_COMMAND = {**SARIF_LEVEL, Severity.INFO: "notice"}


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
    return json_document(payload) + "\n"


def _escape_data(text: str) -> str:
    """A workflow command's value: its line breaks encoded, and nothing a log shows raw."""
    return (
        printable(text, keep="\r\n")
        .replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
    )


def format_github(diagnostics: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands: one annotation per diagnostic, on its line."""
    lines = []
    for d in diagnostics:
        properties = ",".join(
            f"{key}={_escape_data(str(value)).replace(':', '%3A').replace(',', '%2C')}"
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


def docs_url(code_id: str) -> str:
    """Where a code is documented: docs/rules.md for a lint rule, docs/codes.md for a check."""
    from toolgen.lint.registry import REGISTRY

    page = "rules.md" if code_id in REGISTRY else "codes.md"
    return f"{DOCS_URL}/{page}#{code_id}"


def _descriptor(code: Code) -> dict[str, object]:
    """A SARIF rule descriptor of one code of the table: a lint rule with its whole
    documentation, a check with its summary and fix."""
    from toolgen.lint.registry import REGISTRY

    rule_ = REGISTRY.get(code.id)
    descriptor: dict[str, object] = {
        "id": code.id,
        "name": code.name,
        "shortDescription": {"text": code.summary},
        "help": {
            "text": code.fix,
            "markdown": f"{code.summary}\n\n**Fix:** {code.fix}",
        },
        "helpUri": docs_url(code.id),
        "defaultConfiguration": {"level": SARIF_LEVEL[code.severity]},
        "properties": {"stage": code.stage.value},
    }
    if rule_ is not None:
        descriptor["fullDescription"] = {"text": rule_.doc}
        descriptor["help"] = {
            "text": rule_.fix,
            "markdown": rule_.doc + f"\n\n## Fix\n{rule_.fix}",
        }
        descriptor["properties"] = {
            "stage": code.stage.value,
            "tags": [rule_.category.value],
            "category": rule_.category.value,
            "lifecycle": rule_.lifecycle.value,
            "source": rule_.source,
        }
    return descriptor


def format_sarif(
    diagnostics: Sequence[Diagnostic],
    rules: Sequence[Mapping[str, object]] | None = None,
) -> str:
    """A SARIF 2.1.0 log with one run: every code described, every diagnostic a result.

    `rules` replaces the table of codes for diagnostics of another rule set (the diff rules
    of `toolgen diff`); each descriptor needs at least an `id`."""
    descriptors: list[Mapping[str, object]]
    if rules is None:
        from toolgen.lint.registry import all_rules

        all_rules()  # the lint rules enter the table of codes when their modules load
        descriptors = [
            _descriptor(c) for c in sorted(CODES.values(), key=lambda c: c.id)
        ]
    else:
        descriptors = [dict(r) for r in rules]
    index = {str(r["id"]): i for i, r in enumerate(descriptors)}
    results = [
        {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": SARIF_LEVEL[d.severity],
            "message": {"text": d.message + (f"\nhelp: {d.hint}" if d.hint else "")},
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
        for d in diagnostics
    ]
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
    return json_document(log) + "\n"


FORMATTERS: Mapping[str, Callable[[Sequence[Diagnostic]], str]] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "sarif": format_sarif,
}


def render(diagnostics: Sequence[Diagnostic], fmt: str) -> str:
    return FORMATTERS[fmt](diagnostics)
