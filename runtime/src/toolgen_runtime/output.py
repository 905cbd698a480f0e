"""Output contracts: what a result may show the model, and how long its texts may be.

- A text field with a maximum length is cut, on a character boundary that splits no grapheme
  (a letter and its accents, an emoji sequence, a flag, a Hangul syllable), ending with `…`
  inside the limit; the envelope then lists the cut fields in `"truncated": ["summary",
  "items.3.note"]`, so the model knows it did not see all of them. No flag when nothing was cut:
  the envelope stays the declared fields.
- A sensitive value never reaches the model, an error message or a log record: `Sensitive`
  wraps it (its repr and str are `[redacted]`, pydantic serializes it as `[redacted]`), a field
  declared sensitive is replaced by `[redacted]` in the envelope, and while a call runs
  (`sensitive_values`) its raw values are cut out of log records (`RedactingFilter`) and of
  exception texts (`redact_exception`).
- A result that breaks its contract (a declared field missing, a non-text value in a text
  field) raises `ContractViolation`: an infrastructure error, never text for the model.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import dataclasses
import logging
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, get_args

from pydantic import BaseModel, GetCoreSchemaHandler, ValidationError
from pydantic_core import CoreSchema, PydanticCustomError, SchemaValidator, core_schema

from toolgen_runtime.errors import ContractViolation

__all__ = [
    "ELLIPSIS",
    "REDACTED",
    "OutputContract",
    "RedactingFilter",
    "Sensitive",
    "find_sensitive",
    "redact_exception",
    "redact_text",
    "redacted",
    "redacted_details",
    "sensitive_values",
    "truncate_text",
]

ELLIPSIS = "\u2026"
REDACTED = "[redacted]"
TRUNCATED_KEY = "truncated"
# serialization context key under which `Sensitive` gives its value instead of [redacted]
REVEAL_FOR_DIGEST = "toolgen_runtime.reveal_for_digest"
# a shorter value could be a word of any text ("7", "yes"): cutting it out would garble
# messages and hide nothing
MIN_REDACTED_CHARS = 4

T = TypeVar("T")


# --- truncation ----------------------------------------------------------------------------


def _hangul_kind(cp: int) -> str:
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97F:
        return "L"
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return "V"
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return "T"
    if 0xAC00 <= cp <= 0xD7A3:
        return "LV" if (cp - 0xAC00) % 28 == 0 else "LVT"
    return ""


_HANGUL_JOINS = {
    "L": {"L", "V", "LV", "LVT"},
    "LV": {"V", "T"},
    "V": {"V", "T"},
    "LVT": {"T"},
    "T": {"T"},
}


def _extends(cp: int) -> bool:
    """A character that belongs to the grapheme before it."""
    return (
        unicodedata.category(chr(cp)) in ("Mn", "Me", "Mc")
        or cp == 0x200D  # zero width joiner
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors
        or 0xE0100 <= cp <= 0xE01EF
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tone modifiers
        or 0xE0020 <= cp <= 0xE007F  # tags (subdivision flags)
    )


def _is_regional(cp: int) -> bool:
    return 0x1F1E6 <= cp <= 0x1F1FF


def _splits_grapheme(text: str, index: int) -> bool:
    """Whether cutting `text` before `index` would split a grapheme (a close reading of
    UAX #29 for the cases that matter when cutting: marks, joiners, flags, Hangul, CR LF,
    surrogate pairs left in a str by surrogateescape)."""
    before, after = ord(text[index - 1]), ord(text[index])
    if before == 0x0D and after == 0x0A:
        return True
    if 0xD800 <= before <= 0xDBFF and 0xDC00 <= after <= 0xDFFF:
        return True
    if _extends(after) or before == 0x200D:
        return True
    if _is_regional(before) and _is_regional(after):
        run = 0
        while index - 1 - run >= 0 and _is_regional(ord(text[index - 1 - run])):
            run += 1
        return run % 2 == 1  # an odd run before: `after` completes a flag
    joins = _HANGUL_JOINS.get(_hangul_kind(before))
    return joins is not None and _hangul_kind(after) in joins


def truncate_text(text: str, max_chars: int) -> tuple[str, bool]:
    """`text` cut to at most `max_chars` characters, `…` included, and whether it was cut."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    if len(text) <= max_chars:
        return text, False
    cut = max_chars - 1
    while cut > 0 and _splits_grapheme(text, cut):
        cut -= 1
    if cut == 0:
        # one grapheme longer than the limit (a pile of combining marks): keep what fits
        cut = max_chars - 1
    return text[:cut] + ELLIPSIS, True


