"""search_orders: the current customer's orders, newest first."""

from __future__ import annotations

from generated.inventory.search_orders import (
    SearchOrdersArgs,
    SearchOrdersContext,
    SearchOrdersOrder,
    SearchOrdersResult,
)

from . import store


def search_orders(
    args: SearchOrdersArgs, context: SearchOrdersContext
) -> SearchOrdersResult:
    # The customer comes from the run context only: the model cannot choose it.
    page = store.query_orders(
        context.customer_id,
        status=args.status,
        since=args.since,
        limit=args.max_results,
    )
    return SearchOrdersResult(
        orders=[
            SearchOrdersOrder(
                order_number=order.order_number,
                status=order.status,
                placed_on=order.placed_on,
                total_eur=order.total_eur,
            )
            for order in page.items
        ],
        shown=page.shown,
        total_available=page.total_available,
        note=store.orders_note(
            shown=page.shown,
            total=page.total_available,
            max_results=args.max_results,
            status=args.status,
            since=args.since,
        ),
    )
