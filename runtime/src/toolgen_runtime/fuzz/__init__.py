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

import os
import secrets
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agents import FunctionTool

from toolgen_runtime.confirm import CONFIRM_PURPOSE
from toolgen_runtime.errors import DeclaredError
from toolgen_runtime.guards.scope import Boundaries
from toolgen_runtime.signing import Signer
from toolgen_runtime.store.sqlite import SQLiteStore
from toolgen_runtime.writes import TOKEN_PARAM

if TYPE_CHECKING:
    from toolgen_runtime.fuzz.model import ToolModel

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
    # allowed arguments refused for a guarded field alone, with its guard's code (a path
    # outside the root, a host not allowed, a cursor never made)
    refused_at_boundary: int = 0
    refused_token: int = (
        0  # confirm calls with a made-up token, refused with token_invalid
    )
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
            f"errors, {self.refused_at_boundary} refused at a boundary, {self.refused_token} "
            f"made-up tokens refused; {self.lenient} accepted outside the contract; slowest "
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
    model: ToolModel | None = None,
) -> FuzzReport:
    """Fuzz one generated tool; raise `FuzzFailure` on the first broken promise.

    `build_tool(implementation)` builds the tool around an implementation (a generated
    module's `build_tool`); `contract_schema` is its argument schema with every constraint;
    `context` the run context its calls get; `errors` its declared errors (the module's
    `ERRORS`). `deadline` bounds each call in seconds; a call still running after
    `hang_after` seconds ends the process with every thread's traceback (None: never).
    With `build_per_call`, every call goes to a tool `build_tool` builds for it. `model`
    says what the tool keeps besides its schema (guards and their boundaries, pages, the
    output contract, a token pair: `toolgen_runtime.fuzz.model`; `fuzz_module` reads it
    from the generated module).
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
        model=model,
    )


def unmodelled(module: ModuleType) -> str | None:
    """Why the fuzzer cannot judge a generated tool module's answers yet, or None.

    Guards (at any depth of the arguments), pages, output contracts and token pairs are
    modelled (`toolgen_runtime.fuzz.model`); a confirm tool that is also idempotent by key
    is not (its store would be emptied between the prepare and the confirm call)."""
    if hasattr(module, "CONFIRMATION") and hasattr(module, "IDEMPOTENCY"):
        return (
            "the fuzzer does not model a confirm tool idempotent by key (each call gets an "
            "empty store, which the token's prepare call needs too); the protocol suites "
            "test this tool"
        )
    return None


class _FirstCalls:
    """Builds a tool idempotent by key with an empty store (an SQLite file in `folder`)
    for every call, the last call's store closed and removed first."""

    def __init__(
        self,
        build_tool: Callable[..., FunctionTool],
        folder: Path,
        **keywords: object,
    ) -> None:
        self._build_tool, self._path = build_tool, folder / "store.db"
        self._keywords = keywords
        self._store: SQLiteStore | None = None

    def __call__(self, implementation: object) -> FunctionTool:
        if self._store is not None:
            self._store.close()
            for path in self._path.parent.glob(f"{self._path.name}*"):
                path.unlink()
        self._store = SQLiteStore(self._path)
        return self._build_tool(implementation, store=self._store, **self._keywords)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def fuzz_module(
    module: ModuleType,
    *,
    context: object,
    contract_schema: Mapping[str, Any] | None = None,
    boundaries: Boundaries | None = None,
    max_examples: int | None = None,
    deadline: float = 1.0,
    hang_after: float | None = 60.0,
    seed: int | None = None,
) -> FuzzReport:
    """`fuzz_tool` for a generated tool module: its `build_tool`, `ERRORS` and, unless given,
    its `CONTRACT_SCHEMA`; a tool idempotent by key with an empty store for every call.

    A guarded tool is built with `boundaries` (a generated test passes its own), or with
    boundaries made for the run; a prepare or confirm tool with a store and a signer made
    for the run, the confirm tool's prepare tool with the same ones, and the token added to
    the contract when it leaves it out (`toolgen_runtime.fuzz.model`)."""
    from toolgen_runtime.fuzz.model import model_of

    schema = contract_schema
    if schema is None:
        schema = getattr(module, "CONTRACT_SCHEMA", None)
        if schema is None:
            raise ValueError(
                f"{module.__name__} has no CONTRACT_SCHEMA: pass contract_schema= (the "
                "argument schema with every constraint)"
            )
    with tempfile.TemporaryDirectory(prefix="toolgen-fuzz-") as name:
        folder = Path(name)
        services: dict[str, Any] = {}
        confirmation = getattr(module, "CONFIRMATION", None)
        if confirmation is not None:
            services = {
                "store": SQLiteStore(folder / "tokens.db"),
                "signer": Signer([secrets.token_bytes(32)], CONFIRM_PURPOSE),
            }
            schema = _with_token(schema, module, confirmation.role)
        model = model_of(
            module, boundaries=boundaries, folder=folder, services=services
        )
        keywords: dict[str, Any] = {}
        if model.boundaries is not None:
            keywords["boundaries"] = model.boundaries
        build, first_calls = _builder(module, folder, services, keywords)
        try:
            return fuzz_tool(
                build,
                schema,
                context=context,
                errors=getattr(module, "ERRORS", {}),
                max_examples=max_examples,
                deadline=deadline,
                hang_after=hang_after,
                seed=seed,
                build_per_call=first_calls is not None,
                model=model,
            )
        finally:
            if first_calls is not None:
                first_calls.close()
            store = services.get("store")
            if isinstance(store, SQLiteStore):
                store.close()


def _builder(
    module: ModuleType,
    folder: Path,
    services: Mapping[str, Any],
    keywords: Mapping[str, Any],
) -> tuple[Callable[[Any], FunctionTool], _FirstCalls | None]:
    """How a fuzz builds a module's tool around the fake implementation: a prepare tool
    without it, a confirm tool with the run's store and signer, a tool idempotent by key
    with an empty store for every call (the `_FirstCalls` to close), each with `keywords`
    (its boundaries)."""
    confirmation = getattr(module, "CONFIRMATION", None)
    if confirmation is not None and confirmation.role == "prepare":

        def prepare(_: object) -> FunctionTool:
            tool: FunctionTool = module.build_tool(**services, **keywords)
            return tool

        return prepare, None
    if confirmation is None and hasattr(module, "IDEMPOTENCY"):
        first_calls = _FirstCalls(module.build_tool, folder, **keywords)
        return first_calls, first_calls

    def build(implementation: object) -> FunctionTool:
        tool: FunctionTool = module.build_tool(implementation, **services, **keywords)
        return tool

    return build, None


def _with_token(
    schema: Mapping[str, Any], module: ModuleType, role: str
) -> Mapping[str, Any]:
    """A confirm tool's contract with its token (a string, required), which the contract
    with every constraint leaves out (it is the prepare tool's with the token added)."""
    properties = schema.get("properties", {})
    if role != "confirm" or TOKEN_PARAM in properties:
        return schema
    declared = module.PARAMETERS["properties"].get(TOKEN_PARAM, {"type": "string"})
    token = {k: v for k, v in declared.items() if k != "description"}
    return {
        **schema,
        "properties": {**properties, TOKEN_PARAM: token},
        "required": [*schema.get("required", ()), TOKEN_PARAM],
    }
