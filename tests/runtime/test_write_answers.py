"""Every answer the model receives goes through the tool's output contract (issue 33): a write,
a destructive tool a person approves, a confirm tool and its prepare tool answer with their
texts cut, their sensitive fields redacted and their types checked, as a read tool does, first
time and on a repeat.

The tools are compiled here from a small catalogue (`toolgen`'s own pipeline, into a
temporary project) and called through their generated modules and the real Runner.
"""

from __future__ import annotations

import datetime
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from agents import Agent, RunConfig, ToolExecutionConfig
from agents.items import ToolCallOutputItem
from agents.testing import ScriptedModel, assistant_message, function_call
from pydantic import BaseModel, ConfigDict
from test_output import CARD, Charged, charging_tool
from toolgen_runtime import ContractViolation, Invoker, make_tool
from toolgen_runtime.output import ELLIPSIS, REDACTED, Sensitive
from toolgen_runtime.signing import Signer
from toolgen_runtime.store import open_store
from toolgen_runtime.testing import Recorder, invoke
from toolgen_runtime.testing.helpers import run_agent
from toolgen_runtime.writes import TokenConfirmation

RETURNS = """
returns:
  note_id: {type: string, description: The note.}
  body: {type: string, max_length: 12, description: The body; long ones are cut.}
  pin: {type: string, sensitive: true, description: The pin.}
  sent_at: {type: datetime, description: When it was sent.}
"""
NOTE_ID = """
  note_id:
    type: string
    pattern: '^NT-[0-9]{1,6}$'
    example: NT-1
    description: The note.
"""
SPEC = {
    "catalogue.yaml": """
format: 1
name: notes
description: Write tools of every kind, each answering with cut, redacted and typed fields.
package: wa_generated.notes
implementation: wa_impl.notes
context:
  user_id: {type: integer, description: The authenticated user.}
  run_id: {type: string, description: The run.}
""",
    "tools/send_note.yaml": """
name: send_note
intent: Send a note to the team; it is delivered at once.
use_when: The user wants the team to read a note now.
effect: write
idempotency: {key: [note_ref], context: [run_id]}
context: [run_id]
params:
  note_ref:
    type: string
    pattern: '^N-[0-9]{1,6}$'
    example: N-1
    description: Your reference for this note.
examples:
  - args: {note_ref: N-1}
"""
    + RETURNS,
    "tools/wipe_note.yaml": """
name: wipe_note
intent: Delete a note of the current user for good.
use_when: The user asks to delete one of their notes.
effect: destructive
idempotency: natural
confirmation: approval
context: [user_id]
params:"""
    + NOTE_ID
    + """
examples:
  - args: {note_id: NT-1}
"""
    + RETURNS,
    "tools/confirm_note.yaml": """
name: confirm_note
intent: Publish a note of the current user on the public board.
use_when: The user wants a note published.
effect: write
confirmation: token
context: [user_id]
params:"""
    + NOTE_ID
    + """
examples:
  - args: {note_id: NT-1}
"""
    + RETURNS,
}
SENT_AT = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.loading import render
    from toolgen.build import pipeline
    from toolgen.build.write import write_outputs
    from toolgen.diagnostics import has_errors

    root = tmp_path_factory.mktemp("notes")
    (root / "pyproject.toml").write_text('[project]\nname = "notes"\n')
    for name, text in SPEC.items():
        path = root / "spec" / "notes" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    result = pipeline.check_catalogue(root / "spec" / "notes", root)
    assert not has_errors(result.diagnostics), [
        d.format_text() for d in result.diagnostics
    ]
    rendered = render(result, root)
    assert rendered is not None
    write_outputs(rendered, root)
    sys.path.insert(0, str(root))
    try:
        yield SimpleNamespace(
            **{
                name: importlib.import_module(f"wa_generated.notes.{name}")
                for name in ("send_note", "wipe_note", "confirm_note", "prepare_note")
            },
            NotesContext=importlib.import_module("wa_generated.notes").NotesContext,
        )
    finally:
        sys.path.remove(str(root))
        for name in [
            m for m in sys.modules if m.split(".")[0] in ("wa_generated", "wa_impl")
        ]:
            del sys.modules[name]


def result(module: Any, **changed: Any) -> Any:
    fields = {
        "note_id": "NT-1",
        "body": "a body longer than twelve characters",
        "pin": "4921-7730",
        "sent_at": SENT_AT,
        **changed,
    }
    return module(**fields)


EXPECTED = {
    "ok": True,
    "note_id": "NT-1",
    "body": "a body long" + ELLIPSIS,
    "pin": REDACTED,
    "sent_at": "2026-01-02T03:04:05Z",
    "truncated": ["body"],
}


def context(notes: Any) -> Any:
    return notes.NotesContext(user_id=7, run_id="run-1")


def test_a_write_answers_through_its_contract_and_so_does_its_repeat(
    notes: Any,
) -> None:
    send_note = notes.send_note
    recorder = Recorder(result(send_note.SendNoteResult))
    tool = send_note.build_tool(recorder)
    first = invoke(tool, {"note_ref": "N-1"}, context(notes))
    assert first == EXPECTED
    assert invoke(tool, {"note_ref": "N-1"}, context(notes)) == {
        **EXPECTED,
        "duplicate": True,
    }
    assert len(recorder.calls) == 1


