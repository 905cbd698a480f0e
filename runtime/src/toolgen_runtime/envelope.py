"""What the model reads when a call fails: the invalid-arguments and declared-error envelopes.

The invalid-arguments answer is bounded whatever the model sent. It lists at most
`MAX_PROBLEMS` problems (then `more_problems` says how many were left out), shows at most
`MAX_NAME_CHARS` characters of any key and `MAX_VALUE_CHARS` of any value it echoes, and as a
whole is at most `MAX_ANSWER_BYTES` bytes of UTF-8.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from pydantic_core import PydanticSerializationError, to_json, to_jsonable_python

from toolgen_runtime.arguments import (
    ARGUMENTS_TOO_LONG,
    DUPLICATE_KEY,
    MAX_NESTING,
    FieldHint,
    Issue,
    Rejected,
)
from toolgen_runtime.duplicates import Loc
from toolgen_runtime.guards.codes import CODES as GUARD_CODES

if TYPE_CHECKING:
    # the errors module subclasses the Agents SDK's exceptions: the compiler words
    # problems with this module at build time and must not load the SDK for it
    from toolgen_runtime.errors import DeclaredError, ToolError

__all__ = [
    "INVALID_ARGUMENTS",
    "MAX_ANSWER_BYTES",
    "MAX_EXAMPLE_CHARS",
    "MAX_FIELD_CHARS",
    "MAX_NAME_CHARS",
    "MAX_PROBLEMS",
    "MAX_PROBLEM_CHARS",
    "MAX_VALUE_CHARS",
    "declared_error",
    "dumps",
    "field_name",
    "invalid_arguments",
    "preview",
    "problem_text",
]

INVALID_ARGUMENTS = "invalid_arguments"

MAX_PROBLEMS = 10
MAX_NAME_CHARS = 64  # of one key in a field path
MAX_FIELD_CHARS = 200  # of a whole field path
MAX_VALUE_CHARS = 60  # of a value echoed as "got ..."
MAX_PROBLEM_CHARS = 400  # of one problem text
MAX_EXAMPLE_CHARS = 100  # an example longer than this as JSON is left out
MAX_ANSWER_BYTES = 8_192

CUT = "..."

# Keys shown as they are; any other key is shown as a JSON string, so an empty key, a key
# with a dot or a key "$" cannot pass for something else. Spec parameter names all match.
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")

_TYPE_WORDS = {
    "int_type": "a JSON integer",
    "int_parsing": "a JSON integer",
    "int_from_float": "a JSON integer",
    "float_type": "a JSON number",
    "float_parsing": "a JSON number",
    # NaN, Infinity, and a number too large for a float (1e999, read as infinity)
    "finite_number": "a finite JSON number (JSON has no NaN or Infinity)",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a JSON string",
    "list_type": "a JSON array",
    "model_type": "a JSON object",
    "model_attributes_type": "a JSON object",
    "dict_type": "a JSON object",
    "date_type": "a date as YYYY-MM-DD",
    "date_parsing": "a date as YYYY-MM-DD",
    "date_from_datetime_parsing": "a date as YYYY-MM-DD",
    "date_from_datetime_inexact": "a date as YYYY-MM-DD",
    "datetime_type": "a date and time as 2026-10-09T14:30:00+02:00",
    "datetime_parsing": "a date and time as 2026-10-09T14:30:00+02:00",
    "datetime_from_date_parsing": "a date and time as 2026-10-09T14:30:00+02:00",
    "timezone_aware": "a date and time with a UTC offset, as 2026-10-09T14:30:00+02:00",
}

_NO_HINT = FieldHint()
# problems about a key rather than its value: an example value would not help
_NO_EXAMPLE = frozenset({"missing", "extra_forbidden", DUPLICATE_KEY})


# json.dumps with options builds a new encoder on every call; these are built once
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_quote: Callable[[str], str] = json.encoder.encode_basestring


def dumps(payload: object) -> str:
    """Compact JSON text, non-ASCII characters as they are (the model reads UTF-8)."""
    try:
        # pydantic's serializer, in Rust: the same text as json.dumps, in half the time
        return to_json(payload).decode()
    except PydanticSerializationError:
        # a lone surrogate, which a Rust string cannot hold: Python's encoder writes it
        return _ENCODER.encode(payload)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + CUT


def preview(value: object, limit: int = MAX_VALUE_CHARS) -> str:
    """`value` as JSON, cut to `limit` characters ("..." follows then). The time it takes
    depends on `limit`, not on the size of `value`: a 10 MB string is not copied."""
    if type(value) is str and len(value) <= limit:  # the usual case, in one step
        return _cut(_quote(value), limit)
    pieces: list[str] = []
    length = 0
    # what is still to write, last first: values, and the literal text between them
    stack: list[object] = [value]
    while stack and length <= limit:
        node = stack.pop()
        text: str
        if type(node) is _Literal:
            text = node
        elif isinstance(node, str):
            text = _quote(node[: limit + 1])
        elif node is None or isinstance(node, bool | float):
            text = dumps(node)
        elif isinstance(node, int):
            # printing a huge integer takes long, and Python refuses past 4300 digits
            text = str(node) if node.bit_length() <= 256 else "(a very large integer)"
        elif isinstance(node, list | tuple):
            stack.append(_Literal("]"))
            for index in range(min(len(node), limit) - 1, -1, -1):
                stack.append(node[index])
                if index:
                    stack.append(_Literal(","))
            text = "["
        elif isinstance(node, Mapping):
            stack.append(_Literal("}"))
            items = list(itertools.islice(node.items(), limit))
            for index in range(len(items) - 1, -1, -1):
                key, item = items[index]
                stack.append(item)
                key_text = _quote(str(key)[: limit + 1])
                stack.append(_Literal(key_text + ":"))
                if index:
                    stack.append(_Literal(","))
            text = "{"
        else:
            text = _quote(str(node)[: limit + 1])
        pieces.append(text)
        length += len(text)
    return _cut("".join(pieces), limit)


class _Literal(str):
    """Text `preview` writes as it is, told apart from a string value by its type."""

    __slots__ = ()


def field_name(loc: Loc) -> str:
    """The field a problem is about, as the model knows it: `sku`, `lines.1.quantity`;
    `$` is the arguments as a whole, and an unusual key is quoted (`""`, `"a.b"`)."""
    if not loc:
        return "$"
    parts = []
    for part in loc:
        if isinstance(part, int) or _PLAIN_KEY.fullmatch(part):
            parts.append(str(part))
        else:
            quoted = _quote(part[:MAX_NAME_CHARS])
            parts.append(quoted if len(part) <= MAX_NAME_CHARS else quoted + CUT)
    return _cut(".".join(parts), MAX_FIELD_CHARS)


def _choices(values: tuple[object, ...]) -> str:
    words = [preview(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def problem_text(issue: Issue, hint: FieldHint) -> str:
    kind = issue.kind
    ctx = issue.ctx or {}
    if kind == "missing":
        return "is missing" + ("; send null to leave it out" if hint.nullable else "")
    if kind == "extra_forbidden":
        if issue.loc and issue.loc[-1] == "":
            return "is an empty key, which is not a parameter of this tool"
        return "is not a parameter of this tool"
    if kind == DUPLICATE_KEY:
        return "is given more than once in the same object; give each key once"
    if kind == ARGUMENTS_TOO_LONG:
        return (
            f"the arguments are {ctx.get('length', 0):,} characters long, more than the "
            f"{ctx.get('limit', 0):,} this tool accepts"
        )
    if kind == "json_invalid":
        error = str(ctx.get("error", "syntax error"))
        if error.startswith("recursion limit exceeded"):
            # valid JSON, but deeper than the parser reads: saying "not valid JSON" would
            # send the model looking for a syntax error that is not there
            return (
                f"the arguments nest arrays and objects more than {MAX_NESTING} levels "
                "deep, more than this tool reads"
            )
        return f"the arguments are not valid JSON ({error})"
    if kind == "string_unicode":
        return (
            "the arguments are not Unicode text: they hold a lone surrogate (half of a "
            "UTF-16 pair, U+D800 to U+DFFF, without its other half)"
        )
    got = preview(issue.input)
    if kind in _TYPE_WORDS:
        return f"must be {_TYPE_WORDS[kind]}, got {got}"
    if kind == "literal_error":
        expected = _choices(hint.one_of) if hint.one_of else ctx.get("expected", "")
        return f"must be one of {expected}, got {got}"
    if kind == "string_pattern_mismatch":
        return f"must match the pattern {hint.pattern or ctx.get('pattern', '')}, got {got}"
    if kind in ("greater_than_equal", "greater_than"):
        word = "at least" if kind == "greater_than_equal" else "more than"
        return f"must be {word} {ctx.get('ge', ctx.get('gt'))}, got {got}"
    if kind in ("less_than_equal", "less_than"):
        word = "at most" if kind == "less_than_equal" else "less than"
        return f"must be {word} {ctx.get('le', ctx.get('lt'))}, got {got}"
    if kind == "string_too_short":
        return (
            f"must have at least {_many(ctx.get('min_length'), 'character')}, got {got}"
        )
    if kind == "string_too_long":
        return (
            f"must have at most {_many(ctx.get('max_length'), 'character')}, got {got}"
        )
    if kind == "too_short":
        return f"must have at least {_many(ctx.get('min_length'), 'item')}"
    if kind == "too_long":
        return f"must have at most {_many(ctx.get('max_length'), 'item')}"
    message = issue.message[: MAX_PROBLEM_CHARS + 1] or "is not valid"
    return message[:1].lower() + message[1:]


def _many(count: object, word: str) -> str:
    """1 character, 5 characters."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _hint_key(loc: Loc) -> str:
    # hints are by field path without list indexes: parcels.0.weight_kg -> parcels.weight_kg
    return ".".join(part for part in loc if isinstance(part, str))


