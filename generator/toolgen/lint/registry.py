"""The rule registry: every lint rule, with its id, its documentation and one typed check.

A rule is a small function over one kind of element (the catalogue, a tool, a parameter, a
return field, an error code, a pair of tools, or one string of the spec), registered with
`@rule(...)`. It yields `Finding`s: a message naming the bad value and what is expected, and
optionally a hint and a span (by default the element's own place). The rule's docstring is its
documentation (What it does / Why is this bad? / Example / Use instead); docs/rules.md is
generated from it.

Ids are stable and never reused: a rule that is withdrawn keeps its id in `RETIRED`.
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from toolgen import codes
from toolgen.diagnostics import Severity, Span
from toolgen.lint import words
from toolgen.spec.ir import Catalogue, ErrorCode, Param, ReturnField, Tool, innermost
from toolgen.spec.summary import ToolSummary

if TYPE_CHECKING:
    from toolgen.lint.context import LintContext


class Category(codes.Titled):
    NAMES = "names", "Names"
    DESCRIPTIONS = "descriptions", "Descriptions"
    TWO_TOOL = "two-tool", "The two-tool test"
    PARAMETERS = "parameters", "Parameters"
    IDENTITY = "identity", "Context, identity and secrets"
    EFFECTS = "effects", "Effects"
    RETURNS = "returns", "Returns and errors"
    SECURITY = "security", "Security"
    CATALOGUE = "catalogue", "Catalogue and token budget"
    TOOLSETS = "toolsets", "Namespaces, toolsets and tool search"
    CONFIG = "config", "Lint configuration and suppressions"


# the category of a rule is said by its id: its first digits, the longest prefix first
_CATEGORY_IDS = (
    ("TG95", Category.CATALOGUE),
    ("TG96", Category.TOOLSETS),
    ("TG99", Category.CONFIG),
    ("TG2", Category.NAMES),
    ("TG3", Category.DESCRIPTIONS),
    ("TG4", Category.TWO_TOOL),
    ("TG5", Category.PARAMETERS),
    ("TG6", Category.IDENTITY),
    ("TG7", Category.EFFECTS),
    ("TG8", Category.RETURNS),
    ("TG9", Category.SECURITY),
)


class Lifecycle(enum.Enum):
    STABLE = "stable"
    PREVIEW = "preview"  # runs only with `lint: {preview: true}` or when selected by id


# --- the elements a rule sees -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParamSite:
    """A named parameter of a tool: a top-level one, or a property of an object parameter
    (also inside arrays). Array items have no name of their own and are seen through
    `scalar`."""

    tool: Tool
    param: Param
    path: tuple[str, ...]  # names from the top-level parameter: ("filter", "status")
    siblings: tuple[Param, ...]  # the parameters of the same object, this one included

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def scalar(self) -> Param:
        """The value the model writes: the parameter, or its innermost array items."""
        return innermost(self.param)

    @property
    def name_words(self) -> tuple[str, ...]:
        return words.name_words(self.param.name)


@dataclass(frozen=True, slots=True)
class ReturnSite:
    tool: Tool
    field: ReturnField
    path: tuple[str, ...]
    siblings: tuple[ReturnField, ...]

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True, slots=True)
class ErrorSite:
    tool: Tool
    error: ErrorCode


@dataclass(frozen=True, slots=True)
class ToolPair:
    """Two tools that share an object word in their names (or differ only in case), seen
    through their summaries: `first` sorts before `second`; findings point at `second`."""

    first: ToolSummary
    second: ToolSummary


@dataclass(frozen=True, slots=True)
class SpecText:
    """One string of a spec file (a tool's or catalogue.yaml), a value or a mapping key. A
    check over it must depend on the text, `is_key` and `refused` only (the engine may reuse
    results for repeated strings, in any tool). `refused`: the string is part of a rejected
    example, which shows the validator refusing it and never reaches an implementation or the
    model (a hostile value belongs there: `/etc/passwd` for a path guard)."""

    text: str
    is_key: bool
    refused: bool = False


# the kinds a tool's own rules see, with a LintContext: their findings are kept with the tool
TOOL_KINDS: tuple[type, ...] = (Tool, ParamSite, ReturnSite, ErrorSite, SpecText)
# the kinds seen with a CatalogueContext (every tool's summary), in every build: the
# catalogue, pairs of tools, and each tool's references to the others
CATALOGUE_KINDS: tuple[type, ...] = (Catalogue, ToolPair, ToolSummary)
# what a rule checks, as docs/rules.md says it; None: a rule the engine applies
KIND_NAMES: dict[type | None, str] = {
    Catalogue: "catalogue",
    Tool: "tool",
    ParamSite: "parameter",
    ReturnSite: "return field",
    ErrorSite: "error code",
    ToolPair: "pair of tools",
    ToolSummary: "tool, with the tools it names",
    SpecText: "every string of the spec",
    None: "the lint run",
}


@dataclass(frozen=True, slots=True)
class Finding:
    message: str
    hint: str = ""  # empty: the rule's fix
    span: Span | None = None  # None: the element's own place


E = TypeVar("E")
C = TypeVar("C", bound="LintContext")
Check = Callable[[E, C], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str
    category: Category
    severity: Severity
    lifecycle: Lifecycle
    kind: type | None  # the element the check sees; None for a rule the engine applies
    check: Callable[[Any, LintContext], Iterable[Finding]] | None
    fix: str  # the default hint: what to do instead
    source: str  # what motivates the rule
    doc: str  # markdown: What it does / Why is this bad? / Example / Use instead

    @property
    def summary(self) -> str:
        return self.doc.split("\n", 1)[0].strip()


# What rules of several modules cite as their source: the Tools lesson of toolgen's seeds, and
# its sections
LESSON = "toolgen seeds: Tools lesson"
BOUNDARY = f"{LESSON}, 'The tool is a system boundary'"
DOCSTRING = f"{LESSON}, 'Why the docstring is production code'"
TRADE_OFFS = f"{LESSON}, 'Trade-offs': each description is sent at every turn"

REGISTRY: dict[str, Rule] = {}
# Ids of withdrawn rules, with what replaced them: an id is never given to another rule.
RETIRED: dict[str, str] = {}
_ID = re.compile(r"^TG[2-9]\d\d$")


def engine_rule(
    *,
    id: str,
    name: str,
    severity: Severity,
    fix: str,
    source: str,
    doc: str,
    lifecycle: Lifecycle = Lifecycle.STABLE,
    kind: type | None = None,
    check: Callable[[Any, LintContext], Iterable[Finding]] | None = None,
) -> Rule:
    """Register a rule; without a `kind` and a `check`, one the engine applies itself (it
    needs the outcome of every other rule)."""
    if not _ID.fullmatch(id):
        raise ValueError(f"lint rule id {id!r} is not TG200-TG999")
    if id in RETIRED:
        raise ValueError(f"lint rule id {id} is already taken")
    registered = Rule(
        id=id,
        name=name,
        category=next(c for prefix, c in _CATEGORY_IDS if id.startswith(prefix)),
        severity=severity,
        lifecycle=lifecycle,
        kind=kind,
        check=check,
        fix=fix,
        source=source,
        doc=inspect.cleandoc(doc),
    )
    # the table of codes refuses an id or a name already taken, or a name not in kebab case
    codes.register(
        codes.Code(id, name, codes.Stage.LINT, severity, registered.summary, fix)
    )
    REGISTRY[id] = registered
    return registered


def rule(
    *,
    id: str,
    severity: Severity,
    fix: str,
    source: str,
    lifecycle: Lifecycle = Lifecycle.STABLE,
) -> Callable[[Check[E, C]], Check[E, C]]:
    """Register a check; its docstring documents the rule, the annotation of its first
    parameter names the kind of element it sees (`site: ParamSite`), and its name is the
    rule's (`intent_too_short` is `intent-too-short`)."""

    def register(check: Check[E, C]) -> Check[E, C]:
        seen = next(iter(check.__annotations__.values()))
        engine_rule(
            id=id,
            name=check.__name__.replace("_", "-"),
            severity=severity,
            fix=fix,
            source=source,
            doc=check.__doc__ or "",
            lifecycle=lifecycle,
            # a name, as `from __future__ import annotations` leaves it
            kind=check.__globals__[seen] if isinstance(seen, str) else seen,
            # the engine calls it with the context its kind is given
            check=cast("Callable[[Any, LintContext], Iterable[Finding]]", check),
        )
        return check

    return register


def all_rules() -> list[Rule]:
    """Every registered rule, by id (importing the rule modules registers them)."""
    from toolgen.lint import (  # noqa: F401
        boundaries,
        catalogue,
        config,
        descriptions,
        effects,
        identity,
        names,
        neighbours,
        parameters,
        returns,
        security,
        strict_limits,
        toolsets,
        two_tool,
    )

    return [REGISTRY[k] for k in sorted(REGISTRY)]
