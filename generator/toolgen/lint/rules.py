"""Importing this module registers every rule, one module per family."""

from __future__ import annotations

from toolgen.lint import (  # noqa: F401  (imported for their registrations)
    boundaries,
    catalogue,
    config,
    descriptions,
    effects,
    identity,
    names,
    neighbours,
    parameters,
    returns,
    security,
    strict_limits,
    toolsets,
    two_tool,
)
