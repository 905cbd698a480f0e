"""The impl functions through the generated types, on a fresh SQLite file per test.

generated/inventory is committed; `toolgen build --check` keeps it current.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from toolgen_runtime.pagination import Keyset

from generated.inventory.create_reorder import (
    CreateReorderArgs,
    CreateReorderContext,
    CreateReorderError,
)
from generated.inventory.find_customer import FindCustomerArgs, FindCustomerError
from generated.inventory.next_batch import NextBatchArgs, NextBatchResult
from generated.inventory.read_stock import (
    ReadStockArgs,
    ReadStockError,
    ReadStockResult,
)
from generated.inventory.search_orders import SearchOrdersArgs, SearchOrdersContext
from generated.inventory.search_returns import (
    SearchReturnsArgs,
    SearchReturnsContext,
)
from impl.inventory.create_reorder import create_reorder
from impl.inventory.db import close_database, use_database
from impl.inventory.find_customer import find_customer
from impl.inventory.next_batch import next_batch
from impl.inventory.read_stock import read_stock
from impl.inventory.search_orders import search_orders
from impl.inventory.search_returns import search_returns


@pytest.fixture(autouse=True)
def fresh_database(tmp_path: Path) -> Iterator[None]:
    use_database(tmp_path / "inv.db")
    yield
    close_database()


def test_next_batch() -> None:
    assert next_batch(NextBatchArgs(batch=4)) == NextBatchResult(next_batch=5)
    assert next_batch(NextBatchArgs(batch=0)).next_batch == 1


def test_find_customer_by_exact_name() -> None:
    result = find_customer(FindCustomerArgs(name="Brambilla SRL"))
    assert (result.customer_id, result.name) == (2, "Brambilla SRL")


def test_find_customer_near_miss_reports_suggestions() -> None:
    with pytest.raises(FindCustomerError) as raised:
        find_customer(FindCustomerArgs(name="Brambilla"))
    assert raised.value.code == "customer_not_found"
    assert raised.value.details == {"suggestions": ["Brambilla SRL"]}


def test_search_orders_uses_the_context_customer() -> None:
    args = SearchOrdersArgs(status=None, since=None, cursor=None, page_size=10)
    acme = search_orders(args, SearchOrdersContext(customer_id=1))
    assert acme.total == 14
    assert len(acme.items) == 10
    assert acme.items[0].order_number == "ORD-1014"
    # the next page starts after the last order shown: its sort key
    assert acme.next == Keyset(("2026-04-08", "ORD-1005"))

    brambilla = search_orders(args, SearchOrdersContext(customer_id=2))
    assert [o.order_number for o in brambilla.items] == [
        "ORD-2003",
        "ORD-2002",
        "ORD-2001",
    ]
    assert brambilla.next is None


def test_search_orders_filters() -> None:
    args = SearchOrdersArgs(
        status="open", since=date(2026, 10, 28), cursor=None, page_size=50
    )
    result = search_orders(args, SearchOrdersContext(customer_id=1))
    assert [(o.order_number, o.status) for o in result.items] == [
        ("ORD-1014", "open"),
        ("ORD-1013", "open"),
    ]
    assert result.items[0].placed_on == date(2026, 11, 16)
    assert result.items[0].total_eur == 1890.0
    assert (result.total, result.next) == (2, None)


def test_search_returns_uses_the_context_customer() -> None:
    args = SearchReturnsArgs(since=date(2026, 1, 1), max_results=2)
    acme = search_returns(args, SearchReturnsContext(customer_id=1))
    assert (acme.shown, acme.total_available) == (2, 5)
    assert [r.return_number for r in acme.returns] == ["RET-505", "RET-504"]

    brambilla = search_returns(args, SearchReturnsContext(customer_id=2))
    assert [r.return_number for r in brambilla.returns] == ["RET-601"]
    assert brambilla.returns[0].reason == "damaged"
    assert brambilla.note == "Showing the only return request found."


def test_read_stock() -> None:
    assert read_stock(ReadStockArgs(sku="SKU-11")) == ReadStockResult(
        sku="SKU-11",
        on_hand_units=4,
        reorder_threshold_units=10,
        below_threshold=True,
    )


def test_read_stock_unknown_sku_lists_the_known_ones() -> None:
    with pytest.raises(ReadStockError) as raised:
        read_stock(ReadStockArgs(sku="SKU-99"))
    assert raised.value.code == "unknown_sku"
    known_skus = raised.value.details["known_skus"]
    assert isinstance(known_skus, list)
    assert "SKU-11" in known_skus


def test_create_reorder_is_idempotent_within_a_run() -> None:
    args = CreateReorderArgs(sku="SKU-11", quantity=5, urgency="standard")
    first = create_reorder(args, CreateReorderContext(run_id="run-1"))
    again = create_reorder(args, CreateReorderContext(run_id="run-1"))
    other_run = create_reorder(args, CreateReorderContext(run_id="run-2"))
    assert first.created is True
    assert again.created is False
    assert again.proposal_id == first.proposal_id
    assert other_run.created is True
    assert other_run.proposal_id != first.proposal_id
    assert (first.sku, first.quantity_units, first.urgency) == ("SKU-11", 5, "standard")


def test_create_reorder_unknown_sku() -> None:
    with pytest.raises(CreateReorderError) as raised:
        create_reorder(
            CreateReorderArgs(sku="SKU-99", quantity=5, urgency="urgent"),
            CreateReorderContext(run_id="run-1"),
        )
    assert raised.value.code == "unknown_sku"
    known_skus = raised.value.details["known_skus"]
    assert isinstance(known_skus, list)
    assert "SKU-11" in known_skus
