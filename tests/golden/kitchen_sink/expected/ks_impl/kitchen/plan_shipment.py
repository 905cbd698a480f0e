"""The business logic of plan_shipment: Plan a shipment of parcels between two
warehouses.

toolgen created this file once and never overwrites it: it is yours.
The generated module validates the arguments before this function runs, and turns what
it returns or raises into what the model receives.
"""

from toolgen_runtime import NotImplementedYet

from ks_generated.kitchen.plan_shipment import (
    PlanShipmentArgs,
    PlanShipmentContext,
    PlanShipmentResult,
)


def plan_shipment(
    args: PlanShipmentArgs, context: PlanShipmentContext
) -> PlanShipmentResult:
    """Plan a shipment of parcels between two warehouses.

    `context` carries tenant_id, requested_on from the run, never from the model.

    Return PlanShipmentResult(...) with:
        shipment_id: The new shipment's id.
        cost_eur: What the shipment costs.
        eta: The expected delivery day, when known.
        legs: The legs of the route.
        summary: Totals of the shipment.

    Report a data error with `raise PlanShipmentError(code, **details)`, the class
    imported from ks_generated.kitchen.plan_shipment:
        route_unavailable: No carrier serves the route on that day.
        over_weight: The parcels together weigh more than the carrier takes.

    Any other exception stops the run.
    Raise one only for infrastructure failures (a database that is down), never for what
    the model can fix.
    """
    raise NotImplementedYet("plan_shipment", "ks_impl/kitchen/plan_shipment.py")
