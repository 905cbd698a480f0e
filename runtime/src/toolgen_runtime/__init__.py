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
outside the Runner), `mcp` (serving generated tools over MCP), `cards` (what the model sees
of a tool, and tools made from it that import their module on the first call), `errors`,
`signing`, `testing`, `fuzz`; and for
the contracts that declare them: `guards` (paths, URLs), `pagination`, `output`, `store`
(idempotency), `confirm` (confirmation tokens).
"""

from toolgen_runtime.arguments import (
    FieldHint,
    StrictArgs,
    hints_from_schema,
    json_integer,
    not_a_bool,
    null_means,
)
from toolgen_runtime.calls import run_call
from toolgen_runtime.cards import Card, lazy_tool
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
    "ToolgenError",
    "UndeclaredError",
    "hints_from_schema",
    "json_integer",
    "lazy_tool",
    "make_tool",
    "not_a_bool",
    "null_means",
    "result_class",
    "run_call",
]
