"""Duplicate keys in JSON text: a key given twice in one object, at any depth.

JSON parsers keep the last of two equal keys (pydantic's as well), so `{"sku": 7, "sku":
"SKU-11"}` would pass as `{"sku": "SKU-11"}` while the reverse order is refused: what runs
would depend on an order the model did not mean. Argument text with a repeated key is
refused instead, and this module finds the repeats.

Most argument texts are shown free of repeats by counting, without a second parse: every key
of valid JSON is followed by exactly one colon outside strings, so a text whose colons number
no more than the distinct keys of its objects has no key twice. Only when strings hold colons
(times, URLs) or a key is repeated do the slower steps run.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic_core import from_json

__all__ = ["Loc", "count_keys", "duplicate_keys", "may_repeat_keys"]

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


def may_repeat_keys(raw: str, fewest_keys: int) -> bool:
    """False when `raw`, valid JSON, certainly holds no key twice in one object.

    `fewest_keys` is at most the number of distinct keys of its objects (the fields a
    validated model was given is one such number): when the text has no more colons than
    that, every colon is a key's and no key repeats, since a repeat or a colon inside a
    string would add one. True means "look closer", not "repeated".
    """
    colons = raw.count(":")
    if colons <= fewest_keys:
        return False
    try:
        distinct = count_keys(from_json(raw))
    except ValueError:
        return True
    if colons == distinct:
        return False
    # the exact count: colons outside strings are the keys themselves, repeats included
    return _STRING.sub("", raw).count(":") != distinct


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
