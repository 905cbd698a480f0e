"""The intermediate representation: a catalogue with every reference resolved, every default
explicit, and every declared value kept.

The model stage (`model/`) builds it from the documents that passed the format check, and the
semantic checks (`checks/`) run over it; every later stage (lint, render, snapshot) reads it and
nothing else: no stage after the model sees the YAML. What the IR keeps of the files is where
each value was written (`Origin`, a place in a `SourceMap`), every string of a spec with its
place (`texts`, for the lint rules over spec text) and a digest of each file's content (what the
build caches key on).

The types are frozen and hashable. Values that are JSON (defaults, examples, computed schemas)
take no part in hashing; the computed fields (`description`, `parameters`) take no part in
comparison either, since they follow from the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar
from urllib.parse import urlsplit

from toolgen.diagnostics import Span
from toolgen.spec.summary import Effect, PyNames, Role

if TYPE_CHECKING:  # groups.py builds on this module; load (and PyYAML with it) only
    # names the types of the places the IR keeps
    from toolgen.spec.groups import Namespace, Toolset
    from toolgen.spec.load import PathKey, SourceMap

JsonValue: TypeAlias = (
    "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
)
ParamType = Literal[
    "string",
    "integer",
    "number",
    "boolean",
    "date",
    "datetime",
    "array",
    "object",
    "path",
    "url",
]
Confirmation = Literal["none", "approval", "token"]
_HOST = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)*")  # a host name or an IPv4 address


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an element was written: a file's places and the path of the element's value."""

    source: SourceMap = field(repr=False, compare=False, hash=False)
    path: PathKey

    @property
    def file(self) -> str:
        return self.source.file

    def span(self, *sub: str | int, key: bool = False) -> Span:
        """The span of this element, or of a sub-key of it (`origin.span("pattern")`)."""
        return self.source.span((*self.path, *sub), key=key)

    @property
    def key_span(self) -> Span:
        return self.source.span(self.path, key=True)

    def has(self, *sub: str | int) -> bool:
        """Whether the spec wrote a value at this sub-path (`origin.has("examples")`)."""
        return self.source.has((*self.path, *sub))


@dataclass(frozen=True, slots=True)
class TextAt:
    """One string of a spec file, a value or a mapping key, at its path."""

    path: PathKey
    text: str
    is_key: bool


@dataclass(frozen=True, slots=True)
class Constraints:
    """The constraints of a value that apply to its type; None where the spec says nothing."""

    enum: tuple[JsonValue, ...] | None = None
    pattern: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None


N = TypeVar("N", "Param", "ReturnField")


def walk(node: N) -> Iterator[N]:
    """A parameter or return field and every field nested in it (items, properties), depth
    first: the one walker of both trees."""
    yield node
    if node.items is not None:
        yield from walk(node.items)
    for prop in node.properties:
        yield from walk(prop)


def guarded_values(
    params: tuple[Param, ...], args: Mapping[str, object]
) -> Iterator[tuple[PathKey, Param, object]]:
    """Each value `args` gives a guarded (`path` or `url`) parameter, at any depth, with its
    path (`reports.0`, `cover.sheet`) and the parameter."""
    for param in params:
        yield from _guarded(param, args.get(param.name), (param.name,))


def _guarded(
    param: Param, value: object, at: PathKey
) -> Iterator[tuple[PathKey, Param, object]]:
    if param.path is not None or param.url is not None:
        yield at, param, value
    elif param.items is not None:
        for index, item in enumerate(value if isinstance(value, list) else ()):
            yield from _guarded(param.items, item, (*at, index))
    elif isinstance(value, dict):
        for prop in param.properties:
            yield from _guarded(prop, value.get(prop.name), (*at, prop.name))


def innermost(node: N) -> N:
    """A parameter or return field, or its innermost array items (an array of arrays of
    objects holds objects): the value written."""
    while node.items is not None:
        node = node.items
    return node


def named(nodes: tuple[N, ...], prefix: str = "") -> Iterator[tuple[str, N]]:
    """Each named parameter or return field with its dotted path, nested ones included (the
    properties of array items are under the array's name)."""
    for node in nodes:
        path = prefix + node.name
        yield path, node
        yield from named(innermost(node).properties, path + ".")


