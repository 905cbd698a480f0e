"""Output contracts: texts cut within their limit without splitting a grapheme, with the cut
fields named; sensitive values kept out of the model's output, error texts and logs."""

from __future__ import annotations

import json
import logging
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from test_guard_harness import guarded_tool
from toolgen_runtime import ContractViolation, DeclaredError, ToolError, result_class
from toolgen_runtime.output import (
    ELLIPSIS,
    REDACTED,
    OutputContract,
    RedactingFilter,
    Sensitive,
    find_sensitive,
    redact_exception,
    redact_text,
    redacted,
    sensitive_values,
    truncate_text,
)
from toolgen_runtime.testing import Recorder, invoke

# --- truncation -----------------------------------------------------------------------------

# texts built from their graphemes, so a cut can be checked against boundaries known here
CLUSTERS = {
    "ascii": list("plain text"),
    "accents": ["e\u0301", "a", "o\u0308\u0304", "n\u0303", "b"],
    "family emoji": [
        "\U0001f468\u200d\U0001f469\u200d\U0001f467", "x", "\U0001f469\u200d\U0001f4bb",
    ],
    "flags": ["\U0001f1eb\U0001f1f7", "\U0001f1e9\U0001f1ea", "\U0001f1ee\U0001f1f9"],
    "skin tones": ["\U0001f44d\U0001f3fd", "\U0001f44b\U0001f3ff", "k"],
    "variation selectors": ["\u2764\ufe0f", "\u263a\ufe0e", "z"],
    "keycaps": ["1\ufe0f\u20e3", "#\ufe0f\u20e3"],
    "subdivision flag": [
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "q",
    ],
    "hangul jamo": ["\u1100\u1161\u11a8", "\u1102\u1163", "\u1103\u1165\u11ab"],
    "hangul syllables": ["\ud55c", "\uad6d", "\uc5b4", "\uac00\u11a8"],
    "crlf": ["a", "\r\n", "b", "\r\n"],
    "devanagari": ["\u0915\u093f", "\u0928\u094d", "\u0926\u0940"],
}  # fmt: skip


@pytest.mark.parametrize("clusters", CLUSTERS.values(), ids=list(CLUSTERS))
def test_a_cut_never_splits_a_grapheme(clusters: list[str]) -> None:
    text = "".join(clusters)
    boundaries = {0}
    for cluster in clusters:
        boundaries.add(max(boundaries) + len(cluster))
    for limit in range(1, len(text) + 2):
        cut, was_cut = truncate_text(text, limit)
        assert len(cut) <= limit
        if not was_cut:
            assert cut == text and len(text) <= limit
            continue
        kept = cut.removesuffix(ELLIPSIS)
        assert cut.endswith(ELLIPSIS) and text.startswith(kept)
        # a single grapheme longer than the limit is the one case that may be cut inside
        if len(clusters[0]) < limit:
            assert len(kept) in boundaries, (limit, kept)


def test_short_texts_are_left_alone() -> None:
    assert truncate_text("abc", 3) == ("abc", False)
    assert truncate_text("", 1) == ("", False)
    assert truncate_text("abcd", 3) == ("ab" + ELLIPSIS, True)
    assert truncate_text("abcd", 1) == (ELLIPSIS, True)
    with pytest.raises(ValueError):
        truncate_text("abc", 0)


def test_a_pile_of_combining_marks_is_cut_inside_rather_than_dropped() -> None:
    zalgo = "a" + "\u0301" * 50
    cut, was_cut = truncate_text(zalgo, 10)
    assert was_cut and cut == zalgo[:9] + ELLIPSIS


# --- the output contract -------------------------------------------------------------------


CONTRACT = OutputContract(
    max_chars={"summary": 12, "items.note": 5, "tags": 4},
    sensitive=frozenset({"email", "items.owner_email"}),
)


def test_texts_are_cut_and_named_in_truncated() -> None:
    envelope = {
        "ok": True,
        "summary": "a long summary of the order",
        "tags": ["short", "ok", "longer tag"],
        "email": "ann@example.com",
        "items": [
            {"note": "fine", "owner_email": "bob@example.com"},
            {"note": "much too long", "owner_email": None},
        ],
    }
    out = CONTRACT.apply(envelope)
    assert out == {
        "ok": True,
        "summary": "a long summ" + ELLIPSIS,
        "tags": ["sho" + ELLIPSIS, "ok", "lon" + ELLIPSIS],
        "email": REDACTED,
        "items": [
            {"note": "fine", "owner_email": REDACTED},
            {"note": "much" + ELLIPSIS, "owner_email": None},
        ],
        "truncated": ["items.1.note", "summary", "tags.0", "tags.2"],
    }
    assert (
        envelope["summary"] == "a long summary of the order"
    )  # the input is left alone
    assert envelope["items"][0]["owner_email"] == "bob@example.com"  # type: ignore[index]


