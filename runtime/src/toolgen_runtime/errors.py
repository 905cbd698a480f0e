"""What can go wrong in a tool call, as types.

`ToolError` is the one the implementation raises on purpose: a declared data error that reaches
the model as its envelope. Every `ToolgenError` is an infrastructure failure: it subclasses the
SDK's `AgentsException`, which `Runner.run` lets out unwrapped, so the run stops and the failure
is seen instead of being turned into text for the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.exceptions import AgentsException

__all__ = [
    "ContractViolation",
    "DeclaredError",
    "FileSystemFailed",
    "MissingContext",
    "NotImplementedYet",
    "PathChanged",
    "ToolError",
    "ToolgenError",
    "UndeclaredError",
]


class ToolError(Exception):
    """A declared data error: the implementation raises it, the model receives its envelope.

    Generated modules subclass it per tool with the declared codes as a `Literal`, so a typo in
    a code is a type error (`raise ReadStockError("unknown_sku", known_skus=[...])`).
    """

    def __init__(self, code: str, **details: object) -> None:
        super().__init__(code)
        self.code = code
        self.details = details


class ToolgenError(AgentsException):
    """An infrastructure failure: the run must stop (AgentsException is never wrapped)."""


class NotImplementedYet(ToolgenError):
    """The implementation is still the stub toolgen created."""

    def __init__(self, tool: str, file: str) -> None:
        super().__init__(
            f"{tool} is not implemented yet: write its business logic in {file} "
            "(toolgen created the stub and will never overwrite it)"
        )


class UndeclaredError(ToolgenError):
    """The implementation reported an error code its contract does not declare."""


class ContractViolation(ToolgenError):
    """The implementation returned something other than its declared result."""


class MissingContext(ToolgenError):
    """The run context is not the catalogue's context object."""


class PathChanged(ToolgenError):
    """The file changed between the check and the open, or during the check (a link or
    another file took its place): someone is racing the check, and the run stops."""


class FileSystemFailed(ToolgenError):
    """The file system failed while a path was checked (an I/O error, a stale network
    mount): not a problem of the path the model sent, so the run stops and it is seen."""


@dataclass(frozen=True, slots=True)
class DeclaredError:
    """What the spec says about one error code."""

    how_to_fix: str
    retryable: bool = False
