"""send_order: a purchase order to the supplier. It runs once per order_ref in a run: the
runtime's idempotency key (order_ref and the run id) decides, so this function simply sends."""

from __future__ import annotations

from generated.inventory.send_order import (
    SendOrderArgs,
    SendOrderContext,
    SendOrderError,
    SendOrderResult,
)

from . import orders, store


def send_order(args: SendOrderArgs, context: SendOrderContext) -> SendOrderResult:
    sent = orders.send_purchase_order(
        context.run_id, args.order_ref, args.sku, args.quantity
    )
    if sent is None:
        raise SendOrderError("unknown_sku", known_skus=store.known_skus())
    return SendOrderResult(
        purchase_order_number=sent.purchase_order_number,
        sku=sent.sku,
        quantity_units=sent.quantity_units,
    )
