"""The realistic catalogue's tools after the first four of each record (bench/realistic_tools.py
has the first four, the record and the helpers): confirm by token, cancel with approval,
import from a path, verify against a URL, send by key, and eight more."""

from __future__ import annotations

import random
from collections.abc import Callable

from realistic_tools import (
    EMAIL,
    PAST,
    REF,
    Entity,
    SpecDict,
    an,
    calls,
    nw,
    tool,
)
from realistic_words import KINDS


def _when(name: str) -> SpecDict:
    return {"type": "datetime", "description": f"When it was {name}."}


def confirm(e: Entity, rng: random.Random) -> SpecDict:
    prepare = f"prepare_{e.record.name}"
    accepted = {e.number: e.good(), "notify_by": "email"}
    return tool(
        e,
        f"Confirm one {e.words} of the current {e.owner} so that it becomes binding, "
        f"and tell the {e.owner} by the channel chosen.",
        f"The user agrees to go ahead with {an(e.words)} that is still "
        f"{e.statuses[0].replace('_', ' ')}.",
        "write",
        requires=["read"],
        confirmation="token",
        params={
            e.number: e.number_param(),
            "notify_by": {
                "type": "string",
                "enum": ["email", "sms", "none"],
                "description": f"How the {e.owner} is told.",
            },
        },
        returns={
            e.number: e.number_return(),
            "status": e.status_return(),
            "confirmed_at": _when("confirmed"),
        },
        errors={
            "not_found": e.not_found(prepare),
            "already_confirmed": {
                "when": f"The {e.words} was confirmed before.",
                "how_to_fix": f"Tell the user it is already confirmed; call "
                f"{e.names['read']} to show it.",
                "retryable": False,
            },
        },
        examples=calls(accepted, [("notify_by", "pigeon"), (e.number, e.bad())]),
    )


def cancel(e: Entity, rng: random.Random) -> SpecDict:
    verb = KINDS[e.record.kind].cancel
    done = PAST[verb]
    owner = e.owner.replace(" ", "_")
    reasons = [r.format(owner=owner) for r in KINDS[e.record.kind].reasons]
    opening = {
        "cancel": f"Cancel one {e.words} of the current {e.owner} before it goes ahead",
        "void": f"Void one {e.words} of the current {e.owner} so that it no longer counts",
        "close": f"Close one {e.words} of the current {e.owner} for good",
        "remove": f"Remove one {e.words} from the current {e.owner}'s records",
    }[verb]
    return tool(
        e,
        f"{opening}.",
        f"The user wants {an(e.words)} {done} and gives its number.",
        "destructive",
        not_when=[
            nw(
                f"The user wants the {e.words} changed rather than {done}.",
                e.names["update"],
            )
        ],
        requires=["read"],
        idempotency="natural",
        confirmation="approval",
        params={
            e.number: e.number_param(),
            "reason": {
                "type": "string",
                "enum": reasons,
                "description": f"Why the {e.words} is {done}.",
            },
        },
        returns={
            e.number: e.number_return(),
            f"{done}_now": {
                "type": "boolean",
                "description": f"False when it was already {done} before this call.",
            },
        },
        errors={
            "not_found": e.not_found(e.names["cancel"]),
            "too_late": {
                "when": f"The {e.words} can no longer be {done}.",
                "how_to_fix": f"Tell the user it can no longer be {done}; offer "
                f"{e.names['update']} to change it instead.",
                "retryable": False,
            },
        },
        examples=calls(
            {e.number: e.good(), "reason": reasons[0]}, [("reason", "bored")]
        ),
    )


def import_(e: Entity, rng: random.Random) -> SpecDict:
    tool_name = e.names["import"]
    sheet = f"2026/{e.record.plural}.csv"
    return tool(
        e,
        f"Import {e.plural} for the current {e.owner} from a spreadsheet in the "
        f"{e.domain.key.replace('_', ' ')} import folder.",
        f"The user has a spreadsheet of {e.plural} to load in one go.",
        "write",
        not_when=[
            nw(f"The user wants one new {e.words} made by hand.", e.names["create"])
        ],
        idempotency="natural",
        params={
            "file": {
                "type": "path",
                "root": f"{e.domain.key}_imports",
                "suffixes": [".csv", ".xlsx"],
                "example": sheet,
                "description": "The spreadsheet's file name in the import folder.",
            },
            "on_duplicate": {
                "type": "string",
                "enum": ["skip", "update"],
                "default": "skip",
                "description": f"What to do with a row whose {e.words} exists already.",
            },
        },
        returns={
            "imported_rows": {
                "type": "integer",
                "description": "Rows added or updated.",
            },
            "skipped_rows": {
                "type": "integer",
                "description": "Rows left as they were.",
            },
        },
        errors={
            "file_unreadable": {
                "when": "The file is not a spreadsheet that can be read.",
                "how_to_fix": "Ask the user to save it as .csv or .xlsx in the import "
                f"folder, then call {tool_name} again with file set to its name.",
                "retryable": False,
            },
            "row_invalid": {
                "when": "A row does not make a valid record; row_number says which.",
                "how_to_fix": "Tell the user which row failed, then call "
                f"{tool_name} again with file set to the corrected spreadsheet.",
                "retryable": False,
            },
        },
        examples=calls(
            {"file": sheet, "on_duplicate": None},
            [
                ("file", "../outside.csv"),
                ("file", f"/srv/imports/{e.record.plural}.csv"),
                ("file", f"{e.record.plural}.pdf"),
                ("on_duplicate", "merge"),
            ],
        ),
    )


