"""The synthetic catalogue of the build figures: N distinct tools, written as toolgen YAML.

Tool `i` is the same at every size (a catalogue of N tools is the first N), so figures at 10,
100, 1,000 and 5,000 tools differ only in how many tools there are. Each tool is drawn from a
seeded generator: five actions (read, create, update, delete, send) on objects named from a
qualifier and a noun (`read_freightinvoice`: "freight invoice"), with the action's own
parameters plus one to three drawn from a pool that covers every parameter type (string with
a pattern, an enum or lengths, integer, number, boolean, date, datetime, array of enums,
array of objects, nested objects two deep), optional and default values, three to six return
fields, one to three error codes, `requires` and `not_when` between the tools of one object,
an accepted and a rejected example. The catalogue is clean: `toolgen check` reports no error
and no warning at any size, so the figures time the work a real catalogue costs, not the
printing of findings.

bench/openapi_doc.py writes the same tools as OpenAPI operations; bench/sizes.py shows the two
inputs are the same size.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

QUALIFIERS = (
    "freight", "retail", "supplier", "customs", "fleet", "warranty", "payroll", "tenant",
    "clinic", "studio", "harbour", "vineyard", "library", "campus", "airport", "garage",
    "bakery", "factory", "hotel", "pharmacy", "museum", "farm", "depot", "kiosk", "market",
    "school", "stadium", "theatre", "winery", "workshop", "marina", "quarry", "salon",
    "gallery",
)  # fmt: skip
NOUNS = (
    "invoice", "parcel", "ticket", "voucher", "pallet", "crate", "permit", "tariff", "quota",
    "booking", "contract", "shipment", "lease", "claim", "badge", "licence", "coupon",
    "manifest", "delivery", "inspection", "appointment", "subscription", "container",
    "requisition", "timesheet", "receipt", "estimate", "ledger", "batch", "consignment",
)  # fmt: skip
# (verb, effect): one verb per class of the lint vocabulary, so no two tools of one object
# do the same kind of thing
ACTIONS = (
    ("read", "read"),
    ("create", "write"),
    ("update", "write"),
    ("delete", "destructive"),
    ("send", "write"),
)
REGIONS = ("north", "south", "east", "west", "central")
CHANNELS = ("email", "sms", "post", "portal")
REASONS = ("duplicate", "damaged", "late", "wrong_item", "customer_request")
CONTEXT = {
    "customer_id": {
        "type": "integer",
        "description": "The authenticated customer, set by the application.",
    },
    "run_id": {
        "type": "string",
        "description": "The identifier of the current agent run, set by the application.",
    },
}


def object_name(index: int) -> tuple[str, str]:
    """The index-th object as (name, words): 1,020 objects, 5,100 tools at most."""
    qualifier = QUALIFIERS[index % len(QUALIFIERS)]
    noun = NOUNS[(index // len(QUALIFIERS)) % len(NOUNS)]
    if index >= len(QUALIFIERS) * len(NOUNS):
        raise ValueError(f"the synthetic catalogue has at most {max_tools()} tools")
    # one word in names (read_freightinvoice): the lint rules take tools whose names share a
    # word for neighbours, and a clean catalogue would tell every such pair apart
    return f"{qualifier}{noun}", f"{qualifier} {noun}"


def max_tools() -> int:
    return len(QUALIFIERS) * len(NOUNS) * len(ACTIONS)


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter: its spec, a value it accepts, one it rejects and the field blamed."""

    name: str
    spec: dict[str, Any]
    good: Any
    bad: Any
    blamed: str = ""  # the dotted field the bad value is rejected on; default: the name

    @property
    def rejected_on(self) -> str:
        return self.blamed or self.name


def _code(words: str, prefix: str) -> Param:
    return Param(
        "code",
        {
            "type": "string",
            "pattern": rf"^{prefix}-\d{{4,8}}$",
            "example": f"{prefix}-1234",
            "description": f"The {words} code, as printed on the {words}.",
        },
        f"{prefix}-1234",
        f"{prefix.lower()}-12",
    )


