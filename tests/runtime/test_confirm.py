"""Confirmation tokens: only a token the prepare tool issued, for these arguments, this identity
and this tool, unexpired and never used before, lets the effect run.

Each test drives a small confirm tool (`send_order`) whose effect is counted, so "the effect
never runs" is checked, not assumed. Single use is checked on both store backends, and across
processes for replay.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path

import pytest
from store_workers import effects_of, redeem, run_together
from toolgen_runtime.confirm import (
    TOKEN_CHARS,
    TOKEN_ERROR_CODES,
    Accepted,
    ConfirmationGate,
    TokenRejection,
    token_errors,
)
from toolgen_runtime.signing import MissingSecret, Signer
from toolgen_runtime.store import Store, StoreUnavailable, open_store

SECRET = b"k" * 32
ORDER = {"sku": "SKU-11", "quantity": 5}
MARIO = {"customer_id": 7}


def gate_on(
    store: Store, *, ttl_s: float = 600, secret: bytes = SECRET
) -> ConfirmationGate:
    return ConfirmationGate(
        tool="send_order",
        prepare_tool="prepare_order",
        signer=Signer([secret], "confirm"),
        store=store,
        ttl_s=ttl_s,
    )


class SendOrder:
    """The confirm tool: redeems the token, then (and only then) sends the order."""

    def __init__(self, gate: ConfirmationGate) -> None:
        self.gate = gate
        self.sent: list[dict[str, object]] = []

    def __call__(
        self,
        token: object,
        args: dict[str, object] = ORDER,
        identity: dict[str, object] = MARIO,
    ) -> dict[str, object]:
        rejection = asyncio.run(self.gate.redeem(token, args, identity))
        if rejection is not None:
            return rejection.envelope()
        self.sent.append(args)
        return {"ok": True, "sent": args["sku"]}


def test_a_prepared_token_sends_once(store: Store) -> None:
    gate = gate_on(store)
    send = SendOrder(gate)
    token = gate.issue(ORDER, MARIO)
    assert send(token) == {"ok": True, "sent": "SKU-11"}
    replay = send(token)
    assert replay["error"] == "token_used"
    assert "already been carried out" in str(replay["how_to_fix"])
    assert send.sent == [ORDER]


def _altered(token: str) -> str:
    body, _, mac = token.partition(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload["x"] += 3600_000  # a longer life
    forged = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=")
    return forged.decode() + "." + mac


@pytest.mark.parametrize(
    ("name", "make", "code"),
    [
        ("made up", lambda gate: "tok_8f3a2c", "token_invalid"),
        ("empty", lambda gate: "", "token_invalid"),
        ("not text", lambda gate: 12345, "token_invalid"),
        (
            "altered payload",
            lambda gate: _altered(gate.issue(ORDER, MARIO)),
            "token_invalid",
        ),
        ("cut short", lambda gate: gate.issue(ORDER, MARIO)[:-3], "token_invalid"),
        (
            "other secret",
            lambda gate: gate_on(
                open_store("sqlite:///unused.db"), secret=b"o" * 32
            ).issue(ORDER, MARIO),
            "token_invalid",
        ),
        (
            "a cursor, not a token",
            lambda gate: Signer([SECRET], "cursor").sign({"after": 10}),
            "token_invalid",
        ),
        (
            "for another tool",
            lambda gate: ConfirmationGate(
                tool="delete_customer",
                prepare_tool="prepare_delete",
                signer=Signer([SECRET], "confirm"),
                store=open_store("sqlite:///unused.db"),
            ).issue(ORDER, MARIO),
            "token_other_tool",
        ),
        (
            "other identity",
            lambda gate: gate.issue(ORDER, {"customer_id": 8}),
            "token_other_identity",
        ),
        (
            "other arguments",
            lambda gate: gate.issue({**ORDER, "quantity": 1}, MARIO),
            "token_mismatch",
        ),
    ],
)
def test_a_wrong_token_gets_its_own_error_and_sends_nothing(
    store: Store, name: str, make: object, code: str
) -> None:
    gate = gate_on(store)
    send = SendOrder(gate)
    assert callable(make)
    answer = send(make(gate))
    assert answer == {
        "ok": False,
        "error": code,
        "how_to_fix": gate.errors[code].how_to_fix,
        "retryable": False,
    }, name
    assert send.sent == []


def test_an_expired_token_is_refused(store: Store) -> None:
    gate = gate_on(store, ttl_s=0.3)
    send = SendOrder(gate)
    token = gate.issue(ORDER, MARIO)
    time.sleep(0.4)
    answer = send(token)
    assert answer["error"] == "token_expired"
    assert "a token lasts 0.3 seconds" in str(answer["how_to_fix"])
    assert send.sent == []


def test_a_refused_token_is_not_used_up(store: Store) -> None:
    gate = gate_on(store)
    send = SendOrder(gate)
    token = gate.issue(ORDER, MARIO)
    assert send(token, {**ORDER, "quantity": 500})["error"] == "token_mismatch"
    assert send(token, ORDER, {"customer_id": 8})["error"] == "token_other_identity"
    assert send(token) == {"ok": True, "sent": "SKU-11"}
    assert send.sent == [ORDER]


def test_a_replay_from_other_processes_is_refused(
    store_url: str, tmp_path: Path
) -> None:
    gate = gate_on(open_store(store_url))
    token = gate.issue(ORDER, MARIO)
    effects = tmp_path / "sent.log"
    answers = run_together(
        redeem, [(store_url, SECRET, token, ORDER, MARIO, str(effects))] * 12
    )
    assert sorted(answers, key=str) == [None] + ["token_used"] * 11
    assert len(effects_of(effects)) == 1
    # and in this process too, afterwards
    assert SendOrder(gate)(token)["error"] == "token_used"


def test_the_token_carries_digests_not_the_arguments(store: Store) -> None:
    token = gate_on(store).issue({"email": "mario.rossi@example.com"}, MARIO)
    body = token.partition(".")[0]
    payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    assert "mario" not in payload and "example.com" not in payload
    assert len(token) == TOKEN_CHARS < 200


# a confirm tool's name is a model API's tool name: 1 to 64 characters
NAMES = ["c", "confirm_cancel_appointment", "confirm_" + "x" * 56]


@pytest.mark.parametrize("name", NAMES, ids=[f"{len(n)} characters" for n in NAMES])
def test_a_token_is_as_long_whatever_the_name_arguments_and_identity(
    store: Store, name: str
) -> None:
    gate = ConfirmationGate(
        tool=name,
        prepare_tool="prepare_" + name,
        signer=Signer([SECRET], "confirm"),
        store=store,
    )
    for args, identity in (
        (ORDER, MARIO),
        ({"note": "x" * 5000, "lines": list(range(300))}, {"session": "s" * 300}),
    ):
        token = gate.issue(args, identity)
        assert len(token) == TOKEN_CHARS, name
        assert isinstance(gate.check(token, args, identity), Accepted)


def test_a_token_names_its_tool_even_past_a_long_common_prefix(store: Store) -> None:
    def gate_for(name: str) -> ConfirmationGate:
        return ConfirmationGate(
            tool=name,
            prepare_tool="prepare_x",
            signer=Signer([SECRET], "confirm"),
            store=store,
        )

    one, other = gate_for("confirm_" + "x" * 56), gate_for("confirm_" + "x" * 55 + "y")
    checked = other.check(one.issue(ORDER, MARIO), ORDER, MARIO)
    assert isinstance(checked, TokenRejection) and checked.code == "token_other_tool"


def test_no_altered_token_is_accepted(store: Store) -> None:
    """Every one-character change of a token (its payload, the dot, its MAC) and every
    shortening or lengthening is refused; the token itself still passes."""
    gate = ConfirmationGate(
        tool="confirm_" + "x" * 56,
        prepare_tool="prepare_" + "x" * 56,
        signer=Signer([SECRET], "confirm"),
        store=store,
    )
    token = gate.issue(ORDER, MARIO)
    assert isinstance(gate.check(token, ORDER, MARIO), Accepted)
    altered = [
        token[:i] + other + token[i + 1 :]
        for i in range(len(token))
        for other in "AaQg_-.0="
        if other != token[i]
    ]
    altered += [token[:i] for i in range(len(token))] + [token + "A", token + "=="]
    accepted = [t for t in altered if isinstance(gate.check(t, ORDER, MARIO), Accepted)]
    assert len(altered) > 1700 and accepted == []


def test_a_store_that_is_down_sends_nothing(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("not a folder")
    gate = gate_on(open_store(f"sqlite:///{not_a_folder}/state.db"))
    send = SendOrder(gate)
    with pytest.raises(StoreUnavailable):
        send(gate.issue(ORDER, MARIO))
    assert send.sent == []


def test_a_missing_secret_fails_at_start_up(tmp_path: Path) -> None:
    with pytest.raises(MissingSecret, match="TOOLGEN_SECRET is not set"):
        ConfirmationGate.from_environment(
            tool="send_order",
            prepare_tool="prepare_order",
            store=open_store(f"sqlite:///{tmp_path}/s.db"),
            environ={},
        )
    gate = ConfirmationGate.from_environment(
        tool="send_order",
        prepare_tool="prepare_order",
        store=open_store(f"sqlite:///{tmp_path}/s.db"),
        environ={"TOOLGEN_SECRET": "x" * 40},
    )
    assert gate.check(gate.issue(ORDER, MARIO), ORDER, MARIO).__class__.__name__ == (
        "Accepted"
    )


def test_a_gate_signs_only_for_confirmation(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="purpose 'confirm'"):
        ConfirmationGate(
            tool="send_order",
            prepare_tool="prepare_order",
            signer=Signer([SECRET], "cursor"),
            store=open_store(f"sqlite:///{tmp_path}/s.db"),
        )


def test_every_code_has_a_distinct_fix_naming_the_tools() -> None:
    errors = token_errors("send_order", "prepare_order", ttl_s=600)
    assert list(errors) == list(TOKEN_ERROR_CODES)
    assert len({e.how_to_fix for e in errors.values()}) == len(errors)
    for code, declared in errors.items():
        assert declared.how_to_fix.startswith("Nothing was done"), code
        assert "prepare_order" in declared.how_to_fix, code
        assert declared.retryable is False
    assert "10 minutes" in errors["token_expired"].how_to_fix
    rejection = TokenRejection("token_used", errors["token_used"].how_to_fix)
    assert rejection.envelope()["error"] == "token_used"
