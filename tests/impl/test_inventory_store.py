"""The inventory database and its queries, on a fresh SQLite file per test."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from impl.inventory import db as inventory_db
from impl.inventory import store
from impl.inventory.db import Database, close_database, get_database, use_database


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    yield use_database(tmp_path / "inv.db")
    close_database()


def _count(database: Database, table: str) -> int:
    assert table.isidentifier()  # a fixed table name from this file, never input
    with database.transaction() as conn:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    return int(row[0])


def _table_counts(database: Database) -> dict[str, int]:
    tables = ("customers", "orders", "returns", "stock", "reorder_proposals")
    return {table: _count(database, table) for table in tables}


# --- creation and seeding ----------------------------------------------------


def test_first_use_creates_and_seeds_the_file(
    database: Database, tmp_path: Path
) -> None:
    assert not (tmp_path / "inv.db").exists()
    assert _table_counts(database) == {
        "customers": len(inventory_db.SEED_CUSTOMERS),
        "orders": len(inventory_db.SEED_ORDERS),
        "returns": len(inventory_db.SEED_RETURNS),
        "stock": len(inventory_db.SEED_STOCK),
        "reorder_proposals": 0,
    }
    assert (tmp_path / "inv.db").is_file()


def test_seeding_is_idempotent_and_keeps_later_writes(
    database: Database, tmp_path: Path
) -> None:
    first = _table_counts(database)
    outcome = store.create_reorder_proposal("run-1", "SKU-11", 5, "standard")
    assert outcome is not None
    database.close()

    for _ in range(2):  # reopening seeds again, which must change nothing
        reopened = Database(tmp_path / "inv.db")
        counts = _table_counts(reopened)
        reopened.close()
        assert counts == {**first, "reorder_proposals": 1}

    again = store.create_reorder_proposal("run-1", "SKU-11", 5, "standard")
    assert again is not None
    assert again.created is False
    assert again.proposal.proposal_id == outcome.proposal.proposal_id


def test_two_connections_on_one_file_seed_once(tmp_path: Path) -> None:
    first, second = Database(tmp_path / "inv.db"), Database(tmp_path / "inv.db")
    try:
        assert _table_counts(first) == _table_counts(second)
        assert _count(second, "customers") == len(inventory_db.SEED_CUSTOMERS)
    finally:
        first.close()
        second.close()


def test_database_choice_env_var_then_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    close_database()
    monkeypatch.setenv(inventory_db.ENV_VAR, str(tmp_path / "from-env.db"))
    try:
        assert get_database().path == str(tmp_path / "from-env.db")
        assert get_database() is get_database()
        assert store.get_stock("SKU-11") is not None
        assert (tmp_path / "from-env.db").is_file()
        close_database()

        monkeypatch.delenv(inventory_db.ENV_VAR)
        assert get_database().in_memory
        assert store.get_stock("SKU-11") is not None

        chosen = use_database(tmp_path / "chosen.db")
        assert get_database() is chosen
    finally:
        close_database()


def test_a_failed_transaction_rolls_back(database: Database) -> None:
    with pytest.raises(RuntimeError), database.transaction(write=True) as conn:
        conn.execute("DELETE FROM stock WHERE sku = ?", ("SKU-11",))
        raise RuntimeError("stop")
    assert store.get_stock("SKU-11") is not None


# --- customers -----------------------------------------------------------------


def test_exact_name_finds_the_customer(database: Database) -> None:
    assert store.get_customer_by_name("ACME") == store.Customer(1, "ACME")
    assert store.get_customer_by_name("Brambilla SRL") == store.Customer(
        2, "Brambilla SRL"
    )


@pytest.mark.parametrize("name", ["acme", "ACME ", "Brambilla", ""])
def test_near_names_are_not_a_match(database: Database, name: str) -> None:
    assert store.get_customer_by_name(name) is None


@pytest.mark.parametrize(
    ("query", "suggestions"),
    [
        ("Brambilla", ["Brambilla SRL"]),  # the lesson's case
        ("brambilla srl", ["Brambilla SRL"]),  # case does not matter
        ("Brambilla SRL Milano", ["Brambilla SRL"]),  # a name inside the query
        ("acme", ["ACME"]),
        ("OTTICA", ["Fontana Ottica"]),
    ],
)
def test_suggestions_contain_or_are_contained(
    database: Database, query: str, suggestions: list[str]
) -> None:
    assert store.suggest_customer_names(query) == suggestions


def test_no_close_name_suggests_the_first_five_alphabetically(
    database: Database,
) -> None:
    assert store.suggest_customer_names("Zanetti") == [
        "ACME",
        "Brambilla SRL",
        "Colombo Forniture",
        "Delta Logistica",
        "Esposito & Figli",
    ]


def test_suggestions_are_capped_and_sorted(database: Database) -> None:
    # Six names contain an "i"; the sixth alphabetically is left out.
    assert store.suggest_customer_names("i") == [
        "Brambilla SRL",
        "Colombo Forniture",
        "Delta Logistica",
        "Esposito & Figli",
        "Fontana Ottica",
    ]
    assert store.suggest_customer_names("I", limit=2) == [
        "Brambilla SRL",
        "Colombo Forniture",
    ]


def test_names_are_parameters_never_sql(database: Database) -> None:
    hostile = "x' OR '1'='1'; DROP TABLE customers; --"
    assert store.get_customer_by_name(hostile) is None
    assert len(store.suggest_customer_names(hostile)) == 5
    assert _count(database, "customers") == len(inventory_db.SEED_CUSTOMERS)


# --- orders --------------------------------------------------------------------


def test_orders_are_the_customers_own_newest_first(database: Database) -> None:
    page = store.query_orders(1)
    assert (page.shown, page.total_available) == (10, 14)
    numbers = [order.order_number for order in page.items]
    assert numbers == [f"ORD-{n}" for n in range(1014, 1004, -1)]
    days = [order.placed_on for order in page.items]
    assert days == sorted(days, reverse=True)


@pytest.mark.parametrize(
    ("customer_id", "numbers"),
    [
        (2, ["ORD-2003", "ORD-2002", "ORD-2001"]),
        (3, ["ORD-3002", "ORD-3001"]),
        (4, ["ORD-4001"]),
        (6, []),
        (999, []),
    ],
)
def test_orders_are_filtered_by_customer(
    database: Database, customer_id: int, numbers: list[str]
) -> None:
    page = store.query_orders(customer_id, limit=50)
    assert [order.order_number for order in page.items] == numbers
    assert page.total_available == len(numbers)


def test_order_fields_are_typed(database: Database) -> None:
    page = store.query_orders(1, since=date(2026, 3, 15), status="shipped", limit=50)
    oldest = page.items[-1]
    assert oldest == store.Order("ORD-1004", "shipped", date(2026, 3, 15), 2199.99)


@pytest.mark.parametrize(
    ("status", "since", "total"),
    [
        ("open", None, 3),
        ("shipped", None, 9),
        ("cancelled", None, 2),
        (None, date(2026, 10, 9), 3),  # since is inclusive
        (None, date(2026, 10, 10), 2),
        ("shipped", date(2026, 10, 9), 0),
        (None, date(2027, 1, 1), 0),
    ],
)
def test_order_filters(
    database: Database, status: store.OrderStatus | None, since: date | None, total: int
) -> None:
    page = store.query_orders(1, status=status, since=since, limit=50)
    assert page.total_available == total == page.shown
    assert all(status is None or order.status == status for order in page.items)
    assert all(since is None or order.placed_on >= since for order in page.items)


@pytest.mark.parametrize(
    ("limit", "shown"), [(1, 1), (10, 10), (13, 13), (14, 14), (50, 14)]
)
def test_order_pagination_numbers(database: Database, limit: int, shown: int) -> None:
    page = store.query_orders(1, limit=limit)
    assert (page.shown, page.total_available) == (shown, 14)


def test_a_limit_below_one_is_a_bug(database: Database) -> None:
    with pytest.raises(ValueError, match="limit"):
        store.query_orders(1, limit=0)


# --- returns -------------------------------------------------------------------


def test_returns_are_the_customers_own_newest_first(database: Database) -> None:
    page = store.query_returns(1, since=date(2026, 1, 1))
    assert (page.shown, page.total_available) == (5, 5)
    assert [r.return_number for r in page.items] == [
        "RET-505",
        "RET-504",
        "RET-503",
        "RET-502",
        "RET-501",
    ]
    assert page.items[0] == store.ReturnRequest(
        "RET-505", "ORD-1011", "no_longer_needed", date(2026, 10, 12), "requested"
    )


@pytest.mark.parametrize(
    ("customer_id", "since", "numbers"),
    [
        (2, date(2026, 1, 1), ["RET-601"]),
        (3, date(2026, 1, 1), []),
        (1, date(2026, 10, 9), ["RET-505"]),
        (1, date(2026, 10, 12), ["RET-505"]),  # since is inclusive
        (1, date(2026, 10, 13), []),
    ],
)
def test_returns_are_filtered_by_customer_and_day(
    database: Database, customer_id: int, since: date, numbers: list[str]
) -> None:
    page = store.query_returns(customer_id, since=since)
    assert [r.return_number for r in page.items] == numbers


def test_return_pagination_numbers(database: Database) -> None:
    page = store.query_returns(1, since=date(2026, 1, 1), limit=2)
    assert (page.shown, page.total_available) == (2, 5)
    assert [r.return_number for r in page.items] == ["RET-505", "RET-504"]


# --- notes ---------------------------------------------------------------------


def test_returns_note() -> None:
    assert store.returns_note(shown=2, total=5, max_results=2) == (
        "Showing the newest 2 of 5 return requests. To see the rest, raise"
        " max_results (up to 50)."
    )
    assert store.returns_note(shown=5, total=5, max_results=10) == (
        "Showing all 5 return requests."
    )
    assert store.returns_note(shown=0, total=0, max_results=10) == (
        "No return requests match these filters."
    )


# --- stock ---------------------------------------------------------------------


def test_stock_of_a_known_sku(database: Database) -> None:
    stock = store.get_stock("SKU-11")
    assert stock == store.Stock("SKU-11", on_hand_units=4, reorder_threshold_units=10)
    assert stock is not None and stock.below_threshold


def test_stock_at_the_threshold_is_not_below(database: Database) -> None:
    stock = store.get_stock("SKU-77")
    assert stock is not None
    assert stock.on_hand_units == stock.reorder_threshold_units == 10
    assert not stock.below_threshold


@pytest.mark.parametrize("sku", ["SKU-99", "sku-11", "SKU-11 ", ""])
def test_unknown_sku_has_no_stock(database: Database, sku: str) -> None:
    assert store.get_stock(sku) is None


def test_known_skus_are_sorted_and_complete(database: Database) -> None:
    skus = store.known_skus()
    assert skus == sorted(sku for sku, _, _ in inventory_db.SEED_STOCK)
    assert "SKU-11" in skus


# --- reorder proposals ---------------------------------------------------------


def test_the_same_proposal_in_the_same_run_is_stored_once(database: Database) -> None:
    first = store.create_reorder_proposal("run-1", "SKU-11", 5, "standard")
    second = store.create_reorder_proposal("run-1", "SKU-11", 5, "standard")
    assert first is not None and second is not None
    assert first.created is True
    assert second.created is False
    assert second.proposal == first.proposal
    assert first.proposal == store.ReorderProposal(
        proposal_id=first.proposal.proposal_id,
        run_id="run-1",
        sku="SKU-11",
        quantity_units=5,
        urgency="standard",
    )
    assert first.proposal.proposal_id.startswith("RP-")
    assert _count(database, "reorder_proposals") == 1


@pytest.mark.parametrize(
    ("run_id", "sku", "quantity", "urgency"),
    [
        ("run-2", "SKU-11", 5, "standard"),
        ("run-1", "SKU-12", 5, "standard"),
        ("run-1", "SKU-11", 6, "standard"),
        ("run-1", "SKU-11", 5, "urgent"),
    ],
)
def test_any_different_key_part_is_a_new_proposal(
    database: Database, run_id: str, sku: str, quantity: int, urgency: store.Urgency
) -> None:
    first = store.create_reorder_proposal("run-1", "SKU-11", 5, "standard")
    other = store.create_reorder_proposal(run_id, sku, quantity, urgency)
    assert first is not None and other is not None
    assert other.created is True
    assert other.proposal.proposal_id != first.proposal.proposal_id
    assert _count(database, "reorder_proposals") == 2


def test_an_unknown_sku_creates_nothing(database: Database) -> None:
    assert store.create_reorder_proposal("run-1", "SKU-99", 5, "standard") is None
    assert _count(database, "reorder_proposals") == 0


def test_the_table_itself_rejects_a_duplicate(database: Database) -> None:
    insert = (
        "INSERT INTO reorder_proposals (run_id, sku, quantity, urgency)"
        " VALUES (?, ?, ?, ?)"
    )
    with database.transaction(write=True) as conn:
        conn.execute(insert, ("run-1", "SKU-11", 5, "standard"))
    with (
        pytest.raises(sqlite3.IntegrityError),
        database.transaction(write=True) as conn,
    ):
        conn.execute(insert, ("run-1", "SKU-11", 5, "standard"))
    assert _count(database, "reorder_proposals") == 1


@pytest.mark.parametrize("quantity", [0, 1001])
def test_the_table_rejects_out_of_range_quantities(
    database: Database, quantity: int
) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.create_reorder_proposal("run-1", "SKU-11", quantity, "standard")
    assert _count(database, "reorder_proposals") == 0


def test_concurrent_repeats_create_one_proposal(tmp_path: Path) -> None:
    """Threads on separate connections to one file stand in for worker processes."""
    path = tmp_path / "inv.db"
    Database(path).close()  # create and seed before the race
    databases = [Database(path) for _ in range(8)]
    outcomes: list[store.ReorderOutcome | None] = []
    barrier = threading.Barrier(len(databases))

    def propose(database: Database) -> None:
        barrier.wait()
        outcome = store.create_reorder_proposal(
            "run-1", "SKU-11", 5, "urgent", db=database
        )
        outcomes.append(outcome)

    threads = [threading.Thread(target=propose, args=(d,)) for d in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert len(outcomes) == len(databases)
        created = [o for o in outcomes if o is not None and o.created]
        assert len(created) == 1
        assert {o.proposal.proposal_id for o in outcomes if o is not None} == {
            created[0].proposal.proposal_id
        }
        assert _count(databases[0], "reorder_proposals") == 1
    finally:
        for database in databases:
            database.close()
