"""`toolgen export`: one reviewed catalogue for every runtime besides the Agents SDK.

- `definitions(catalogue, api, toolset)`: the plain JSON tool definitions of one model API
  (the OpenAI Responses and Chat Completions APIs, the Anthropic Messages API, the Gemini
  API), with the notes of what that API cannot express (`apis`);
- `mcp_server_module(catalogue, toolset)`: the source of a Python module that serves the
  catalogue's generated tools over MCP with `toolgen_runtime.mcp` (`mcpmodule`), less the
  tools a person must approve, which it names.

Both export one toolset, or every tool, grouped as the contract says: namespaces, the tools
that load only when searched for, and how they are found (`selection`). Both start from the
catalogue snapshot, and both check the exported tools first against the limits of the API's
lint target (names, description length, strict-schema sizes, tool count) whatever targets
the catalogue declares: an export the API would refuse is not written.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from toolgen import lint
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.interop.export.apis import APIS, Definitions
from toolgen.interop.export.mcpmodule import LEFT_OUT_REASON, mcp_server_module
from toolgen.interop.export.selection import (
    SearchNameTaken,
    UnknownToolset,
    names_of,
    select,
)
from toolgen.lint import targets
from toolgen.spec.ir import Catalogue, LintConfig

__all__ = [
    "APIS",
    "LEFT_OUT_REASON",
    "MCP",
    "TARGET_RULES",
    "Exported",
    "SearchNameTaken",
    "UnknownToolset",
    "definitions",
    "mcp_server_module",
    "target_findings",
]

MCP = "mcp"
# The lint rules that read a catalogue's targets (tests/reach/test_export.py checks that no
# other rule does): an export runs them for the API's target alone.
TARGET_RULES = (
    "TG201", "TG306", "TG508", "TG510", "TG511", "TG512", "TG951", "TG952", "TG961",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Exported:
    definitions: Definitions | None  # None when the API would refuse the catalogue
    problems: tuple[Diagnostic, ...]  # what the API's limits refuse (errors) or advise


def target_findings(
    catalogue: Catalogue, target: targets.Target, toolset: str | None = None
) -> list[Diagnostic]:
    """The findings of the target rules over the tools of `toolset` (None: every tool),
    for `target` alone and whatever the catalogue's lint section selects: the API's limits
    are not a matter of taste."""
    chosen = set(names_of(catalogue, toolset))
    only = dataclasses.replace(
        catalogue,
        targets=(target.key,),
        # the target's rules alone (the rules over suppressions would find each unused)
        lint=LintConfig(select=TARGET_RULES, ignore=("config",)),
        tools=tuple(t for t in catalogue.tools if t.name in chosen),
        # the toolset exported: another would be counted without its other tools
        toolsets=tuple(t for t in catalogue.toolsets if toolset in (None, t.name)),
    )
    return lint.lint(only)


def definitions(catalogue: Catalogue, api: str, toolset: str | None = None) -> Exported:
    """The definitions of the tools of `toolset` (None: every tool) for `api`; raises
    UnknownToolset when the catalogue has no such toolset, SearchNameTaken when a tool
    has the name of the search over the deferred ones."""
    chosen = APIS[api]
    problems = target_findings(catalogue, chosen.target, toolset)
    if any(p.severity is Severity.ERROR for p in problems):
        return Exported(None, tuple(problems))
    return Exported(chosen.build(select(catalogue, toolset)), tuple(problems))
