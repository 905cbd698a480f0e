"""toolgen import: what the source states is carried exactly, the rest is a reported TODO."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from toolgen import cli
from toolgen.build import pipeline
from toolgen.interop.importers import Refused, SourceError, import_file, read_source
from toolgen.interop.importers.draft import draft
from toolgen.interop.importers.source import Loss
from toolgen.spec import load

ROOT = Path(__file__).resolve().parents[1]


def test_the_cli_offers_every_import_source() -> None:
    from toolgen.interop import importers

    assert list(cli.IMPORT_SOURCES) == sorted(importers.SOURCES)


def _doc_block(kind: str) -> str:
    text = (ROOT / "docs" / "import.md").read_text(encoding="utf-8")
    found = re.search(rf"```{kind}\n(.*?)```", text, re.DOTALL)
    assert found, kind
    return found.group(1)


def _data(path: Path) -> object:
    document, problems = load.load_document(path, path.name)
    assert document is not None and problems == []
    return document.data


def test_the_documented_example_is_what_the_import_writes(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(_doc_block("json source"), encoding="utf-8")
    out = tmp_path / "weather"
    assert cli.main(["import", "--from", "mcp", str(source), "--out", str(out)]) == 1
    written = (out / "tools" / "get_forecast.yaml").read_text(encoding="utf-8")
    body = "\n".join(line for line in written.splitlines() if not line.startswith("#"))
    assert body + "\n" == _doc_block("yaml draft")
    assert "title 'Forecast'" in written and "format 'uri'" in written
    result = pipeline.check_catalogue(out, tmp_path, implementations=False)
    assert (
        sorted(d.code for d in result.diagnostics if d.code < "TG900") == ["TG313"] * 3
    )


def test_openai_shapes_carry_types_enums_bounds_and_required(tmp_path: Path) -> None:
    chat = {
        "type": "function",
        "function": {
            "name": "create_reorder",
            "description": "Create a reorder proposal.",
            "parameters": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "pattern": "^SKU-\\d{2,6}$"},
                    "quantity": {
                        "type": "integer",
                        "exclusiveMinimum": 0,
                        "maximum": 1000,
                    },
                    "when": {"type": ["string", "null"], "format": "date"},
                    "tags": {
                        "type": "array",
                        "items": {"type": "string"},
                        "maxItems": 5,
                    },
                },
                "required": ["sku", "quantity", "when"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }
    responses = {"type": "function", "name": "read_stock", "parameters": {}}
    read = read_source("openai", json.dumps([chat, responses]))
    assert [t.name for t in read.tools] == ["create_reorder", "read_stock"]
    d = draft(read.tools[0])
    params = d.document["params"]
    assert params == {
        "sku": {"type": "string", "pattern": "^SKU-\\d{2,6}$"},
        "quantity": {"type": "integer", "min": 1, "max": 1000},
        "when": {"type": "date", "optional": True},
        "tags": {
            "type": "array",
            "max_items": 5,
            "optional": True,
            "items": {"type": "string"},
        },
    }
    assert d.document["effect"] == "write" and "effect" in d.todos
    assert d.losses == ()
    intent = draft(read.tools[1]).document["intent"]
    assert isinstance(intent, str) and intent.startswith("TODO(toolgen import)")


@pytest.mark.parametrize(
    ("annotations", "effect"),
    [
        ({"readOnlyHint": True}, "read"),
        ({"readOnlyHint": False, "destructiveHint": False}, "write"),
        ({"readOnlyHint": False}, "destructive"),
        ({"destructiveHint": True}, "destructive"),
        ({"title": "only a title"}, None),
    ],
)
def test_mcp_annotations_map_to_the_effect(
    annotations: object, effect: str | None
) -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}
    read = read_source("mcp", json.dumps({"result": {"tools": [tool]}}))
    assert read.tools[0].effect == effect


def test_what_the_format_cannot_hold_is_reported_and_left_out() -> None:
    tool = {
        "name": "land_drone",
        "inputSchema": {
            "type": "object",
            "properties": {
                "coordinates": {"type": "object", "description": "GPS coordinates."},
                "mode": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "speed": {"type": "number", "exclusiveMaximum": 10},
                "units": {"type": "string", "default": "metric"},
            },
            "required": ["units"],
        },
    }
    d = draft(read_source("mcp", json.dumps([tool])).tools[0])
    assert d.document["params"] == {
        "speed": {"type": "number", "optional": True},
        "units": {"type": "string"},
    }
    lost = {(x.where, x.what) for x in d.losses}
    assert ("parameter 'coordinates'", "the parameter") in lost
    assert ("parameter 'mode'", "anyOf") in lost
    assert ("parameter 'speed'", "exclusiveMaximum 10") in lost
    assert ("parameter 'units'", "default 'metric'") in lost


def test_a_date_parameter_reports_each_keyword_it_cannot_take_once() -> None:
    day = {"type": "string", "format": "date", "pattern": "^2026", "maxLength": 10}
    tool = {
        "name": "book_slot",
        "inputSchema": {
            "type": "object",
            "properties": {"day": {**day, "enum": ["2026-01-01"]}},
            "required": ["day"],
        },
    }
    d = draft(read_source("mcp", json.dumps([tool])).tools[0])
    assert d.document["params"] == {"day": {"type": "date"}}
    assert [(x.what, x.reason) for x in d.losses] == [
        ("enum ['2026-01-01']", "a date parameter takes no enum"),
        ("maxLength 10", "a date parameter takes no maxLength"),
        ("pattern '^2026'", "a date parameter takes no pattern"),
    ]


def test_import_refuses_to_overwrite_and_skips_unusable_names(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    tools = [
        {"name": "clock.get_time", "inputSchema": {}},  # renamed clock_get_time
        {"name": "x" * 65, "inputSchema": {}},  # one word too long: no name to give
        {
            "name": "context",
            "inputSchema": {},
        },  # built as context_.py, beside context.py
        {"name": "get/time", "inputSchema": {}},  # get_time, the next tool's name
        {"name": "get_time", "inputSchema": {}},
        {"name": "Get-Time", "inputSchema": {}},  # generated as get_time.py too
    ]
    source.write_text(json.dumps(tools), encoding="utf-8")
    report = import_file("mcp", source, tmp_path / "clock")
    assert [d.name for d in report.drafts] == ["clock_get_time", "context", "get_time"]
    assert report.drafts[0].losses[0] == Loss(
        "the tool",
        "name 'clock.get_time'",
        "a tool name is 1 to 64 letters, digits, '_' or '-', so the draft is named "
        "'clock_get_time'",
    )
    assert dict(report.skipped) == {
        "x" * 65: "a tool name is 1 to 64 letters, digits, '_' or '-'",
        "get/time": "renamed, it would be 'get_time', the name of another tool",
        "Get-Time": "it would share a Python module with 'get_time'",
    }
    checked = pipeline.check_catalogue(
        tmp_path / "clock", tmp_path, implementations=False
    )
    assert not [d for d in checked.diagnostics if d.code < "TG200"]
    before = (tmp_path / "clock" / "tools" / "get_time.yaml").read_text(
        encoding="utf-8"
    )
    with pytest.raises(Refused):
        import_file("mcp", source, tmp_path / "clock")
    assert (tmp_path / "clock" / "tools" / "get_time.yaml").read_text(
        encoding="utf-8"
    ) == before
    with pytest.raises(SourceError):
        read_source("mcp", "not json")
    assert (
        cli.main(
            ["import", "--from", "mcp", str(source), "--out", str(tmp_path / "clock")]
        )
        == 2
    )


def test_every_written_file_reads_back_as_its_data(tmp_path: Path) -> None:
    source = (
        ROOT / "tests" / "lint" / "realworld" / "sources" / "server-filesystem.mcp.json"
    )
    report = import_file("mcp", source, tmp_path / "fs")
    for d in report.drafts:
        assert _data(tmp_path / "fs" / "tools" / f"{d.name}.yaml") == d.document


def _tg313_lines(out: Path, tool: str) -> list[int]:
    result = pipeline.check_catalogue(out, out.parent, implementations=False)
    return [
        d.span.line
        for d in result.diagnostics
        if d.code == "TG313" and d.span.file.endswith(f"{tool}.yaml")
    ]


def test_an_unstated_effect_stays_reported_until_its_line_is_written(
    tmp_path: Path,
) -> None:
    source = tmp_path / "functions.json"
    function = {
        "name": "get_delivery_date",
        "description": "Get the delivery date of a customer's order.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    }
    source.write_text(json.dumps([function]), encoding="utf-8")
    out = tmp_path / "orders"
    import_file("openai", source, out)
    path = out / "tools" / "get_delivery_date.yaml"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    effect_line = lines.index(
        "effect: write  # TODO(toolgen import): the source does not say; write read, "
        "write or destructive"
    )
    # a person writes the use_when and a real example, and its note: the effect is still
    # the importer's guess, and still reported, at its own line
    text = re.sub(
        r'use_when: ".*"', "use_when: The user asks when an order arrives.", text
    )
    text = re.sub(
        r"examples:\n.*", "examples:\n  - args: {order_id: ORD-1}\n", text, flags=re.S
    )
    path.write_text(text, encoding="utf-8")
    assert _tg313_lines(out, "get_delivery_date") == [effect_line + 1]
    # writing the effect means editing its line: the marker goes with the edit
    path.write_text(text.replace(lines[effect_line], "effect: read"), encoding="utf-8")
    assert _tg313_lines(out, "get_delivery_date") == []


def test_only_comments_carry_the_marker_that_comments_py_reads(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "# TODO(toolgen import): a comment of its own line, about the key below\n"
        "name: x\n"
        'intent: "# TODO(toolgen import): in a quoted string"\n'
        "use_when: |-\n"
        "  # TODO(toolgen import): in a block of text\n"
        "effect: write  # TODO(toolgen import): beside the effect\n"
        "params: {a: {type: string}}  # no marker\n"
        "note: a#TODO(toolgen import):plain\n",
        encoding="utf-8",
    )
    document, problems = load.load_document(path, "t.yaml")
    assert document is not None and problems == []
    assert document.import_todos == (
        (
            ("name",),
            "TODO(toolgen import): a comment of its own line, about the key below",
        ),
        (("effect",), "TODO(toolgen import): beside the effect"),
    )


def test_a_body_whose_required_list_is_dropped_says_so() -> None:
    document = {
        "openapi": "3.0.3",
        "paths": {
            "/pets": {
                "post": {
                    "operationId": "add_pet",
                    "requestBody": {  # no required: true, OpenAPI's default
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["name", "species"],
                                    "properties": {
                                        "name": {"type": "string"},
                                        "species": {"type": "string"},
                                    },
                                }
                            }
                        }
                    },
                    "responses": {"201": {"description": "Added."}},
                }
            }
        },
    }
    [tool] = read_source("openapi", json.dumps(document)).tools
    d = draft(tool)
    assert d.document["params"] == {
        "name": {"type": "string", "optional": True},
        "species": {"type": "string", "optional": True},
    }
    [dropped] = [x for x in d.losses if x.what.startswith("required")]
    assert dropped.where == "the request body"
    assert dropped.what == "required name, species"
    assert "OpenAPI's default is false" in dropped.reason
    body = document["paths"]["/pets"]["post"]["requestBody"]  # type: ignore[index]
    body["required"] = True
    [tool] = read_source("openapi", json.dumps(document)).tools
    assert not [x for x in draft(tool).losses if x.what.startswith("required")]
    assert draft(tool).document["params"] == {
        "name": {"type": "string"},
        "species": {"type": "string"},
    }


def test_a_null_type_beside_an_allof_keeps_the_parameter_optional() -> None:
    tool = {
        "name": "add_note",
        "inputSchema": {
            "type": "object",
            "properties": {
                "note": {"type": ["string", "null"], "allOf": [{"minLength": 2}]}
            },
            "required": ["note"],
        },
    }
    d = draft(read_source("mcp", json.dumps([tool])).tools[0])
    assert d.document["params"] == {
        "note": {"type": "string", "min_length": 2, "optional": True}
    }


def test_a_default_or_example_is_kept_only_when_toolgen_check_accepts_it(
    tmp_path: Path,
) -> None:
    # judged by the one validator `toolgen check` uses: 30 February is no date, and \d is
    # ECMA's ASCII digit, so Arabic-Indic digits do not match it
    properties = {
        "since": {"type": "string", "format": "date", "default": "2026-02-30"},
        "until": {"type": "string", "format": "date", "default": "2026-02-28"},
        "code": {"type": "string", "pattern": "^\\d+$", "examples": ["١٢", "12"]},
    }
    tool = {"name": "list_orders", "inputSchema": {"properties": properties}}
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([tool]), encoding="utf-8")
    done = import_file("mcp", source, tmp_path / "shop")
    [d] = done.drafts
    params = d.document["params"]
    assert isinstance(params, dict)
    assert (
        "default" not in params["since"] and params["until"]["default"] == "2026-02-28"
    )
    assert params["code"]["example"] == "12"
    lost = {(x.where, x.what) for x in d.losses}
    assert ("parameter 'since'", "default '2026-02-30'") in lost
    checked = pipeline.check_catalogue(
        tmp_path / "shop", tmp_path, implementations=False
    )
    assert not [x for x in checked.diagnostics if x.code in ("TG124", "TG125")]


def test_return_fields_carry_every_name_the_format_takes() -> None:
    # a keyword or a hyphen is a name the model may read (the generated field is class_,
    # item_count); only a key of the envelope is taken, at the top of the answer
    output = {
        "type": "object",
        "properties": {
            "class": {"type": "string"},
            "item-count": {"type": "integer"},
            "ok": {"type": "boolean"},
            "line": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        },
    }
    tool = {"name": "read_order", "inputSchema": {}, "outputSchema": output}
    d = draft(read_source("mcp", json.dumps([tool])).tools[0])
    returns = d.document["returns"]
    assert isinstance(returns, dict)
    assert list(returns) == ["class", "item-count", "line"]
    assert [x.where for x in d.losses if x.what == "the name"] == ["return field 'ok'"]


def test_refs_of_the_output_schema_point_into_its_own_defs() -> None:
    # pydantic writes a result's nested models as $defs of the outputSchema itself
    # (mcp-server-time's convert_time): they were looked up in the inputSchema's
    zone = {"type": "object", "properties": {"zone": {"type": "string"}}}
    output = {
        "type": "object",
        "properties": {"source": {"$ref": "#/$defs/Time"}},
        "required": ["source"],
        "$defs": {"Time": {**zone, "required": ["zone"]}},
    }
    inputs = {
        "type": "object",
        "properties": {"at": {"$ref": "#/$defs/Time"}},
        "required": ["at"],
        "$defs": {"Time": {"type": "string"}},
    }
    tool = {"name": "convert_time", "inputSchema": inputs, "outputSchema": output}
    d = draft(read_source("mcp", json.dumps([tool])).tools[0])
    assert d.document["returns"] == {"source": zone}
    assert d.document["params"] == {"at": {"type": "string"}}
    assert not d.losses


def test_a_schema_that_holds_itself_is_named_as_such() -> None:
    # a tree of nodes: its cycle stays a $ref, which was reported as a reference that is
    # not local
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/Node"},
            },
        },
    }
    body = {
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}
        }
    }
    operation = {
        "operationId": "create_node",
        "requestBody": body,
        "responses": {"200": {"description": "OK."}},
    }
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Nodes", "version": "1"},
        "paths": {"/nodes": {"post": operation}},
        "components": {"schemas": {"Node": node}},
    }
    [tool] = read_source("openapi", json.dumps(document)).tools
    [loss] = [x for x in draft(tool).losses if x.what.startswith("$ref")]
    assert (
        loss.reason
        == "a reference outside $defs, or back into a schema it is in, is not read"
    )


def test_a_nested_parameter_under_a_long_name_is_carried() -> None:
    # nesting is counted in levels, not in the characters of the names above
    inner = {"type": "object", "properties": {"city": {"type": "string"}}}
    schema = {
        "type": "object",
        "properties": {"shipping_address_of_the_whole_order": inner},
    }
    d = draft(
        read_source("mcp", json.dumps([{"name": "ship", "inputSchema": schema}])).tools[
            0
        ]
    )
    params = d.document["params"]
    assert isinstance(params, dict)
    assert params["shipping_address_of_the_whole_order"]["properties"] == {
        "city": {"type": "string", "optional": True}
    }


def test_a_number_as_a_property_name_in_yaml_is_read_as_its_text() -> None:
    # YAML reads `200:` as a number: the import names it as the text it is, never crashes
    document = """