# --- sensitive values ---------------------------------------------------------------------

_ACTIVE: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "toolgen_sensitive_values", default=frozenset()
)


class Sensitive(Generic[T]):
    """A value that must not be shown: `reveal()` gives it to the code that needs it; repr,
    str, format and pydantic serialization give `[redacted]`.

    As a pydantic field type (`Sensitive[str]`) it validates the inner type strictly and
    wraps it; a validation failure names the field and the rule, never the value.
    """

    __slots__ = ("_value",)

    def __init__(self, value: T) -> None:
        self._value = value

    def reveal(self) -> T:
        return self._value

    def __repr__(self) -> str:
        return f"Sensitive({REDACTED!r})"

    def __str__(self) -> str:
        return REDACTED

    def __format__(self, spec: str) -> str:
        return REDACTED

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sensitive) and bool(self._value == other._value)

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> Any:
        raise TypeError("a Sensitive value is not pickled: it would leave the process")

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        args = get_args(source)
        inner = handler.generate_schema(args[0] if args else Any)
        validator = SchemaValidator(inner)

        def validate(value: object) -> Sensitive[Any]:
            if isinstance(value, Sensitive):
                value = value.reveal()
            try:
                checked = validator.validate_python(value, strict=True)
            except ValidationError as exc:
                rules = "; ".join(str(err["msg"]) for err in exc.errors())
                raise PydanticCustomError(
                    "sensitive_invalid",
                    "is not valid ({rules}); the value is sensitive and not shown",
                    {"rules": rules or "invalid"},
                ) from None
            return cls(checked)

        return core_schema.no_info_plain_validator_function(
            validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _serialize, info_arg=True
            ),
        )


def _serialize(value: Sensitive[Any], info: core_schema.SerializationInfo) -> object:
    # only code that digests the value at once asks for it (a cursor binding its filters)
    context = info.context
    if isinstance(context, Mapping) and context.get(REVEAL_FOR_DIGEST) is True:
        return value.reveal()
    return REDACTED


def _texts(values: Iterable[object]) -> Iterator[str]:
    for value in values:
        raw = value.reveal() if isinstance(value, Sensitive) else value
        if raw is not None and not isinstance(raw, bool):
            text = str(raw)
            if len(text) >= MIN_REDACTED_CHARS:
                yield text


@contextlib.contextmanager
def sensitive_values(values: Iterable[object]) -> Iterator[None]:
    """While the block runs (one tool call), these raw values are cut out of log records
    (`RedactingFilter`) and of `redact_text`/`redact_exception`; `Sensitive` values are
    unwrapped first. Values shorter than 4 characters are not redacted."""
    token = _ACTIVE.set(_ACTIVE.get() | frozenset(_texts(values)))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def redact_text(text: str, values: Iterable[object] | None = None) -> str:
    """`text` with every sensitive value (the given ones, else those of the current call)
    replaced by `[redacted]`, longest first so a value inside another goes too."""
    secrets = _ACTIVE.get() if values is None else frozenset(_texts(values))
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def redact_exception(
    exc: BaseException, values: Iterable[object] | None = None
) -> BaseException:
    """Redact the text arguments of an exception and of its causes, in place (an exception
    leaving a tool call is logged and shown to people: it must not carry what the model may
    not see). Returns the exception, for `raise redact_exception(exc)`."""
    secrets = list(_ACTIVE.get() if values is None else _texts(values))
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(
            redact_text(a, secrets) if isinstance(a, str) else a for a in current.args
        )
        current = current.__cause__ or current.__context__
    return exc


