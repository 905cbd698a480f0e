"""Offline, deterministic tool search: BM25F over the words of each tool's contract.

A tool is found by what its contract says: the words of its name, its intent, when to use it,
the requests a user makes for it (`asks`), its parameters and its namespace's description.
The `when` texts of `not_when` say when *not* to use it: their words count against the tool.

Documents and queries go through one tokenizer: Unicode NFKC, lowercase (casefold), runs of
Unicode letters and digits (so `_`, `-` and punctuation split words, and so does a lowercase
letter followed by an uppercase one: `readStock` is `read stock`), English stop words dropped,
then the Snowball English stemmer (`appointments` and `appointment` are one term).

Scores are BM25F (Robertson and Zaragoza): a term's frequency in each field, normalised by
the field's length and weighted by the field, summed into one pseudo-frequency, saturated
with k1 and multiplied by the term's idf. Everything but the query is known when the index
is built, so the index keeps, for each term, the tools it occurs in with the term's
finished contribution to their score: a query sums a few short lists. Results are sorted by
score, then by name, so they never depend on the order of the documents.

This module imports neither the Agents SDK nor the rest of toolgen_runtime: the compiler
imports it to build the index (and ship it as data, `ToolIndex.to_data`), and lint uses it
to find the asks the search sends to another tool.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, TypeGuard

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "Hit",
    "SearchDocument",
    "ToolIndex",
    "Tuning",
    "terms",
]

# what a query may cost: longer queries are cut, never refused (a model's query is not wrong
# for being long); the terms are the first distinct words that are not stop words
MAX_QUERY_CHARS = 1_000
MAX_QUERY_TERMS = 32
MAX_LIMIT = 50
# the tools `search_tools` loads when the model gives no limit, and the top that lint's
# check of the asks holds each ask's own tool to
DEFAULT_LIMIT = 3

# the version of the data form; bumped when the tokenizer, the stemmer or the scoring
# changes, so an index shipped by another toolgen is refused rather than misread
DATA_FORMAT = 1
STEMMER = "english"
# scores are sums of rounded impacts: a bound this close to a score is taken as reaching it
_SLACK = 1e-9

_WORD = re.compile(r"[^\W_]+")
# a lowercase letter followed by an uppercase one starts a new word (`readStock`); only
# there, so `IDs`, `SKU` and `PostgreSQL` keep their letters together. The space goes after
# the lowercase letter (`\1 `): the text a zero-width match between the two gives, in a
# third of the time
_CASE_BOUNDARY = re.compile(r"([a-z])(?=[A-Z])")

# English articles, prepositions, conjunctions, forms of "be" and the politeness a request
# is wrapped in. Short on purpose: pronouns and question words stay (idf weighs them), and
# measured on bench/search/, longer lists (the usual 150 words, or request verbs such as
# make, give, show) found fewer tools, not more.
# fmt: off
_STOP_WORDS = frozenset({
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "from", "by", "with", "as", "into",
    "onto", "and", "or", "nor", "but", "is", "are", "was", "were", "be", "been", "being", "am",
    "it", "its", "this", "that", "these", "those", "s", "t", "d", "ll", "m", "re", "ve",
    "please", "pls", "thanks", "thank", "hi", "hello", "hey",
})
# fmt: on


_THREAD = threading.local()


def _stemmer() -> Any:
    """This thread's stemmer. A Snowball stemmer holds state while it stems a word, so no
    two threads share one; imported on the first search or build, not with this module."""
    stemmer = getattr(_THREAD, "stemmer", None)
    if stemmer is None:
        import Stemmer  # type: ignore[import-not-found]  # PyStemmer: Snowball, compiled

        stemmer = _THREAD.stemmer = Stemmer.Stemmer(STEMMER)
    return stemmer


def _words(text: str) -> list[str]:
    """The lowercase words of `text` that are not stop words, unstemmed, in order."""
    spaced = _CASE_BOUNDARY.sub(r"\1 ", unicodedata.normalize("NFKC", text))
    return [
        word for word in _WORD.findall(spaced.casefold()) if word not in _STOP_WORDS
    ]


def terms(text: str) -> list[str]:
    """The search terms of `text`: its words, without stop words, stemmed (repeats kept)."""
    return list(_stemmer().stemWords(_words(text)))


@dataclass(frozen=True, slots=True)
class SearchDocument:
    """The words of one tool that search reads, field by field, as plain data."""

    name: str
    intent: str = ""
    use_when: str = ""
    not_when: tuple[str, ...] = ()  # the `when` texts: when NOT to use this tool
    asks: tuple[str, ...] = ()  # requests in a user's words for which this is the tool
    parameters: tuple[
        tuple[str, str], ...
    ] = ()  # (name, description) of each parameter
    namespace: str = ""  # the namespace's name
    namespace_description: str = ""

    def field_texts(self) -> dict[str, str]:
        """The text of each scored field (the name's words split on `_`, `-` and case)."""
        return {
            "name": self.name,
            "intent": self.intent,
            "use_when": self.use_when,
            "not_when": "\n".join(self.not_when),
            "asks": "\n".join(self.asks),
            "parameters": "\n".join(f"{name} {text}" for name, text in self.parameters),
            "namespace": f"{self.namespace}\n{self.namespace_description}",
        }


# a catalogue's documents change little between two builds (and lint searches the same
# catalogue again with one ask left out): the terms of a document are read once
@lru_cache(maxsize=4_096)
def _field_terms(
    document: SearchDocument, scored: frozenset[str]
) -> dict[str, Counter[str]]:
    """The terms of each `scored` field of `document` (a field weighed 0 is not read)."""
    texts = document.field_texts()
    return {name: Counter(terms(texts[name])) for name in texts if name in scored}


@dataclass(frozen=True, slots=True)
class Tuning:
    """Field weights and the BM25 parameters k1 and b (one b for every field).

    The defaults were chosen on the asks of bench/search/ (bench/search/tune.py, README.md
    there), never on its held-out requests. What the measurements said:
    - other tools' asks bring noise as well as a tool's own asks bring signal: asks weigh 1,
      less than the contract's own texts (3); lighter still found a few more paraphrases
      but lost the asks themselves (at 0.5, 5.7% of the asks missed their tool in the top 3);
    - the namespace's description is shared by every tool of the namespace, so it cannot
      tell them apart and crowds the top of the list with them: weight 0 (0.1 found fewer);
    - not_when weighed anything from -3 to +1 changed no result there (few tools have one);
      it is negative because its words say when the tool is the wrong one. A negative
      weight lowers a term's pseudo-frequency in the tool, never below zero;
    - a high k1 (3): a word found in several fields of a tool keeps adding to its score.
    """

    name: float = 2.0
    intent: float = 3.0
    use_when: float = 3.0
    not_when: float = -0.5
    asks: float = 1.0
    parameters: float = 1.0
    namespace: float = 0.0
    k1: float = 3.0
    b: float = 0.6

    def weights(self) -> dict[str, float]:
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in {"k1", "b"}
        }


