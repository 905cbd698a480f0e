"""The business logic of count_items: Count the items of one class in the catalogue.

toolgen created this file once and never overwrites it: it is yours. The generated
module validates the arguments before this function runs, and turns what it returns or
raises into what the model receives.
"""

from ks_generated.kitchen.count_items import CountItemsArgs, CountItemsResult
from toolgen.runtime import NotImplementedYet


def count_items(args: CountItemsArgs) -> CountItemsResult:
    """Count the items of one class in the catalogue.

    Return CountItemsResult(...) with:
        count: How many items the class holds.
    Any other exception stops the run: use it for infrastructure failures only.
    """
    raise NotImplementedYet("count_items", "ks_impl/kitchen/count_items.py")