def _pool(words: str, rng: random.Random) -> list[Param]:
    """Parameters any action may take, one of each type the format knows."""
    low, high = rng.randint(1, 5), rng.randint(20, 200)
    return [
        Param(
            "region",
            {
                "type": "string",
                "enum": list(REGIONS[: rng.randint(2, 5)]),
                "optional": True,
                "description": f"Only a {words} of this region; null for any region.",
            },
            "north",
            "nowhere",
        ),
        Param(
            "max_results",
            {
                "type": "integer",
                "min": low,
                "max": high,
                "default": low + 5,
                "description": f"Most {words} lines to return.",
            },
            low + 1,
            high + 1,
        ),
        Param(
            "since",
            {
                "type": "date",
                "optional": True,
                "example": "2026-10-09",
                "description": f"Only {words} changes on or after this day; null for any day.",
            },
            "2026-10-09",
            "09/10/2026",
        ),
        Param(
            "due_at",
            {
                "type": "datetime",
                "optional": True,
                "description": f"When the {words} is due; null for no due time.",
            },
            "2026-10-09T14:30:00+02:00",
            "2026-10-09 14:30",
        ),
        Param(
            "include_archived",
            {
                "type": "boolean",
                "default": False,
                "description": f"Also consider archived {words} records.",
            },
            True,
            "yes",
        ),
        Param(
            "channels",
            {
                "type": "array",
                "min_items": 1,
                "max_items": len(CHANNELS),
                "items": {"type": "string", "enum": list(CHANNELS)},
                "description": f"How the {words} holder is told, one or more channels.",
            },
            ["email"],
            [],
        ),
        Param(
            "weight_kg",
            {
                "type": "number",
                "min": 0,
                "max": rng.choice((50, 500, 5000)),
                "optional": True,
                "description": f"The declared weight of the {words}; null when unknown.",
            },
            12.5,
            -1,
        ),
        Param(
            "amount_eur",
            {
                "type": "number",
                "min": 0.01,
                "max": rng.choice((500, 5000, 50000)),
                "example": 19.9,
                "optional": True,
                "description": f"The amount of the {words}, in euros; null for the full amount.",
            },
            19.9,
            0,
        ),
        Param(
            "note",
            {
                "type": "string",
                "min_length": 1,
                "max_length": rng.choice((200, 500, 1000)),
                "optional": True,
                "description": f"A note kept with the {words} for the next reader.",
            },
            "Left at the back door.",
            "",
        ),
        Param(
            "deliver_to",
            {
                "type": "object",
                "optional": True,
                "description": f"Where the {words} goes; null for the main site.",
                "properties": {
                    "site": {
                        "type": "string",
                        "enum": list(REGIONS),
                        "description": "The receiving site.",
                    },
                    "dock": {
                        "type": "integer",
                        "optional": True,
                        "min": 1,
                        "max": rng.randint(4, 40),
                        "description": "The unloading dock; null for any dock.",
                    },
                    "window": {
                        "type": "object",
                        "optional": True,
                        "description": "The delivery window; null for any time.",
                        "properties": {
                            "opens_on": {
                                "type": "date",
                                "description": "The first day of the window.",
                            },
                            "days": {
                                "type": "integer",
                                "min": 1,
                                "max": 30,
                                "description": "How many days the window stays open.",
                            },
                        },
                    },
                },
            },
            {"site": "north", "dock": None, "window": None},
            {"site": "nowhere", "dock": None, "window": None},
            "deliver_to.site",
        ),
    ]


def _lines(words: str, rng: random.Random) -> Param:
    return Param(
        "lines",
        {
            "type": "array",
            "min_items": 1,
            "max_items": rng.choice((10, 20, 50)),
            "description": f"One line per item of the {words}.",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {
                        "type": "string",
                        "pattern": r"^SKU-\d{2,6}$",
                        "example": "SKU-11",
                        "description": "The product code.",
                    },
                    "quantity": {
                        "type": "integer",
                        "min": 1,
                        "max": rng.choice((100, 1000, 10000)),
                        "description": "Pieces on this line.",
                    },
                    "unit_price_eur": {
                        "type": "number",
                        "min": 0,
                        "max": 100000,
                        "optional": True,
                        "description": "The agreed price of one piece; null for the list price.",
                    },
                },
            },
        },
        [{"sku": "SKU-11", "quantity": 5, "unit_price_eur": None}],
        [{"sku": "SKU-11", "quantity": 0, "unit_price_eur": None}],
        "lines.0.quantity",
    )