def test_nothing_cut_means_no_truncated_key() -> None:
    envelope = {"ok": True, "summary": "short", "tags": [], "email": None, "items": []}
    assert CONTRACT.apply(envelope) == envelope


@pytest.mark.parametrize(
    ("envelope", "message"),
    [
        ({"ok": True, "tags": [], "email": None, "items": []}, "has no 'summary'"),
        ({"ok": True, "summary": 5, "tags": [], "email": None, "items": []}, "holds int"),
        ({"ok": True, "summary": "", "tags": [1], "email": None, "items": []}, "holds int"),
        ({"ok": True, "summary": "", "tags": [], "email": None, "items": [3]}, "not an object"),
        ({"ok": True, "summary": "", "tags": [], "email": None, "items": [],
          "truncated": 1}, "envelope uses"),
    ],
)  # fmt: skip
def test_a_result_that_breaks_its_contract_stops_the_run(
    envelope: dict[str, object], message: str
) -> None:
    with pytest.raises(ContractViolation, match=message):
        CONTRACT.apply(envelope)


# --- through a tool ------------------------------------------------------------------------


class CardArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    card: Sensitive[Annotated[str, Field(pattern=r"^\d{16}$")]]
    note: str


@result_class
class Charged:
    summary: str
    card: Sensitive[str]


CARD = "4111111111111111"


def card_tool(implementation: Any) -> Any:
    return guarded_tool(
        CardArgs,
        implementation,
        result_type=Charged,
        errors={"declined": DeclaredError("Ask for another card.", retryable=False)},
        output=OutputContract(max_chars={"summary": 20}),
    )


def test_a_sensitive_argument_reaches_the_implementation_and_nothing_else() -> None:
    recorder = Recorder(Charged("charged " + "x" * 40, Sensitive(CARD)))
    out = invoke(card_tool(recorder), {"card": CARD, "note": "n"}, None)
    assert out == {
        "ok": True,
        "summary": "charged xxxxxxxxxxx" + ELLIPSIS,
        "card": REDACTED,
        "truncated": ["summary"],
    }
    card = recorder.calls[0].args.card
    assert isinstance(card, Sensitive) and card.reveal() == CARD
    assert CARD not in repr(recorder.calls[0].args)
    assert recorder.calls[0].args.model_dump()["card"] == REDACTED


def test_an_invalid_sensitive_argument_is_not_echoed() -> None:
    recorder = Recorder()
    wrong = "4111-1111-1111-1111"
    out = invoke(card_tool(recorder), {"card": wrong, "note": "n"}, None)
    assert out["problems"][0]["field"] == "card"
    assert "pattern" in out["problems"][0]["problem"]
    assert wrong not in json.dumps(out) and recorder.calls == []


def test_error_details_are_redacted() -> None:
    def charge(args: CardArgs) -> Charged:
        raise ToolError(
            "declined", card=args.card, reason=f"card {args.card.reveal()} refused"
        )

    out = invoke(card_tool(charge), {"card": CARD, "note": "n"}, None)
    assert out["card"] == REDACTED and out["reason"] == f"card {REDACTED} refused"


def test_an_exception_leaving_the_call_is_redacted() -> None:
    def charge(args: CardArgs) -> Charged:
        try:
            raise OSError(f"gateway refused {args.card.reveal()}")
        except OSError as exc:
            raise RuntimeError(f"charging {args.card.reveal()} failed") from exc

    with pytest.raises(RuntimeError) as caught:
        invoke(card_tool(charge), {"card": CARD, "note": "n"}, None)
    assert str(caught.value) == f"charging {REDACTED} failed"
    assert str(caught.value.__cause__) == f"gateway refused {REDACTED}"


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.addFilter(RedactingFilter())
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_logs_written_during_the_call_are_redacted() -> None:
    log = logging.getLogger("toolgen-test-output")
    handler = Collect()
    log.addHandler(handler)
    log.setLevel(logging.INFO)

    def charge(args: CardArgs) -> Charged:
        log.info("charging %s for %s", args.card.reveal(), args.note)
        log.info("the wrapper shows %r and %s", args.card, args.card)
        try:
            raise ValueError(f"bad card {args.card.reveal()}")
        except ValueError:
            log.exception("failed")
        return Charged("ok", args.card)

    try:
        invoke(card_tool(charge), {"card": CARD, "note": "lunch"}, None)
        log.info("after the call %s", CARD)
    finally:
        log.removeHandler(handler)
    text = "\n".join(handler.lines)
    assert handler.lines[0] == f"charging {REDACTED} for lunch"
    assert (
        handler.lines[1] == f"the wrapper shows Sensitive('{REDACTED}') and {REDACTED}"
    )
    assert f"ValueError: bad card {REDACTED}" in handler.lines[2]
    assert CARD not in "\n".join(handler.lines[:3])
    # outside a call nothing is known to be sensitive: the filter changes nothing
    assert handler.lines[3] == f"after the call {CARD}"
    assert text.count(REDACTED) >= 4