def verify(e: Entity, rng: random.Random) -> SpecDict:
    verb = e.names["verify"].split("_")[0].capitalize()
    host = e.domain.host
    page = f"https://{host}/records/{e.good()}"
    accepted = {e.number: e.good(), "record_url": page}
    return tool(
        e,
        f"{verb} one {e.words} against the record the partner portal publishes for "
        "it, and say whether the two agree.",
        f"The user wants {an(e.words)} compared with what the partner portal shows.",
        "read",
        not_when=[
            nw(
                f"The user only wants their {e.plural} as recorded here.",
                e.names["search"],
            )
        ],
        requires=["read"],
        open_world=True,
        params={
            e.number: e.number_param(),
            "record_url": {
                "type": "url",
                "hosts": [host],
                "hosts_from": f"{e.domain.key}_partners",
                "example": page,
                "description": f"The address of the {e.words} on the partner portal.",
            },
        },
        returns={
            "matches": {
                "type": "boolean",
                "description": "True when the portal's record agrees with this one.",
            },
            "reason": {
                "type": "string",
                "description": "What differs, when matches is false; empty otherwise.",
            },
            "checked_at": _when("checked"),
        },
        errors={
            "portal_unreachable": {
                "when": "The portal did not answer, or answered with an error status.",
                "how_to_fix": "Tell the user the portal cannot be read now; call "
                f"{e.names['verify']} again later with the same record_url.",
                "retryable": True,
            },
            "not_a_record": {
                "when": f"The page at that address is not {an(e.words)}.",
                "how_to_fix": f"Ask the user for the address of the {e.words} itself, "
                f"then call {e.names['verify']} with it as record_url.",
                "retryable": False,
            },
        },
        examples=calls(
            accepted,
            [
                ("record_url", f"http://{host}/records/{e.good()}"),
                ("record_url", "https://169.254.169.254/latest/meta-data/"),
                ("record_url", f"https://{host}.evil.test/records/"),
            ],
        ),
    )


def send(e: Entity, rng: random.Random) -> SpecDict:
    verb = e.names["send"].split("_")[0].capitalize()
    tool_name = e.names["send"]
    accepted = {
        "send_ref": "S-1",
        e.number: e.good(),
        "recipients": ["ana@example.com"],
        "covering_note": None,
    }
    return tool(
        e,
        f"{verb} a copy of one {e.words} of the current {e.owner} to up to five "
        "email addresses.",
        f"The user wants someone else to receive a copy of {an(e.words)}.",
        "write",
        requires=["read"],
        idempotency={"key": ["send_ref"], "context": ["run_id"], "retention": "24h"},
        context=("account_id", "run_id"),
        params={
            "send_ref": {
                "type": "string",
                "pattern": REF,
                "example": "S-1",
                "description": "Your reference for this sending, new for each distinct "
                "one; the same reference again returns the first sending.",
            },
            e.number: e.number_param(),
            "recipients": {
                "type": "array",
                "min_items": 1,
                "max_items": 5,
                "items": {
                    "type": "string",
                    "pattern": EMAIL,
                    "description": "An email address.",
                },
                "description": "Who receives the copy.",
            },
            "covering_note": {
                "type": "string",
                "max_length": 300,
                "optional": True,
                "description": "A line sent above the copy; null for none.",
            },
        },
        returns={
            "recipients_count": {
                "type": "integer",
                "description": "How many addresses were sent the copy.",
            },
            "sent_at": _when("sent"),
        },
        errors={
            "not_found": e.not_found(tool_name),
            "recipient_refused": {
                "when": "An address refused the message; refused lists which.",
                "how_to_fix": "Ask the user for another address, then call "
                f"{tool_name} again with recipients changed and a new send_ref.",
                "retryable": False,
            },
        },
        examples=calls(
            accepted, [("recipients.0", "ana"), ("recipients", []), ("send_ref", "s 1")]
        ),
    )


def assign(e: Entity, rng: random.Random) -> SpecDict:
    staff, prefix = e.domain.staff
    tool_name = e.names["assign"]
    accepted = {e.number: e.good(), "assignee": f"{prefix}-204", "due_on": None}
    return tool(
        e,
        f"Assign one {e.words} of the current {e.owner} to {an(staff)} by badge code.",
        f"The user wants a particular {staff} to take care of {an(e.words)}.",
        "write",
        requires=["read"],
        idempotency="natural",
        params={
            e.number: e.number_param(),
            "assignee": {
                "type": "string",
                "pattern": rf"^{prefix}-\d{{3,5}}$",
                "example": f"{prefix}-204",
                "description": f"The badge code of the {staff} who takes it over.",
            },
            "due_on": {
                "type": "date",
                "optional": True,
                "description": "The day it should be done by; null for no deadline.",
            },
        },
        returns={
            e.number: e.number_return(),
            "assignee": {
                "type": "string",
                "description": f"The {staff} in charge now.",
            },
            "assigned_at": _when("assigned"),
        },
        errors={
            "not_found": e.not_found(tool_name),
            "staff_unavailable": {
                "when": f"That {staff} is away or has no room for more work.",
                "how_to_fix": f"Call {tool_name} again with assignee set to another "
                f"{staff}'s badge code.",
                "retryable": False,
            },
        },
        examples=calls(accepted, [("assignee", "204"), ("due_on", "tomorrow")]),
    )


BUILDERS: dict[str, Callable[[Entity, random.Random], SpecDict]] = {
    "confirm": confirm,
    "cancel": cancel,
    "import": import_,
    "verify": verify,
    "send": send,
    "assign": assign,
}
