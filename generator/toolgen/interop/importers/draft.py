"""A source tool as a contract draft: what the source states, and TODOs for the rest.

The draft carries the name, the description (as the intent), the parameters and the result
exactly, and the effect, idempotency and open world when the source states them. What a
contract needs and the source does not say is written as a `TODO(toolgen import): ...` text
(for the effect, which takes no text, a comment beside the placeholder `write`, which load
keeps: comments.py), which `toolgen check` reports (TG313) until a person replaces it. Which
keys get one, and why `not_when` cannot: docs/import.md.
"""

from __future__ import annotations

import itertools
import re
import reprlib
from dataclasses import dataclass, field

from toolgen.interop.importers.schema import Converter, ParamDoc
from toolgen.interop.importers.source import Loss, Losses, SourceTool
from toolgen.names import MODEL_NAME_RE
from toolgen.spec.comments import IMPORT_TODO
from toolgen.text import clipped, listing

TODO = IMPORT_TODO.removesuffix(":")
TODO_INTENT = f"{TODO}: what the tool does for the user, in one sentence."
TODO_USE_WHEN = f"{TODO}: the user's request that should make the model pick this tool."
TODO_EXAMPLE = (
    f"{TODO}: placeholder arguments built from the schema, not a real call; write an "
    "example the tool must accept."
)
PLACEHOLDER_EFFECT = "write"
# beside the placeholder effect: only a person's edit of that line removes it (comments.py)
TODO_EFFECT = f"{TODO}: the source does not say; write read, write or destructive"


# a source's schema quoted in a TODO: a few levels and items of it, however large it is
_QUOTE = reprlib.Repr()
_QUOTE.maxlevel, _QUOTE.maxdict, _QUOTE.maxlist, _QUOTE.maxstring = 3, 3, 3, 30


@dataclass(frozen=True, slots=True)
class Draft:
    name: str
    document: dict[str, object]
    todos: tuple[str, ...]  # the keys left for a person
    losses: tuple[Loss, ...]
    effect_basis: str
    comments: dict[str, str] = field(default_factory=dict)


NAME_RULE = "a tool name is 1 to 64 letters, digits, '_' or '-'"
_NOT_NAME = re.compile(r"[^A-Za-z0-9]+")
_NAMESPACE = re.compile(r"^[A-Za-z0-9_-]+[^A-Za-z0-9_-]+(?=[A-Za-z0-9])")


def legal_name(name: str) -> str:
    """The source's name as a tool name: kept when it is one, else made one by the same
    steps every time (`repos/get-content` -> `repos_get_content`). Each run of other
    characters becomes one `_`; a name still over 64 characters loses its namespace (what
    precedes the first such run: `repos/`), then whole words from its end. "" when nothing
    is left."""
    if MODEL_NAME_RE.fullmatch(name):
        return name
    snake = _NOT_NAME.sub("_", name).strip("_")
    if len(snake) > 64 and _NAMESPACE.match(name):
        snake = _NOT_NAME.sub("_", _NAMESPACE.sub("", name, count=1)).strip("_")
    while len(snake) > 64 and "_" in snake[:65]:
        snake = snake[:65].rsplit("_", 1)[0]
    return snake if MODEL_NAME_RE.fullmatch(snake) else ""