# --- boundaries: guarded parameters, pagination, output contracts --------------------------


@dataclass(frozen=True, slots=True)
class PathSpec:
    """A `path` parameter's guard: the name of its root (the deployment says which folder:
    `TOOLGEN_ROOT_<ROOT>`), the suffixes a file may end with (empty: any), and whether the
    file must exist. `root_declared` is False when the spec names no root and the
    parameter's own name stands for it."""

    root: str
    root_declared: bool
    suffixes: tuple[str, ...]
    must_exist: bool


@dataclass(frozen=True, slots=True)
class UrlSpec:
    """A `url` parameter's guard: the allowed hosts, the deployment's list of more hosts
    (`hosts_from`, `TOOLGEN_HOSTS_<NAME>`), the schemes (https unless the spec says
    otherwise) and the ports allowed besides each scheme's default."""

    hosts: tuple[str, ...]
    hosts_from: str | None
    schemes: tuple[str, ...]
    ports: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PaginationSpec:
    """A paginated tool: its `returns` are the fields of one item, the runtime builds the
    page envelope. The model sends `cursor` (null for the first page) and `page_size` (null
    for `default_page_size`, at most `max_page_size`); a cursor is bound to the other
    arguments and to the context fields in `identity`."""

    max_page_size: int
    default_page_size: int
    total: Literal["counted", "unknown", "expensive"]
    noun: str
    identity: tuple[str, ...]
    ttl_s: int | None
    origin: Origin


CURSOR_PARAM = "cursor"
PAGE_SIZE_PARAM = "page_size"


@dataclass(frozen=True, slots=True, kw_only=True)
class Param:
    """One argument the model fills in (or one property of an object argument)."""

    name: str  # as the model sees it
    py_name: str  # the Python attribute; differs for keywords and reserved names
    type: ParamType
    description: str
    constraints: Constraints = Constraints()
    # nullable in the schema; null means "leave it out" or the default
    optional: bool = False
    has_default: bool = False
    default: JsonValue = field(default=None, hash=False)
    has_example: bool = False
    example: JsonValue = field(default=None, hash=False)
    items: Param | None = None
    properties: tuple[Param, ...] = ()
    class_name: str = ""  # for objects (and arrays of objects): the generated model
    origin: Origin
    path: PathSpec | None = None  # for type path
    url: UrlSpec | None = None  # for type url
    is_cursor: bool = False  # the cursor a paginated tool adds

    @property
    def aliased(self) -> bool:
        return self.py_name != self.name


@dataclass(frozen=True, slots=True, kw_only=True)
class ReturnField:
    """One field of a successful result."""

    name: str  # as the model reads it
    py_name: str  # the attribute of the result class; differs for names Python reserves
    type: ParamType
    description: str
    enum: tuple[JsonValue, ...] | None = None
    optional: bool = False
    items: ReturnField | None = None
    properties: tuple[ReturnField, ...] = ()
    class_name: str = ""  # for objects and arrays of objects: the generated dataclass
    origin: Origin
    # a text cut to this many characters, flagged truncated
    max_length: int | None = None
    sensitive: bool = False  # redacted: never reaches the model

    def walk(self) -> list[ReturnField]:
        return list(walk(self))


@dataclass(frozen=True, slots=True)
class ContextField:
    name: str  # as the catalogue declares it
    py_name: str  # the attribute of the context classes; differs for reserved names
    type: ParamType
    description: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: str
    when: str
    how_to_fix: str
    retryable: bool
    origin: Origin


@dataclass(frozen=True, slots=True)
class NotWhen:
    when: str
    use: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class Example:
    args: Mapping[str, JsonValue] = field(hash=False)
    rejected_on: str | None
    note: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class Suppression:
    rule: str
    reason: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class Idempotency:
    """What repeating a call does, as declared: `none`; `natural` (the implementation makes
    repeats harmless); or `key` (a repeat with the same key returns the first outcome), the key
    made of named arguments and named context fields, kept for `retention_s` seconds."""

    kind: Literal["none", "natural", "key"]
    arguments: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    retention_s: int | None = None
    origin: Origin | None = None


