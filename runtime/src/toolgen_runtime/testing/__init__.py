"""The suites that run every generated catalogue's tests, and the helpers they use.

A generated test file holds its tool's cases as data, in a subclass of `ToolContract` (and one
of `CatalogueContract` per catalogue); the suites here run them, parametrized by pytest with the
case's label, so a failure names the tool (the class), the case and the field. A fix to a suite
fixes the tests of every catalogue at once. The helpers (a recording fake implementation,
direct invocation) serve hand-written tests as well.

pytest collects the suites through the subclasses; this package does not import pytest (the
plugin that gives a test session its store and secret is `toolgen_runtime.pytest_plugin`).
"""

from toolgen_runtime.testing.catalogue import CatalogueContract
from toolgen_runtime.testing.helpers import (
    MISSING,
    PAGE_KEYS,
    Boundary,
    Call,
    Case,
    ErrorCase,
    Recorder,
    boundaries_for_tests,
    build,
    changed,
    close_services,
    invoke,
    invoke_raw,
    other_identity,
    prepare_module,
    problem_fields,
    schema_keywords,
    services_for,
    with_token,
)
from toolgen_runtime.testing.tools import (
    ApprovalToolContract,
    ConfirmToolContract,
    IdempotentToolContract,
    PrepareToolContract,
    ToolContract,
)

__all__ = [
    "MISSING",
    "PAGE_KEYS",
    "ApprovalToolContract",
    "Boundary",
    "Call",
    "Case",
    "CatalogueContract",
    "ConfirmToolContract",
    "ErrorCase",
    "IdempotentToolContract",
    "PrepareToolContract",
    "Recorder",
    "ToolContract",
    "boundaries_for_tests",
    "build",
    "changed",
    "close_services",
    "invoke",
    "invoke_raw",
    "other_identity",
    "prepare_module",
    "problem_fields",
    "schema_keywords",
    "services_for",
    "with_token",
]
