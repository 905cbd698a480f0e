"""Property-based fuzzing of generated tools: every answer the envelope, whatever the model sends.

`fuzz_tool(build_tool, contract_schema, context=..., errors=...)` sends a tool hundreds of
argument texts through its real `on_invoke_tool`: valid ones generated from the contract
schema (hypothesis-jsonschema), near-valid ones (one field wrong in one of many ways), and
texts that are not JSON arguments at all. The implementation is a recording fake that returns
results of the tool's result class or raises its declared errors. Every call must:

- raise nothing, and answer one JSON object with a boolean `ok`;
- on success, have run the implementation once, with arguments that (dumped back to JSON)
  satisfy the contract schema and equal what was sent, and hold exactly the declared fields;
  arguments outside the contract are never accepted, except a date or time written in
  another form than RFC 3339 (`lenient` counts those: they still reach the implementation
  as valid typed values);
- on `invalid_arguments`, not have run it, be well formed and bounded, and name a field the
  contract blames (the very field a mutation broke); arguments the contract allows are never
  rejected;
- on a declared error, be that error's envelope;
- take at most `deadline` seconds (measured per call; a slow call is a failure that shows it).

A tool idempotent by key is built with an empty store for every call (`fuzz_module`), so each
call is judged as a first call: what a repeat and a conflict answer is the protocol suites'
(`IdempotentToolContract`).

The contract is judged independently of the generated validator (`contract`): JSON Schema's
own meaning, ECMA-262 patterns, strict integers. A failure is a `FuzzFailure` (an
`AssertionError`) naming the tool, the kind of case, the argument text and the answer, after
hypothesis has shrunk it.

First comes the sweep, the same on every run: every mutation of every field of simple valid
arguments (hypothesis's first, made of its simplest choices), and every malformed text made
from them (a few hundred calls for most tools, 1,700 for a contract of twenty fields of
every type). Then `max_examples` random calls, or `TOOLGEN_FUZZ_EXAMPLES` (default 50), shared
between valid arguments (with results, and with declared errors), near-valid ones (twice as
many) and texts that are not arguments. Runs are deterministic
unless a seed is given (`seed`, or `TOOLGEN_FUZZ_SEED`). Needs the `testing` extra:
`pip install 'toolgen-runtime[testing]'` (hypothesis, hypothesis-jsonschema, jsonschema,
regress); nothing here is imported by the rest of the runtime.
"""

from __future__ import annotations

import inspect
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from agents import FunctionTool

from toolgen_runtime.errors import DeclaredError
from toolgen_runtime.store.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_EXAMPLES",
    "EXAMPLES_ENV",
    "SEED_ENV",
    "FuzzFailure",
    "FuzzReport",
    "fuzz_module",
    "fuzz_tool",
    "unmodelled",
]

EXAMPLES_ENV = "TOOLGEN_FUZZ_EXAMPLES"
SEED_ENV = "TOOLGEN_FUZZ_SEED"
DEFAULT_EXAMPLES = 50
_LENIENT_SHOWN = 5


class FuzzFailure(AssertionError):
    """A call that broke the tool's contract: what was sent, what came back, what is wrong."""


@dataclass
class FuzzReport:
    """What one fuzz run sent and how the tool answered."""

    tool: str
    calls: int = 0
    swept: int = 0  # of the calls, the sweep's (every mutation of its simple arguments)
    accepted: int = 0  # reached the implementation and answered its result
    rejected: int = 0  # answered invalid_arguments
    declared_errors: int = 0  # answered a declared error's envelope
    allowed: int = 0  # argument texts the contract allows
    kinds: Counter[str] = field(default_factory=Counter)  # valid / mutated / text
    lenient: int = (
        0  # texts outside the contract that were accepted, arguments and all valid
    )
    lenient_cases: list[str] = field(default_factory=list)
    slowest_seconds: float = 0.0
    slowest_case: str = ""

    def note_lenient(self, case: object) -> None:
        self.lenient += 1
        if len(self.lenient_cases) < _LENIENT_SHOWN:
            self.lenient_cases.append(repr(case))

    def summary(self) -> str:
        kinds = ", ".join(
            f"{kind} {count}" for kind, count in sorted(self.kinds.items())
        )
        return (
            f"{self.tool}: {self.calls} calls ({kinds}; {self.swept} in the sweep); "
            f"{self.accepted} accepted, {self.rejected} rejected, {self.declared_errors} declared "
            f"errors; {self.lenient} accepted outside the contract; slowest "
            f"{self.slowest_seconds * 1000:.1f} ms ({self.slowest_case})"
        )


