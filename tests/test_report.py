"""Diagnostics as text, JSON, GitHub annotations and SARIF 2.1.0."""

from __future__ import annotations

import json

import jsonschema
import pytest

from toolgen import report
from toolgen.codes import CODES
from toolgen.diagnostics import Diagnostic, Severity, Span
from toolgen.lint.registry import all_rules

DIAGNOSTICS = [
    Diagnostic(
        "TG201",
        Severity.ERROR,
        "tool name 'stock.read' does not fit OpenAI: expected 1 to 64 letters, digits, '_' or '-'",
        Span("spec/shop/tools/stock.read.yaml", 2, 7),
        "Rename the tool, for example to 'stock_read', and its file to match.",
    ),
    Diagnostic(
        "TG205",
        Severity.WARNING,
        "parameter 'val' has a vague name; expected 100% clarity",
        Span("spec/shop/tools/read_stock.yaml", 6, 3),
        "Name the parameter by what it holds:\nquantity, sku.",
    ),
    Diagnostic(
        "TG808", Severity.INFO, "open-world tool", Span("spec/shop/tools/x.yaml", 9, 1)
    ),
    Diagnostic(
        "TG101",
        Severity.ERROR,
        "unknown key 'colour'",
        Span("spec/shop/catalogue.yaml", 4, 1),
    ),
]