def _placeholder(doc: ParamDoc) -> object:
    """A value that passes the parameter's own constraints, for the TODO example."""
    if "example" in doc:
        return doc["example"]
    if "default" in doc:
        return doc["default"]
    enum = doc.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = doc["type"]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        low, high = doc.get("min"), doc.get("max")
        if isinstance(low, int | float):
            return low
        if isinstance(high, int | float) and high < 1:
            return high
        return 1
    if kind == "date":
        return "2026-01-01"
    if kind == "datetime":
        return "2026-01-01T09:00:00+00:00"
    if kind == "array":
        items = doc["items"]
        assert isinstance(items, dict)
        fewest = doc.get("min_items")
        count = fewest if isinstance(fewest, int) else 1
        return [_placeholder(items) for _ in range(count)]
    if kind == "object":
        props = doc["properties"]
        assert isinstance(props, dict)
        return _arguments(props)
    text = "todo"
    shortest, longest = doc.get("min_length"), doc.get("max_length")
    if isinstance(shortest, int) and len(text) < shortest:
        text = text * (shortest // len(text) + 1)
    if isinstance(longest, int):
        text = text[:longest]
    return text  # against a pattern it may fail: the check reports the example to fix


def _arguments(params: dict[str, object]) -> dict[str, object]:
    args: dict[str, object] = {}
    for name, raw in params.items():
        assert isinstance(raw, dict)
        optional = raw.get("optional") is True or "default" in raw
        args[name] = None if optional else _placeholder(raw)
    return args


def _grouped(losses: list[Loss]) -> list[Loss]:
    """Titles on properties (what pydantic writes on every field) as one line per tool."""
    titled = [
        x for x in losses if x.what.startswith("title ") and x.where != "the tool"
    ]
    if len(titled) < 2:
        return losses
    names = ", ".join(x.where.split(" ", 1)[-1] for x in titled)
    return [
        *(x for x in losses if x not in titled),
        Loss(names, f"{len(titled)} titles", "the format has no such annotation"),
    ]


def _drop_clashing_returns(
    name: str,
    params: dict[str, ParamDoc],
    returns: dict[str, ParamDoc],
    losses: Losses,
) -> None:
    """Drop each return field whose class would have a parameter's class name (TG117)."""

    def has_class(doc: ParamDoc) -> bool:
        items = doc.get("items")
        return "properties" in doc or (
            isinstance(items, dict) and "properties" in items
        )

    for field_name in [f for f in returns if f in params]:
        if has_class(returns[field_name]) and has_class(params[field_name]):
            del returns[field_name]
            losses.add(
                f"return field {field_name!r}",
                "the field",
                f"its generated class would be the class of parameter {field_name!r} "
                f"of {name}",
            )


def _required_left_out(
    tool: SourceTool, params: dict[str, ParamDoc]
) -> dict[str, object]:
    """The parameters the source requires and the draft leaves out, with their schemas in
    the source (a readOnly one is the server's to set): no call of the draft can succeed."""
    schema = tool.input_schema or {}
    props, listed = schema.get("properties"), schema.get("required")
    if not isinstance(props, dict):
        return {}
    return {
        name: props[name]
        for name in [*(listed if isinstance(listed, list) else ()), *tool.needed]
        if isinstance(name, str)
        and name in props
        and name not in params
        and not (isinstance(props[name], dict) and props[name].get("readOnly") is True)
    }


def _quoted(left_out: dict[str, object], *, schemas: bool) -> str:
    """ "'a' and 'b'", each with its source schema when asked: three, then how many more."""
    words = []
    for name, schema in itertools.islice(left_out.items(), 3):
        if isinstance(schema, dict):
            schema = {k: v for k, v in schema.items() if k != "description"}
        quote = f" {clipped(_QUOTE.repr(schema), 100)}" if schemas else ""
        words.append(clipped(repr(name), 60) + quote)
    more = [f"{len(left_out) - 3:,} more"] if len(left_out) > 3 else []
    return listing([*words, *more])


def _todo_required(left_out: dict[str, object]) -> str:
    """The TODO that opens the intent of a tool that lost a required parameter."""
    one = len(left_out) == 1
    return (
        f"{TODO}: the source requires {'parameter' if one else 'parameters'} "
        f"{_quoted(left_out, schemas=True)}, which the draft leaves out (its header says "
        f"why), so no call can succeed: write {'it' if one else 'them'} under params, or "
        "delete the tool; then delete this TODO."
    )


def draft(tool: SourceTool) -> Draft:
    convert = Converter()
    params = convert.params(tool.input_schema)
    returns = convert.returns(tool.output_schema)
    _drop_clashing_returns(tool.name, params, returns, convert.losses)
    todos: list[str] = []
    doc: dict[str, object] = {"name": tool.name}
    if (tool.description or "").strip():
        doc["intent"] = tool.description
    else:
        doc["intent"] = TODO_INTENT
        todos.append("intent")
    if left_out := _required_left_out(tool, params):
        intent = str(doc["intent"])  # on a line of its own when it has several
        joint = "\n" if "\n" in intent else " "
        doc["intent"] = _todo_required(left_out) + joint + intent
        todos.insert(0, f"required {_quoted(left_out, schemas=False)} (in the intent)")
    doc["use_when"] = TODO_USE_WHEN
    todos.append("use_when")
    comments: dict[str, str] = {}
    if tool.effect is None:
        doc["effect"] = PLACEHOLDER_EFFECT
        comments["effect"] = TODO_EFFECT
        todos.append("effect")
    else:
        doc["effect"] = tool.effect
    if tool.open_world is not None:
        doc["open_world"] = tool.open_world
    if tool.idempotent and doc["effect"] != "read":
        doc["idempotency"] = "natural"
    if params:
        doc["params"] = params
    if returns:
        doc["returns"] = returns
    doc["examples"] = [{"args": _arguments(dict(params)), "note": TODO_EXAMPLE}]
    todos.append("examples")
    return Draft(
        name=tool.name,
        document=doc,
        todos=tuple(todos),
        losses=tuple(_grouped([*tool.losses, *convert.losses])),
        effect_basis=tool.effect_basis,
        comments=comments,
    )
