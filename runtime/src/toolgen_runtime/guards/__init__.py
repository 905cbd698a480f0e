"""Boundary checks on arguments the model writes: paths under a root, URLs on allowed hosts.

Each check is a plain function (`check_path`, `check_url`) and the same check as pydantic
metadata for an argument model (`PathGuard`, `UrlGuard`), which reads what the model must not
choose (the root folder, extra hosts) from the validation context built by
`Boundaries.for_call`. A failure is a `GuardFailure` with its own code (`CODES`), reported in
the invalid-arguments envelope with a how-to-fix; the implementation never runs. See
docs/boundaries.md.
"""

from toolgen_runtime.guards.codes import (
    CODES,
    Code,
    GuardFailure,
    as_pydantic_error,
    problem_details,
)
from toolgen_runtime.guards.paths import (
    CheckedPath,
    PathChanged,
    PathGuard,
    check_path,
)
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
