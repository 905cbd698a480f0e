"""The business logic of count_parcels: Count the parcels of one size class in the
warehouse.

toolgen created this file once and never overwrites it: it is yours.
The generated module validates the arguments before this function runs, and turns what
it returns or raises into what the model receives.
"""

from toolgen_runtime import NotImplementedYet

from ks_generated.kitchen.count_parcels import CountParcelsArgs, CountParcelsResult


def count_parcels(args: CountParcelsArgs) -> CountParcelsResult:
    """Count the parcels of one size class in the warehouse.

    Return CountParcelsResult(...) with:
        count: How many parcels of that class wait.

    An exception stops the run.
    Raise one only for infrastructure failures (a database that is down), never for what
    the model can fix.
    """
    raise NotImplementedYet("count_parcels", "ks_impl/kitchen/count_parcels.py")
