"""Calling a generated tool: `Invoker` is its `on_invoke_tool`, `make_tool` its SDK tool.

A call validates the arguments first (`arguments`), answers a rejection with the bounded
envelope (`envelope`), then calls the implementation: an `async def` one on the event loop,
a plain `def` one in a worker thread (`threads`), so it never blocks the loop. What the
implementation returns or raises becomes the answer, or stops the run (`errors`).

A tool that writes (`writes`) goes through `_write` instead: a prepare tool issues a token and
calls nothing, a confirm tool redeems its token before anything runs, and a tool idempotent by
key runs its implementation inside `run_once`.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

from agents import FunctionTool
from agents.tool_context import ToolContext
from pydantic import BaseModel

from toolgen_runtime.approval import ValidFirst
from toolgen_runtime.arguments import (
    ARGUMENTS_TOO_LONG,
    ArgumentParser,
    FieldHint,
    Rejected,
    hints_from_schema,
)
from toolgen_runtime.cards import Card, timeout_options
from toolgen_runtime.confirm import CONFIRM_PURPOSE, ConfirmationGate
from toolgen_runtime.envelope import (
    MAX_PROBLEMS,
    declared_error,
    dumps,
    invalid_arguments,
)
from toolgen_runtime.errors import (
    ContractViolation,
    DeclaredError,
    MissingContext,
    ToolError,
    UndeclaredError,
)
from toolgen_runtime.guards.scope import Boundaries
from toolgen_runtime.output import (
    OutputContract,
    find_sensitive,
    redact_exception,
    redacted_details,
    sensitive_values,
)
from toolgen_runtime.pagination import Pagination
from toolgen_runtime.results import serializer_for, success
from toolgen_runtime.signing import Signer
from toolgen_runtime.store import (
    Claimed,
    Outcome,
    Store,
    default_store,
    effect_starts,
    fingerprint,
    idempotency_key,
    run_once,
)
from toolgen_runtime.threads import run_in_worker
from toolgen_runtime.writes import (
    TOKEN_PARAM,
    KeyIdempotency,
    TokenConfirmation,
    context_values,
    summary,
    wire_arguments,
)

__all__ = ["Implementation", "Invoker", "make_tool"]

ArgsT = TypeVar("ArgsT", bound=BaseModel)
ContextT = TypeVar("ContextT")
ResultT = TypeVar("ResultT")

Implementation = Callable[..., object]

# the arguments a token stands for: all but the token itself
_NO_TOKEN = frozenset({TOKEN_PARAM})


def _is_async(implementation: Implementation) -> bool:
    return inspect.iscoroutinefunction(implementation) or (
        # an object whose __call__ is `async def`
        not inspect.isroutine(implementation)
        and inspect.iscoroutinefunction(type(implementation).__call__)
    )


def _frozen(value: object) -> bool:
    params = getattr(type(value), "__dataclass_params__", None)
    return params is not None and bool(params.frozen)


def _starting(implementation: Implementation, *args: object) -> object:
    # in the worker thread, as the effect begins: an idempotent call's claim is renewed
    # from now on, or, if it ran out while the call waited for a thread, nothing runs
    effect_starts()
    return implementation(*args)


async def _in_worker(implementation: Implementation, *args: object) -> object:
    outcome = await run_in_worker(_starting, implementation, *args)
    if inspect.isawaitable(outcome):  # a plain callable that hands back a coroutine
        outcome = await outcome
    return outcome


class Invoker(Generic[ArgsT, ContextT, ResultT]):
    """`on_invoke_tool` of one generated tool: validate, call, wrap the outcome."""

    __slots__ = (
        "_boundaries",
        "_build_context",
        "_catalogue_context",
        "_errors",
        "_examples",
        "_gate",
        "_hints",
        "_idempotency",
        "_identity",
        "_implementation",
        "_is_async",
        "_last_context",
        "_load_implementation",
        "_output",
        "_pagination",
        "_parse",
        "_schema",
        "_serialize",
        "_signer",
        "_store",
        "_writes",
        "approval",
        "args_model",
        "confirmation",
        "result_type",
        "tool_name",
    )

    def __init__(
        self,
        *,
        tool_name: str,
        args_model: type[ArgsT],
        result_type: type[ResultT],
        errors: Mapping[str, DeclaredError],
        load_implementation: Callable[[], Implementation],
        catalogue_context: type[object] | None = None,
        build_context: Callable[[Any], ContextT] | None = None,
        hints: Mapping[str, FieldHint] | None = None,
        schema: Mapping[str, Any] | None = None,
        examples: Mapping[str, object] | None = None,
        boundaries: Boundaries | Callable[[], Boundaries] | None = None,
        identity: Callable[[Any], object] | None = None,
        pagination: Pagination | None = None,
        output: OutputContract | None = None,
        idempotency: KeyIdempotency | None = None,
        confirmation: TokenConfirmation | None = None,
        approval: bool = False,
        store: Store | None = None,
        signer: Signer | None = None,
    ) -> None:
        """What a rejected call is told about each field comes from `hints`, or is read from
        the tool's `schema` and `examples` on the first rejection (`hints_from_schema`).
        `boundaries` (path roots, hosts, the cursor signer) make the validation context
        of each call, bound to `identity` (a JSON value built from the run context); a
        `pagination` tool answers with the page envelope; an `output` contract cuts long
        texts and redacts sensitive fields. A tool with none of them takes the plain path.
        `boundaries` may be a function that gives them (a generated tool passes
        `configured_boundaries`): it is asked on each call, so the application may configure
        them after importing the tools.

        A tool that writes declares `idempotency` (by key), `confirmation` (one of a token
        pair) and `approval` (`needs_approval`, validate first). Its `store` and `signer`
        default to TOOLGEN_STORE_URL's and TOOLGEN_SECRET's, resolved at its first call
        that needs them, so making the tool needs no configuration: a missing one raises
        then (`StoreNotConfigured`, `MissingSecret`), or at start-up through
        `cards.require_services`."""
        self.tool_name = tool_name
        self.args_model = args_model
        self.result_type = result_type
        self._parse = ArgumentParser(args_model, keep=MAX_PROBLEMS).parse
        self._serialize: Callable[[object], bytes] | None = None
        self._errors = errors
        self._load_implementation = load_implementation
        self._implementation: Implementation | None = None
        self._is_async = False
        self._catalogue_context = catalogue_context
        self._build_context = build_context
        self._last_context: tuple[object, ContextT] | None = None
        self._hints = hints
        self._schema = schema
        self._examples = examples
        self._boundaries = boundaries
        self._identity = identity
        self._pagination = pagination
        self._output = output
        self._init_writes(idempotency, confirmation, approval, store, signer)

    # -- writes: idempotency by key, confirmation (issue 9) --------------------------------

    def _init_writes(
        self,
        idempotency: KeyIdempotency | None,
        confirmation: TokenConfirmation | None,
        approval: bool,
        store: Store | None,
        signer: Signer | None,
    ) -> None:
        self._idempotency = idempotency
        self.confirmation = confirmation
        self.approval = ValidFirst(self.may_run, self.rejection) if approval else None
        self._writes = idempotency is not None or confirmation is not None
        # the environment's store and secret are resolved at the first call that needs them
        # (`_writes_store`, `gate`): importing a tool needs no configuration
        self._store = store
        self._signer = signer
        self._gate: ConfirmationGate | None = None

    def _writes_store(self) -> Store:
        if self._store is None:
            self._store = default_store()
        return self._store

    @property
    def gate(self) -> ConfirmationGate | None:
        """The token gate of a prepare or confirm tool (tests issue tokens with it)."""
        confirmation = self.confirmation
        if confirmation is None or self._gate is not None:
            return self._gate
        self._gate = ConfirmationGate(
            tool=confirmation.confirm_tool,
            prepare_tool=confirmation.prepare_tool,
            signer=(
                self._signer
                if self._signer is not None
                else Signer.from_environment(CONFIRM_PURPOSE)
            ),
            store=self._writes_store(),
            ttl_s=confirmation.ttl_s,
        )
        return self._gate

    def rejection(self, raw_json: str, run_context: object = None) -> str | None:
        """What this tool answers for arguments it refuses (the invalid-arguments envelope),
        or None when they pass: what approval's guardrail checks the call's exact text
        with."""
        args = self._parse(raw_json, self._scope(run_context))
        if type(args) is Rejected:
            return invalid_arguments(self.tool_name, args, self.hints())
        return None

    def may_run(self, text: str, run_context: object = None) -> bool:
        """Whether arguments written as `text` may be a call this tool runs: not when they
        fail its checks, unless only for the text's length, which another spelling of the
        same values (the one the model wrote) may not have. What approval's policy asks."""
        args = self._parse(text, self._scope(run_context))
        if type(args) is not Rejected:
            return True
        return any(issue.kind == ARGUMENTS_TOO_LONG for issue in args.issues)

    def _scope(self, run_context: object) -> Mapping[str, object] | None:
        """The validation context of a call: the boundaries (asked now, so they may be
        configured after import), bound to who calls."""
        boundaries = self._boundaries
        if boundaries is None:
            return None
        if not isinstance(boundaries, Boundaries):
            boundaries = boundaries()
        identity = None
        if self._identity is not None:
            self._check_run_context(run_context)
            identity = self._identity(run_context)
        return boundaries.for_call(identity)

    def identity(self, ctx: ToolContext[Any]) -> dict[str, object]:
        """What a token of this tool is bound to: the named fields of the call's context."""
        assert self.confirmation is not None
        return context_values(self._context(ctx), self.confirmation.identity)

    async def _write(self, ctx: ToolContext[Any], raw_json: str) -> str:
        # boundaries and the output contract apply to a write as to a read; its answer is
        # not paginated
        args = self._parse(raw_json, self._scope(getattr(ctx, "context", None)))
        if type(args) is Rejected:
            return invalid_arguments(self.tool_name, args, self.hints())
        assert isinstance(args, BaseModel)
        confirmation = self.confirmation
        if confirmation is not None:
            gate = self.gate
            assert gate is not None
            wire = wire_arguments(args, without=_NO_TOKEN)
            identity = self.identity(ctx)
            if confirmation.role == "prepare":
                shown = wire_arguments(args, without=_NO_TOKEN, shown=True)
                return self._answer(
                    self.result_type(  # type: ignore[call-arg]
                        token=gate.issue(wire, identity),
                        summary=summary(confirmation.confirm_tool, shown),
                        expires_in_s=int(gate.ttl_s),
                    )
                )
            rejection = await gate.redeem(getattr(args, TOKEN_PARAM), wire, identity)
            if rejection is not None:
                return dumps(rejection.envelope())
        idempotency = self._idempotency
        if idempotency is None:
            try:
                outcome = await self._call(ctx, args)
            except ToolError as err:
                return dumps(self._error_envelope(err))
            return self._answer(outcome)
        return await self._run_once(ctx, args, idempotency)

    async def _run_once(
        self, ctx: ToolContext[Any], args: BaseModel, idempotency: KeyIdempotency
    ) -> str:
        store = self._writes_store()
        self.implementation()  # resolved now: whether it is async decides the lease
        wire = wire_arguments(args, without=_NO_TOKEN)
        by_context = (
            context_values(self._context(ctx), idempotency.context)
            if idempotency.context
            else {}
        )

        async def execute(claim: Claimed) -> str | Outcome:
            try:
                outcome = await self._call(ctx, args)
            except ToolError as err:
                text = dumps(self._error_envelope(err))
                # a retryable error did nothing: released, so the invited retry can run
                return Outcome(text, record=not self._errors[err.code].retryable)
            # what is recorded is what the model read: a repeat answers the same text
            return self._answer(outcome)

        once = await run_once(
            store,
            scope=self.tool_name,
            key=idempotency_key(
                self.tool_name,
                {name: wire[name] for name in idempotency.arguments},
                by_context,
            ),
            fingerprint=fingerprint(wire, by_context),
            execute=execute,
            lease_s=idempotency.lease_s,
            retention_s=idempotency.retention_s,
            wait_s=idempotency.wait_s,
            key_fields=idempotency.arguments,
            # a plain `def` waits for a worker thread: its claim is kept from when it starts
            deferred_start=not self._is_async,
        )
        return once.model_text

    def hints(self) -> Mapping[str, FieldHint]:
        hints = self._hints
        if hints is None:
            schema = self._schema or {}
            hints = self._hints = hints_from_schema(schema, self._examples)
        return hints

    def implementation(self) -> Implementation:
        # resolved on the first call: importing the generated package stays cheap, and an
        # implementation module may import its own generated types without a cycle
        if self._implementation is None:
            implementation = self._load_implementation()
            self._is_async = _is_async(implementation)
            self._implementation = implementation
        return self._implementation

    async def __call__(self, ctx: ToolContext[Any], raw_json: str) -> str:
        if self._writes:
            return await self._write(ctx, raw_json)
        if self._boundaries is not None or self._output is not None:
            return await self._bounded(ctx, raw_json)
        args = self._parse(raw_json)
        if type(args) is Rejected:
            return invalid_arguments(self.tool_name, args, self.hints())
        implementation = self._implementation
        if implementation is None:
            implementation = self.implementation()
        try:
            # two branches rather than one call with *args: this is the path of every call
            if self._build_context is None:
                if self._is_async:
                    outcome = await implementation(args)  # type: ignore[misc]
                else:
                    outcome = await _in_worker(implementation, args)
            else:
                context = self._context(ctx)
                if self._is_async:
                    outcome = await implementation(args, context)  # type: ignore[misc]
                else:
                    outcome = await _in_worker(implementation, args, context)
        except ToolError as err:
            return dumps(self._error_envelope(err))
        return self._success_text(outcome)

    async def _call(self, ctx: ToolContext[Any], args: object) -> object:
        """The implementation's outcome for validated arguments (the bounded and the write
        paths), run with the arguments' sensitive values known to logging and exception
        texts: a declared error's details and an escaping exception are redacted."""
        with sensitive_values(find_sensitive(args)):
            try:
                return await self._run_implementation(ctx, args)
            except ToolError as err:
                err.details = redacted_details(err.details)
                raise
            except BaseException as exc:
                redact_exception(exc)
                raise

    async def _run_implementation(self, ctx: ToolContext[Any], args: object) -> object:
        implementation = self.implementation()
        if self._build_context is None:
            if self._is_async:
                return await implementation(args)  # type: ignore[misc]
            return await _in_worker(implementation, args)
        context = self._context(ctx)
        if self._is_async:
            return await implementation(args, context)  # type: ignore[misc]
        return await _in_worker(implementation, args, context)

    async def _bounded(self, ctx: ToolContext[Any], raw_json: str) -> str:
        """A call of a tool with boundaries or an output contract: validated with the call's
        scope, run with its sensitive values known to logging and exception texts, answered
        with the page envelope and the output contract applied."""
        scope = self._scope(getattr(ctx, "context", None))
        args = self._parse(raw_json, scope)
        if type(args) is Rejected:
            return invalid_arguments(self.tool_name, args, self.hints())
        try:
            outcome = await self._call(ctx, args)
        except ToolError as err:
            return dumps(self._error_envelope(err))
        if self._pagination is None:
            return self._answer(outcome)
        envelope = self._pagination.envelope(outcome, args, scope or {})  # type: ignore[arg-type]
        if self._output is not None:
            envelope = self._output.apply(envelope)
        return dumps(envelope)

    def _answer(self, outcome: object) -> str:
        """The success text of an outcome, with the output contract applied."""
        text = self._success_text(outcome)
        if self._output is None:
            return text
        return dumps(self._output.apply(json.loads(text)))

    def _success_text(self, outcome: object) -> str:
        if type(outcome) is not self.result_type:
            got, expected = type(outcome).__name__, self.result_type.__name__
            if got == expected:  # one name, two classes: another package's, imported
                got = f"{type(outcome).__module__}.{got}"
                expected = f"{self.result_type.__module__}.{expected}"
            raise ContractViolation(
                f"{self.tool_name} returned {got}, expected {expected}"
            )
        serialize = self._serialize
        if serialize is None:
            serialize = self._serialize = serializer_for(self.result_type)
        return success(outcome, serialize)

    def _context(self, ctx: ToolContext[Any]) -> ContextT:
        run_context = getattr(ctx, "context", None)
        last = self._last_context
        if last is not None and last[0] is run_context:
            return last[1]
        self._check_run_context(run_context)
        assert self._build_context is not None
        context = self._build_context(run_context)
        # A run makes many calls with one run context. When it and the tool's context built
        # from it are both frozen dataclasses, the next call with the same run context gets
        # the same (immutable) tool context back without building it again.
        if _frozen(run_context) and _frozen(context):
            self._last_context = (run_context, context)
        return context

    def _check_run_context(self, run_context: object) -> None:
        expected = self._catalogue_context
        if expected is not None and not isinstance(run_context, expected):
            name = expected.__qualname__
            raise MissingContext(
                f"{self.tool_name} reads its context from the run context, which must be a "
                f"{expected.__module__}.{name}: pass one, as "
                f"Runner.run(..., context={name}(...)) or run_call(tool, arguments, "
                f"{name}(...)); got {type(run_context).__name__}"
            )

    def _error_envelope(self, err: ToolError) -> dict[str, object]:
        declared = self._errors.get(err.code)
        if declared is None:
            raise UndeclaredError(
                f"{self.tool_name} raised error code {err.code!r}, which its contract does not "
                f"declare (declared: {', '.join(sorted(self._errors)) or 'none'}); declare it "
                "in the spec or fix the implementation"
            ) from err
        return declared_error(self.tool_name, err, declared)


def make_tool(
    *,
    name: str,
    description: str,
    parameters: dict[str, Any],
    invoker: Callable[[ToolContext[Any], str], Awaitable[str]],
    card: Card | None = None,
) -> FunctionTool:
    """The SDK tool: the exact schema the model sees, already strict, and our invoker
    (with its approval policy and guardrail, for a tool a person approves); a tool with a
    timeout passes its `card`, whose timeout it gets."""
    approval = getattr(invoker, "approval", None)
    return FunctionTool(
        name=name,
        description=description,
        params_json_schema=parameters,
        on_invoke_tool=invoker,
        strict_json_schema=True,
        needs_approval=approval if approval is not None else False,
        tool_input_guardrails=[approval.guardrail] if approval is not None else None,
        **(timeout_options(card) if card is not None else {}),
    )
