"""Which store a URL opens, what a missing configuration says, and how keys are made."""

from __future__ import annotations

import atexit
import datetime as dt
import json
from pathlib import Path

import pytest
from toolgen_runtime.errors import ContractViolation
from toolgen_runtime.store import (
    STORE_URL_ENV,
    Claimed,
    SQLiteStore,
    StoreNotConfigured,
    default_store,
    fingerprint,
    idempotency_errors,
    idempotency_key,
    mark_duplicate,
    open_store,
    store_from_environment,
)


def test_a_sqlite_url_names_a_file_created_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "state.db"
    store = open_store(f"sqlite:///{path}")
    assert isinstance(store, SQLiteStore) and store.path == path
    assert not path.exists()
    claim = store.claim("t", "k", "f", lease_s=1, retention_s=1)
    assert isinstance(claim, Claimed)
    assert path.is_file()
    store.close()


def test_a_relative_sqlite_path_is_relative_to_the_working_folder_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = open_store("sqlite:///state/toolgen.db?timeout=2.5")
    assert isinstance(store, SQLiteStore)
    assert store.path == tmp_path / "state" / "toolgen.db"
    assert store.busy_timeout_s == 2.5


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite://state.db", "sqlite:/// followed by the file's path"),
        ("sqlite:///", "names no file"),
        ("sqlite:///state.db?journal=off", "unknown option(s) journal"),
        ("sqlite:///state.db?timeout=soon", "timeout must be a number"),
        ("sqlite:///state.db?timeout=-1", "timeout must be a number"),
        ("redis://localhost/0", "'redis' is not a store this runtime knows"),
        ("state.db", "is not a store this runtime knows"),
    ],
)
def test_a_url_that_names_no_store_is_a_clear_error(url: str, says: str) -> None:
    with pytest.raises(StoreNotConfigured) as raised:
        open_store(url)
    assert says in str(raised.value)


def test_without_a_url_in_the_environment_there_is_no_default_store() -> None:
    with pytest.raises(StoreNotConfigured, match=f"{STORE_URL_ENV} is not set"):
        store_from_environment({})
    with pytest.raises(StoreNotConfigured, match="sqlite:////var/lib"):
        store_from_environment({STORE_URL_ENV: "  "})


def test_the_environment_names_the_store(tmp_path: Path) -> None:
    store = store_from_environment({STORE_URL_ENV: f"sqlite:///{tmp_path}/s.db"})
    assert isinstance(store, SQLiteStore) and store.path == tmp_path / "s.db"


def test_the_shared_store_is_closed_when_the_process_exits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection left open to the end of the process is a ResourceWarning on Python
    3.13 (printed at every exit of an agent run with -W error or -X dev)."""
    registered: list[object] = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setenv(STORE_URL_ENV, f"sqlite:///{tmp_path}/shared.db")
    store = default_store()
    assert default_store() is store
    assert registered == [store.close]  # once, for the one store of the URL


def test_a_postgres_url_keeps_its_password_out_of_messages() -> None:
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    store = open_store("postgresql://agent:hunter2-secret@db.internal:5432/agents")
    assert "hunter2" not in store.url and "hunter2" not in repr(store)
    assert store.url == "postgresql://agent:***@db.internal:5432/agents"


def test_keys_are_canonical_and_name_tool_arguments_and_context() -> None:
    key = idempotency_key("send_order", {"sku": "SKU-1", "qty": 2}, {"run_id": "r1"})
    assert key == idempotency_key(
        "send_order", {"qty": 2, "sku": "SKU-1"}, {"run_id": "r1"}
    )
    others = {
        idempotency_key("create_reorder", {"sku": "SKU-1", "qty": 2}, {"run_id": "r1"}),
        idempotency_key("send_order", {"sku": "SKU-1", "qty": 3}, {"run_id": "r1"}),
        idempotency_key("send_order", {"sku": "SKU-1", "qty": 2}, {"run_id": "r2"}),
        idempotency_key("send_order", {"sku": "SKU-1"}, {"qty": 2, "run_id": "r1"}),
    }
    assert key not in others and len(others) == 4
    assert len(key) == 24


def test_dates_in_keys_are_their_json_form() -> None:
    as_date = idempotency_key("t", {"on": dt.date(2026, 10, 9)}, {})
    assert as_date == idempotency_key("t", {"on": "2026-10-09"}, {})
    assert fingerprint({"on": dt.date(2026, 10, 9)}) == fingerprint(
        {"on": "2026-10-09"}
    )
    assert fingerprint({"a": 1}) != fingerprint({"a": 1}, {"customer_id": 7})


def test_a_duplicate_is_marked_right_after_ok() -> None:
    marked = mark_duplicate('{"ok":false,"error":"unknown_sku","known_skus":["é"]}')
    assert marked == (
        '{"ok":false,"duplicate":true,"error":"unknown_sku","known_skus":["é"]}'
    )
    assert list(json.loads(marked)) == ["ok", "duplicate", "error", "known_skus"]
    with pytest.raises(ContractViolation, match="not an envelope"):
        mark_duplicate("[1, 2]")
    with pytest.raises(ContractViolation, match="not an envelope"):
        mark_duplicate("sent")


def test_the_idempotency_errors_say_what_to_do() -> None:
    errors = idempotency_errors("send_order", ["order_ref"])
    assert set(errors) == {"idempotency_conflict", "operation_in_progress"}
    assert errors["idempotency_conflict"].retryable is False
    assert "use a new order_ref" in errors["idempotency_conflict"].how_to_fix
    assert errors["operation_in_progress"].retryable is True
    assert "in a few seconds" in errors["operation_in_progress"].how_to_fix


@pytest.mark.parametrize(("lease", "retention"), [(0, 1), (1, 0), (-1, 1)])
def test_durations_must_be_positive(
    tmp_path: Path, lease: float, retention: float
) -> None:
    store = open_store(f"sqlite:///{tmp_path}/s.db")
    with pytest.raises(ValueError, match="must be positive"):
        store.claim("t", "k", "f", lease_s=lease, retention_s=retention)
