"""Duplicate keys in JSON text: a key given twice in one object, at any depth.

JSON parsers keep the last of two equal keys (pydantic's as well), so `{"sku": 7, "sku":
"SKU-11"}` would pass as `{"sku": "SKU-11"}` while the reverse order is refused: what runs
would depend on an order the model did not mean. Argument text with a repeated key is
refused instead, and this module finds the repeats.

Most argument texts are shown free of repeats by counting, without a second parse: every key
of valid JSON is followed by exactly one colon outside strings, so a text with no more colons
(outside its strings, when strings hold some: times, URLs) than the fields its validated model
was given has no key twice. Only nested objects, or a repeat, need the distinct keys counted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic_core import from_json

__all__ = ["Loc", "count_keys", "duplicate_keys", "key_count", "may_repeat_keys"]

Loc = tuple[int | str, ...]

# One JSON string, escapes included. Scanning valid JSON from its start, every quote outside a
# string opens one, so the matches are exactly the strings of the text.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def count_keys(value: object) -> int:
    """How many keys the objects of a parsed JSON value hold, nested ones included."""
    count = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            count += len(node)
            stack.extend(v for v in node.values() if type(v) in (dict, list))
        elif type(node) is list:
            stack.extend(v for v in node if type(v) in (dict, list))
    return count


def key_count(raw: str) -> int:
    """How many keys valid JSON text gives, repeats included: its colons outside strings."""
    if "\\" not in raw:
        # no escapes, so every quote opens or closes a string: the even pieces are outside
        return "".join(raw.split('"')[::2]).count(":")
    return _STRING.sub("", raw).count(":")


def may_repeat_keys(raw: str, fewest_keys: int) -> bool:
    """Whether `raw`, valid JSON, gives a key twice in one object.

    `fewest_keys` is at most the number of distinct keys of its objects (the fields a
    validated model was given is one such number); any such number makes the answer come
    sooner. Every key brings one colon, so a text with no more colons than that, or no more
    colons outside its strings, repeats no key; only when it has more are its distinct keys
    counted, which takes a second parse.
    """
    if raw.count(":") <= fewest_keys:
        return False
    keys = key_count(raw)
    if keys <= fewest_keys:
        return False
    try:
        distinct = count_keys(from_json(raw))
    except (
        ValueError,
        TypeError,
    ):  # TypeError: a lone surrogate, which UTF-8 cannot hold
        return True
    return keys != distinct


def duplicate_keys(raw: str) -> list[Loc]:
    """Where `raw` gives a key more than once in the same object, in document order.

    Each place is the path of the object followed by the repeated key. A repeat inside a
    value that a later repeat replaced is not listed (its outer key is). Text that is not
    JSON has no duplicates to report.
    """
    repeated: dict[int, tuple[dict[str, Any], list[str]]] = {}

    def keep_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            twice: list[str] = []
            for key, _ in pairs:
                if key in seen and key not in twice:
                    twice.append(key)
                seen.add(key)
            # the object is kept alive here, so its id cannot be reused by another
            repeated[id(obj)] = (obj, twice)
        return obj

    try:
        root = json.loads(raw, object_pairs_hook=keep_repeats)
    except (ValueError, RecursionError):
        return []
    if not repeated:
        return []
    found: list[Loc] = []
    stack: list[tuple[Loc, object]] = [((), root)]
    while stack:
        path, node = stack.pop()
        children: list[tuple[Loc, object]] = []
        if type(node) is dict:
            entry = repeated.get(id(node))
            if entry is not None and entry[0] is node:
                found.extend((*path, key) for key in entry[1])
            children = [((*path, k), v) for k, v in node.items()]
        elif type(node) is list:
            children = [((*path, i), v) for i, v in enumerate(node)]
        stack.extend(
            child for child in reversed(children) if type(child[1]) in (dict, list)
        )
    return found
