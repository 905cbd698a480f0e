"""toolgen import: a parameter the source requires and the draft cannot carry is a TODO that
`toolgen check` reports until a person decides, and a loss names what it loses."""

from __future__ import annotations

import json
from pathlib import Path

from toolgen.build import pipeline
from toolgen.interop.importers import import_file, read_source
from toolgen.interop.importers.draft import draft

THINK = {
    "name": "sequentialthinking",
    "description": "Think step by step.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "thought": {"type": "string"},
            "nextThoughtNeeded": {
                "type": ["boolean", "string"],
                "description": "Whether another thought step is needed",
            },
            "isRevision": {"type": ["boolean", "string"]},
            "id": {"type": "object", "readOnly": True},  # the server's to set
        },
        "required": ["thought", "nextThoughtNeeded", "id"],
    },
    "annotations": {"readOnlyHint": True},
}


def _tg313_lines(out: Path) -> list[int]:
    result = pipeline.check_catalogue(out, out.parent, implementations=False)
    return sorted(
        d.span.line
        for d in result.diagnostics
        if d.code == "TG313" and "/tools/" in d.span.file
    )


def test_a_required_parameter_left_out_is_a_todo_check_reports(tmp_path: Path) -> None:
    d = draft(read_source("mcp", json.dumps([THINK])).tools[0])
    assert list(d.document["params"]) == ["thought"]  # type: ignore[call-overload]
    assert d.document["intent"] == (
        "TODO(toolgen import): the source requires parameter 'nextThoughtNeeded' "
        "{'type': ['boolean', 'string']}, which the draft leaves out (its header says "
        "why), so no call can succeed: write it under params, or delete the tool; then "
        "delete this TODO. Think step by step."
    )
    assert d.todos[0] == "required 'nextThoughtNeeded' (in the intent)"
    # an optional parameter left out (isRevision) is a loss only
    assert {x.where for x in d.losses} == {
        "parameter 'nextThoughtNeeded'",
        "parameter 'isRevision'",
        "parameter 'id'",
    }
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([THINK]), encoding="utf-8")
    out = tmp_path / "think"
    import_file("mcp", source, out)
    path = out / "tools" / "sequentialthinking.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    intent = next(n for n, line in enumerate(lines) if line.startswith("intent:"))
    use_when = next(n for n, line in enumerate(lines) if line.startswith("use_when:"))
    rest = (
        "use_when: The user asks for a problem to be thought through.\n"
        "effect: read\nparams:\n  thought: {type: string}\n"
        "  next_thought_needed: {type: boolean}\n"
        "examples:\n  - args: {thought: a, next_thought_needed: false}\n"
    )
    # the use_when and the example written: the draft still fails, on the intent's TODO
    path.write_text("\n".join(lines[:use_when]) + "\n" + rest, encoding="utf-8")
    assert _tg313_lines(out) == [intent + 1]
    text = "\n".join(lines[:intent]) + "\nintent: Think step by step.\n" + rest
    path.write_text(text, encoding="utf-8")
    assert _tg313_lines(out) == []


def test_arguments_of_another_type_name_each_parameter_lost() -> None:
    function = {
        "name": "get_rate",
        "description": "Compute the exchange rate between two currencies.",
        "parameters": {
            "type": "dict",  # BFCL's; not JSON Schema
            "properties": {
                "base_currency": {"type": "string"},
                "value": {"type": "float"},
                "rounded": {"type": "boolean"},
            },
            "required": ["base_currency", "value"],
        },
    }
    d = draft(read_source("openai", json.dumps([function])).tools[0])
    assert "params" not in d.document
    [lost] = d.losses
    assert (lost.where, lost.what, lost.reason) == (
        "the arguments",
        "type 'dict'",
        "arguments are an object, so none of the parameters is read: "
        "'base_currency' (required), 'value' (required), 'rounded'",
    )
    assert str(d.document["intent"]).startswith(
        "TODO(toolgen import): the source requires parameters 'base_currency' "
        "{'type': 'string'} and 'value' {'type': 'float'}, which the draft leaves out"
    )


def _send_email(header: str) -> dict[str, object]:
    body = {
        "type": "object",
        "required": ["to", "subject"],
        "properties": {
            "to": {
                "oneOf": [
                    {"type": "string"},
                    {"type": "array", "items": {"type": "string"}},
                ]
            },
            "subject": {"type": "string"},
        },
    }
    operation = {
        "operationId": "send_email",
        "summary": "Send an email",
        "parameters": [
            {"in": "header", "name": header, "schema": {"type": "string"}},
            {"in": "header", "name": "X-Trace", "schema": {"type": "string"}},
        ],
        # no required: true (OpenAPI's default): the body's required list is dropped,
        # but a body without its recipient is no call either
        "requestBody": {"content": {"application/json": {"schema": body}}},
        "responses": {"200": {"description": "Sent."}},
    }
    return {"openapi": "3.1.0", "paths": {"/emails": {"post": operation}}}


def test_an_openapi_body_property_required_and_left_out_is_a_todo() -> None:
    [tool] = read_source("openapi", json.dumps(_send_email("X-Other"))).tools
    d = draft(tool)
    assert d.todos[0] == "required 'to' (in the intent)"
    assert str(d.document["intent"]).startswith(
        "TODO(toolgen import): the source requires parameter 'to' {'oneOf': "
        "[{'type': 'string'}, {'items': {...}, 'type': 'array'}]}, which"
    )


def test_an_idempotency_key_header_is_the_implementations_not_the_models() -> None:
    [tool] = read_source("openapi", json.dumps(_send_email("idempotency-key"))).tools
    d = draft(tool)
    params = d.document["params"]
    assert isinstance(params, dict) and "idempotency-key" not in params
    assert "X-Trace" in params
    [lost] = [x for x in d.losses if x.where == "parameter 'idempotency-key'"]
    assert lost.what == "the header"
    assert lost.reason.startswith("a key per operation is the implementation's to send")
    [call] = [x for x in d.losses if x.what.startswith("the HTTP call")]
    assert call.what == "the HTTP call POST /emails (header: X-Trace)"
