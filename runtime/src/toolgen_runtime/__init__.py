"""The runtime contract every generated tool keeps: what the model receives, and what stops a run.

Generated modules import this, and nothing else of toolgen. Every tool output is one JSON object
with `ok`:

- success: `{"ok": true, ...the declared return fields only}`;
- invalid arguments: `{"ok": false, "error": "invalid_arguments", "problems": [{"field", "problem",
  ...}], "how_to_fix": ...}`, bounded in size; the implementation is never called;
- a declared data error raised by the implementation as `ToolError(code, **details)`:
  `{"ok": false, "error": code, "how_to_fix": ..., "retryable": ..., ...details}`;
- anything else (an undeclared error, a broken result, missing run context, an implementation
  that is still the stub) raises a `ToolgenError`, which the SDK lets out of `Runner.run`
  unwrapped: the run stops and the failure is seen, never turned into text for the model.

The modules, one job each: `arguments` (argument validators, parsing and checking a call's
arguments), `duplicates` (repeated JSON keys), `envelope` (the texts of failed calls),
`results` (result classes and the success text), `threads` (where sync implementations run),
`invoke` (`Invoker`, `make_tool`), `calls` (`run_call`: one call a model API returned, run
outside the Runner; `ToolSearch`, the `search_tools` of an export with deferred tools),
`search` and `search_tool` (tool search, and the `search_tools` every runtime shares), `mcp`
(serving generated tools over MCP), `cards` (what the model sees of a tool, and tools made
from it that import their module on the first call), `toolsets` (the tools of one agent,
grouped and deferred, found by `search_tools` in client mode), `errors`, `signing`, `testing` (the
suites of the generated tests), `pytest_plugin` (a test session's store and secret), `fuzz`;
and for the contracts that declare them: `guards` (paths, URLs), `pagination`, `output`, `store`
(idempotency), `confirm` (confirmation tokens).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# The names below are loaded on first use (PEP 562), not when the package is imported:
# toolgen, the compiler, reads the guards (toolgen_runtime.guards) at build time, and
# importing this package must not load the Agents SDK for that. A generated module imports
# the names it uses and so loads what it needs, as before.
if TYPE_CHECKING:
    from toolgen_runtime.arguments import (
        FieldHint,
        StrictArgs,
        hints_from_schema,
        iso_date,
        iso_datetime,
        json_integer,
        not_a_bool,
        null_means,
    )
    from toolgen_runtime.calls import ToolSearch, run_call
    from toolgen_runtime.cards import Card, lazy_tool, require_services
    from toolgen_runtime.errors import (
        ContractViolation,
        DeclaredError,
        MissingContext,
        NotImplementedYet,
        ToolError,
        ToolgenError,
        UndeclaredError,
    )
    from toolgen_runtime.invoke import Invoker, make_tool
    from toolgen_runtime.results import result_class

__all__ = [
    "Card",
    "ContractViolation",
    "DeclaredError",
    "FieldHint",
    "Invoker",
    "MissingContext",
    "NotImplementedYet",
    "StrictArgs",
    "ToolError",
    "ToolSearch",
    "ToolgenError",
    "UndeclaredError",
    "hints_from_schema",
    "iso_date",
    "iso_datetime",
    "json_integer",
    "lazy_tool",
    "make_tool",
    "not_a_bool",
    "null_means",
    "require_services",
    "result_class",
    "run_call",
]

_HOMES = {
    "Card": "toolgen_runtime.cards",
    "ContractViolation": "toolgen_runtime.errors",
    "DeclaredError": "toolgen_runtime.errors",
    "FieldHint": "toolgen_runtime.arguments",
    "Invoker": "toolgen_runtime.invoke",
    "MissingContext": "toolgen_runtime.errors",
    "NotImplementedYet": "toolgen_runtime.errors",
    "StrictArgs": "toolgen_runtime.arguments",
    "ToolError": "toolgen_runtime.errors",
    "ToolSearch": "toolgen_runtime.calls",
    "ToolgenError": "toolgen_runtime.errors",
    "UndeclaredError": "toolgen_runtime.errors",
    "hints_from_schema": "toolgen_runtime.arguments",
    "iso_date": "toolgen_runtime.arguments",
    "iso_datetime": "toolgen_runtime.arguments",
    "json_integer": "toolgen_runtime.arguments",
    "lazy_tool": "toolgen_runtime.cards",
    "make_tool": "toolgen_runtime.invoke",
    "not_a_bool": "toolgen_runtime.arguments",
    "null_means": "toolgen_runtime.arguments",
    "require_services": "toolgen_runtime.cards",
    "result_class": "toolgen_runtime.results",
    "run_call": "toolgen_runtime.calls",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # found once; later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
