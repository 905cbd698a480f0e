"""What the boundary checks read that the model cannot choose: roots, hosts, the cursor signer,
the caller's identity.

The checks run inside pydantic validation, as validators of annotated fields. They find their
settings in the validation context: the invoker validates with
`Args.model_validate_json(raw, context=boundaries.for_call(identity))`, where `boundaries` is
built once per process from configuration and `identity` comes from the run context. Nothing
here is ever read from the arguments.

A check that finds no boundaries in the context raises `BoundariesMissing`: a tool deployed
without its root or its signer is an infrastructure failure, and the run stops.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgen_runtime.errors import ToolgenError
from toolgen_runtime.signing import SECRET_ENV, Signer

__all__ = [
    "HOSTS_ENV_PREFIX",
    "ROOT_ENV_PREFIX",
    "VALIDATION_KEY",
    "Boundaries",
    "BoundariesMissing",
    "CallScope",
    "configure_boundaries",
    "configured_boundaries",
    "scope_of",
]

VALIDATION_KEY = "toolgen_runtime.boundaries"
ROOT_ENV_PREFIX = "TOOLGEN_ROOT_"
HOSTS_ENV_PREFIX = "TOOLGEN_HOSTS_"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class BoundariesMissing(ToolgenError):
    """A boundary check ran without the settings it needs (a root, a signer, the context)."""


def _resolve_root(name: str, folder: Path | str) -> Path:
    if not _NAME.match(name):
        raise BoundariesMissing(
            f"root name {name!r}: use lower-case letters, digits and _ (as in the contract)"
        )
    fix = f"set {ROOT_ENV_PREFIX}{name.upper()} (or Boundaries(roots=...)) to a folder"
    try:
        resolved = Path(folder).resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise BoundariesMissing(
            f"root {name!r} ({folder}) cannot be resolved ({reason.lower()}): {fix}"
        ) from exc
    if not resolved.is_dir():
        raise BoundariesMissing(f"root {name!r} ({folder}) is not a folder: {fix}")
    return resolved


@dataclass(frozen=True, slots=True)
class Boundaries:
    """The settings of every guarded tool of a process, configured once at start-up.

    - `roots`: folder per root name; a path guard names its root (`PathGuard("documents")`),
      the deployment says where it is. Resolved here, once: a root that does not exist stops
      the start-up, not a call.
    - `hosts`: extra allowed hosts per list name, for a URL guard with `hosts_from=` (hosts
      that differ between staging and production); the contract's own hosts always apply.
    - `cursor_signer`: signs and verifies pagination cursors (`Signer(..., "cursor")`).
    - `clock`: seconds since the epoch; cursors expire against it.
    """

    roots: Mapping[str, Path] = field(default_factory=dict)
    hosts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    cursor_signer: Signer | None = None
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        resolved = {
            name: _resolve_root(name, path) for name, path in self.roots.items()
        }
        object.__setattr__(self, "roots", resolved)
        object.__setattr__(
            self, "hosts", {name: tuple(hosts) for name, hosts in self.hosts.items()}
        )
        if self.cursor_signer is not None and self.cursor_signer.purpose != "cursor":
            raise BoundariesMissing(
                f"the cursor signer has purpose {self.cursor_signer.purpose!r}; use "
                "Signer.from_environment('cursor'), so no other signed text passes for a cursor"
            )

    @classmethod
    def from_environment(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        cursors: bool = False,
    ) -> Boundaries:
        """Roots from `TOOLGEN_ROOT_<NAME>=/folder`, host lists from
        `TOOLGEN_HOSTS_<NAME>=a.example.com,b.example.com`, and with `cursors=True` the cursor
        signer from `TOOLGEN_SECRET` (see `toolgen_runtime.signing`)."""
        env = os.environ if environ is None else environ
        roots: dict[str, Path] = {}
        hosts: dict[str, tuple[str, ...]] = {}
        for key, value in env.items():
            if key.startswith(ROOT_ENV_PREFIX) and value:
                roots[key[len(ROOT_ENV_PREFIX) :].lower()] = Path(value)
            elif key.startswith(HOSTS_ENV_PREFIX):
                listed = tuple(h.strip() for h in value.split(",") if h.strip())
                hosts[key[len(HOSTS_ENV_PREFIX) :].lower()] = listed
        signer = Signer.from_environment("cursor", env) if cursors else None
        return cls(roots=roots, hosts=hosts, cursor_signer=signer)

    def root(self, name: str) -> Path:
        try:
            return self.roots[name]
        except KeyError:
            raise BoundariesMissing(
                f"no folder is configured for root {name!r}: pass Boundaries(roots="
                f"{{{name!r}: Path(...)}}) or set {ROOT_ENV_PREFIX}{name.upper()}"
            ) from None

    def signer(self) -> Signer:
        if self.cursor_signer is None:
            raise BoundariesMissing(
                f"a paginated tool needs the cursor signer: set {SECRET_ENV} (read at "
                "the first call), or pass Boundaries(cursor_signer="
                "Signer.from_environment('cursor')) or from_environment(cursors=True)"
            )
        return self.cursor_signer

    def for_call(self, identity: object = None) -> dict[str, object]:
        """The pydantic validation context of one call. `identity` is a JSON value that says
        who is calling (such as `{"customer_id": 7}`), from the run context: cursors are bound
        to it."""
        return {VALIDATION_KEY: CallScope(self, identity)}


@dataclass(frozen=True, slots=True)
class CallScope:
    boundaries: Boundaries
    identity: object


def scope_of(context: Any, what: str) -> CallScope:
    """The scope a validator runs in; `what` names the check, for the error."""
    scope = context.get(VALIDATION_KEY) if isinstance(context, Mapping) else None
    if not isinstance(scope, CallScope):
        raise BoundariesMissing(
            f"{what} needs the boundaries in the validation context: validate with "
            "Args.model_validate_json(raw, context=boundaries.for_call(identity))"
        )
    return scope


# --- the process's boundaries, for generated tools ------------------------------------------

_configured: Boundaries | None = None
_configured_lock = threading.Lock()


def configure_boundaries(boundaries: Boundaries | None) -> None:
    """Set the boundaries every generated tool of this process validates with (call it once at
    start-up; None goes back to reading the environment on the next call)."""
    global _configured
    with _configured_lock:
        _configured = boundaries


def configured_boundaries() -> Boundaries:
    """The boundaries of this process: those given to `configure_boundaries`, else read once
    from the environment (`Boundaries.from_environment`), with the cursor signer when
    `TOOLGEN_SECRET` is set. A generated tool asks on its first call, so a deployment that
    configures at start-up is never too late; a guard whose root, hosts or signer is missing
    then raises `BoundariesMissing` and the run stops."""
    global _configured
    found = _configured
    if found is not None:
        return found
    with _configured_lock:
        if _configured is None:
            _configured = Boundaries.from_environment(
                cursors=bool(os.environ.get(SECRET_ENV))
            )
        return _configured
