"""Boundary checks on arguments the model writes: paths under a root, URLs on allowed hosts.

Each check is a plain function (`check_path`, `check_url`) and the same check as pydantic
metadata for an argument model (`PathGuard`, `UrlGuard`), which reads what the model must not
choose (the root folder, extra hosts) from the validation context built by
`Boundaries.for_call`. A failure is a `GuardFailure` with its own code (`CODES`), reported in
the invalid-arguments envelope with a how-to-fix; the implementation never runs. See
docs/boundaries.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Loaded on first use (PEP 562): the compiler reads the pure checks (codes, the text of a
# path, a URL) at build time, and the scope module's exceptions load the Agents SDK.
if TYPE_CHECKING:
    from toolgen_runtime.errors import FileSystemFailed, PathChanged
    from toolgen_runtime.guards.codes import (
        CODES,
        Code,
        GuardFailure,
        as_pydantic_error,
        problem_details,
    )
    from toolgen_runtime.guards.paths import CheckedPath, PathGuard, check_path
    from toolgen_runtime.guards.scope import (
        VALIDATION_KEY,
        Boundaries,
        BoundariesMissing,
        CallScope,
        configure_boundaries,
        configured_boundaries,
        scope_of,
    )
    from toolgen_runtime.guards.urls import CheckedUrl, UrlGuard, UrlPolicy, check_url

__all__ = [
    "CODES",
    "VALIDATION_KEY",
    "Boundaries",
    "BoundariesMissing",
    "CallScope",
    "CheckedPath",
    "CheckedUrl",
    "Code",
    "FileSystemFailed",
    "GuardFailure",
    "PathChanged",
    "PathGuard",
    "UrlGuard",
    "UrlPolicy",
    "as_pydantic_error",
    "check_path",
    "check_url",
    "configure_boundaries",
    "configured_boundaries",
    "problem_details",
    "scope_of",
]

_HOMES = {
    "Boundaries": "toolgen_runtime.guards.scope",
    "BoundariesMissing": "toolgen_runtime.guards.scope",
    "CODES": "toolgen_runtime.guards.codes",
    "CallScope": "toolgen_runtime.guards.scope",
    "CheckedPath": "toolgen_runtime.guards.paths",
    "CheckedUrl": "toolgen_runtime.guards.urls",
    "Code": "toolgen_runtime.guards.codes",
    "FileSystemFailed": "toolgen_runtime.errors",
    "GuardFailure": "toolgen_runtime.guards.codes",
    "PathChanged": "toolgen_runtime.errors",
    "PathGuard": "toolgen_runtime.guards.paths",
    "UrlGuard": "toolgen_runtime.guards.urls",
    "UrlPolicy": "toolgen_runtime.guards.urls",
    "VALIDATION_KEY": "toolgen_runtime.guards.scope",
    "as_pydantic_error": "toolgen_runtime.guards.codes",
    "check_path": "toolgen_runtime.guards.paths",
    "check_url": "toolgen_runtime.guards.urls",
    "configure_boundaries": "toolgen_runtime.guards.scope",
    "configured_boundaries": "toolgen_runtime.guards.scope",
    "problem_details": "toolgen_runtime.guards.codes",
    "scope_of": "toolgen_runtime.guards.scope",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # found once; later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