openapi: 3.1.0
paths:
  /codes:
    get:
      operationId: read_codes
      responses:
        '200':
          content:
            application/json:
              schema:
                type: object
                properties:
                  200: {type: string}
                  ok: {type: boolean}
"""
    d = draft(read_source("openapi", document).tools[0])
    assert d.document["returns"] == {"200": {"type": "string", "optional": True}}
    assert ("return field 'ok'", "the name") in {(x.where, x.what) for x in d.losses}


def test_response_codes_written_as_yaml_numbers_are_read() -> None:
    # `200:` unquoted is a number to YAML, and a common way to write an OpenAPI document
    document = """
openapi: 3.0.0
paths:
  /a:
    get:
      operationId: read_a
      responses:
        200:
          content:
            application/json:
              schema: {type: object, properties: {n: {type: integer}}}
        404: {description: not found}
"""
    [tool] = read_source("openapi", document).tools
    assert tool.output_schema == {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    }
    assert "responses 404" in {x.what for x in tool.losses}


def test_an_item_count_is_carried_only_when_it_is_a_whole_number() -> None:
    # true is no count: JSON Schema's minItems takes a non-negative integer, and a bool
    # would reach the draft as min_items: true, which the format refuses
    items = {"type": "string"}
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": items, "minItems": True, "maxItems": 3},
        },
    }
    d = draft(
        read_source("mcp", json.dumps([{"name": "tag", "inputSchema": schema}])).tools[
            0
        ]
    )
    params = d.document["params"]
    assert isinstance(params, dict)
    assert "min_items" not in params["tags"] and params["tags"]["max_items"] == 3


def test_an_infinite_bound_is_a_reported_loss(tmp_path: Path) -> None:
    """YAML's .inf (and JSON's Infinity, which Python's json reads) was taken as a bound,
    and the import stopped on a traceback: what it wrote did not read back as written."""
    source = tmp_path / "api.yaml"
    source.write_text(
        """\
