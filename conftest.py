"""What the example project's tests run with: the services the write tools of the example
catalogue need at start-up (docs/writes.md), when the environment does not give them.

TOOLGEN_SECRET is a fresh random value per test session, never a fixed one, and
TOOLGEN_STORE_URL a SQLite file in a temporary folder; both are set before any generated
module is imported, since building a write tool resolves them.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

_state = tempfile.mkdtemp(prefix="toolgen-test-store-")
os.environ.setdefault("TOOLGEN_SECRET", secrets.token_urlsafe(48))
os.environ.setdefault("TOOLGEN_STORE_URL", f"sqlite:///{Path(_state) / 'toolgen.db'}")