@dataclass(frozen=True, slots=True)
class ImplementationTests:
    """`tests:` of a catalogue or of a tool: whether the generated tests also run each
    accepted example through the real implementation (`run`), and with which pytest
    fixtures of the project. A tool's None keys are its catalogue's, and a catalogue's are
    off and none (`Catalogue.tests_of`)."""

    run: bool | None = None
    fixtures: tuple[str, ...] | None = None


# --- writes: idempotency by key, confirmation (issue 9) ------------------------------------

TOKEN_PARAM = "token"
"""The parameter a confirm tool takes beside its contract's own: the prepare tool's token."""
CONFIRM_PREFIX = "confirm_"
PREPARE_PREFIX = "prepare_"
DEFAULT_RETENTION_S = 24 * 3600
DEFAULT_TOKEN_TTL_S = 600


@dataclass(frozen=True, slots=True)
class TokenPair:
    """The two tools one `confirmation: token` contract becomes: `confirm` (the contract,
    named `confirm_<x>`, which acts) and `prepare` (`prepare_<x>`, derived: it validates,
    summarises and returns a token, and does nothing). The token is bound to the tool, the
    arguments and the `identity` context fields, and expires after `ttl_s`."""

    prepare: str
    confirm: str
    identity: tuple[str, ...]
    ttl_s: int = DEFAULT_TOKEN_TTL_S


def prepare_name(confirm: str) -> str:
    """The derived prepare tool of a token contract: confirm_order -> prepare_order."""
    return PREPARE_PREFIX + confirm.removeprefix(CONFIRM_PREFIX)


@dataclass(frozen=True, slots=True)
class Timeout:
    """How long a call may take (the SDK's timeout_seconds), and what the model is told
    when it takes longer."""

    seconds: float
    how_to_fix: str


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    intent: str
    use_when: str
    not_when: tuple[NotWhen, ...]
    requires: tuple[str, ...]
    effect: Effect
    open_world: bool
    idempotency: Idempotency
    confirmation: Confirmation
    params: tuple[Param, ...]
    context_names: tuple[str, ...]  # as listed, in order (unknown ones included)
    context: tuple[ContextField, ...]  # the catalogue's fields those names resolve to
    returns: tuple[ReturnField, ...]
    errors: tuple[ErrorCode, ...]
    examples: tuple[Example, ...]
    suppressions: tuple[Suppression, ...]
    py: PyNames
    origin: Origin
    digest: str  # of the tool file's content
    texts: tuple[TextAt, ...] = field(repr=False, compare=False, hash=False)
    # what the model reads, composed by templates/description.txt.jinja
    description: str = field(default="", compare=False)
    # the exact schema the model sees
    parameters: Mapping[str, object] = field(
        default_factory=dict, repr=False, compare=False, hash=False
    )
    # None: the result is the declared fields; else `returns` are one item of a page
    pagination: PaginationSpec | None = None
    # writes (issue 9): "prepare" for the tool derived from a token contract, "confirm" for
    # the contract itself; both carry the pair
    role: Role = "tool"
    token_pair: TokenPair | None = None
    # `tests:` of the tool file: what its keys say, None where it says nothing
    tests: ImplementationTests = ImplementationTests()
    namespace: str | None = None
    deferred: bool = False  # resolved: the tool's own, else its namespace's, else false
    asks: tuple[str, ...] = ()
    timeout: Timeout | None = None

    @property
    def file(self) -> str:
        return self.origin.file

    @property
    def derived(self) -> bool:
        """Made by the compiler from another tool's contract (a prepare tool): it has no
        file, implementation or spec text of its own."""
        return self.role == "prepare"

    @property
    def param_names(self) -> tuple[str, ...]:
        """The names of its top-level parameters, in order. This and `suppressed_rules` are
        properties a `ToolSummary` has too, so what reads names (a lint profile,
        review.silenced) takes either (lint.context.Named)."""
        return tuple(param.name for param in self.params)

    @property
    def suppressed_rules(self) -> tuple[str, ...]:
        """The lint rules its suppressions name, in order."""
        return tuple(item.rule for item in self.suppressions)

    @property
    def needs_store(self) -> bool:
        """Whether the runtime keeps state for its calls (TOOLGEN_STORE_URL): the outcomes
        of an idempotency key, or which tokens were used."""
        return self.idempotency.kind == "key" or self.token_pair is not None

    @property
    def accepted_examples(self) -> tuple[Example, ...]:
        return tuple(e for e in self.examples if e.rejected_on is None)

    def all_params(self) -> list[Param]:
        return [p for top in self.params for p in walk(top)]

    @property
    def returns_annotation(self) -> str:
        """What the implementation returns: the result, or a page of items."""
        if self.pagination is not None:
            return f"Page[{self.py.result_class}]"
        return self.py.result_class

    @property
    def has_guards(self) -> bool:
        """Whether a `path` or `url` parameter stands anywhere in its arguments."""
        return any(p.path is not None or p.url is not None for p in self.all_params())

    @property
    def listed_hosts(self) -> dict[str, tuple[str, ...]]:
        """The hosts the generated tests' deployment lists for each `hosts_from` of the tool,
        with which the build checks its examples: those of the accepted examples, or a host
        that never resolves (a list a guard reads must be set)."""
        listed: dict[str, dict[str, None]] = {}
        for param in self.all_params():
            if param.url is not None and param.url.hosts_from is not None:
                listed[param.url.hosts_from] = {}
        for example in self.accepted_examples:
            for _, param, value in guarded_values(self.params, example.args):
                if param.url and param.url.hosts_from and isinstance(value, str):
                    with suppress(ValueError):  # a URL urllib cannot read
                        host = urlsplit(value).hostname or ""
                        if _HOST.fullmatch(host):
                            listed[param.url.hosts_from][host] = None
        return {
            name: tuple(hosts) or ("example.invalid",) for name, hosts in listed.items()
        }

    @property
    def guarded(self) -> bool:
        """Whether a call needs the deployment's boundaries (roots, hosts, the cursor
        signer) to validate its arguments."""
        return self.pagination is not None or self.has_guards


