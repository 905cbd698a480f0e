"""The realistic catalogue's last tools of each record (bench/realistic_tools.py has the record
and the helpers): count, track, tag, copy, approve, merge, move."""

from __future__ import annotations

import random
from collections.abc import Callable

from realistic_tools import PAST, Entity, SpecDict, an, calls, nw, tool
from realistic_words import KINDS


def _when(name: str) -> SpecDict:
    return {"type": "datetime", "description": f"When it was {name}."}


def count(e: Entity, rng: random.Random) -> SpecDict:
    statuses = e.statuses[:3]
    return tool(
        e,
        f"Count the current {e.owner}'s {e.plural} made over a period, by status.",
        f"The user asks how many {e.plural} they have, or how many are "
        f"{statuses[0].replace('_', ' ')}.",
        "read",
        not_when=[
            nw(
                f"The user wants the {e.plural} themselves listed, not counted.",
                e.names["search"],
            ),
            nw(f"The user asks about one {e.words} by its number.", e.names["read"]),
            nw(
                f"The user asks whether the partner portal agrees with {an(e.words)}.",
                e.names["verify"],
            ),
        ],
        params={
            "period": {
                "type": "string",
                "enum": ["week", "month", "quarter", "year"],
                "default": "month",
                "description": "The period to count over, ending today.",
            },
        },
        returns={
            "total_count": {"type": "integer", "description": f"All {e.plural} made."},
            **{
                f"{status}_count": {
                    "type": "integer",
                    "description": f"Those now {status.replace('_', ' ')}.",
                }
                for status in statuses
            },
            "period_starts_on": {
                "type": "date",
                "description": "The period's first day.",
            },
        },
        examples=calls({"period": None}, [("period", "fortnight")]),
    )


def track(e: Entity, rng: random.Random) -> SpecDict:
    accepted = {
        e.number: e.good(),
        "changed_after": None,
        "cursor": None,
        "page_size": 20,
    }
    return tool(
        e,
        f"Show the history of one {e.words} of the current {e.owner}: who changed it, "
        "when and how, the latest change first.",
        f"The user asks who changed {an(e.words)}, or when it was changed.",
        "read",
        not_when=[
            nw(
                f"The user asks about their {e.plural} in general, not about the "
                f"changes to one {e.words}.",
                e.names["search"],
            ),
            nw(
                f"The user asks how many {e.plural} were made over a period.",
                e.names["count"],
            ),
            nw(
                f"The user asks whether the partner portal agrees with {an(e.words)}.",
                e.names["verify"],
            ),
        ],
        requires=["read"],
        pagination={
            "max_page_size": 100,
            "default_page_size": 20,
            "total": "unknown",
            "noun": "change",
        },
        params={
            e.number: e.number_param(),
            "changed_after": {
                "type": "datetime",
                "optional": True,
                "description": "Only changes made after this moment; null for the "
                "whole history.",
            },
        },
        returns={
            "changed_at": _when("changed"),
            "changed_by": {"type": "string", "description": "Who made the change."},
            "change": {
                "type": "string",
                "enum": ["created", "updated", "assigned", "confirmed", PAST["cancel"]],
                "description": "What changed.",
            },
        },
        examples=calls(
            accepted,
            [("changed_after", "2026-10-09"), ("page_size", 101), (e.number, e.bad())],
        ),
    )


def tag(e: Entity, rng: random.Random) -> SpecDict:
    labels = list(e.domain.labels)
    return tool(
        e,
        f"Set the labels of one {e.words} of the current {e.owner}, replacing the ones "
        "it had.",
        f"The user wants {an(e.words)} marked as {labels[0].replace('_', ' ')}, or "
        "with another label.",
        "write",
        requires=["read"],
        idempotency="natural",
        params={
            e.number: e.number_param(),
            "labels": {
                "type": "array",
                "min_items": 0,
                "max_items": 3,
                "items": {"type": "string", "enum": labels},
                "description": "Its labels, at most three; none to clear them.",
            },
        },
        returns={
            e.number: e.number_return(),
            "labels_count": {
                "type": "integer",
                "description": "How many labels it has.",
            },
        },
        errors={"not_found": e.not_found(e.names["tag"])},
        examples=calls(
            {e.number: e.good(), "labels": [labels[0]]},
            [("labels.0", "misc"), ("labels", labels[:4])],
        ),
    )