# The parts of the SARIF 2.1.0 schema (docs.oasis-open.org/sarif/sarif/v2.1.0) a code-scanning
# upload depends on: required properties, their types and the level vocabulary.
SARIF_STRUCTURE = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "$ref": "#/$defs/reportingDescriptor"
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                    "results": {"type": "array", "items": {"$ref": "#/$defs/result"}},
                },
            },
        },
    },
    "$defs": {
        "message": {
            "type": "object",
            "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
            "properties": {"text": {"type": "string"}, "markdown": {"type": "string"}},
        },
        "reportingDescriptor": {
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "string"},
                "name": {"type": "string"},
                "shortDescription": {"$ref": "#/$defs/message"},
                "fullDescription": {"$ref": "#/$defs/message"},
                "help": {"$ref": "#/$defs/message"},
                "helpUri": {"type": "string", "pattern": "^https://"},
                "defaultConfiguration": {
                    "type": "object",
                    "properties": {
                        "level": {"enum": ["none", "note", "warning", "error"]}
                    },
                },
                "properties": {"type": "object"},
            },
        },
        "result": {
            "type": "object",
            "required": ["message"],
            "properties": {
                "ruleId": {"type": "string"},
                "ruleIndex": {"type": "integer", "minimum": -1},
                "level": {"enum": ["none", "note", "warning", "error"]},
                "message": {"$ref": "#/$defs/message"},
                "locations": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "physicalLocation": {
                                "type": "object",
                                "required": ["artifactLocation"],
                                "properties": {
                                    "artifactLocation": {
                                        "type": "object",
                                        "required": ["uri"],
                                        "properties": {
                                            "uri": {"type": "string"},
                                            "uriBaseId": {"type": "string"},
                                        },
                                    },
                                    "region": {
                                        "type": "object",
                                        "properties": {
                                            "startLine": {
                                                "type": "integer",
                                                "minimum": 1,
                                            },
                                            "startColumn": {
                                                "type": "integer",
                                                "minimum": 1,
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                },
            },
        },
    },
}


def test_text_is_path_line_col_id_message_then_help() -> None:
    text = report.format_text(DIAGNOSTICS[:2])
    assert text == (
        "spec/shop/tools/stock.read.yaml:2:7: TG201 tool name 'stock.read' does not fit OpenAI: "
        "expected 1 to 64 letters, digits, '_' or '-'\n"
        "  help: Rename the tool, for example to 'stock_read', and its file to match.\n"
        "spec/shop/tools/read_stock.yaml:6:3: TG205 [warning] parameter 'val' has a vague name; "
        "expected 100% clarity\n"
        "  help: Name the parameter by what it holds:\nquantity, sku.\n"
    )


def test_json_carries_every_field() -> None:
    payload = json.loads(report.format_json(DIAGNOSTICS))
    assert payload[0] == {
        "code": "TG201",
        "severity": "error",
        "message": DIAGNOSTICS[0].message,
        "hint": DIAGNOSTICS[0].hint,
        "file": "spec/shop/tools/stock.read.yaml",
        "line": 2,
        "col": 7,
    }
    assert [p["severity"] for p in payload] == ["error", "warning", "info", "error"]


def test_github_annotations_escape_data_and_properties() -> None:
    lines = report.format_github(DIAGNOSTICS).splitlines()
    assert lines[0] == (
        "::error file=spec/shop/tools/stock.read.yaml,line=2,col=7,title=TG201::tool name "
        "'stock.read' does not fit OpenAI: expected 1 to 64 letters, digits, '_' or '-'"
        "%0Ahelp: Rename the tool, for example to 'stock_read', and its file to match."
    )
    assert lines[1] == (
        "::warning file=spec/shop/tools/read_stock.yaml,line=6,col=3,title=TG205::parameter "
        "'val' has a vague name; expected 100%25 clarity%0Ahelp: Name the parameter by what it "
        "holds:%0Aquantity, sku."
    )
    assert (
        lines[2]
        == "::notice file=spec/shop/tools/x.yaml,line=9,col=1,title=TG808::open-world tool"
    )
    assert len(lines) == 4


def test_github_properties_escape_commas_and_colons() -> None:
    odd = Diagnostic("TG201", Severity.ERROR, "m", Span("a,b:c.yaml", 1, 1))
    assert (
        report.format_github([odd])
        == "::error file=a%2Cb%3Ac.yaml,line=1,col=1,title=TG201::m\n"
    )


def test_sarif_has_the_required_structure() -> None:
    log = json.loads(report.format_sarif(DIAGNOSTICS))
    jsonschema.validate(log, SARIF_STRUCTURE)
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "toolgen"
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note", "error"]
    first = run["results"][0]
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {
            "uri": "spec/shop/tools/stock.read.yaml",
            "uriBaseId": "%SRCROOT%",
        },
        "region": {"startLine": 2, "startColumn": 7},
    }
    assert first["message"]["text"].endswith("\nhelp: " + DIAGNOSTICS[0].hint)


def test_sarif_describes_every_code_of_the_table() -> None:
    rules = json.loads(report.format_sarif([]))["runs"][0]["tool"]["driver"]["rules"]
    all_rules()
    assert [r["id"] for r in rules] == sorted(CODES)
    assert {r.id for r in all_rules()} <= {r["id"] for r in rules}
    tg205 = next(r for r in rules if r["id"] == "TG205")
    assert tg205["name"] == "vague-parameter-name"
    assert tg205["helpUri"] == "https://toolgen.dev/docs/rules.md#TG205"
    assert tg205["defaultConfiguration"] == {"level": "warning"}
    assert tg205["properties"]["category"] == "names"
    assert "## Why is this bad?" in tg205["help"]["markdown"]
    tg101 = next(r for r in rules if r["id"] == "TG101")
    assert tg101["name"] == "unknown-key"
    assert tg101["helpUri"] == "https://toolgen.dev/docs/codes.md#TG101"
    assert tg101["shortDescription"]["text"] == CODES["TG101"].summary
    tg151 = next(r for r in rules if r["id"] == "TG151")
    assert tg151["defaultConfiguration"] == {"level": "note"}


@pytest.mark.parametrize("fmt", report.FORMATS)
def test_no_diagnostics(fmt: str) -> None:
    out = report.render([], fmt)
    if fmt in ("text", "github"):
        assert out == ""
    elif fmt == "json":
        assert json.loads(out) == []
    else:
        assert json.loads(out)["runs"][0]["results"] == []


def test_what_a_terminal_acts_on_is_shown_as_an_escape() -> None:
    # an example's key, an accepted change's reason or a file name erased the line above
    # and printed "0 errors" in its place, and set the window title
    spoof = "z\r\x1b[2K\x1b[1Aspec/evil: 0 errors\x1b]0;pwned\x07\u202e"
    found = Diagnostic("TD208", Severity.INFO, spoof, Span("a\x1b.yaml", 1, 1), spoof)
    text = report.format_text([found])
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert "z\\r\\x1b[2K\\x1b[1Aspec/evil: 0 errors\\x1b]0;pwned\\x07\\u202e" in text
    assert text.startswith("a\\x1b.yaml:1:1: TD208 [info] z\\r")
    annotation = report.format_github([found])
    assert "\x1b" not in annotation and annotation.count("\n") == 1