def _short_example(example: object) -> bool:
    if isinstance(example, bool | float) or (
        isinstance(example, int) and example.bit_length() <= 256
    ):
        return True
    return len(dumps(example)) <= MAX_EXAMPLE_CHARS


def _problem(issue: Issue, hints: Mapping[str, FieldHint]) -> dict[str, object]:
    hint = hints.get(_hint_key(issue.loc), _NO_HINT) if hints else _NO_HINT
    problem: dict[str, object] = {
        "field": field_name(issue.loc),
        "problem": _cut(problem_text(issue, hint), MAX_PROBLEM_CHARS),
    }
    if (
        hint.example is not None
        and issue.kind not in _NO_EXAMPLE
        and _short_example(hint.example)
    ):
        problem["example"] = hint.example
    if issue.kind in GUARD_CODES and issue.ctx and "how_to_fix" in issue.ctx:
        # a boundary check's own code and fix (a path outside its root, a host not allowed)
        problem["code"] = issue.kind
        problem["how_to_fix"] = _cut(str(issue.ctx["how_to_fix"]), MAX_PROBLEM_CHARS)
    return problem


def _how_to_fix(tool_name: str, more: int) -> str:
    listed = (
        f" Only the first problems are listed: {more:,} more are counted in "
        "more_problems and are reported again if they remain."
        if more
        else ""
    )
    return (
        f"Nothing was done. Correct the fields listed in problems and call "
        f"{_cut(tool_name, MAX_NAME_CHARS)} again with every parameter present (null for "
        f"an optional one).{listed}"
    )


