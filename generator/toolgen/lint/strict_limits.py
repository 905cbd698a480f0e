"""Rules on the parameters' schema against the strict-mode limits of every declared target
(targets.py): its nesting, its object properties, its enum values and its size. A schema over
one of them is rejected by the provider, so each of these rules is an error."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from toolgen.diagnostics import Severity
from toolgen.lint.context import LintContext
from toolgen.lint.registry import Finding, rule
from toolgen.lint.targets import StrictLimits, Target
from toolgen.spec.ir import Tool

_STRICT = "OpenAI structured outputs: supported schemas and limits (strict mode)"


def _over(
    tool: Tool,
    targets: Iterable[Target],
    limit: Callable[[StrictLimits], int],
    said: str,
    measure: int,
) -> Iterator[Finding]:
    """A finding for every target whose strict mode's `limit` `measure` is over; `said`
    names the measure and the limit ends the message."""
    for target in targets:
        most = None if target.strict is None else limit(target.strict)
        if most is not None and measure > most:
            yield Finding(
                f"{said}; {target.label} accepts at most {most:,}",
                span=tool.origin.span("params", key=True),
            )


@rule(
    id="TG508",
    severity=Severity.ERROR,
    fix="Flatten the parameters: nested objects of nested objects belong in separate tools.",
    source=f"{_STRICT}: at most 10 levels of nesting",
)
def nesting_over_target_limit(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """Parameters nested deeper than a target allows.

    ## What it does
    Measures the levels of objects and arrays in the exposed schema (the argument object is
    the first) against every declared target with a strict mode (OpenAI: 10).

    ## Why is this bad?
    The provider rejects the schema; and a model fills deep structures worse than flat ones.

    ## Example
    ```yaml
    order: {type: object, properties: {lines: {type: array, items: {type: object, ...}}}}
    ```

    ## Use instead
    ```yaml
    lines:
      type: array
      max_items: 50
      items: {type: object, properties: {sku: ..., quantity: ...}}
    ```
    """
    depth = ctx.schema_size(tool).depth
    said = f"parameters of {tool.name!r} nest {depth} levels deep"
    return _over(tool, ctx.targets, lambda s: s.max_depth, said, depth)


@rule(
    id="TG510",
    severity=Severity.ERROR,
    fix="Split the tool: no single call needs thousands of fields.",
    source=f"{_STRICT}: at most 5000 object properties in total",
)
def schema_properties_over_target_limit(
    tool: Tool, ctx: LintContext
) -> Iterator[Finding]:
    """More object properties than a target's strict mode allows.

    ## What it does
    Counts the object properties of the exposed schema against every declared target with a
    strict mode (OpenAI: 5,000).

    ## Why is this bad?
    The provider rejects the schema, and the request with it.

    ## Example
    ```yaml
    settings: {type: object, properties: {...5,001 fields...}}
    ```

    ## Use instead
    ```yaml
    # one tool per group of settings the user changes together
    ```
    """
    count = ctx.schema_size(tool).properties
    said = f"parameters of {tool.name!r} have {count:,} object properties"
    return _over(tool, ctx.targets, lambda s: s.max_properties, said, count)


@rule(
    id="TG511",
    severity=Severity.ERROR,
    fix="Replace a huge enum with a pattern or a lookup tool the model calls first.",
    source=f"{_STRICT}: at most 1000 enum values in a schema; a string enum of more than 250 "
    "values holds at most 15,000 characters",
)
def enum_over_target_limit(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """More enum values than a target's strict mode allows.

    ## What it does
    Counts the enum values of the exposed schema (1,000 at most for OpenAI) and the characters
    of its largest string enum (at most 15,000 when it has more than 250 values).

    ## Why is this bad?
    The provider rejects the schema; long before that, a huge enum costs its whole length on
    every turn.

    ## Example
    ```yaml
    sku: {type: string, enum: [SKU-0001, SKU-0002, ...]}   # 1,200 codes
    ```

    ## Use instead
    ```yaml
    sku: {type: string, pattern: '^SKU-\\d{4}$', description: The product code.}
    ```
    """
    size = ctx.schema_size(tool)
    said = f"parameters of {tool.name!r} have {size.enum_values:,} enum values"
    yield from _over(
        tool, ctx.targets, lambda s: s.max_enum_values, said, size.enum_values
    )
    values, chars = size.largest_enum
    for target in ctx.targets:
        limits = target.strict
        if limits is None:
            continue
        if values > limits.large_enum_values and chars > limits.large_enum_chars:
            yield Finding(
                f"a string enum of {tool.name!r} has {values:,} values and {chars:,} "
                f"characters; {target.label} accepts at most {limits.large_enum_chars:,} "
                f"characters in an enum of more than {limits.large_enum_values} values",
                span=tool.origin.span("params", key=True),
            )


@rule(
    id="TG512",
    severity=Severity.ERROR,
    fix="Shorten property names and enum values, or split the tool.",
    source=f"{_STRICT}: property names and enum values total at most 120,000 characters",
)
def schema_size_over_target_limit(tool: Tool, ctx: LintContext) -> Iterator[Finding]:
    """More schema text than a target's strict mode allows.

    ## What it does
    Adds up the characters of every property name and string enum value of the exposed
    schema against every declared target with a strict mode (OpenAI: 120,000).

    ## Why is this bad?
    The provider rejects the schema; a schema this size is also a large share of every turn's
    token budget.

    ## Example
    ```yaml
    # thousands of long property names
    ```

    ## Use instead
    ```yaml
    # the fields one intention needs, in their own tool
    ```
    """
    chars = ctx.schema_size(tool).chars
    said = f"property names and enum values of {tool.name!r} total {chars:,} characters"
    return _over(tool, ctx.targets, lambda s: s.max_schema_chars, said, chars)