openapi: 3.0.0
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: get_x
      summary: Get the x of a thing.
      parameters:
        - name: n
          in: query
          schema: {type: number, minimum: -.inf, maximum: 10, exclusiveMaximum: .nan}
      responses:
        "200": {description: ok}
""",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert (
        cli.main(["import", "--from", "openapi", str(source), "--out", str(out)]) == 1
    )
    written = (out / "tools" / "get_x.yaml").read_text(encoding="utf-8")
    assert "parameter 'n': minimum -inf: only finite numeric bounds are read" in written
    assert "exclusiveMaximum nan: only finite numeric bounds are read" in written
    assert _data(out / "tools" / "get_x.yaml")["params"]["n"]["max"] == 10  # type: ignore[index]


def test_an_integer_bound_past_a_floats_range_is_carried() -> None:
    """A bound of 4,000 digits is a finite JSON number; math.isfinite and float() could not
    take it, and the import stopped on an OverflowError traceback."""
    huge = 10**4000
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "maximum": huge, "exclusiveMinimum": -huge},
        },
    }
    source = json.dumps([{"name": "count", "inputSchema": schema}])
    d = draft(read_source("mcp", source).tools[0])
    params = d.document["params"]
    assert isinstance(params, dict)
    assert params["n"]["max"] == huge and params["n"]["min"] == -huge + 1
    assert d.losses == ()


def test_a_lone_surrogate_skips_its_tool_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON's "\\ud800" reads as half of a surrogate pair, which no UTF-8 file holds: the
    draft did not read back as written, and the import stopped on a RuntimeError."""
    source = tmp_path / "tools.json"
    source.write_text(
        '[{"name": "odd", "description": "Half a pair: \\ud800.", "inputSchema": {}},'
        ' {"name": "fine", "description": "A smile: \\ud83d\\ude00.", "inputSchema": {}}]',
        encoding="utf-8",
    )
    out = tmp_path / "shop"
    assert cli.main(["import", "--from", "mcp", str(source), "--out", str(out)]) == 1
    assert "tool 'odd' not imported: it holds '\\ud800'" in capsys.readouterr().err
    assert sorted(p.name for p in (out / "tools").iterdir()) == ["fine.yaml"]
    assert _data(out / "tools" / "fine.yaml")["intent"] == "A smile: \U0001f600."  # type: ignore[index]


