"""`toolgen export`: the definitions each model API receives, checked against its limits."""

from __future__ import annotations

import importlib
import inspect
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from toolgen import cli
from toolgen.build import pipeline
from toolgen.interop import export
from toolgen.lint import targets
from toolgen.lint.registry import all_rules
from toolgen.spec import snapshot

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "spec" / "inventory"


def _module(name: str) -> Any:
    return importlib.import_module(f"generated.inventory.{name}")


def _export(api: str, capsys: pytest.CaptureFixture[str], *paths: str) -> Any:
    assert cli.main(["export", "--to", api, *(paths or [str(CATALOGUE)])]) == 0
    return json.loads(capsys.readouterr().out)


def test_target_rules_are_every_rule_that_reads_the_targets() -> None:
    reading = {
        r.id
        for r in all_rules()
        if r.check is not None and "ctx.targets" in inspect.getsource(r.check)
    }
    assert reading == set(export.TARGET_RULES)


def test_the_format_accepts_every_target() -> None:
    schema = json.loads(
        (ROOT / "generator/toolgen/spec/schemas/catalogue.v1.json").read_text()
    )
    assert schema["properties"]["targets"]["items"]["enum"] == list(targets.TARGETS)


def test_openai_definitions_are_what_the_sdk_sends(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = pipeline.check_catalogue(CATALOGUE, ROOT, implementations=False)
    assert result.catalogue is not None
    models = [
        t["model"] for t in snapshot.catalogue_snapshot(result.catalogue)["tools"]
    ]
    assert _export("openai-responses", capsys) == {"tools": models}
    chat = _export("openai-chat", capsys)["tools"]
    for entry, model in zip(chat, models, strict=True):
        assert entry == {
            "type": "function",
            "function": {
                "name": model["name"],
                "description": model["description"],
                "parameters": model["parameters"],
                "strict": True,
            },
        }
        assert model["parameters"] == _module(model["name"]).PARAMETERS


def test_anthropic_is_strict_only_where_its_subset_holds_the_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["export", "--to", "anthropic", str(CATALOGUE)]) == 0
    captured = capsys.readouterr()
    tools = {t["name"]: t for t in json.loads(captured.out)["tools"]}
    for name, tool in tools.items():
        assert tool["input_schema"] == _module(name).PARAMETERS
        assert tool["description"] == _module(name).DESCRIPTION
    # a pattern is in the strict subset (read_stock), minimum and maximum are not; string
    # lengths are carried in the description, not the schema (find_customer)
    assert tools["read_stock"]["strict"] is True
    assert tools["find_customer"]["strict"] is True
    assert "strict" not in tools["create_reorder"]
    assert "create_reorder: sent without strict: true" in captured.err
    assert "maximum on quantity, minimum on quantity" in captured.err
    assert "read_stock: sent without" not in captured.err


def test_gemini_declares_json_schema_and_notes_no_strict_mode(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["export", "--to", "gemini", str(CATALOGUE)]) == 0
    captured = capsys.readouterr()
    [group] = json.loads(captured.out)["tools"]
    for declaration in group["functionDeclarations"]:
        name = declaration["name"]
        assert declaration == {
            "name": name,
            "description": _module(name).DESCRIPTION,
            "parametersJsonSchema": _module(name).PARAMETERS,
        }
    assert "Gemini has no strict flag per function" in captured.err
    assert "search_orders: format 'date' not in the Schema" in captured.err


def test_an_api_whose_limits_the_catalogue_breaks_gets_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(CATALOGUE, project / "spec" / "inventory")
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    catalogue = project / "spec" / "inventory" / "catalogue.yaml"
    catalogue.write_text(
        catalogue.read_text().replace("targets: [openai]", "targets: [anthropic]")
    )
    tool = project / "spec" / "inventory" / "tools" / "next_batch.yaml"
    long_intent = "Return the number of the batch that follows a given one" + (
        ", counting from the batch the user names and never skipping one" * 18
    )
    text = tool.read_text().replace(
        "intent: Return the number of the batch that follows a given one.",
        f"intent: {long_intent}.",
    )
    tool.write_text(text)
    folder = str(project / "spec" / "inventory")
    assert cli.main(["export", "--to", "anthropic", folder]) == 0
    capsys.readouterr()
    assert cli.main(["export", "--to", "openai-chat", folder]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("spec/inventory/tools/next_batch.yaml:")
    assert "TG306" in captured.out and "OpenAI accepts at most 1,024" in captured.out
    assert "not exported: openai-chat refuses it" in captured.err


def test_out_is_never_replaced_unasked_and_check_finds_drift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tools.json"
    args = ["export", "--to", "gemini", str(CATALOGUE), "--out", str(out)]
    assert cli.main(args) == 0
    written = out.read_text()
    assert cli.main([*args, "--check"]) == 0
    out.write_text("{}")
    assert cli.main([*args, "--check"]) == 1
    assert cli.main(args) == 2  # an existing, different file stops the export
    assert out.read_text() == "{}"
    assert cli.main([*args, "--replace"]) == 0
    assert out.read_text() == written
    capsys.readouterr()
    assert cli.main(["export", "--to", "mcp", str(CATALOGUE)]) == 2
    assert "--out" in capsys.readouterr().err


def test_keywords_outside_a_subset_are_named_by_parameter() -> None:
    schema = {
        "type": "object",
        "properties": {
            "lines": {
                "type": "array",
                "maxItems": 3,
                "items": {"type": "object", "properties": {"n": {"minimum": 1}}},
            }
        },
    }
    allowed = frozenset({"type", "properties", "items"})
    assert targets.keywords_outside(schema, allowed) == [
        ("lines", "maxItems"),
        ("lines.items.n", "minimum"),
    ]


def test_the_cli_offers_every_export_target() -> None:
    from toolgen import cli
    from toolgen.interop import export

    assert sorted(cli.EXPORT_TARGETS) == sorted([*export.APIS, export.MCP])
