"""The description the model reads for a tool, composed by one template for every tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolgen import templating

if TYPE_CHECKING:
    from toolgen.model import Tool


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if not text or text[-1] in ".!?" else text + "."


def _listing(names: tuple[str, ...]) -> str:
    """a; a and b; a, b and c."""
    return (
        " and ".join(names)
        if len(names) < 3
        else f"{', '.join(names[:-1])} and {names[-1]}"
    )


def tool_description(tool: Tool) -> str:
    text = templating.render(
        "description.txt.jinja",
        intent=_sentence(tool.intent),
        use_when=_sentence(tool.use_when),
        not_when=[{"when": _sentence(n.when), "use": n.use} for n in tool.not_when],
        requires=_listing(tool.requires),
        effect=tool.effect,
        idempotency=tool.idempotency,
    )
    return text.strip()
