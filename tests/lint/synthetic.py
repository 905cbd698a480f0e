"""A synthetic catalogue of many tools, for timing lint and token counting.

100 objects (invoice, shipment, ...) times 10 actions make 1,000 tools; the ten tools of one
object share it, so the pair rules see 4,500 pairs, as in a real catalogue of a hundred
services. Each tool has three parameters, three return fields, an error and an example.
"""

from __future__ import annotations

from pathlib import Path

ACTIONS = (
    ("read", "read"),
    ("list", "read"),
    ("check", "read"),
    ("create", "write"),
    ("update", "write"),
    ("approve", "write"),
    ("archive", "write"),
    ("send", "write"),
    ("refund", "write"),
    ("export", "read"),
)
OBJECTS = tuple(
    f"{a}{b}"
    for a in ("sea", "sun", "oak", "ash", "elm", "fir", "bay", "dew", "ivy", "yew")
    for b in ("ledger", "parcel", "ticket", "voucher", "pallet", "crate", "batch", "permit",
              "tariff", "quota")
)  # fmt: skip


def tool_yaml(verb: str, effect: str, obj: str) -> str:
    name = f"{verb}_{obj}"
    idempotency = "idempotency: natural\n" if effect == "write" else ""
    return f"""name: {name}
intent: {verb.capitalize()} one {obj} of the current customer by its code.
use_when: The user asks to {verb} a {obj} and gives its code.
effect: {effect}
{idempotency}context: [customer_id]
params:
  code:
    type: string
    pattern: '^[A-Z]{{2}}-\\d{{4}}$'
    example: AB-1234
    description: The {obj} code.
  max_results:
    type: integer
    min: 1
    max: 50
    default: 10
    description: Most {obj} lines to return.
  region:
    type: string
    enum: [north, south, east, west]
    description: The region the {obj} belongs to.
returns:
  code:
    type: string
    description: The {obj} code.
  weight_kg:
    type: number
    description: The weight of the {obj}.
  status:
    type: string
    enum: [open, closed]
    description: Where the {obj} stands.
errors:
  unknown_code:
    how_to_fix: Call {name} again with code set to an existing {obj} code.
examples:
  - args: {{code: AB-1234, max_results: 5, region: north}}
"""


def write_catalogue(folder: Path, tools: int = 1000) -> Path:
    (folder / "tools").mkdir(parents=True, exist_ok=True)
    (folder / "catalogue.yaml").write_text(
        "format: 1\n"
        "name: synthetic\n"
        "description: A synthetic catalogue for timing lint.\n"
        "context:\n"
        "  customer_id: {type: integer, description: The authenticated customer.}\n"
        "budget:\n"
        "  tokens: 1000000\n",
        encoding="utf-8",
    )
    made = 0
    for obj in OBJECTS:
        for verb, effect in ACTIONS:
            if made == tools:
                return folder
            text = tool_yaml(verb, effect, obj)
            (folder / "tools" / f"{verb}_{obj}.yaml").write_text(text, encoding="utf-8")
            made += 1
    return folder