def test_a_draft_over_a_spec_files_limits_skips_its_tool_and_names_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool whose draft is larger than a spec file may be (1 MiB) cannot be read back: the
    import stopped on a RuntimeError traceback that blamed toolgen, then refused every tool
    of the file for the one; the others are imported."""
    source = tmp_path / "tools.json"
    tool = {"name": "wordy", "description": "word " * 300_000, "inputSchema": {}}
    fine = {"name": "fine", "description": "A fine tool.", "inputSchema": {}}
    source.write_text(json.dumps([tool, fine]), encoding="utf-8")
    out = tmp_path / "shop"
    assert cli.main(["import", "--from", "mcp", str(source), "--out", str(out)]) == 1
    assert (
        "tool 'wordy' not imported: its draft would break a limit: the file has 1,500,"
        in capsys.readouterr().err
    )
    assert sorted(p.name for p in (out / "tools").iterdir()) == ["fine.yaml"]


def test_a_source_of_long_words_is_quoted_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A title, a key and a format of a hostile tools/list are not carried, and were quoted
    whole in the draft's header and on the terminal: a title of a megabyte made a draft over
    a spec file's limits, and the import refused every tool for it."""
    source = tmp_path / "tools.json"
    huge = {
        "name": "huge",
        "description": "Read a thing.",
        "title": "T" * 1_000_000,
        "k" * 100_000: 1,
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string", "format": "f" * 100_000}},
        },
    }
    source.write_text(json.dumps([huge]), encoding="utf-8")
    out = tmp_path / "shop"
    assert cli.main(["import", "--from", "mcp", str(source), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    draft_text = (out / "tools" / "huge.yaml").read_text(encoding="utf-8")
    assert len(said) < 2_000 and len(draft_text) < 3_000
    for where in (said, draft_text):
        assert (
            "title 'TTTT" in where and "key 'kkkk" in where and "format 'ffff" in where
        )


def test_refs_that_multiply_cost_a_bounded_number_of_schemas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each of 40 $defs points twice at the next: 2**40 schemas written out, a few lines of
    source. The conversion went on for hours; it stops at the parameters a tool may have."""
    from toolgen.interop.importers import schema as converting

    read = 0
    node = converting.Converter._node

    def counted(self: converting.Converter, *args: Any) -> object:
        nonlocal read
        read += 1
        assert read < 100_000, "the conversion reads schemas without a bound"
        return node(self, *args)

    monkeypatch.setattr(converting.Converter, "_node", counted)
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/d0"}},
        "$defs": {**_twice("#/$defs/"), "d40": {"type": "string"}},
    }
    source = json.dumps([{"name": "grow", "inputSchema": schema}])
    d = draft(read_source("mcp", source).tools[0])
    too_many = "the tool has more than 10,000 parameters and fields"
    assert [loss.reason for loss in d.losses].count(too_many) == 1


def _twice(at: str) -> dict[str, object]:
    """40 schemas, each pointing twice at the next one under `at`: 2**40 when inlined."""
    return {
        f"d{i}": {
            "type": "object",
            "properties": {
                "x": {"$ref": f"{at}d{i + 1}"},
                "y": {"$ref": f"{at}d{i + 1}"},
            },
        }
        for i in range(40)
    }


def _doubling_refs() -> str:
    twice = _twice("#/components/schemas/")
    body = {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/d0"}}}
    }
    operation = {
        "operationId": "grow",
        "summary": "Grow a thing.",
        "requestBody": body,
        "responses": {"200": {"description": "ok"}},
    }
    return json.dumps(
        {
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": operation}},
            "components": {"schemas": {**twice, "d40": {"type": "string"}}},
        }
    )


_NINE_TIMES = "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n"
    for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)
_DOUBLING_ALIASES = f"""\
a: &a [x, x, x, x, x, x, x, x, x]
{_NINE_TIMES}openapi: 3.1.0
info: {{title: t, version: "1"}}
paths:
  /x:
    get:
      operationId: grow
      summary: Grow a thing.
      parameters:
        - {{name: q, in: query, schema: {{type: string, enum: *i}}}}
      responses: {{"200": {{description: ok}}}}
"""


def _count_inlining(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the values the OpenAPI importer writes out (the one item of the list), and
    fail at 100,000, well past the bounds the tests lower, rather than run for hours."""
    from toolgen.interop.importers import openapi

    inlined = [0]
    inline = openapi._Document.inline

    def counted(self: object, *args: Any) -> object:
        inlined[0] += 1
        assert inlined[0] < 100_000, "inlining writes out values without a bound"
        return inline(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(openapi._Document, "inline", counted)
    return inlined


@pytest.mark.parametrize(
    "text", [_doubling_refs(), _DOUBLING_ALIASES], ids=["refs", "yaml-aliases"]
)
def test_an_openapi_document_that_multiplies_is_refused_at_a_bounded_cost(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """$refs that each point twice at the next (2**40 values), or YAML aliases nine times
    over nine levels (9**9), from a few lines: inlining them ran for hours. It stops at a
    bound (lowered here so the test counts the work instead of timing it)."""
    from toolgen.interop.importers import openapi

    _count_inlining(monkeypatch)
    monkeypatch.setattr(openapi, "_MAX_INLINED", 10_000, raising=False)
    with pytest.raises(SourceError, match="write out more than 10,000 values"):
        read_source("openapi", text)


def test_an_operation_that_multiplies_is_left_out_and_the_others_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One operation whose body's $refs double at each level is left out, named with why,
    once it writes out more than an operation may; the operation beside it is imported.
    Before, the whole import ran to the document's bound (17.9 s and 980 MB with the real
    bounds) and was refused. Bounds lowered here so the test counts the work."""
    from toolgen.interop.importers import openapi

    inlined = _count_inlining(monkeypatch)
    monkeypatch.setattr(openapi, "_MAX_INLINED_PER_OPERATION", 1_000, raising=False)
    document = json.loads(_doubling_refs())
    document["paths"]["/y"] = {
        "get": {
            "operationId": "read_thing",
            "summary": "Read a thing.",
            "parameters": [{"name": "id", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}},
        }
    }
    read = read_source("openapi", json.dumps(document))
    assert [t.name for t in read.tools] == ["read_thing"]
    assert read.skipped == (
        ("grow", "its $refs and aliases write out more than 1,000 values"),
    )
    assert inlined[0] < 1_100


def test_a_catalogue_folder_named_by_a_keyword_is_refused(tmp_path: Path) -> None:
    """--out spec/class wrote a catalogue named 'class', which toolgen check refuses
    (TG140: a keyword is no Python identifier)."""
    source = tmp_path / "tools.json"
    source.write_text('[{"name": "get_time", "inputSchema": {}}]', encoding="utf-8")
    with pytest.raises(Refused, match="must be named like a Python identifier"):
        import_file("mcp", source, tmp_path / "spec" / "class")
    assert not (tmp_path / "spec").exists()


def test_a_reference_chain_too_long_says_so() -> None:
    """A chain of 40 local $refs stops at the 33rd, which was reported as if it were no
    local reference into $defs."""
    chain = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(40)}
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/d0"}},
        "$defs": {**chain, "d40": {"type": "string"}},
    }
    source = json.dumps([{"name": "follow", "inputSchema": schema}])
    d = draft(read_source("mcp", source).tools[0])
    assert d.losses == (
        Loss(
            "parameter 'a'",
            "$ref '#/$defs/d33'",
            "a chain of more than 32 references is not followed",
        ),
    )


def test_a_property_that_goes_one_way_is_left_out_where_it_never_goes() -> None:
    """readOnly fields of a request body (an id the server sets) became parameters the
    model had to fill; writeOnly fields of an answer (a password) became return fields."""
    account = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "readOnly": True},
            "name": {"type": "string"},
            "password": {"type": "string", "writeOnly": True},
        },
    }
    body = {"content": {"application/json": {"schema": account}}, "required": True}
    ok = {"200": {"description": "ok", "content": body["content"]}}
    document = {
        "openapi": "3.0.3",
        "paths": {
            "/accounts": {
                "post": {
                    "operationId": "add_account",
                    "requestBody": body,
                    "responses": ok,
                }
            }
        },
    }
    [tool] = read_source("openapi", json.dumps(document)).tools
    d = draft(tool)
    assert set(d.document["params"]) == {"name", "password"}  # type: ignore[arg-type]
    assert set(d.document["returns"]) == {"id", "name"}  # type: ignore[arg-type]
    reasons = {x.where: x.reason for x in d.losses}
    assert "the server sets it" in reasons["parameter 'id'"]
    assert "an answer does not hold it" in reasons["return field 'password'"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a: 2026-02-30\n", "not YAML or JSON: day is out of range for month"),
        ("a: " + "9" * 5000 + "\n", "not YAML or JSON: Exceeds the limit"),
        ("schema: &s {type: array, items: *s}\n", "a value that holds itself"),
        ("enum: &e [a, *e]\n", "a value that holds itself"),
    ],
)
def test_a_yaml_source_python_cannot_hold_is_refused_in_a_line(
    text: str, said: str
) -> None:
    # each was a traceback (ValueError from the YAML reader; RecursionError inlining)
    with pytest.raises(SourceError, match=re.escape(said)):
        read_source("openapi", "openapi: 3.1.0\n" + text)


def test_a_source_past_the_limits_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolgen.interop.importers as importers

    source = tmp_path / "tools.json"
    tools = [{"name": f"get_time_{i}", "inputSchema": {}} for i in range(5)]
    source.write_text(json.dumps(tools), encoding="utf-8")
    monkeypatch.setattr(importers, "MAX_TOOLS", 4)
    with pytest.raises(Refused, match="defines 5 tools, more than the 4 a catalogue"):
        import_file("mcp", source, tmp_path / "spec" / "shop")
    assert not (tmp_path / "spec").exists()  # 200,000 files were written, then refused
    monkeypatch.setattr(importers, "MAX_SOURCE_BYTES", 100)
    with pytest.raises(SourceError, match="larger than 100 bytes"):
        import_file("mcp", source, tmp_path / "spec" / "shop")


def test_openapi_keys_of_the_wrong_type_are_losses_not_tracebacks() -> None:
    def document(**operation: object) -> str:
        post = {"operationId": "make_a", "summary": "Make a.", **operation}
        post["responses"] = {"200": {"description": "Made."}}
        paths = {"/a": {"post": post}}
        return json.dumps({"openapi": "3.1.0", "info": {}, "paths": paths})

    for broken in (
        {"security": 1},
        {"requestBody": {"content": True}},
        {"requestBody": {"content": [1]}},
    ):
        [tool] = read_source("openapi", document(**broken)).tools
        assert tool.name == "make_a"
    missing = {"$ref": "#/components/parameters/Missing"}
    [tool] = read_source(
        "openapi", document(parameters=[missing, {"$ref": "../p.json"}])
    ).tools
    lost = [(x.where, x.what) for x in tool.losses]
    assert ("a parameter ($ref '#/components/parameters/Missing')", "no name") in lost
    assert ("a parameter ($ref '../p.json')", "no name") in lost


def test_a_source_file_name_with_a_line_break_is_written_escaped(
    tmp_path: Path,
) -> None:
    # the name went raw into the header comment: a line break in it made a YAML key, and
    # the read-back check ended the import on a RuntimeError traceback
    source = tmp_path / "a\nname: injected.json"
    source.write_text('[{"name": "get_time", "inputSchema": {}}]', encoding="utf-8")
    import_file("mcp", source, tmp_path / "spec" / "shop")
    header = (tmp_path / "spec/shop/catalogue.yaml").read_text().splitlines()[1]
    assert header.endswith("from a\\nname: injected.json.")
