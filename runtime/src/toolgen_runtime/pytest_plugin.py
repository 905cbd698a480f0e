"""The pytest plugin of toolgen-runtime: a test session gets a temporary store and a fresh
secret, so the generated tests (and a project's own tests of its tools) run with nothing set
by hand, in a new project, in CI and here alike.

pytest loads it through the `pytest11` entry point of the distribution. When the session
starts, it sets what the environment lacks of

- `TOOLGEN_STORE_URL`: a SQLite file in a new temporary folder;
- `TOOLGEN_SECRET`: 48 random bytes, new for each session, never a fixed value;

and when the session ends it restores the environment and deletes the folder, so nothing is
left in the system's temporary folder. A value the environment sets is kept as it is (a CI
job may test on PostgreSQL). `pytest -p no:toolgen` turns the plugin off.

It imports nothing but the standard library: loading it costs nothing in a project whose
tests never touch a tool.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

__all__ = ["pytest_configure", "pytest_unconfigure"]

# the names are the runtime's (store.config.STORE_URL_ENV, signing.SECRET_ENV), written out
# so that loading the plugin imports no more than the standard library
STORE_URL_ENV = "TOOLGEN_STORE_URL"
SECRET_ENV = "TOOLGEN_SECRET"

_folder: tempfile.TemporaryDirectory[str] | None = None
_set: list[str] = []


def pytest_configure(config: object) -> None:
    """Set the store URL and the secret the environment lacks, for this session."""
    global _folder
    if not os.environ.get(STORE_URL_ENV, "").strip():
        _folder = tempfile.TemporaryDirectory(prefix="toolgen-pytest-")
        os.environ[STORE_URL_ENV] = f"sqlite:///{Path(_folder.name) / 'toolgen.db'}"
        _set.append(STORE_URL_ENV)
    if not os.environ.get(SECRET_ENV):
        os.environ[SECRET_ENV] = secrets.token_urlsafe(48)
        _set.append(SECRET_ENV)


def pytest_unconfigure(config: object) -> None:
    """Put the environment back as it was, and delete the temporary store."""
    global _folder
    while _set:
        os.environ.pop(_set.pop(), None)
    if _folder is not None:
        _folder.cleanup()
        _folder = None
