"""next_batch: the number of the batch after a given one."""

from __future__ import annotations

from generated.inventory.next_batch import NextBatchArgs, NextBatchResult


def next_batch(args: NextBatchArgs) -> NextBatchResult:
    return NextBatchResult(next_batch=args.batch + 1)
