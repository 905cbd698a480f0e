"""read_stock: the current stock and reorder threshold of a product."""

from __future__ import annotations

from generated.inventory.read_stock import (
    ReadStockArgs,
    ReadStockError,
    ReadStockResult,
)

from . import store


def read_stock(args: ReadStockArgs) -> ReadStockResult:
    stock = store.get_stock(args.sku)
    if stock is None:
        raise ReadStockError("unknown_sku", known_skus=store.known_skus())
    return ReadStockResult(
        sku=stock.sku,
        on_hand_units=stock.on_hand_units,
        reorder_threshold_units=stock.reorder_threshold_units,
        below_threshold=stock.below_threshold,
    )
