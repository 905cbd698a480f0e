"""The description the model reads for a tool, composed by one template for every tool."""

from __future__ import annotations

from typing import Any

from toolgen import templating
from toolgen.spec.ir import Tool
from toolgen.text import listing, sentence


def description_keys(tool: Tool) -> dict[str, Any]:
    """What each key of the tool's contract gives its description, as plain data, in the
    order the description says it: the description is made of these and nothing else, so
    `toolgen diff` can name the keys that changed one (TD104). A prepare tool's intent and
    the names the two tools of a token pair give each other come from the contract's `name`."""
    keys: dict[str, Any] = {
        "intent": "" if tool.role == "prepare" else sentence(tool.intent),
        "use_when": sentence(tool.use_when),
        "not_when": [{"when": sentence(n.when), "use": n.use} for n in tool.not_when],
        "requires": list(tool.requires),
        "effect": tool.effect,
        "idempotency": {
            "kind": tool.idempotency.kind,
            "key": list(tool.idempotency.arguments),
        },
        "confirmation": tool.confirmation,
    }
    pair = tool.token_pair
    if pair is not None:
        keys["name"] = {
            "role": tool.role,
            "prepare": pair.prepare,
            "confirm": pair.confirm,
        }
    return keys


def tool_description(tool: Tool) -> str:
    """The description keys laid out by the template; besides them it reads only the
    tool's role and, for a prepare tool, the intent made from its name (keys["name"])."""
    keys = description_keys(tool)
    keys["intent"] = sentence(tool.intent)
    return templating.render(
        "description.txt.jinja", **keys, role=tool.role, listing=listing
    ).strip()
