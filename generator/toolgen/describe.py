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
    )
    return text.strip()
