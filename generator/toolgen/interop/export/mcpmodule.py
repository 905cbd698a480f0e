"""The MCP server module of a catalogue: `toolgen export --to mcp` writes its source.

The module imports the generated package and `toolgen_runtime.mcp`, and holds, as literals,
what MCP needs of each contract beyond the generated `FunctionTool` (effect, open world,
idempotency, confirmation, and the schema of every success answer, `answers`), taken from
the catalogue snapshot, and what its tools need of the server's environment (`SETTINGS`: the
store, the signing secret, the roots of path parameters, the host lists of URL guards).
Spec text reaches the source only through `repr`, so no contract can become code. The run
context is read from the server's environment (`<CATALOGUE>_<FIELD>` per context field); a
server that authenticates its clients replaces `run_context` (docs/howto-mcp.md). The
module's docstring, which `--help` prints, names every setting it reads, and the server does
not start without any it needs.

A tool whose contract asks a person to approve each call (`confirmation: approval`) is left
out: MCP has no approval a server can require of its client (`toolgen_runtime.mcp`), and a
tool served without the approval its contract promises would be worse than no tool. The
module's docstring names what was left out, and `toolgen export` says it as a note.

The module serves one toolset (`TOOLSETS`, `toolgen_runtime.mcp.Toolsets`): the one given at
export (`--toolset`), else the one the setting TOOLGEN_TOOLSET names, else every tool. Its
deferred tools are found by `search_tools`, over the search documents the module holds.
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolgen.interop.export.selection import names_of
from toolgen.render.formatting import format_sources
from toolgen.spec import snapshot
from toolgen.spec.answers import answer_schema
from toolgen.spec.groups import search_document
from toolgen.spec.ir import Catalogue, Tool
from toolgen.spec.summary import summary
from toolgen.text import listing

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
        f"output={answer_schema(tool)!r})"
    )


WHY_LEFT_OUT = (
    "a person approves every call (confirmation: approval), which an MCP server "
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


@dataclass(frozen=True, slots=True)
class Needs:
    """What the served tools need of the server's environment, each with the tools that
    need it: `toolgen_runtime.mcp.Settings`, and the host lists a deployment may set."""

    store: tuple[str, ...]
    secret: tuple[str, ...]
    roots: Mapping[str, tuple[str, ...]]
    hosts: Mapping[str, tuple[str, ...]]  # lists a URL guard takes all its hosts from
    more_hosts: Mapping[str, tuple[str, ...]]  # lists that add to a guard's own hosts

    def settings(self) -> str:
        """The `Settings(...)` literal of the module."""
        given = {
            "store": self.store,
            "secret": self.secret,
            "roots": dict(self.roots),
            "hosts": dict(self.hosts),
        }
        keywords = ", ".join(f"{k}={v!r}" for k, v in given.items() if v)
        return f"Settings({keywords})"


def needs(catalogue: Catalogue) -> Needs:
    tools = served(catalogue)
    roots: dict[str, list[str]] = {}
    hosts: dict[str, list[str]] = {}
    more_hosts: dict[str, list[str]] = {}
    for tool in tools:
        for param in tool.all_params():
            if param.path is not None:
                roots.setdefault(param.path.root, []).append(tool.name)
            if param.url is not None and param.url.hosts_from is not None:
                lists = more_hosts if param.url.hosts else hosts
                lists.setdefault(param.url.hosts_from, []).append(tool.name)
    return Needs(
        store=tuple(t.name for t in tools if t.needs_store),
        secret=tuple(
            t.name
            for t in tools
            if t.token_pair is not None or t.pagination is not None
        ),
        roots=_frozen(roots),
        hosts=_frozen(hosts),
        more_hosts=_frozen(more_hosts),
    )


def _frozen(found: Mapping[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """Each name with its tools, in order, each tool once (it may have two such params)."""
    return {name: tuple(dict.fromkeys(tools)) for name, tools in sorted(found.items())}


def environment_variables(catalogue: Catalogue) -> list[tuple[str, str]]:
    """Every setting the server reads from its environment, with what it is for: the run
    context's fields, then what the served tools need (`needs`)."""
    prefix = catalogue.name.upper() + "_"
    found = [
        (prefix + f.py_name.upper(), f"the run context's {f.name} ({f.type})")
        for f in catalogue.context
    ]
    need = needs(catalogue)
    if need.store:
        said = f"the store where {listing(need.store)} record their calls"
        found.append(("TOOLGEN_STORE_URL", said))
    if need.secret:
        said = f"signs the tokens and cursors of {listing(need.secret)}"
        found.append(("TOOLGEN_SECRET", f"{said}; random, the same in every worker"))
    for root, tools in need.roots.items():
        said = f"the folder the paths of {listing(tools)} are relative to (root {root})"
        found.append((f"TOOLGEN_ROOT_{root.upper()}", said))
    for name, tools in need.hosts.items():
        said = f"the hosts the URLs of {listing(tools)} may name, as a.example.com,b.example.com"
        found.append((f"TOOLGEN_HOSTS_{name.upper()}", said))
    return found