# --- the helpers ----------------------------------------------------------------------------


def test_a_sensitive_value_hides_itself() -> None:
    secret = Sensitive("hunter2-secret")
    assert (repr(secret), str(secret), f"{secret}", f"{secret:>20}") == (
        f"Sensitive('{REDACTED}')",
        REDACTED,
        REDACTED,
        REDACTED,
    )
    assert secret == Sensitive("hunter2-secret") and secret != Sensitive("other")
    with pytest.raises(TypeError):
        pickle.dumps(secret)


def test_redaction_helpers() -> None:
    assert redact_text("key abcd and abcdef", ["abcd", "abcdef"]) == (
        f"key {REDACTED} and {REDACTED}"
    )
    assert redact_text("a 7 b", ["7"]) == "a 7 b"  # too short to redact safely
    with sensitive_values([Sensitive("s3cr3t-value")]):
        assert redacted({"a": ["x s3cr3t-value", Sensitive(1)], "b": 2}) == {
            "a": [f"x {REDACTED}", REDACTED],
            "b": 2,
        }
        error = redact_exception(KeyError("s3cr3t-value"))
        assert error.args == (REDACTED,)
    assert redact_text("s3cr3t-value") == "s3cr3t-value"


@dataclass(frozen=True)
class Nested:
    inner: list[Sensitive[str]]


def test_sensitive_values_are_found_anywhere_in_the_arguments() -> None:
    one, two, three = Sensitive("one1"), Sensitive("two2"), Sensitive("three")
    found = find_sensitive({"a": [one, Nested([two])], "b": (three, 5)})
    assert sorted(s.reveal() for s in found) == ["one1", "three", "two2"]


# --- a tool that writes keeps its output contract too -------------------------------------


class ChargeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    charge_ref: str
    card: Sensitive[str]


def charging_tool(implementation: Any, store_url: str) -> Any:
    from toolgen_runtime import Invoker, make_tool
    from toolgen_runtime.store import open_store
    from toolgen_runtime.writes import KeyIdempotency

    invoker: Invoker[Any, Any, Any] = Invoker(
        tool_name="charge_card",
        args_model=ChargeArgs,
        result_type=Charged,
        errors={"declined": DeclaredError("Ask for another card.", retryable=False)},
        load_implementation=lambda: implementation,
        idempotency=KeyIdempotency(arguments=("charge_ref",), context=()),
        store=open_store(store_url),
        output=OutputContract(max_chars={"summary": 20}),
    )
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    return make_tool(
        name="charge_card",
        description="Charge a card once per charge_ref.",
        parameters=parameters,
        invoker=invoker,
    )


def test_a_write_tools_answer_keeps_its_output_contract(tmp_path: Path) -> None:
    """The first answer is cut as the contract says, and its repeat (answered from the store,
    the implementation not run again) is the same text, marked duplicate."""
    recorder = Recorder(Charged("charged " + "x" * 40, Sensitive(CARD)))
    tool = charging_tool(recorder, f"sqlite:///{tmp_path / 'state.db'}")
    first = invoke(tool, {"charge_ref": "c-1", "card": CARD}, None)
    assert first == {
        "ok": True,
        "summary": "charged xxxxxxxxxxx" + ELLIPSIS,
        "card": REDACTED,
        "truncated": ["summary"],
    }
    again = invoke(tool, {"charge_ref": "c-1", "card": CARD}, None)
    assert again == {**first, "duplicate": True}
    assert len(recorder.calls) == 1


def test_a_write_tools_error_details_and_exceptions_are_redacted(
    tmp_path: Path,
) -> None:
    def charge(args: ChargeArgs) -> Charged:
        if args.charge_ref == "boom":
            raise RuntimeError(f"gateway refused {args.card.reveal()}")
        raise ToolError("declined", reason=f"card {args.card.reveal()} refused")

    tool = charging_tool(charge, f"sqlite:///{tmp_path / 'state.db'}")
    out = invoke(tool, {"charge_ref": "c-1", "card": CARD}, None)
    assert out["error"] == "declined" and out["reason"] == f"card {REDACTED} refused"
    with pytest.raises(RuntimeError) as caught:
        invoke(tool, {"charge_ref": "boom", "card": CARD}, None)
    assert str(caught.value) == f"gateway refused {REDACTED}"