def _examples_from_environment() -> int:
    text = os.environ.get(EXAMPLES_ENV, "").strip()
    if not text:
        return DEFAULT_EXAMPLES
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(
            f"{EXAMPLES_ENV} must be a whole number, at least 1; got {text!r}"
        )
    return count


def _seed_from_environment() -> int | None:
    text = os.environ.get(SEED_ENV, "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{SEED_ENV} must be a whole number; got {text!r}") from None


def fuzz_tool(
    build_tool: Callable[[Any], FunctionTool],
    contract_schema: Mapping[str, Any],
    *,
    context: object,
    errors: Mapping[str, DeclaredError] | None = None,
    max_examples: int | None = None,
    deadline: float = 1.0,
    hang_after: float | None = 60.0,
    seed: int | None = None,
    build_per_call: bool = False,
) -> FuzzReport:
    """Fuzz one generated tool; raise `FuzzFailure` on the first broken promise.

    `build_tool(implementation)` builds the tool around an implementation (a generated
    module's `build_tool`); `contract_schema` is its argument schema with every constraint;
    `context` the run context its calls get; `errors` its declared errors (the module's
    `ERRORS`). `deadline` bounds each call in seconds; a call still running after
    `hang_after` seconds ends the process with every thread's traceback (None: never).
    With `build_per_call`, every call goes to a tool `build_tool` builds for it.
    """
    try:
        from toolgen_runtime.fuzz.run import run_fuzz
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"toolgen_runtime.fuzz needs the testing extra ({err.name} is missing): "
            "pip install 'toolgen-runtime[testing]'"
        ) from err
    return run_fuzz(
        build_tool,
        contract_schema,
        context=context,
        errors=errors or {},
        max_examples=max_examples or _examples_from_environment(),
        deadline=deadline,
        hang_after=hang_after,
        seed=seed if seed is not None else _seed_from_environment(),
        build_per_call=build_per_call,
    )


def unmodelled(module: ModuleType) -> str | None:
    """Why the fuzzer cannot judge a generated tool module's answers yet, or None.

    Guarded arguments (paths, URLs) and pages need boundaries and cursors the fuzzer does
    not make; a prepare tool answers a token, and its confirm tool refuses a call without
    one, which it would count as broken promises. The guard and protocol suites of the
    generated tests cover those tools."""
    if "boundaries" in inspect.signature(module.build_tool).parameters:
        return (
            "the fuzzer does not model guarded arguments (paths, URLs, cursors) or pages "
            "yet; the guard suites and the boundary cases cover this tool"
        )
    if hasattr(module, "CONFIRMATION"):
        return (
            "the fuzzer does not model the token confirmation yet: a prepare tool answers "
            "a token and a confirm call without its token is refused, which it would count "
            "as broken promises; the protocol suites test this tool"
        )
    return None


class _FirstCalls:
    """Builds a tool idempotent by key with an empty store (an SQLite file in `folder`)
    for every call, the last call's store closed and removed first."""

    def __init__(self, build_tool: Callable[..., FunctionTool], folder: Path) -> None:
        self._build_tool, self._path = build_tool, folder / "store.db"
        self._store: SQLiteStore | None = None

    def __call__(self, implementation: object) -> FunctionTool:
        if self._store is not None:
            self._store.close()
            for path in self._path.parent.glob(f"{self._path.name}*"):
                path.unlink()
        self._store = SQLiteStore(self._path)
        return self._build_tool(implementation, store=self._store)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def fuzz_module(
    module: ModuleType,
    *,
    context: object,
    contract_schema: Mapping[str, Any] | None = None,
    max_examples: int | None = None,
    deadline: float = 1.0,
    hang_after: float | None = 60.0,
    seed: int | None = None,
) -> FuzzReport:
    """`fuzz_tool` for a generated tool module: its `build_tool`, `ERRORS` and, unless given,
    its `CONTRACT_SCHEMA`; a tool idempotent by key with an empty store for every call."""
    schema = contract_schema
    if schema is None:
        schema = getattr(module, "CONTRACT_SCHEMA", None)
        if schema is None:
            raise ValueError(
                f"{module.__name__} has no CONTRACT_SCHEMA: pass contract_schema= (the "
                "argument schema with every constraint)"
            )
    with tempfile.TemporaryDirectory(prefix="toolgen-fuzz-") as folder:
        first_calls = (
            _FirstCalls(module.build_tool, Path(folder))
            if hasattr(module, "IDEMPOTENCY")
            else None
        )
        try:
            return fuzz_tool(
                first_calls or module.build_tool,
                schema,
                context=context,
                errors=getattr(module, "ERRORS", {}),
                max_examples=max_examples,
                deadline=deadline,
                hang_after=hang_after,
                seed=seed,
                build_per_call=first_calls is not None,
            )
        finally:
            if first_calls is not None:
                first_calls.close()
