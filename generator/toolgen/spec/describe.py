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
    keys = description_keys(tool)
    pair = keys.get("name", {})
    return templating.render(
        "description.txt.jinja",
        # a prepare tool's intent is made from its name (keys["name"])
        intent=sentence(tool.intent),
        use_when=keys["use_when"],
        not_when=keys["not_when"],
        requires=listing(keys["requires"]),
        effect=keys["effect"],
        idempotency=keys["idempotency"]["kind"],
        # what the model reads about repeating a call and about confirmation (issue 9):
        # one plain sentence each, said once, without emphasis (emphasis is no defence;
        # the runtime is)
        key_fields=listing(keys["idempotency"]["key"]),
        confirmation=keys["confirmation"],
        role=tool.role,
        prepare_tool=pair.get("prepare", ""),
        confirm_tool=pair.get("confirm", ""),
    ).strip()