def invalid_arguments(
    tool_name: str, rejected: Rejected, hints: Mapping[str, FieldHint]
) -> str:
    """The invalid-arguments answer as JSON text: at most MAX_ANSWER_BYTES bytes of UTF-8."""
    problems = [_problem(issue, hints) for issue in rejected.issues[:MAX_PROBLEMS]]
    while True:
        more = rejected.total - len(problems)
        envelope: dict[str, object] = {
            "ok": False,
            "error": INVALID_ARGUMENTS,
            "problems": problems,
        }
        if more:
            envelope["more_problems"] = more
        envelope["how_to_fix"] = _how_to_fix(tool_name, more)
        text = dumps(envelope)
        # each listed problem is cut to a few hundred characters, but escapes can grow
        # them up to six bytes a character: drop the last ones until the answer fits
        if len(problems) <= 1 or len(text.encode("utf-8", "surrogatepass")) <= (
            MAX_ANSWER_BYTES
        ):
            return text
        problems = problems[:-1]


def declared_error(
    tool_name: str, err: ToolError, declared: DeclaredError
) -> dict[str, object]:
    envelope: dict[str, object] = {
        "ok": False,
        "error": err.code,
        "how_to_fix": declared.how_to_fix,
        "retryable": declared.retryable,
    }
    clash = envelope.keys() & err.details.keys()
    if clash:
        from toolgen_runtime.errors import ContractViolation

        raise ContractViolation(
            f"{tool_name} error {err.code!r} has details named {sorted(clash)}, "
            "which the envelope already uses"
        )
    envelope.update(to_jsonable_python(err.details))
    return envelope
