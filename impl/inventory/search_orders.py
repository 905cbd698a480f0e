"""search_orders: the current customer's orders, newest first, one page at a time."""

from __future__ import annotations

from toolgen_runtime.pagination import Keyset, Page, after_key

from generated.inventory.search_orders import (
    SearchOrdersArgs,
    SearchOrdersContext,
    SearchOrdersItem,
)

from . import store


def search_orders(
    args: SearchOrdersArgs, context: SearchOrdersContext
) -> Page[SearchOrdersItem]:
    # The customer comes from the run context only: the model cannot choose it. The cursor
    # was checked before this runs (signed, made for these filters and this customer); it
    # holds the sort key of the last order shown.
    after = after_key(args.cursor)
    found = store.query_orders(
        context.customer_id,
        status=args.status,
        since=args.since,
        # one more than the page: whether it comes back says if there is a next page
        limit=args.page_size + 1,
        after=None if after is None else (str(after[0]), str(after[1])),
    )
    shown = found.items[: args.page_size]
    items = [
        SearchOrdersItem(
            order_number=order.order_number,
            status=order.status,
            placed_on=order.placed_on,
            total_eur=order.total_eur,
        )
        for order in shown
    ]
    last = shown[-1] if shown else None
    more = len(found.items) > args.page_size and last is not None
    return Page(
        items=items,
        total=found.total_available,
        next=Keyset((last.placed_on.isoformat(), last.order_number))
        if more and last is not None
        else None,
    )
