"""The description the model reads for a tool, composed by one template for every tool."""

from __future__ import annotations

from toolgen import templating
from toolgen.ir import Tool
from toolgen.text import listing, sentence


def tool_description(tool: Tool) -> str:
    text = templating.render(
        "description.txt.jinja",
        intent=sentence(tool.intent),
        use_when=sentence(tool.use_when),
        not_when=[{"when": sentence(n.when), "use": n.use} for n in tool.not_when],
        requires=listing(tool.requires),
        effect=tool.effect,
        idempotency=tool.idempotency.kind,
        **writes_wording(tool),
    )
    return text.strip()


def writes_wording(tool: Tool) -> dict[str, str]:
    """What the model reads about repeating a call and about confirmation (issue 9): one
    plain sentence each, said once, without emphasis (emphasis is no defence; the runtime
    is)."""
    key = listing(tool.idempotency.arguments)
    pair = tool.token_pair
    return {
        "key_fields": key,
        "confirmation": tool.confirmation,
        "role": tool.role,
        "prepare_tool": pair.prepare if pair else "",
        "confirm_tool": pair.confirm if pair else "",
    }
