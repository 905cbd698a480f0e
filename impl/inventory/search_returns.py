"""search_returns: the current customer's return requests since a day, newest first."""

from __future__ import annotations

from generated.inventory.search_returns import (
    SearchReturnsArgs,
    SearchReturnsContext,
    SearchReturnsResult,
    SearchReturnsReturn,
)

from . import store


def search_returns(
    args: SearchReturnsArgs, context: SearchReturnsContext
) -> SearchReturnsResult:
    # The customer comes from the run context only: the model cannot choose it.
    page = store.query_returns(
        context.customer_id, since=args.since, limit=args.max_results
    )
    return SearchReturnsResult(
        returns=[
            SearchReturnsReturn(
                return_number=request.return_number,
                order_number=request.order_number,
                reason=request.reason,
                requested_on=request.requested_on,
                status=request.status,
            )
            for request in page.items
        ],
        shown=page.shown,
        total_available=page.total_available,
        note=store.returns_note(
            shown=page.shown,
            total=page.total_available,
            max_results=args.max_results,
        ),
    )
