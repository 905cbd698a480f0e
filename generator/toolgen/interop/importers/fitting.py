"""Whether a value fits a scalar parameter the importer converted (its `ParamDoc`): its type,
enum, bounds, lengths and pattern. The importer keeps a source's default or example only when
it fits, so the contract it writes never contradicts itself (it keeps neither on an array or
an object)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import cast

from toolgen.spec.model.reading import fits_type, is_number


def satisfies(doc: Mapping[str, object], value: object) -> bool:
    """Whether a value passes the scalar constraints of a converted parameter."""
    kind = str(doc["type"])
    if not fits_type(kind, value):
        return False
    enum = doc.get("enum")
    if isinstance(enum, list) and value not in enum:
        return False
    if is_number(value):
        number = cast(float, value)
        low, high = doc.get("min"), doc.get("max")
        if is_number(low) and number < cast(float, low):
            return False
        if is_number(high) and number > cast(float, high):
            return False
    if isinstance(value, str):
        shortest, longest = doc.get("min_length"), doc.get("max_length")
        if isinstance(shortest, int) and len(value) < shortest:
            return False
        if isinstance(longest, int) and len(value) > longest:
            return False
        pattern = doc.get("pattern")
        if isinstance(pattern, str):
            try:
                if re.search(pattern, value) is None:
                    return False
            except re.error:
                return False
    return True