@dataclass(frozen=True, slots=True)
class Budget:
    tokens: int | None = None
    tool_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class LintConfig:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict, hash=False)
    preview: bool = False
    # more warnings than this fail check and build; None: warnings never fail
    max_warnings: int | None = None


@dataclass(frozen=True, slots=True)
class Catalogue:
    name: str
    description: str
    folder: str
    package: str  # dotted module of the generated package
    implementation: str  # dotted module of the hand-written implementations
    context: tuple[ContextField, ...]
    context_class: str
    targets: tuple[str, ...]
    budget: Budget
    lint: LintConfig
    # names of the tool files that did not make it into the model (for a file that could
    # not be read at all, its name without suffix): known, but broken
    broken_tools: tuple[str, ...]
    origin: Origin
    digest: str  # of catalogue.yaml's content
    # where the catalogue says (or, for a default, where its name is) where the build writes
    package_at: Span
    implementation_at: Span
    texts: tuple[TextAt, ...] = field(repr=False, compare=False, hash=False)
    # every tool, in name order, where a command needs the whole IR (check, docs, export,
    # diff); a build's catalogue-wide stages read the tools through their summaries instead
    # (`ToolSummary`), and its catalogue holds none
    tools: tuple[Tool, ...] = ()
    tests: ImplementationTests = ImplementationTests()
    namespaces: tuple[Namespace, ...] = ()  # as declared, in name order
    # in name order (`all` when none is declared), resolved over the tools (groups.py)
    toolsets: tuple[Toolset, ...] = ()

    def tests_of(self, tool: Tool) -> tuple[bool, tuple[str, ...]]:
        """Whether a tool's generated tests run its implementation, and with which
        fixtures: the tool's own `tests` keys, else the catalogue's."""
        own, default = tool.tests, self.tests
        run = own.run if own.run is not None else default.run
        fixtures = own.fixtures if own.fixtures is not None else default.fixtures
        return bool(run), fixtures or ()
