"""cancel_order: cancel an open order of the current customer. It runs only once a person
approved the call (the SDK's needs_approval); cancelling twice changes nothing."""

from __future__ import annotations

from generated.inventory.cancel_order import (
    CancelOrderArgs,
    CancelOrderContext,
    CancelOrderError,
    CancelOrderResult,
)

from . import orders


def cancel_order(
    args: CancelOrderArgs, context: CancelOrderContext
) -> CancelOrderResult:
    outcome = orders.cancel_order(context.customer_id, args.order_number)
    if isinstance(outcome, str):
        raise CancelOrderError(outcome)
    return CancelOrderResult(
        order_number=outcome.order_number, cancelled_now=outcome.cancelled_now
    )