def _action_params(verb: str, obj: str, words: str, rng: random.Random) -> list[Param]:
    # the code's prefix names the object: FI-1234 for a freight invoice
    code = _code(words, "".join(part[0] for part in words.split()).upper())
    if verb == "read":
        return [code]
    if verb == "create":
        return [_lines(words, rng)]
    if verb == "update":
        status = Param(
            "status",
            {
                "type": "string",
                "enum": ["open", "on_hold", "closed"],
                "description": f"The new status of the {words}.",
            },
            "on_hold",
            "paused",
        )
        return [code, status]
    if verb == "delete":
        reason = Param(
            "reason",
            {
                "type": "string",
                "enum": list(REASONS),
                "description": f"Why the {words} is deleted.",
            },
            "duplicate",
            "whatever",
        )
        return [code, reason]
    if verb == "send":
        recipients = Param(
            "recipient_ids",
            {
                "type": "array",
                "min_items": 1,
                "max_items": 10,
                "items": {
                    "type": "string",
                    "pattern": r"^R-\d{3,6}$",
                    "description": "A recipient id from the address book.",
                },
                "description": f"Who receives the {words}, by address-book id.",
            },
            ["R-100"],
            ["bob"],
            "recipient_ids.0",
        )
        return [code, recipients]
    raise ValueError(f"unknown action {verb}")


def _returns(verb: str, words: str, rng: random.Random) -> dict[str, Any]:
    returns: dict[str, Any] = {
        "code": {"type": "string", "description": f"The {words} code."},
    }
    extras: list[tuple[str, dict[str, Any]]] = [
        (
            "status",
            {
                "type": "string",
                "enum": ["open", "on_hold", "closed"],
                "description": f"Where the {words} stands now.",
            },
        ),
        (
            "total_eur",
            {"type": "number", "description": f"The {words} total, in euros."},
        ),
        (
            "lines_count",
            {"type": "integer", "description": f"How many lines the {words} has."},
        ),
        (
            "updated_on",
            {"type": "date", "description": f"The day the {words} last changed."},
        ),
        ("region", {"type": "string", "description": f"The region of the {words}."}),
    ]
    for name, spec in rng.sample(extras, rng.randint(2, 4)):
        returns[name] = spec
    if verb != "read":
        returns["done"] = {
            "type": "boolean",
            "description": f"False when this call repeated an earlier one on the {words}.",
        }
        returns["reason"] = {
            "type": "string",
            "description": "Why nothing changed, when done is false; empty otherwise.",
        }
    return returns


def _errors(tool: str, words: str, rng: random.Random) -> dict[str, Any]:
    errors: dict[str, Any] = {
        "unknown_code": {
            "when": f"No {words} has this code.",
            "how_to_fix": f"Call {tool} again with code set to an existing {words} code.",
            "retryable": False,
        }
    }
    more = [
        (
            "locked",
            {
                "when": f"Someone else is changing the {words}.",
                "how_to_fix": f"Wait a minute, then call {tool} again with the same arguments.",
                "retryable": True,
            },
        ),
        (
            "over_limit",
            {
                "when": f"The {words} is over the customer's limit.",
                "how_to_fix": f"Call {tool} again with a smaller max_results.",
                "retryable": False,
            },
        ),
    ]
    for name, spec in more[: rng.randint(0, 2)]:
        errors[name] = spec
    return errors


MOST_FIELDS = 10  # lint's TG506: more parameters (nested fields included) is a warning


def _field_count(params: list[Param]) -> int:
    def count(spec: dict[str, Any]) -> int:
        nested = spec.get("properties") or spec.get("items", {}).get("properties") or {}
        return 1 + sum(count(child) for child in nested.values())

    return sum(count(p.spec) for p in params)


def _boundaries(verb: str, obj: str, words: str) -> dict[str, Any]:
    """requires and not_when: every tool names each earlier tool of its object, so the model
    is told apart the neighbours that act on one object (lint TG303)."""
    tool = {verb: f"{verb}_{obj}" for verb, _ in ACTIONS}
    when = {
        "create": [(f"The user only asks about an existing {words}.", "read")],
        "update": [(f"The user wants a new {words} rather than a change.", "create")],
        "delete": [
            (f"The user wants the {words} kept but closed.", "update"),
            (f"The user wants a fresh {words} made in its place.", "create"),
        ],
        "send": [
            (f"The user wants a new {words} made rather than one sent.", "create"),
            (f"The user wants the {words} closed before anyone sees it.", "update"),
            (f"The user wants the {words} deleted rather than shared.", "delete"),
        ],
    }
    found: dict[str, Any] = {}
    if verb not in ("read", "create"):
        found["requires"] = [tool["read"]]
    if verb in when:
        found["not_when"] = [
            {"when": text, "use": tool[use]} for text, use in when[verb]
        ]
    return found


