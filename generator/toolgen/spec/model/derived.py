"""What the compiler derives rather than reads: the prepare tool of a `confirmation: token`
contract, made from the contract's parameters, context and examples (issue 9), and the fields
such a tool or a pagination block adds (`derived_param`, `derived_return`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import cast

from toolgen.names import python_name
from toolgen.spec import describe, toolschema
from toolgen.spec.ir import (
    TOKEN_PARAM,
    Constraints,
    Idempotency,
    JsonValue,
    Origin,
    Param,
    ParamType,
    ReturnField,
    Tool,
)
from toolgen.spec.model.reading import tool_names


def parameters(tool: Tool) -> Mapping[str, object]:
    """The schema the model sees; a confirm tool's has the prepare tool's token too."""
    schema = toolschema.parameters_schema(tool.params)
    if tool.role != "confirm" or tool.token_pair is None:
        return schema
    properties = dict(cast(Mapping[str, object], schema["properties"]))
    properties[TOKEN_PARAM] = {
        "type": "string",
        "description": f"The token {tool.token_pair.prepare} returned, copied exactly.",
    }
    return {**schema, "properties": properties, "required": list(properties)}


def derived_param(
    name: str,
    ftype: ParamType,
    description: str,
    at: Origin,
    *,
    constraints: Constraints | None = None,
    default: JsonValue | None = None,
    is_cursor: bool = False,
) -> Param:
    """A scalar argument the compiler adds to a tool: optional (null means the default, or
    nothing), with no example, pointing at the block that asked for it."""
    return Param(
        name=name,
        py_name=python_name(name),
        type=ftype,
        description=description,
        constraints=constraints or Constraints(),
        optional=True,
        has_default=default is not None,
        default=default,
        origin=at,
        is_cursor=is_cursor,
    )


def derived_return(
    name: str, ftype: ParamType, description: str, at: Origin
) -> ReturnField:
    """A scalar field the compiler adds to a tool's answer, always present."""
    return ReturnField(
        name=name,
        py_name=python_name(name),
        type=ftype,
        description=description,
        origin=at,
    )


def prepare_tool(confirm: Tool) -> Tool:
    """The prepare tool of a token contract: the contract's parameters, context and
    examples; no effect, no implementation; it answers with a summary and a token."""
    pair = confirm.token_pair
    assert pair is not None
    at = confirm.origin
    # the contract's use_when, requires, parameters, context, examples, tests and groups
    tool = replace(
        confirm,
        name=pair.prepare,
        intent=(
            f"Check a call of {pair.confirm} and return its summary and a confirmation "
            f"token; nothing is done until {pair.confirm} is called with the token."
        ),
        not_when=(),
        effect="read",
        open_world=False,
        idempotency=Idempotency("none", origin=confirm.idempotency.origin),
        confirmation="none",
        returns=(
            derived_return("token", "string", f"Pass it to {pair.confirm}.", at),
            derived_return(
                "summary", "string", "What the call would do, to show the user.", at
            ),
            derived_return(
                "expires_in_s", "integer", "Seconds the token stays valid.", at
            ),
        ),
        errors=(),
        suppressions=(),
        py=tool_names(pair.prepare, pair.prepare),
        texts=(),
        pagination=None,
        role="prepare",
    )
    return replace(
        tool,
        description=describe.tool_description(tool),
        parameters=toolschema.parameters_schema(tool.params),
    )