@dataclass(frozen=True, slots=True)
class Hit:
    """One tool found: its name and its score (higher is better; only the order matters)."""

    name: str
    score: float


class ToolIndex:
    """The search index of a set of tools: `build` it from documents, or load its data form.

    For each term, the tools it occurs in (their numbers, in name order) and its finished
    contribution to their score, kept in two flat lists: the term's entries run from its
    start to the next term's.
    """

    __slots__ = ("_ids", "_impacts", "_maxima", "_names", "_starts", "_terms")

    def __init__(
        self,
        names: Sequence[str],
        terms: Sequence[str],
        starts: list[int],
        ids: list[int],
        impacts: list[float],
    ):
        # private: use build() or from_data(), which check what they pass
        self._names = tuple(names)
        self._terms = {term: number for number, term in enumerate(terms)}
        self._starts = starts
        self._ids = ids
        self._impacts = impacts
        self._maxima: list[float] | None = None  # each term's highest impact, on demand

    @property
    def names(self) -> tuple[str, ...]:
        """The tools of the index, sorted by name."""
        return self._names

    @classmethod
    def build(
        cls, documents: Iterable[SearchDocument], tuning: Tuning = Tuning()
    ) -> ToolIndex:
        """Index `documents` (names must be distinct); the order they come in does not matter."""
        docs = sorted(documents, key=lambda doc: doc.name)
        names = [doc.name for doc in docs]
        repeated = sorted(name for name, count in Counter(names).items() if count > 1)
        if repeated:
            raise ValueError(
                f"two search documents have the same name: {repeated[0]!r}"
            )
        frequencies = _pseudo_frequencies(docs, tuning)
        terms: list[str] = []
        starts = [0]
        ids: list[int] = []
        impacts: list[float] = []
        for term in sorted(frequencies):
            per_doc = frequencies[term]
            found = len(per_doc)
            idf = math.log(1 + (len(docs) - found + 0.5) / (found + 0.5))
            kept = [number for number in sorted(per_doc) if per_doc[number] > 0]
            if kept:
                terms.append(term)
                ids += kept
                impacts += [
                    round(idf * per_doc[n] / (tuning.k1 + per_doc[n]), 4) for n in kept
                ]
                starts.append(len(ids))
        return cls(names, terms, starts, ids, impacts)

    def search(self, query: str, limit: int = 5) -> list[Hit]:
        """The `limit` best tools for `query`, best first, ties broken by name.

        Cost is bounded whatever the query: only its first `MAX_QUERY_CHARS` characters and
        its first `MAX_QUERY_TERMS` distinct words are read. A query with no known word finds
        nothing (an empty list).
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a string, not {type(query).__name__}")
        if (
            isinstance(limit, bool)
            or not isinstance(limit, int)
            or not 1 <= limit <= MAX_LIMIT
        ):
            raise ValueError(
                f"limit must be an integer from 1 to {MAX_LIMIT}, not {limit!r}"
            )
        scores = [0.0] * len(self._names)
        for term in _query_terms(query):
            at = self._terms.get(term)
            if at is not None:
                start, end = self._starts[at], self._starts[at + 1]
                for number, impact in zip(
                    self._ids[start:end], self._impacts[start:end], strict=True
                ):
                    scores[number] += impact
        # nlargest keeps the order of equal scores: document numbers follow name order, so
        # ties are broken by name; a tool no term of the query scored is not found
        best = heapq.nlargest(limit, range(len(scores)), key=scores.__getitem__)
        return [Hit(self._names[n], round(scores[n], 4)) for n in best if scores[n] > 0]

    def instead_of(self, query: str, name: str, limit: int) -> Hit | None:
        """The first tool `search(query, limit)` finds when the tool `name` is not among
        them; None when it is, or nothing is found. What `search` answers, found without
        scoring every tool: only a tool with a term the lesser terms of the query cannot
        make up for may rank before `name` (MaxScore, Turtle and Flood, 1995)."""
        target = bisect.bisect_left(self._names, name)
        if target == len(self._names) or self._names[target] != name:
            raise ValueError(f"no tool {name!r} in the index")
        found = [
            at for at in map(self._terms.get, _query_terms(query)) if at is not None
        ]
        own = self._score(target, found)
        best = self._best()
        # terms whose best impacts add up to less than the tool's own score cannot put
        # another tool before it on their own: a tool ahead has one of the other terms
        bound, rest = 0.0, []
        for at in sorted(found, key=best.__getitem__):
            bound += best[at]
            if bound >= own - _SLACK:
                rest.append(at)
        candidates = {
            number
            for at in rest
            for number in self._ids[self._starts[at] : self._starts[at + 1]]
        }
        ahead = []
        for number in candidates - {target}:
            score = self._score(number, found)
            if score > own or (score == own > 0 and number < target):
                ahead.append((-score, number))
        if not ahead or (own > 0 and len(ahead) < limit):
            return None
        score, number = min(ahead)
        return Hit(self._names[number], round(-score, 4))

    def _best(self) -> list[float]:
        """Each term's highest impact, found once per index."""
        if self._maxima is None:
            starts, impacts = self._starts, self._impacts
            self._maxima = [max(impacts[a:b]) for a, b in itertools.pairwise(starts)]
        return self._maxima

    def _score(self, number: int, terms: Sequence[int]) -> float:
        """A tool's score for `terms`, summed in their order, as `search` sums it."""
        score = 0.0
        for at in terms:
            start, end = self._starts[at], self._starts[at + 1]
            index = bisect.bisect_left(self._ids, number, start, end)
            if index < end and self._ids[index] == number:
                score += self._impacts[index]
        return score

    def to_data(self) -> dict[str, Any]:
        """The index as JSON-able literals (dicts, lists, strings, numbers), for `from_data`."""
        return {
            "format": DATA_FORMAT,
            "stemmer": STEMMER,
            "names": list(self._names),
            "terms": list(self._terms),
            "starts": list(self._starts),
            "ids": list(self._ids),
            "impacts": list(self._impacts),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ToolIndex:
        """The index `to_data` gave; a ValueError if the data is not one this toolgen writes."""
        if data.get("format") != DATA_FORMAT or data.get("stemmer") != STEMMER:
            raise ValueError(
                f"search index data of format {data.get('format')!r} with stemmer "
                f"{data.get('stemmer')!r}; this toolgen_runtime reads format {DATA_FORMAT} "
                f"with stemmer {STEMMER!r}: build the index again"
            )
        names, terms = data.get("names"), data.get("terms")
        starts, ids, impacts = data.get("starts"), data.get("ids"), data.get("impacts")
        # each check walks its list in C (set, map, min, max): loading stays cheap
        if not (_all_of(names, str) and names == sorted(set(names))):
            raise ValueError(
                "search index data: names must be distinct strings, sorted"
            )
        if not (_all_of(terms, str) and len(set(terms)) == len(terms)):
            raise ValueError("search index data: terms must be distinct strings")
        if not (
            _all_of(starts, int)
            and len(starts) == len(terms) + 1
            and starts[0] == 0
            and all(map(int.__lt__, starts, starts[1:]))
        ):
            raise ValueError("search index data: starts must rise from 0, one per term")
        if not (
            _all_of(ids, int)
            and _all_of(impacts, float)
            and len(ids) == len(impacts) == starts[-1]
            and (not ids or (min(ids) >= 0 and max(ids) < len(names)))
        ):
            raise ValueError(
                "search index data: ids must number the names, one impact each"
            )
        return cls(names, terms, list(starts), list(ids), list(impacts))


def _pseudo_frequencies(
    docs: Sequence[SearchDocument], tuning: Tuning
) -> dict[str, dict[int, float]]:
    """For each term, each document's weighted, length-normalised frequency (BM25F's tf)."""
    weights = {name: w for name, w in tuning.weights().items() if w != 0}
    scored = frozenset(weights)
    counts = [_field_terms(doc, scored) for doc in docs]
    average = {
        name: sum(sum(doc[name].values()) for doc in counts) / max(len(docs), 1)
        for name in weights
    }
    frequencies: dict[str, dict[int, float]] = {}
    for number, doc in enumerate(counts):
        for name, counter in doc.items():
            length = sum(counter.values())
            if not length:
                continue
            norm = weights[name] / (1 - tuning.b + tuning.b * length / average[name])
            for term, count in counter.items():
                per_doc = frequencies.setdefault(term, {})
                per_doc[number] = per_doc.get(number, 0.0) + norm * count
    return frequencies


def _query_terms(query: str) -> list[str]:
    """The first `MAX_QUERY_TERMS` distinct words of the query's first characters, stemmed."""
    distinct: dict[str, None] = {}
    for word in _words(query[:MAX_QUERY_CHARS]):
        distinct[word] = None
        if len(distinct) == MAX_QUERY_TERMS:
            break
    return list(dict.fromkeys(_stemmer().stemWords(distinct)))


def _all_of(value: object, kind: type) -> TypeGuard[list[Any]]:
    return isinstance(value, list) and set(map(type, value)) <= {kind}