def test_a_confirm_tool_and_its_prepare_tool_answer_through_their_contracts(
    notes: Any,
) -> None:
    signer = Signer([b"s" * 32], "confirm")
    prepare = notes.prepare_note.build_tool(signer=signer)
    prepared = invoke(prepare, {"note_id": "NT-1"}, context(notes))
    assert set(prepared) == {"ok", "token", "summary", "expires_in_s"}
    assert prepared["summary"] == "confirm_note with note_id NT-1"
    recorder = Recorder(result(notes.confirm_note.ConfirmNoteResult))
    confirm = notes.confirm_note.build_tool(recorder, signer=signer)
    answer = invoke(
        confirm, {"note_id": "NT-1", "token": prepared["token"]}, context(notes)
    )
    assert answer == EXPECTED


def test_a_destructive_tool_a_person_approves_answers_through_its_contract(
    notes: Any,
) -> None:
    wipe_note = notes.wipe_note
    recorder = Recorder(result(wipe_note.WipeNoteResult))
    tool = wipe_note.build_tool(recorder)
    config = RunConfig(
        tracing_disabled=True,
        tool_execution=ToolExecutionConfig(pre_approval_tool_input_guardrails=True),
    )
    model = ScriptedModel(
        [
            [function_call("wipe_note", {"note_id": "NT-1"}, call_id="c1")],
            [assistant_message("wiped")],
        ]
    )
    agent: Agent[Any] = Agent(name="notes", instructions="", tools=[tool], model=model)
    first = run_agent(agent, "wipe NT-1", context=context(notes), run_config=config)
    state = first.to_state()
    state.approve(first.interruptions[0])
    done = run_agent(agent, state, run_config=config)
    [told] = [
        json.loads(str(item.output))
        for item in done.new_items
        if isinstance(item, ToolCallOutputItem)
    ]
    assert told == EXPECTED
    assert len(recorder.calls) == 1


@pytest.mark.parametrize("tool", ["send_note", "wipe_note", "confirm_note"])
def test_a_write_that_returns_something_else_stops_the_run(
    notes: Any, tool: str
) -> None:
    module = getattr(notes, tool)
    signer = Signer([b"s" * 32], "confirm")
    made = (
        module.build_tool(Recorder({"note_id": "NT-1"}), signer=signer)
        if tool == "confirm_note"
        else module.build_tool(Recorder({"note_id": "NT-1"}))
    )
    args: dict[str, Any] = (
        {"note_ref": "N-2"} if tool == "send_note" else {"note_id": "NT-2"}
    )
    if tool == "confirm_note":
        prepare = notes.prepare_note.build_tool(signer=signer)
        args["token"] = invoke(prepare, args, context(notes))["token"]
    with pytest.raises(ContractViolation, match="returned dict"):
        invoke(made, args, context(notes))


# --- a sensitive argument is bound, never shown ---------------------------------------------


def test_a_sensitive_argument_is_part_of_the_idempotency_fingerprint(
    tmp_path: Path,
) -> None:
    """Before, the fingerprint digested "[redacted]" in place of the card: the same
    charge_ref with another card got the first card's charge back as a duplicate."""
    recorder = Recorder(Charged("charged", Sensitive(CARD)))
    tool = charging_tool(recorder, f"sqlite:///{tmp_path / 'state.db'}")
    assert invoke(tool, {"charge_ref": "c-1", "card": CARD}, None)["ok"] is True
    other = invoke(tool, {"charge_ref": "c-1", "card": "5555555555554444"}, None)
    assert other["error"] == "idempotency_conflict", other
    assert invoke(tool, {"charge_ref": "c-1", "card": CARD}, None)["duplicate"] is True
    assert len(recorder.calls) == 1


class PayArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    card: Sensitive[str]


class PayConfirmArgs(PayArgs):
    token: str


class Prepared(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True)

    token: str
    summary: str
    expires_in_s: int


def pay_tools(recorder: Recorder, tmp_path: Path) -> tuple[Any, Any]:
    store = open_store(f"sqlite:///{tmp_path / 'state.db'}")
    signer = Signer([b"t" * 32], "confirm")
    tools = []
    for role, args_model, result_type in (
        ("prepare", PayArgs, Prepared),
        ("confirm", PayConfirmArgs, Charged),
    ):
        invoker: Invoker[Any, Any, Any] = Invoker(
            tool_name=f"{role}_payment",
            args_model=args_model,
            result_type=result_type,
            errors={},
            load_implementation=lambda: recorder,
            build_context=lambda run: run,
            confirmation=TokenConfirmation(
                role=role,  # type: ignore[arg-type]
                prepare_tool="prepare_payment",
                confirm_tool="confirm_payment",
                identity=(),
            ),
            store=store,
            signer=signer,
        )
        schema = {"type": "object", "properties": {}, "additionalProperties": False}
        tools.append(
            make_tool(
                name=invoker.tool_name,
                description="d",
                parameters=schema,
                invoker=invoker,
            )
        )
    return tools[0], tools[1]


def test_a_token_is_bound_to_a_sensitive_argument_and_its_summary_hides_it(
    tmp_path: Path,
) -> None:
    """Before, a token issued for one card confirmed a payment with another: the token's
    digest of the arguments held "[redacted]" in place of the card."""
    recorder = Recorder(Charged("paid", Sensitive(CARD)))
    prepare, confirm = pay_tools(recorder, tmp_path)
    prepared = invoke(prepare, {"card": CARD}, None)
    assert prepared["summary"] == f"confirm_payment with card {REDACTED}"
    assert CARD not in json.dumps(prepared)
    other = invoke(
        confirm, {"card": "5555555555554444", "token": prepared["token"]}, None
    )
    assert other["error"] == "token_mismatch", other
    assert recorder.calls == []
    paid = invoke(confirm, {"card": CARD, "token": prepared["token"]}, None)
    assert paid["ok"] is True and len(recorder.calls) == 1
