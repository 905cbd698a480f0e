"""The compiled format checks of the two schemas, shipped with toolgen (validate._accepts).

Each module is generated from its schema by `make format-checks` (validate.write_compiled) and
records the digest of the schema text it was made from; `check_of` gives its check only while
that digest is the installed schema's, so a schema edited without regenerating is compiled
where it runs instead, never checked by stale code (tests/test_validate_fast.py holds the
modules current and to jsonschema's answers).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def check_of(kind: str, digest: str) -> Callable[[object], bool] | None:
    """Whether a document passes the schema of `kind`, by its shipped compiled check; None
    when that check was made from another text of the schema than the one of `digest`."""
    try:
        module = importlib.import_module(f"{__name__}.{kind}")
    except ImportError:  # an install without it: the schema is compiled where it runs
        return None
    if getattr(module, "SCHEMA_DIGEST", None) != digest:
        return None
    return accepting(vars(module))


def accepting(module: Mapping[str, Any]) -> Callable[[object], bool]:
    """The pass-or-fail answer of the compiled check in `module` (its names)."""
    check = module["check"]
    refused = module["JsonSchemaValueException"]

    def accepts(data: object) -> bool:
        try:
            check(data)
        except refused:
            return False
        return True

    return accepts
