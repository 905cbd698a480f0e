"""The MCP server module of a catalogue: `toolgen export --to mcp` writes its source.

The module imports the generated package and `toolgen_runtime.mcp`, and holds, as literals,
what MCP needs of each contract beyond the generated `FunctionTool` (effect, open world,
idempotency, confirmation, the answer's schema), taken from the catalogue snapshot. Spec text
reaches the source only through `repr`, so no contract can become code. The run context is
read from the server's environment (`<CATALOGUE>_<FIELD>` per context field); a server that
authenticates its clients replaces `run_context` (docs/howto-mcp.md).
"""

from __future__ import annotations

from typing import Any

from toolgen import snapshot
from toolgen.formatting import format_sources
from toolgen.ir import Catalogue

_HEADER = '''"""The MCP server of the {name} catalogue, written by `toolgen export --to mcp` from
{folder}.

Do not edit: export again when the catalogue changes (`toolgen export --to mcp --check`
tells when this file is stale). Run it with `python -m <this module>` from the project
root, with the run context in the environment: {variables}.
"""

'''


def _contract(tool: dict[str, Any]) -> str:
    idempotent = tool["idempotency"]["kind"] != "none"
    return (
        f"Contract(effect={tool['effect']!r}, open_world={tool['open_world']!r}, "
        f"idempotent={idempotent!r}, confirmation={tool['confirmation']!r}, "
        f"returns={tool['returns']!r})"
    )


def environment_variables(catalogue: Catalogue) -> list[str]:
    prefix = catalogue.name.upper() + "_"
    return [prefix + f.py_name.upper() for f in catalogue.context]


def mcp_server_module(catalogue: Catalogue) -> str:
    """The source of the server module, formatted as `ruff format` keeps it."""
    data = snapshot.catalogue_snapshot(catalogue)
    variables = environment_variables(catalogue)
    lines = [
        _HEADER.format(
            name=catalogue.name,
            folder=catalogue.folder,
            variables=", ".join(variables) if variables else "none needed",
        ),
        "from typing import Final\n\n",
        "from toolgen_runtime.mcp import Contract, context_from_environment, serve_stdio\n\n",
        f"from {catalogue.package} import {catalogue.context_class}, tools\n\n",
        f"NAME: Final = {catalogue.name!r}\n",
        "CONTRACTS: Final[dict[str, Contract]] = {\n",
        *(f"    {t['name']!r}: {_contract(t)},\n" for t in data["tools"]),
        "}\n\n\n",
        f"def run_context() -> {catalogue.context_class}:\n",
        '    """The run context from the server\'s configuration, never from the '
        'client\'s arguments."""\n',
        f"    return context_from_environment({catalogue.context_class}, "
        f"prefix={catalogue.name.upper() + '_'!r})\n\n\n",
        "def main() -> None:\n",
        "    serve_stdio(NAME, tools(*CONTRACTS), CONTRACTS, run_context)\n\n\n",
        'if __name__ == "__main__":\n',
        "    main()\n",
    ]
    source = "".join(lines)
    return format_sources({"server.py": source})["server.py"]
