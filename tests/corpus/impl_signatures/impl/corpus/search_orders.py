"""The function was renamed: the tool has no implementation function."""

from generated.corpus.search_orders import SearchOrdersArgs, SearchOrdersResult


def search_order(args: SearchOrdersArgs) -> SearchOrdersResult:
    return SearchOrdersResult(on_hand_units=1)
