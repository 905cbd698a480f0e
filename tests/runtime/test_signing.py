"""Signed texts the model carries: only what this secret and purpose made verifies."""

from __future__ import annotations

import pytest
from toolgen_runtime.signing import (
    MAX_SIGNED_LENGTH,
    MissingSecret,
    Signer,
    digest,
    secret_from_environment,
)

SECRET = b"s" * 32
OTHER = b"o" * 32


def test_a_signed_payload_verifies_and_round_trips() -> None:
    signer = Signer([SECRET], "cursor")
    text = signer.sign({"after": 10, "filters": digest({"status": "open"})})
    assert signer.verify(text) == {"after": 10, "filters": digest({"status": "open"})}


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # mac altered
        lambda t: "e30" + t[t.index(".") :],  # payload replaced by {}
        lambda t: t.replace(".", ""),  # no separator
        lambda t: "made-up-token",
        lambda t: "",
        lambda t: t + "." + t,
        lambda t: "é" + t,
        lambda t: t + "x" * MAX_SIGNED_LENGTH,
    ],
)
def test_anything_altered_or_made_up_is_refused(mangle: object) -> None:
    signer = Signer([SECRET], "cursor")
    text = signer.sign({"after": 10})
    assert callable(mangle)
    assert signer.verify(mangle(text)) is None


def test_a_text_for_another_purpose_or_secret_is_refused() -> None:
    text = Signer([SECRET], "cursor").sign({"after": 10})
    assert Signer([SECRET], "confirm").verify(text) is None
    assert Signer([OTHER], "cursor").verify(text) is None


def test_the_previous_secret_still_verifies_during_a_rotation() -> None:
    old = Signer([OTHER], "confirm").sign({"n": 1})
    rotated = Signer([SECRET, OTHER], "confirm")
    assert rotated.verify(old) == {"n": 1}
    assert Signer([SECRET], "confirm").verify(rotated.sign({"n": 2})) == {"n": 2}


def test_non_text_is_refused() -> None:
    assert Signer([SECRET], "cursor").verify(12) is None


def test_the_secret_comes_from_the_environment_and_has_no_default() -> None:
    with pytest.raises(MissingSecret, match="TOOLGEN_SECRET is not set"):
        secret_from_environment({})
    with pytest.raises(MissingSecret, match="at least 32"):
        secret_from_environment({"TOOLGEN_SECRET": "short"})
    both = secret_from_environment(
        {"TOOLGEN_SECRET": "a" * 40, "TOOLGEN_SECRET_PREVIOUS": "b" * 40}
    )
    assert both == (b"a" * 40, b"b" * 40)


def test_digest_is_stable_and_order_free() -> None:
    assert digest({"a": 1, "b": [1, 2]}) == digest({"b": [1, 2], "a": 1})
    assert digest({"a": 1}) != digest({"a": 2})
