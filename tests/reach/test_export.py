"""`toolgen export`: the definitions each model API receives, checked against its limits."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from toolgen_runtime import ToolSearch, run_call
from toolgen_runtime.search import ToolIndex
from toolgen_runtime.search_tool import (
    SEARCH_DESCRIPTION,
    SEARCH_PARAMETERS,
    SEARCH_TOOL,
)

from toolgen import cli
from toolgen.build import pipeline
from toolgen.interop import export
from toolgen.lint import targets
from toolgen.lint.registry import all_rules
from toolgen.spec import snapshot

from . import sdk_types

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


def _models(toolset: str | None = None) -> dict[str, dict[str, Any]]:
    """What the model reads of each tool of `toolset` (every tool for None), by name."""
    result = pipeline.check_catalogue(CATALOGUE, ROOT, implementations=False)
    assert result.catalogue is not None
    chosen = next(
        (t.tools for t in result.catalogue.toolsets if t.name == toolset),
        tuple(t.name for t in result.catalogue.tools),
    )
    return {
        t["name"]: {**t["model"], **({"defer_loading": True} if t["deferred"] else {})}
        for t in snapshot.catalogue_snapshot(result.catalogue)["tools"]
        if t["name"] in chosen
    }


def _fits(value: object, kind: Any) -> None:
    found = sdk_types.problems(value, kind)
    assert not found, found


@pytest.mark.parametrize("toolset", [None, "support", "warehouse"])
def test_responses_groups_each_namespace_and_searches_the_deferred_tools(
    toolset: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    from openai.types.responses import ToolParam

    args = ["--toolset", toolset] if toolset else []
    exported = _export("openai-responses", capsys, str(CATALOGUE), *args)["tools"]
    for tool in exported:
        _fits(tool, ToolParam)
    models = _models(toolset)
    spec = yaml.safe_load((CATALOGUE / "catalogue.yaml").read_text())["namespaces"]
    found: dict[str, dict[str, Any]] = {}
    for entry in exported[:-1]:
        if entry["type"] == "namespace":
            assert (
                " ".join(spec[entry["name"]]["description"].split())
                == entry["description"]
            )
            found.update((f["name"], f) for f in entry["tools"])
        else:
            found[entry["name"]] = entry
    assert found == models  # every tool once, as the SDK sends it, deferred ones marked
    assert exported[-1] == {"type": "tool_search"}
    # the deferred tools are those of the deferred namespace
    deferred = sorted(n for n, m in models.items() if m.get("defer_loading"))
    assert deferred == sorted({"read_document", "read_supplier_notice"} & set(models))


def test_chat_loads_the_tools_up_front_and_search_tools_finds_the_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from openai.types.chat import ChatCompletionToolUnionParam

    exported = _export("openai-chat", capsys, str(CATALOGUE), "--toolset", "support")
    models = _models("support")
    for tool in [*exported["tools"], *exported["deferred_tools"].values()]:
        _fits(tool, ChatCompletionToolUnionParam)
    loaded = {t["function"]["name"]: t["function"] for t in exported["tools"]}
    search = loaded.pop(SEARCH_TOOL)
    assert search["parameters"] == SEARCH_PARAMETERS
    assert search["description"].startswith(SEARCH_DESCRIPTION)
    assert "documents: Documents to read" in search["description"]
    deferred = {n for n, m in models.items() if m.get("defer_loading")}
    assert set(loaded) == set(models) - deferred
    assert set(exported["deferred_tools"]) == deferred
    for name, definition in exported["deferred_tools"].items():
        assert definition["function"]["parameters"] == models[name]["parameters"]
    index = ToolIndex.from_data(exported["search_index"])
    assert index.names == tuple(sorted(deferred))
    assert index.search("what does the returns policy say")[0].name == "read_document"


def test_tool_search_runs_like_any_tool_and_loads_what_it_finds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    exported = _export("openai-chat", capsys, str(CATALOGUE), "--toolset", "support")
    search = ToolSearch(exported)
    assert search.tools() == exported["tools"]
    described = next(
        t["function"]["description"]
        for t in exported["tools"]
        if t["function"]["name"] == SEARCH_TOOL
    )
    assert search.tool.description == described  # with the namespaces it searches
    query = {"query": "is a supplier delaying SKU-11", "limit": 1}
    answer = json.loads(asyncio.run(run_call(search.tool, query, None)))
    assert answer["ok"] is True
    assert [f["name"] for f in answer["found"]] == ["read_supplier_notice"]
    assert search.loaded == ["read_supplier_notice"]
    assert search.tools() == [
        *exported["tools"],
        exported["deferred_tools"]["read_supplier_notice"],
    ]
    refused = json.loads(asyncio.run(run_call(search.tool, {"query": ""}, None)))
    assert refused["error"] == "invalid_arguments"
    assert {p["field"] for p in refused["problems"]} == {"query", "limit"}
    assert search.loaded == ["read_supplier_notice"]  # a refused call loads nothing
    gemini = ToolSearch(
        _export("gemini", capsys, str(CATALOGUE), "--toolset", "support")
    )
    asyncio.run(run_call(gemini.tool, query, None))
    [group] = gemini.tools()
    assert group["functionDeclarations"][-1]["name"] == "read_supplier_notice"


def test_anthropic_defers_and_adds_its_bm25_tool_search(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from anthropic.types import ToolSearchToolBm25_20251119Param, ToolUnionParam

    argv = ["export", "--to", "anthropic", str(CATALOGUE), "--toolset", "warehouse"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    exported = json.loads(captured.out)
    for tool in exported["tools"]:
        _fits(tool, ToolUnionParam)
    *tools, search = exported["tools"]
    _fits(search, ToolSearchToolBm25_20251119Param)
    assert search == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
    }
    models = _models("warehouse")
    assert {t["name"]: t.get("defer_loading", False) for t in tools} == {
        n: m.get("defer_loading", False) for n, m in models.items()
    }
    assert "without its namespace's description" in captured.err


def test_gemini_declarations_fit_the_sdk_types(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from google.genai import types as genai

    exported = _export("gemini", capsys, str(CATALOGUE), "--toolset", "support")
    [group] = exported["tools"]
    genai.Tool.model_validate(group)
    for declaration in exported["deferred_tools"].values():
        genai.FunctionDeclaration.model_validate(declaration)
    names = [d["name"] for d in group["functionDeclarations"]]
    assert names[-1] == SEARCH_TOOL and "read_document" not in names


def test_a_catalogue_without_deferred_tools_exports_no_search(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = str(ROOT / "tests/golden/every_type/spec/every")
    for api in export.APIS:
        exported = _export(
            api, capsys, folder, "--root", str(ROOT / "tests/golden/every_type")
        )
        assert list(exported) == ["tools"], api
        text = json.dumps(exported)
        assert "defer_loading" not in text and SEARCH_TOOL not in text, api
        assert "tool_search" not in text, api


@pytest.mark.parametrize(
    ("toolset", "said"),
    [
        (
            "support",
            "read_document, read_supplier_notice load only when search_tools "
            "finds them: their definitions are",
        ),
        (
            "warehouse",
            "read_supplier_notice loads only when search_tools finds it: "
            "its definition is",
        ),
    ],
)
def test_the_note_on_deferred_tools_agrees_with_their_number(
    toolset: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["export", "--to", "gemini", str(CATALOGUE), "--toolset", toolset]
    assert cli.main(argv) == 0
    assert f"note: {said} under deferred_tools" in capsys.readouterr().err


def test_an_unknown_toolset_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["export", "--to", "gemini", str(CATALOGUE), "--toolset", "sales"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "no toolset 'sales'" in err and "support, warehouse" in err


def test_a_tool_named_search_tools_stops_an_export_that_searches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(CATALOGUE, project / "spec" / "inventory")
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    tools = project / "spec" / "inventory" / "tools"
    text = (
        (tools / "next_batch.yaml")
        .read_text()
        .replace("name: next_batch", f"name: {SEARCH_TOOL}")
    )
    (tools / "next_batch.yaml").unlink()
    (tools / f"{SEARCH_TOOL}.yaml").write_text(text)
    catalogue = project / "spec" / "inventory" / "catalogue.yaml"
    catalogue.write_text(
        catalogue.read_text().replace("next_batch,", f"{SEARCH_TOOL},")
    )
    folder = str(project / "spec" / "inventory")
    assert cli.main(["export", "--to", "openai-chat", folder]) == 1
    assert "has the name of the tool that finds the deferred" in capsys.readouterr().err
    # hosted search needs no tool of that name
    assert cli.main(["export", "--to", "openai-responses", folder]) == 0


def test_anthropic_is_strict_only_where_its_subset_holds_the_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["export", "--to", "anthropic", str(CATALOGUE)]) == 0
    captured = capsys.readouterr()
    tools = {t["name"]: t for t in json.loads(captured.out)["tools"]}
    assert tools.pop("tool_search_tool_bm25")["type"].startswith("tool_search_tool")
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
    exported = json.loads(captured.out)
    [group] = exported["tools"]
    for declaration in [
        *group["functionDeclarations"][:-1],
        *exported["deferred_tools"].values(),
    ]:
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
    # the longer tool no longer fits the warehouse toolset's budget (TG965): raised here,
    # since what is tested is the API's own limit
    text = catalogue.read_text().replace("targets: [openai]", "targets: [anthropic]")
    catalogue.write_text(text.replace("budget: 900", "budget: 2000"))
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
    assert captured.out == ""  # stdout is the export's, and there is none
    assert captured.err.startswith("spec/inventory/tools/next_batch.yaml:")
    assert "TG306" in captured.err and "OpenAI accepts at most 1,024" in captured.err
    assert "not exported: openai-chat refuses it" in captured.err


def test_out_is_never_replaced_unasked_and_check_finds_drift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tools.json"
    args = ["export", "--to", "gemini", str(CATALOGUE), "--out", str(out)]
    args += ["--toolset", "support"]
    assert cli.main(args) == 0
    written = out.read_text()
    assert cli.main([*args, "--check"]) == 0
    out.write_text("{}")
    capsys.readouterr()
    assert cli.main([*args, "--check"]) == 1
    # the command it gives is one that works: export again would stop at the existing file
    again = shlex.split(capsys.readouterr().err.split("is stale; run: ")[1])
    assert again[:2] == ["toolgen", "export"] and "--replace" in again
    assert cli.main(args) == 2  # an existing, different file stops the export
    assert out.read_text() == "{}"
    assert cli.main(again[1:]) == 0
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


def test_what_a_target_refuses_is_found_inside_optional_parameters_too() -> None:
    # an optional array or object is an anyOf with null: its limits and formats count
    from toolgen.interop.export import apis

    def optional(schema: dict[str, Any]) -> dict[str, Any]:
        return {"anyOf": [schema, {"type": "null"}], "description": "Optional."}

    ids = {"type": "array", "items": {"type": "integer"}, "minItems": 3}
    schema = {
        "type": "object",
        "properties": {
            "tags": optional(
                {"type": "array", "items": {"type": "string"}, "minItems": 2}
            ),
            "contact": optional({"type": "string", "format": "email"}),
            "box": optional(
                {
                    "type": "object",
                    "properties": {"ids": ids},
                    "required": ["ids"],
                    "additionalProperties": False,
                }
            ),
        },
        "required": ["tags", "contact", "box"],
        "additionalProperties": False,
    }
    assert sorted(apis._strict_misfits(schema)) == ["minItems 2", "minItems 3"]
    note = apis._gemini_note("t", schema)
    assert note is not None and "format 'email'" in note.text
    assert ids in apis._properties(schema)  # an optional object's own properties


def _tables_project(root: Path) -> str:
    """21 tools of reference tables and 2 of opening hours, in namespaces; toolset `big`
    holds both (23 tools up front, past OpenAI's 20: TG951), `small` the tables (21)."""
    folder = root / "spec" / "demo"
    (folder / "tools").mkdir(parents=True)
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    catalogue = {
        "format": 1,
        "name": "demo",
        "description": "A clinic's reference tables and its opening hours.",
        "namespaces": {
            "tables": {
                "description": "The clinic's reference tables of codes, fees, "
                "sites and services, to look a code up."
            },
            "hours": {
                "description": "The opening hours of the clinic's sites on "
                "weekdays, weekends and holidays."
            },
        },
        "toolsets": {
            "big": {"tools": ["tables", "hours"]},
            "small": {"tools": ["tables"]},
        },
    }
    (folder / "catalogue.yaml").write_text(yaml.safe_dump(catalogue), encoding="utf-8")
    words = (
        "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike"
    )
    words += " november oscar papa quebec romeo sierra tango uniform"
    tools = [
        (f"read_{w}_table", "tables", f"the {w} reference table") for w in words.split()
    ]
    tools += [
        (f"read_{d}_hours", "hours", f"the {d} opening hours")
        for d in ("weekday", "holiday")
    ]
    for name, namespace, what in tools:
        tool = {
            "name": name,
            "intent": f"Read {what} of the clinic.",
            "use_when": f"The user asks about {what}.",
            "effect": "read",
            "namespace": namespace,
            "returns": {
                "rows": {"type": "integer", "description": "How many rows it has."}
            },
            "examples": [{"args": {}}],
        }
        (folder / "tools" / f"{name}.yaml").write_text(yaml.safe_dump(tool))
    return str(folder)


def test_an_export_on_stdout_is_json_alone_and_counts_its_own_toolset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _tables_project(tmp_path)
    argv = ["export", "--to", "openai-chat", folder, "--toolset", "small"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)["tools"]) == 21  # the warnings are not in it
    # the toolset exported is judged, with its own tools; `big` is not counted from them
    assert "TG951" in captured.err and "toolset 'small' has 21 tools" in captured.err
    assert "'big'" not in captured.err