def _usage(catalogue: Catalogue, left_out: tuple[str, ...], toolset: str | None) -> str:
    variables = environment_variables(catalogue)
    paragraphs = [
        "Do not edit: export again when the catalogue changes (`toolgen export --to mcp "
        "--check` tells when this file is stale). Run it from the project root, as `python "
        "<this file>` (`--help` prints this text)"
        + (
            ". It reads these settings from its environment and does not start without "
            "each of them:"
            if variables
            else "; it needs no setting."
        )
    ]
    for name, tools in needs(catalogue).more_hosts.items():
        paragraphs.append(
            f"It also reads TOOLGEN_HOSTS_{name.upper()}, when set: more hosts the URLs "
            f"of {listing(tools)} may name."
        )
    if left_out:
        paragraphs.append(f"Left out: {', '.join(left_out)}, since {WHY_LEFT_OUT}.")
    if toolset is None:
        paragraphs.append(
            "It serves every tool, or the toolset TOOLGEN_TOOLSET names when it is set: "
            + ", ".join(t.name for t in catalogue.toolsets)
            + "."
        )
    filled = [textwrap.fill(paragraph, 88) for paragraph in paragraphs]
    if variables:  # listed under the first paragraph, one to a line
        listed = (f"- {name}: {purpose}." for name, purpose in variables)
        filled.insert(
            1, "\n".join(textwrap.fill(x, 88, subsequent_indent="  ") for x in listed)
        )
    return "\n\n".join(filled)


_SEARCHED = ["from toolgen_runtime.search import SearchDocument\n\n"]


def _toolsets(catalogue: Catalogue, toolset: str | None, served: set[str]) -> str:
    """The `Toolsets(...)` literal: the toolset given, or every toolset of the catalogue,
    each with its served tools, and the search document of each deferred one."""
    chosen = [t for t in catalogue.toolsets if toolset in (None, t.name)]
    tools = {t.name: tuple(n for n in t.tools if n in served) for t in chosen}
    deferred = tuple(
        search_document(summary(t), catalogue)
        for t in catalogue.tools
        if t.deferred and t.name in served
    )
    return f"Toolsets(tools={tools!r}, deferred={deferred!r}, default={toolset!r})"


@dataclass(frozen=True, slots=True)
class McpServer:
    """The server module's source, and the tools it leaves out (each with why)."""

    source: str
    left_out: tuple[str, ...]


def mcp_server_module(catalogue: Catalogue, toolset: str | None = None) -> McpServer:
    """The source of the server module of `toolset` (None: every tool), formatted as
    `ruff format` keeps it; raises UnknownToolset when the catalogue has no such toolset."""
    whole, chosen = catalogue, set(names_of(catalogue, toolset))
    catalogue = dataclasses.replace(
        whole, tools=tuple(t for t in whole.tools if t.name in chosen)
    )
    data = snapshot.catalogue_snapshot(whole)
    names = {t.name for t in served(catalogue)}
    contracts = [t for t in data["tools"] if t["name"] in names]
    left_out = tuple(t["name"] for t in data["tools"] if t["name"] in chosen - names)
    lines = [
        _HEADER.format(
            name=catalogue.name,
            folder=catalogue.folder,
            usage=_usage(catalogue, left_out, toolset),
        ),
        "import argparse\n",
        "from typing import Final\n\n",
        "from toolgen_runtime.mcp import Contract, Settings, Toolsets, "
        "context_from_environment, serve_stdio\n",
        *(_SEARCHED if any(t.deferred for t in served(catalogue)) else ["\n"]),
        f"from {catalogue.package} import {catalogue.context_class}, tools\n\n",
        f"NAME: Final = {catalogue.name!r}\n",
        f"SETTINGS: Final = {needs(catalogue).settings()}\n",
        f"TOOLSETS: Final = {_toolsets(whole, toolset, names)}\n",
        "CONTRACTS: Final[dict[str, Contract]] = {\n",
        *(f"    {t['name']!r}: {_contract(t)},\n" for t in contracts),
        "}\n\n\n",
        f"def run_context() -> {catalogue.context_class}:\n",
        '    """The run context from the server\'s configuration, never from the '
        'client\'s arguments."""\n',
        f"    return context_from_environment({catalogue.context_class}, "
        f"prefix={catalogue.name.upper() + '_'!r})\n\n\n",
        "def main() -> None:\n",
        '    """Serve the catalogue over stdio, once every setting it needs is read."""\n',
        "    argparse.ArgumentParser(description=__doc__, "
        "formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()\n",
        "    serve_stdio(NAME, lambda: tools(*CONTRACTS), CONTRACTS, run_context, "
        "settings=SETTINGS, toolsets=TOOLSETS)\n\n\n",
        'if __name__ == "__main__":\n',
        "    main()\n",
    ]
    # formatted as toolgen formats it, and kept so: `ruff format` and black leave it alone
    source = format_sources({"server.py": "".join(lines)})["server.py"]
    return McpServer("# fmt: off\n" + source, left_out)
