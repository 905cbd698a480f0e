"""Still the stub toolgen created."""

from generated.corpus.next_batch import NextBatchArgs, NextBatchResult
from toolgen_runtime import NotImplementedYet


def next_batch(args: NextBatchArgs) -> NextBatchResult:
    raise NotImplementedYet("next_batch", "impl/corpus/next_batch.py")