INTENTS = {
    "read": "Read one {words} of the current customer by its code.",
    "create": "Create a {words} for the current customer from a list of lines.",
    "update": "Change the status of one {words} of the current customer.",
    "delete": "Delete one {words} of the current customer for good.",
    "send": "Send one {words} to people in the customer's address book.",
}
USE_WHEN = {
    "read": "The user asks about a {words} and gives its code.",
    "create": "The user wants a new {words} and lists what it holds.",
    "update": "The user wants a {words} put on hold, reopened or closed.",
    "delete": "The user wants a {words} made by mistake gone for good.",
    "send": "The user wants someone to receive a copy of a {words}.",
}


def tool_spec(index: int) -> dict[str, Any]:
    """The index-th tool as the dictionary its YAML file holds."""
    verb, effect = ACTIONS[index % len(ACTIONS)]
    obj, words = object_name(index // len(ACTIONS))
    name = f"{verb}_{obj}"
    rng = random.Random(f"toolgen-bench-{index}")
    params = _action_params(verb, obj, words, rng)
    taken = {p.name for p in params}
    pool = [p for p in _pool(words, rng) if p.name not in taken]
    for extra in rng.sample(pool, rng.randint(1, 3)):
        if _field_count([*params, extra]) <= MOST_FIELDS:
            params.append(extra)
    accepted = {p.name: p.good for p in params}
    blamed = params[-1]
    rejected = {**accepted, blamed.name: blamed.bad}
    spec: dict[str, Any] = {
        "name": name,
        "intent": INTENTS[verb].format(words=words),
        "use_when": USE_WHEN[verb].format(words=words),
        **_boundaries(verb, obj, words),
        "effect": effect,
    }
    if effect != "read":
        spec["idempotency"] = "natural"
    spec["context"] = ["customer_id", "run_id"] if effect != "read" else ["customer_id"]
    spec["params"] = {p.name: p.spec for p in params}
    spec["returns"] = _returns(verb, words, rng)
    spec["errors"] = _errors(name, words, rng)
    spec["examples"] = [
        {"args": accepted},
        {"args": rejected, "rejected_on": blamed.rejected_on},
    ]
    if effect == "destructive":
        spec["suppress"] = [
            {
                "rule": "TG702",
                "reason": "Format 1 cannot declare a confirmation yet; the application "
                "asks the user before any delete.",
            }
        ]
    return spec


def tool_specs(count: int) -> Iterator[dict[str, Any]]:
    if count > max_tools():
        raise ValueError(f"the synthetic catalogue has at most {max_tools()} tools")
    return (tool_spec(index) for index in range(count))


CATALOGUE_NAME = "bench"


def catalogue_spec() -> dict[str, Any]:
    return {
        "format": 1,
        "name": CATALOGUE_NAME,
        "description": "A synthetic catalogue of many services, for benchmarks.",
        "context": CONTEXT,
        # a catalogue of thousands of tools is the point here: the per-agent limits on the
        # number of tools (TG951, TG952) and a token budget (TG955) do not apply to it
        "lint": {"ignore": ["TG951", "TG952", "TG955"]},
    }


class _Dumper(yaml.SafeDumper):
    """Writes every value out: toolgen refuses anchors and aliases (TG004)."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def _dump(data: object) -> str:
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
    )


def write_catalogue(root: Path, count: int) -> Path:
    """spec/bench/ under root with `count` tools; returns the catalogue folder."""
    folder = root / "spec" / CATALOGUE_NAME
    (folder / "tools").mkdir(parents=True, exist_ok=True)
    (folder / "catalogue.yaml").write_text(_dump(catalogue_spec()), encoding="utf-8")
    for spec in tool_specs(count):
        path = folder / "tools" / f"{spec['name']}.yaml"
        path.write_text(_dump(spec), encoding="utf-8")
    return folder
