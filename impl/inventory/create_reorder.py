"""create_reorder: a reorder proposal, stored once per run for the same arguments."""

from __future__ import annotations

from generated.inventory.create_reorder import (
    CreateReorderArgs,
    CreateReorderContext,
    CreateReorderError,
    CreateReorderResult,
)

from . import store


def create_reorder(
    args: CreateReorderArgs, context: CreateReorderContext
) -> CreateReorderResult:
    outcome = store.create_reorder_proposal(
        context.run_id, args.sku, args.quantity, args.urgency
    )
    if outcome is None:
        raise CreateReorderError("unknown_sku", known_skus=store.known_skus())
    proposal = outcome.proposal
    return CreateReorderResult(
        proposal_id=proposal.proposal_id,
        sku=proposal.sku,
        quantity_units=proposal.quantity_units,
        urgency=proposal.urgency,
        created=outcome.created,
    )
