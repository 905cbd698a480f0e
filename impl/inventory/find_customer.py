"""find_customer: a customer by exact name, or suggestions on a near miss."""

from __future__ import annotations

from generated.inventory.find_customer import (
    FindCustomerArgs,
    FindCustomerError,
    FindCustomerResult,
)

from . import store


def find_customer(args: FindCustomerArgs) -> FindCustomerResult:
    customer = store.get_customer_by_name(args.name)
    if customer is None:
        raise FindCustomerError(
            "customer_not_found",
            suggestions=store.suggest_customer_names(args.name),
        )
    return FindCustomerResult(customer_id=customer.customer_id, name=customer.name)