def copy(e: Entity, rng: random.Random) -> SpecDict:
    verb = e.names["copy"].split("_")[0].capitalize()
    return tool(
        e,
        f"{verb} one {e.words} of the current {e.owner} into new ones with the same "
        f"lines, each {e.statuses[0].replace('_', ' ')}.",
        f"The user wants another {e.words} like an earlier one.",
        "write",
        not_when=[
            nw(
                f"The user wants {an(e.words)} with other lines, made from scratch.",
                e.names["create"],
            )
        ],
        requires=["read"],
        idempotency="natural",
        params={
            e.number: e.number_param(),
            "copies": {
                "type": "integer",
                "min": 1,
                "max": 5,
                "default": 1,
                "description": "How many new ones to make.",
            },
            "keep_labels": {
                "type": "boolean",
                "default": True,
                "description": "Also give the new ones the labels of the first.",
            },
        },
        returns={
            "first_new_number": {
                "type": "string",
                "description": "The number of the first new one; the others follow it.",
            },
            "copies_made": {"type": "integer", "description": "How many were made."},
        },
        errors={"not_found": e.not_found(e.names["copy"])},
        examples=calls(
            {e.number: e.good(), "copies": None, "keep_labels": False},
            [("copies", 6), ("keep_labels", "yes")],
        ),
    )


def approve(e: Entity, rng: random.Random) -> SpecDict:
    tool_name = e.names["approve"]
    return tool(
        e,
        f"Approve one {e.words} of the current {e.owner} so that it can go ahead.",
        f"The user, as the approver, says {an(e.words)} may go ahead.",
        "write",
        requires=["read"],
        idempotency="natural",
        confirmation="approval",
        params={
            e.number: e.number_param(),
            "comment": {
                "type": "string",
                "max_length": 200,
                "optional": True,
                "description": "A comment kept with the approval; null for none.",
            },
        },
        returns={
            e.number: e.number_return(),
            "status": e.status_return(),
            "approved_at": _when("approved"),
        },
        errors={
            "not_found": e.not_found(tool_name),
            "not_awaiting_approval": {
                "when": f"The {e.words} is not waiting for approval.",
                "how_to_fix": "Tell the user it is not waiting for approval; call "
                f"{e.names['read']} to show its status.",
                "retryable": False,
            },
        },
        examples=calls({e.number: e.good(), "comment": None}, [("comment", "x" * 201)]),
    )


def merge(e: Entity, rng: random.Random) -> SpecDict:
    numbers = f"{e.record.name}_numbers"
    accepted = {numbers: [e.good(), e.good(2077)], "keep": None}
    return tool(
        e,
        f"Merge duplicate {e.plural} of the current {e.owner} into one; the others are "
        f"{PAST[KINDS[e.record.kind].cancel]}.",
        f"The user finds the same {e.words} recorded two or more times.",
        "write",
        requires=["search"],
        idempotency="natural",
        confirmation="approval",
        params={
            numbers: {
                "type": "array",
                "min_items": 2,
                "max_items": 5,
                "items": e.number_param(),
                "description": f"The numbers of the duplicate {e.plural}.",
            },
            "keep": {
                "type": "string",
                "enum": ["oldest", "newest"],
                "default": "oldest",
                "description": "Which one stays.",
            },
        },
        returns={
            "kept_number": {"type": "string", "description": "The number that stays."},
            "merged_count": {
                "type": "integer",
                "description": "How many were merged into it.",
            },
        },
        errors={"not_found": e.not_found(e.names["merge"])},
        examples=calls(accepted, [(numbers, [e.good()]), (f"{numbers}.1", e.bad())]),
    )


def move(e: Entity, rng: random.Random) -> SpecDict:
    sites = list(e.domain.sites)
    tool_name = e.names["move"]
    accepted = {e.number: e.good(), "to_site": sites[1], "effective_on": "2026-11-02"}
    return tool(
        e,
        f"Move one {e.words} of the current {e.owner} to another site from a given day.",
        f"The user wants {an(e.words)} handled at another site.",
        "write",
        requires=["read"],
        idempotency="natural",
        params={
            e.number: e.number_param(),
            "to_site": {
                "type": "string",
                "enum": sites,
                "description": "The site that handles it from then on.",
            },
            "effective_on": {
                "type": "date",
                "example": "2026-11-02",
                "description": "The first day at the new site.",
            },
        },
        returns={
            e.number: e.number_return(),
            "site": {"type": "string", "enum": sites, "description": "Its site now."},
            "effective_on": {"type": "date", "description": "The first day there."},
        },
        errors={
            "not_found": e.not_found(tool_name),
            "site_full": {
                "when": "The new site has no room on that day.",
                "how_to_fix": f"Call {tool_name} again with another to_site, or a later "
                "effective_on.",
                "retryable": True,
            },
        },
        examples=calls(accepted, [("to_site", "moon"), ("effective_on", None)]),
    )


BUILDERS: dict[str, Callable[[Entity, random.Random], SpecDict]] = {
    "count": count,
    "track": track,
    "tag": tag,
    "copy": copy,
    "approve": approve,
    "merge": merge,
    "move": move,
}
