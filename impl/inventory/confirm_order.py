"""confirm_order: place an order for the current customer. The runtime has checked the token
prepare_order issued (this customer, these arguments, not used before) when this runs."""

from __future__ import annotations

from generated.inventory.confirm_order import (
    ConfirmOrderArgs,
    ConfirmOrderContext,
    ConfirmOrderError,
    ConfirmOrderResult,
)

from . import orders, store


def confirm_order(
    args: ConfirmOrderArgs, context: ConfirmOrderContext
) -> ConfirmOrderResult:
    placed = orders.place_order(context.customer_id, args.sku, args.quantity)
    if placed == "unknown_sku":
        raise ConfirmOrderError("unknown_sku", known_skus=store.known_skus())
    if isinstance(placed, tuple):
        raise ConfirmOrderError("not_enough_stock", on_hand_units=placed[1])
    return ConfirmOrderResult(
        order_number=placed.order_number, total_eur=placed.total_cents / 100
    )
