"""The MCP server module of a catalogue: `toolgen export --to mcp` writes its source.

The module imports the generated package and `toolgen_runtime.mcp`, and holds, as literals,
what MCP needs of each contract beyond the generated `FunctionTool` (effect, open world,
idempotency, confirmation, the answer's schema), taken from the catalogue snapshot. Spec text
reaches the source only through `repr`, so no contract can become code. The run context is
read from the server's environment (`<CATALOGUE>_<FIELD>` per context field); a server that
authenticates its clients replaces `run_context` (docs/howto-mcp.md).

A tool whose contract asks a person to approve each call (`confirmation: approval`) is left
out: MCP has no approval a server can require of its client (`toolgen_runtime.mcp`), and a
tool served without the approval its contract promises would be worse than no tool. The
module's docstring names what was left out, and `toolgen export` says it as a note.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from toolgen import snapshot
from toolgen.formatting import format_sources
from toolgen.ir import Catalogue, Tool

_HEADER = '''"""The MCP server of the {name} catalogue, written by `toolgen export --to mcp` from
{folder}.

{usage}
"""

'''


def _contract(tool: dict[str, Any]) -> str:
    idempotent = tool["idempotency"]["kind"] != "none"
    return (
        f"Contract(effect={tool['effect']!r}, open_world={tool['open_world']!r}, "
        f"idempotent={idempotent!r}, confirmation={tool['confirmation']!r}, "
        f"returns={tool['returns']!r})"
    )


WHY_LEFT_OUT = (
    "a person approves each of its calls (confirmation: approval), which an MCP server "
    "cannot require of its client"
)
LEFT_OUT_REASON = (
    f"left out of the MCP server: {WHY_LEFT_OUT}; serve it from an Agents SDK "
    "application"
)


def served(catalogue: Catalogue) -> tuple[Tool, ...]:
    """The tools an MCP server can serve as their contracts say: all but those a person
    approves, since MCP has no approval a server can require of its client."""
    return tuple(t for t in catalogue.tools if t.confirmation != "approval")


def environment_variables(catalogue: Catalogue) -> list[str]:
    """What the server reads from its environment: the run context's fields, and the store
    and the signing secret when a served tool keeps state or signs tokens."""
    prefix = catalogue.name.upper() + "_"
    names = [prefix + f.py_name.upper() for f in catalogue.context]
    tools = served(catalogue)
    if any(t.needs_store for t in tools):
        names.append("TOOLGEN_STORE_URL")
    if any(t.token_pair is not None for t in tools):
        names.append("TOOLGEN_SECRET")
    return names


@dataclass(frozen=True, slots=True)
class McpServer:
    """The server module's source, and the tools it leaves out (each with why)."""

    source: str
    left_out: tuple[str, ...]


def mcp_server_module(catalogue: Catalogue) -> McpServer:
    """The source of the server module, formatted as `ruff format` keeps it."""
    data = snapshot.catalogue_snapshot(catalogue)
    variables = environment_variables(catalogue)
    names = {t.name for t in served(catalogue)}
    contracts = [t for t in data["tools"] if t["name"] in names]
    left_out = tuple(t["name"] for t in data["tools"] if t["name"] not in names)
    usage = [
        "Do not edit: export again when the catalogue changes (`toolgen export --to mcp "
        "--check` tells when this file is stale). Run it with `python -m <this module>` "
        "from the project root, with the run context in the environment: "
        + (", ".join(variables) if variables else "none needed")
        + "."
    ]
    if left_out:
        usage.append(f"Left out: {', '.join(left_out)}, since {WHY_LEFT_OUT}.")
    lines = [
        _HEADER.format(
            name=catalogue.name,
            folder=catalogue.folder,
            usage="\n\n".join(textwrap.fill(p, 88) for p in usage),
        ),
        "from typing import Final\n\n",
        "from toolgen_runtime.mcp import Contract, context_from_environment, serve_stdio\n\n",
        f"from {catalogue.package} import {catalogue.context_class}, check_services, "
        "tools\n\n",
        f"NAME: Final = {catalogue.name!r}\n",
        "CONTRACTS: Final[dict[str, Contract]] = {\n",
        *(f"    {t['name']!r}: {_contract(t)},\n" for t in contracts),
        "}\n\n\n",
        f"def run_context() -> {catalogue.context_class}:\n",
        '    """The run context from the server\'s configuration, never from the '
        'client\'s arguments."""\n',
        f"    return context_from_environment({catalogue.context_class}, "
        f"prefix={catalogue.name.upper() + '_'!r})\n\n\n",
        "def main() -> None:\n",
        "    check_services(*CONTRACTS)  # a missing store or secret stops the start\n",
        "    serve_stdio(NAME, tools(*CONTRACTS), CONTRACTS, run_context)\n\n\n",
        'if __name__ == "__main__":\n',
        "    main()\n",
    ]
    source = "".join(lines)
    return McpServer(format_sources({"server.py": source})["server.py"], left_out)
