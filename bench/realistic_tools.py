"""The seventeen tools of every record of the realistic catalogue (bench/realistic.py), one
builder each: a record's words and a seeded generator in, the tool's YAML as a dictionary out.

Each builder refers only to the tools of its record made before it (TEMPLATES is their order),
so the first N tools of the catalogue are a catalogue of their own.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from realistic_words import DOMAINS, KINDS, Domain, Record

SpecDict = dict[str, Any]
TEMPLATES = (
    "search", "read", "create", "update", "confirm", "cancel", "import", "verify", "send",
    "assign", "count", "track", "tag", "copy", "approve", "merge", "move",
)  # fmt: skip
PAST = {"cancel": "cancelled", "void": "voided", "close": "closed", "remove": "removed"}
PRIORITIES = [1, 2, 3]
EMAIL = r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$"
REF = r"^[A-Z0-9-]{1,20}$"


def record_of(number: int) -> tuple[Domain, Record]:
    """The number-th record: they go round the domains, the clinic's first."""
    domain = DOMAINS[number % len(DOMAINS)]
    return domain, domain.records[number // len(DOMAINS)]


def an(words: str) -> str:
    return f"an {words}" if words[0] in "aeiou" else f"a {words}"


@dataclass(frozen=True, slots=True)
class Entity:
    """One record of one domain, with the names of its tools."""

    domain: Domain
    record: Record
    names: dict[str, str]  # template -> tool name
    rng_seed: str

    @property
    def owner(self) -> str:
        return self.domain.owner

    @property
    def words(self) -> str:
        return self.record.words

    @property
    def plural(self) -> str:
        return self.record.plural_words

    @property
    def statuses(self) -> list[str]:
        return list(KINDS[self.record.kind].statuses)

    @property
    def number(self) -> str:
        return f"{self.record.name}_number"

    def good(self, serial: int = 1042) -> str:
        return f"{self.record.prefix}-{serial}"

    def bad(self) -> str:
        return f"{self.record.prefix.lower()}-1042"

    def number_param(self) -> SpecDict:
        return {
            "type": "string",
            "pattern": rf"^{self.record.prefix}-\d{{4,8}}$",
            "example": self.good(),
            "description": f"The {self.words} number, as the {self.owner} sees it.",
        }

    def number_return(self) -> SpecDict:
        return {"type": "string", "description": f"The {self.words} number."}

    def status_return(self) -> SpecDict:
        return {
            "type": "string",
            "enum": self.statuses,
            "description": f"Where the {self.words} stands now.",
        }

    def not_found(self, tool: str) -> SpecDict:
        return {
            "when": f"The current {self.owner} has no {self.words} with this number.",
            "how_to_fix": f"Call {self.names['search']} to list the {self.owner}'s "
            f"{self.plural}, then call {tool} again with one of their numbers.",
            "retryable": False,
        }

    def measure(self) -> tuple[str, SpecDict]:
        name, words, _ = KINDS[self.record.kind].measure
        kind = "number" if name.endswith("_eur") else "integer"
        return name, {"type": kind, "description": f"{words}."}


def entity(number: int) -> Entity:
    domain, record = record_of(number)
    seed = f"toolgen-bench-realistic-{number}"
    rng = random.Random(seed)
    one, many = record.name, record.plural

    def pick(*verbs: str) -> str:
        return rng.choice(verbs)

    names = {
        "search": f"{pick('search', 'list', 'find', 'browse')}_{many}",
        "read": f"{pick('read', 'get', 'show', 'view')}_{one}",
        "create": f"{record.create}_{one}",
        "update": f"{pick('update', 'change', 'amend', 'edit')}_{one}",
        "confirm": f"confirm_{one}",
        "cancel": f"{KINDS[record.kind].cancel}_{one}",
        "import": f"import_{many}",
        "verify": f"{pick('verify', 'validate')}_{one}",
        "send": f"{pick('send', 'share', 'forward', 'email')}_{one}",
        "assign": f"assign_{one}",
        "count": f"{pick('count', 'summarize')}_{many}",
        "track": f"{pick('track', 'audit')}_{one}",
        "tag": f"{pick('tag', 'label')}_{one}",
        "copy": f"{pick('copy', 'duplicate', 'clone')}_{one}",
        "approve": f"approve_{one}",
        "merge": f"merge_{many}",
        "move": f"move_{one}",
    }
    return Entity(domain, record, names, seed)


# --- assembling a tool ------------------------------------------------------------------------


def nw(when: str, use: str) -> SpecDict:
    return {"when": when, "use": use}


def calls(accepted: SpecDict, rejected: Sequence[tuple[str, Any]]) -> list[SpecDict]:
    """The accepted call, then one call per (field, bad value) rejected on that field (a
    dotted field names a nested one: `lines.0.quantity` sets that item's field)."""
    found: list[SpecDict] = [{"args": accepted}]
    for field, value in rejected:
        args = _with(accepted, field.split("."), value)
        found.append({"args": args, "rejected_on": field})
    return found


def _with(args: Any, path: list[str], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(args, list):
        copy = list(args)
        copy[int(head)] = _with(copy[int(head)], rest, value)
        return copy
    return {**args, head: _with(args.get(head), rest, value)}


def tool(
    e: Entity,
    intent: str,
    use_when: str,
    effect: str,
    *,
    params: SpecDict,
    returns: SpecDict,
    examples: list[SpecDict],
    not_when: Sequence[SpecDict] = (),
    requires: Sequence[str] = (),
    errors: SpecDict | None = None,
    context: Sequence[str] = ("account_id",),
    **more: Any,
) -> SpecDict:
    """The tool's keys in the order a person writes them."""
    spec: SpecDict = {"intent": intent, "use_when": use_when}
    if not_when:
        spec["not_when"] = list(not_when)
    if requires:
        spec["requires"] = [e.names[name] for name in requires]
    spec["effect"] = effect
    spec.update(more)
    spec["context"] = list(context)
    spec["params"] = params
    spec["returns"] = returns
    if errors:
        spec["errors"] = errors
    spec["examples"] = examples
    return spec


# --- the tools --------------------------------------------------------------------------------


def search(e: Entity, rng: random.Random) -> SpecDict:
    verb = e.names["search"].split("_")[0]
    opening = {
        "search": f"Search the current {e.owner}'s {e.plural} by status, priority and day",
        "list": f"List the current {e.owner}'s {e.plural}",
        "find": f"Find the current {e.owner}'s {e.plural} that match a status or a priority",
        "browse": f"Browse the current {e.owner}'s {e.plural} page by page",
    }[verb]
    measure, measured = e.measure()
    cap = rng.choice((20, 50, 100))
    accepted = {"status": None, "priority": None, "since": None}
    page = {"cursor": None, "page_size": 10}
    return tool(
        e,
        f"{opening}, newest first.",
        f"The user asks about their {e.plural} in general, or about {an(e.words)} "
        "whose number they do not have.",
        "read",
        pagination={
            "max_page_size": cap,
            "default_page_size": 10,
            "total": rng.choice(("counted", "expensive")),
            "noun": e.words,
        },
        params={
            "status": {
                "type": "string",
                "enum": e.statuses,
                "optional": True,
                "description": f"Only {e.plural} in this status; null for any status.",
            },
            "priority": {
                "type": "integer",
                "enum": PRIORITIES,
                "optional": True,
                "description": f"Only {e.plural} of this priority, 1 the most urgent; "
                "null for any priority.",
            },
            "since": {
                "type": "date",
                "optional": True,
                "example": "2026-10-09",
                "description": f"Only {e.plural} made on or after this day; null for any day.",
            },
        },
        returns={
            e.number: e.number_return(),
            "status": e.status_return(),
            "created_on": {"type": "date", "description": "The day it was made."},
            measure: measured,
        },
        examples=[
            *calls(
                {**accepted, **page},
                [
                    ("status", "pending_review"),
                    ("priority", 4),
                    ("since", "09/10/2026"),
                    ("page_size", cap + 1),
                ],
            ),
            {"args": {**accepted, "status": e.statuses[0], "priority": 1, **page}},
        ],
    )


def read(e: Entity, rng: random.Random) -> SpecDict:
    measure, measured = e.measure()
    verb = e.names["read"].split("_")[0].capitalize()
    return tool(
        e,
        f"{verb} one {e.words} of the current {e.owner} by its number: its status, "
        f"site, priority and who handles it.",
        f"The user gives {an(e.words)} number and asks where it stands.",
        "read",
        not_when=[
            nw(
                f"The user asks about their {e.plural} in general, without a number.",
                e.names["search"],
            )
        ],
        params={e.number: e.number_param()},
        returns={
            e.number: e.number_return(),
            "status": e.status_return(),
            "site": {
                "type": "string",
                "enum": list(e.domain.sites),
                "description": f"The site that handles the {e.words}.",
            },
            "priority": {
                "type": "integer",
                "enum": PRIORITIES,
                "description": "Its priority, 1 the most urgent.",
            },
            "handled_by": {
                "type": "string",
                "description": f"The badge code of the {e.domain.staff[0]} in charge.",
            },
            "updated_at": {"type": "datetime", "description": "When it last changed."},
            measure: measured,
        },
        errors={"not_found": e.not_found(e.names["read"])},
        examples=calls({e.number: e.good()}, [(e.number, e.bad())]),
    )


def _create_params(e: Entity, code: str, rng: random.Random) -> SpecDict:
    """A reference, lines (an array of objects) and a location (an object holding one)."""
    item, item_prefix = e.domain.item
    most = rng.choice((10, 20, 50))
    return {
        "request_ref": {
            "type": "string",
            "pattern": REF,
            "example": "R-1",
            "description": f"Your reference for this {e.words}, new for each distinct "
            f"{e.words}; the same reference again returns the first one.",
        },
        "lines": {
            "type": "array",
            "min_items": 1,
            "max_items": most,
            "description": f"One line per {item}.",
            "items": {
                "type": "object",
                "properties": {
                    code: {
                        "type": "string",
                        "pattern": rf"^{item_prefix}-\d{{2,6}}$",
                        "example": f"{item_prefix}-11",
                        "description": f"The {item} code.",
                    },
                    "quantity": {
                        "type": "integer",
                        "min": 1,
                        "max": rng.choice((10, 100, 1000)),
                        "description": f"How many of this {item}.",
                    },
                    "unit_price_eur": {
                        "type": "number",
                        "min": 0,
                        "max": 100000,
                        "optional": True,
                        "description": "The agreed price of one, in euros; null for "
                        "the list price.",
                    },
                },
            },
        },
        "location": {
            "type": "object",
            "optional": True,
            "description": f"Where and when the {e.words} is handled; null for the "
            f"{e.owner}'s usual site at the first free time.",
            "properties": {
                "site": {
                    "type": "string",
                    "enum": list(e.domain.sites),
                    "description": "The site.",
                },
                "window": {
                    "type": "object",
                    "optional": True,
                    "description": "When it starts and how long it takes; null for "
                    "the first free time.",
                    "properties": {
                        "starts_at": {
                            "type": "datetime",
                            "description": "When it starts.",
                        },
                        "duration_min": {
                            "type": "integer",
                            "min": 15,
                            "max": 480,
                            "description": "How long it takes, in minutes.",
                        },
                    },
                },
            },
        },
    }


def create(e: Entity, rng: random.Random) -> SpecDict:
    item, item_prefix = e.domain.item
    code = f"{item.replace(' ', '_')}_code"
    verb = e.record.create.capitalize()
    me = e.names["create"]
    line = {code: f"{item_prefix}-11", "quantity": 2, "unit_price_eur": None}
    where = {
        "site": e.domain.sites[0],
        "window": {"starts_at": "2026-10-09T14:30:00+02:00", "duration_min": 60},
    }
    accepted = {"request_ref": "R-1", "lines": [line], "location": where}
    return tool(
        e,
        f"{verb} {an(e.words)} for the current {e.owner}, listing the {item}s it covers.",
        f"The user wants a new {e.words} and says which {item}s it covers.",
        "write",
        not_when=[
            nw(f"The user only asks about an existing {e.words}.", e.names["read"])
        ],
        idempotency={
            "key": ["request_ref"],
            "context": ["run_id"],
            "retention": rng.choice(("24h", "7d", "30d")),
        },
        context=("account_id", "run_id"),
        params=_create_params(e, code, rng),
        returns={
            e.number: {"type": "string", "description": f"The new {e.words}'s number."},
            "status": e.status_return(),
            "created_at": {"type": "datetime", "description": "When it was made."},
            "total_eur": {"type": "number", "description": "Its total, in euros."},
        },
        errors={
            f"unknown_{code}": {
                "when": f"A line names no known {item}; known_codes lists the codes.",
                "how_to_fix": f"Call {me} again with {code} set to one of known_codes "
                "in each line, and the same request_ref.",
                "retryable": False,
            },
            "site_closed": {
                "when": "The site is closed at that time; opens_at says when it reopens.",
                "how_to_fix": f"Wait until opens_at, then call {me} again with the "
                "same request_ref.",
                "retryable": True,
            },
        },
        examples=[
            *calls(
                accepted,
                [
                    ("request_ref", "r-1"),
                    ("lines.0.quantity", 0),
                    ("location.site", "nowhere"),
                    ("location.window.starts_at", "2026-10-09 14:30"),
                ],
            ),
            {"args": {**accepted, "location": None}},
        ],
    )


def update(e: Entity, rng: random.Random) -> SpecDict:
    verb = e.names["update"].split("_")[0].capitalize()
    me = e.names["update"]
    accepted = {e.number: e.good(), "status": e.statuses[1], "priority": None}
    return tool(
        e,
        f"{verb} the status and the priority of one {e.words} of the current {e.owner}.",
        f"The user wants {an(e.words)} moved to another status or given another "
        "priority.",
        "write",
        not_when=[
            nw(
                f"The user wants a new {e.words} rather than a change to one.",
                e.names["create"],
            )
        ],
        requires=["read"],
        idempotency="natural",
        params={
            e.number: e.number_param(),
            "status": {
                "type": "string",
                "enum": e.statuses,
                "description": f"The {e.words}'s new status.",
            },
            "priority": {
                "type": "integer",
                "enum": PRIORITIES,
                "default": 2,
                "description": "Its new priority, 1 the most urgent.",
            },
        },
        returns={
            e.number: e.number_return(),
            "status": e.status_return(),
            "priority": {
                "type": "integer",
                "enum": PRIORITIES,
                "description": "Its priority now.",
            },
            "changed": {
                "type": "boolean",
                "description": "False when it already had this status and priority.",
            },
            "reason": {
                "type": "string",
                "description": "Why nothing changed, when changed is false; empty "
                "otherwise.",
            },
        },
        errors={
            "not_found": e.not_found(me),
            "locked": {
                "when": f"Someone else is changing the {e.words} right now.",
                "how_to_fix": f"Wait a minute, then call {me} again with the same "
                "arguments.",
                "retryable": True,
            },
        },
        examples=calls(accepted, [("status", "paused"), ("priority", 0)]),
    )


BUILDERS: dict[str, Callable[[Entity, random.Random], SpecDict]] = {
    "search": search,
    "read": read,
    "create": create,
    "update": update,
}