class RedactingFilter(logging.Filter):
    """A logging filter that cuts the current call's sensitive values out of a record's
    message and traceback (add it to the handlers that may receive tool logs)."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = _ACTIVE.get()
        if not secrets:
            return True
        message = record.getMessage()
        record.msg, record.args = redact_text(message, secrets), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text, secrets)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info, secrets)
        return True


def find_sensitive(value: object) -> list[Sensitive[Any]]:
    """Every `Sensitive` inside validated arguments (models, dataclasses, lists, dicts), for
    `sensitive_values(find_sensitive(args))` around the implementation call."""
    found: list[Sensitive[Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Sensitive):
            found.append(node)
        elif isinstance(node, BaseModel):
            stack.extend(getattr(node, name) for name in type(node).model_fields)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
        elif isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, set, frozenset)):
            stack.extend(node)
    return found


def redacted_details(details: Mapping[str, object]) -> dict[str, object]:
    """A declared error's details, `redacted`, before the envelope serializes them."""
    return {key: redacted(value) for key, value in details.items()}


def redacted(value: object) -> object:
    """A JSON-able copy of `value` with every `Sensitive` replaced by `[redacted]` and the
    current call's sensitive values cut out of its texts (for error details)."""
    if isinstance(value, Sensitive):
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {key: redacted(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redacted(item) for item in value]
    return value


# --- the contract -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutputContract:
    """The output rules of one tool, by field path (`summary`, `items.note` for every item
    of a page; no list indexes).

    `max_chars`: texts cut to that many characters, listed in `truncated`.
    `sensitive`: fields replaced by `[redacted]` (null stays null).
    """

    max_chars: Mapping[str, int] = field(default_factory=dict)
    sensitive: frozenset[str] = frozenset()

    def apply(self, envelope: Mapping[str, object]) -> dict[str, object]:
        """The envelope (success or page, already JSON-able) with the rules applied, and
        `"truncated": [...]` added when a text was cut."""
        result: dict[str, object] = copy.deepcopy(dict(envelope))
        cut: list[str] = []
        for path in sorted(self.sensitive):
            _apply(result, path.split("."), (), path, None, cut)
        for path, limit in sorted(self.max_chars.items()):
            _apply(result, path.split("."), (), path, limit, cut)
        if TRUNCATED_KEY in result:
            raise ContractViolation(
                f"the result has a field named {TRUNCATED_KEY!r}, which the envelope uses"
            )
        if cut:
            result[TRUNCATED_KEY] = cut
        return result


def _apply(
    node: object,
    parts: list[str],
    where: tuple[str, ...],
    declared: str,
    limit: int | None,
    cut: list[str],
) -> None:
    if isinstance(node, list):
        for index, item in enumerate(node):
            _apply(item, parts, (*where, str(index)), declared, limit, cut)
        return
    if not isinstance(node, dict):
        raise ContractViolation(
            f"output field {declared}: {'.'.join(where) or 'the result'} is not an object"
        )
    key, rest = parts[0], parts[1:]
    if key not in node:
        raise ContractViolation(f"output field {declared}: the result has no {key!r}")
    here = (*where, key)
    if rest:
        if node[key] is not None:
            _apply(node[key], rest, here, declared, limit, cut)
        return
    value = node[key]
    if value is None:
        return
    if limit is None:
        node[key] = REDACTED
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise ContractViolation(
                    f"output field {declared} has a maximum length but holds "
                    f"{type(item).__name__}"
                )
            value[index], was_cut = truncate_text(item, limit)
            if was_cut:
                cut.append(".".join((*here, str(index))))
        return
    if not isinstance(value, str):
        raise ContractViolation(
            f"output field {declared} has a maximum length but holds {type(value).__name__}"
        )
    node[key], was_cut = truncate_text(value, limit)
    if was_cut:
        cut.append(".".join(here))
