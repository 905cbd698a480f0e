"""Written before the contract gained context: [run_id]; the signature is stale."""

from generated.corpus.read_stock import ReadStockArgs, ReadStockResult


def read_stock(args: ReadStockArgs) -> ReadStockResult:
    return ReadStockResult(on_hand_units=3)
