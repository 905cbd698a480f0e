"""What format 1 reserves for a later version: the one list of them.

The format's JSON Schema lists these, so that a spec written for a later version is refused at
its place with TG127 (the model stage) rather than as unknown keys. Nothing offers them to a
user: the format check leaves them out of its "known keys" and "did you mean" (validate.py),
and the golden case of every type does not ask for them (tests/test_golden.py). Making one
real is removing it here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

# parameter types, and the parameter keys that belong to them
# (path and url with their keys, pagination, key-based idempotency, approval and tokens were
# reserved in format 1 and are real now)
PARAM_TYPES: Final[tuple[str, ...]] = ()
PARAM_KEYS: Final[tuple[str, ...]] = ()
# tool keys, with what to write until they land
TOOL_KEYS: Final[Mapping[str, str]] = {}
# every reserved word a suggestion must not offer
WORDS: Final[frozenset[str]] = frozenset((*PARAM_TYPES, *PARAM_KEYS, *TOOL_KEYS))
