"""The two-tool test as data: how alike every two tools of a catalogue look to the pair rules,
and the `not_when` edges between them.

This is the one part of review that reads the IR, because it must see exactly what the lint's
pair rules see: the pairs they compare (`CatalogueContext.pairs`), the word profiles, and the
predicates of TG202 (names equal but for case), TG206 (synonymous verbs on one object), TG401
(near twins) and TG303 (neighbours). What it returns is plain data, like a snapshot. The
prepare and the confirm tool of one token contract are alike by construction and are marked
as such: they are one contract, not two tools a model may confuse.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from toolgen.lint.context import CatalogueContext, ToolProfile
from toolgen.lint.names import overlapping
from toolgen.lint.neighbours import neighbours, told_apart
from toolgen.lint.two_tool import twins
from toolgen.spec.ir import Catalogue

# a pair's score weighs the Jaccard indices of its name, intent and parameter words, the
# name's most (the model reads the name first)
WEIGHTS = (0.5, 0.35, 0.15)
# pairs below this are not drawn: they keep the picture readable and the page small
SHOWN_FROM = 0.15


def _verdict(pair: Any, ctx: CatalogueContext) -> str | None:
    """What the pair rules say of two tools, the strongest first."""
    first, second = pair.first, pair.second
    a, b = ctx.profile(first.name), ctx.profile(second.name)
    if a.normalized == b.normalized:
        return "TG202"
    if overlapping(first, second, ctx):
        return "TG206"
    if twins(first, second, ctx):
        return "TG401"
    if a.objects & b.objects and neighbours(a, b):
        return "TG303"
    return None


def _word_bits(profile: ToolProfile, vocabulary: dict[str, int]) -> tuple[int, ...]:
    """A tool's name, intent and parameter words, each a set of bits `vocabulary` numbers."""
    return tuple(
        sum(1 << vocabulary.setdefault(w, len(vocabulary)) for w in words)
        for words in (profile.name_set, profile.intent, profile.params)
    )


def _jaccard(first: int, second: int) -> float:
    """words.jaccard of two sets of bits."""
    if not first and not second:
        return 1.0
    return (first & second).bit_count() / (first | second).bit_count()


def similarity(catalogue: Catalogue) -> dict[str, Any]:
    """`tools` in name order, `pairs` (indices into tools, the three similarities, the score,
    the pair rule's verdict, whether a `not_when` or `requires` tells them apart, and whether
    they are the two tools of one token contract), and `not_when` edges (from, to, when)."""
    ctx = CatalogueContext.of(catalogue)
    tools = sorted(ctx.tools(), key=lambda t: t.name)
    # the prepare and the confirm tool of one `confirmation: token` contract are alike by
    # construction (same parameters, same object), and told apart by their descriptions
    contract = {t.name: t.token_pair for t in catalogue.tools}
    index = {t.name: i for i, t in enumerate(tools)}
    verdicts = {(p.first.name, p.second.name): _verdict(p, ctx) for p in ctx.pairs()}
    # word sets as bits: a pair's Jaccard index is two bit counts, not two new sets (half a
    # million pairs at 1,000 tools)
    vocabulary: dict[str, int] = {}
    sets = [_word_bits(ctx.profile(t.name), vocabulary) for t in tools]
    pairs = []
    for (i, first), (j, second) in combinations(enumerate(tools), 2):
        (name_a, intent_a, params_a), (name_b, intent_b, params_b) = sets[i], sets[j]
        by_name = _jaccard(name_a, name_b)
        by_intent = _jaccard(intent_a, intent_b)
        by_params = _jaccard(params_a, params_b) if params_a and params_b else 0.0
        score = WEIGHTS[0] * by_name + WEIGHTS[1] * by_intent + WEIGHTS[2] * by_params
        verdict = verdicts.get((first.name, second.name))
        pair = contract[first.name]
        token_pair = pair is not None and pair == contract[second.name]
        if score >= SHOWN_FROM or verdict is not None or token_pair:
            pairs.append(
                {
                    "a": i,
                    "b": j,
                    "name": round(by_name, 3),
                    "intent": round(by_intent, 3),
                    "params": round(by_params, 3),
                    "score": round(score, 3),
                    "verdict": verdict,
                    "separated": token_pair or told_apart(first, second),
                    "token_pair": token_pair,
                }
            )
    edges = [
        {"from": index[t.name], "to": index[n.name], "when": n.text}
        for t in tools
        for n in t.not_when
        if n.name in index
    ]
    return {"tools": [t.name for t in tools], "pairs": pairs, "not_when": edges}
