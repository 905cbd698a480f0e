"""`toolgen export`: one reviewed catalogue for every runtime besides the Agents SDK.

- `definitions(catalogue, api)`: the plain JSON tool definitions of one model API (the OpenAI
  Responses and Chat Completions APIs, the Anthropic Messages API, the Gemini API), with the
  notes of what that API cannot express (`apis`);
- `mcp_server_module(catalogue)`: the source of a Python module that serves the catalogue's
  generated tools over MCP with `toolgen_runtime.mcp` (`mcpmodule`), less the tools a
  person must approve, which it names.

Both start from the catalogue snapshot, and both check the catalogue first against the limits
of the API's lint target (names, description length, strict-schema sizes, tool count) whatever
targets the catalogue declares: an export the API would refuse is not written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolgen import lint
from toolgen.diagnostics import Diagnostic, Severity
from toolgen.interop.export.apis import APIS, Api, Definitions, Note
from toolgen.interop.export.mcpmodule import (
    LEFT_OUT_REASON,
    McpServer,
    mcp_server_module,
)
from toolgen.lint import targets
from toolgen.spec import snapshot
from toolgen.spec.ir import Catalogue, LintConfig

__all__ = [
    "APIS",
    "LEFT_OUT_REASON",
    "MCP",
    "TARGET_RULES",
    "Api",
    "Definitions",
    "Exported",
    "McpServer",
    "Note",
    "definitions",
    "mcp_server_module",
    "target_findings",
]

MCP = "mcp"
# The lint rules that read a catalogue's targets (tests/reach/test_export.py checks that no
# other rule does): an export runs them for the API's target alone.
TARGET_RULES = ("TG201", "TG306", "TG508", "TG510", "TG511", "TG512", "TG951", "TG952")


@dataclass(frozen=True, slots=True)
class Exported:
    definitions: Definitions | None  # None when the API would refuse the catalogue
    problems: tuple[Diagnostic, ...]  # what the API's limits refuse (errors) or advise


def target_findings(catalogue: Catalogue, target: targets.Target) -> list[Diagnostic]:
    """The findings of the target rules, for `target` alone and whatever the catalogue's
    lint section selects: the API's limits are not a matter of taste."""
    only = dataclasses.replace(
        catalogue, targets=(target.key,), lint=LintConfig(select=TARGET_RULES)
    )
    return lint.lint(only)


def _tools(catalogue: Catalogue) -> list[Mapping[str, Any]]:
    tools: list[Mapping[str, Any]] = snapshot.catalogue_snapshot(catalogue)["tools"]
    return tools


def definitions(catalogue: Catalogue, api: str) -> Exported:
    chosen = APIS[api]
    problems = target_findings(catalogue, chosen.target)
    if any(p.severity is Severity.ERROR for p in problems):
        return Exported(None, tuple(problems))
    return Exported(chosen.build(_tools(catalogue)), tuple(problems))
