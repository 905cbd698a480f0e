"""Which store a process uses: a URL, given explicitly or by `TOOLGEN_STORE_URL`.

- `sqlite:///relative/path.db` or `sqlite:////absolute/path.db` (three slashes, then the path,
  as SQLAlchemy writes it); `?timeout=SECONDS` sets how long a write waits for another
  process's (default 10);
- `postgresql://user:password@host:port/database?connect_timeout=5` (any libpq URL; needs the
  `postgres` extra).

There is no default URL: two workers started in different folders would each get their own
file and each execute the same operation, so a missing URL is an error at start-up, as a
missing signing secret is.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

from toolgen_runtime.store.base import Store, StoreNotConfigured
from toolgen_runtime.store.sqlite import SQLiteStore

__all__ = ["STORE_URL_ENV", "default_store", "open_store", "store_from_environment"]

STORE_URL_ENV = "TOOLGEN_STORE_URL"

_SQLITE_PREFIX = "sqlite:///"
_EXAMPLES = (
    "sqlite:////var/lib/my-agent/toolgen.db for one machine, or "
    "postgresql://user:password@db-host:5432/agents for several"
)


def open_store(url: str) -> Store:
    """A store for `url` (see the module docstring). Nothing is opened until first use."""
    scheme = url.partition(":")[0].lower()
    if scheme == "sqlite":
        return _open_sqlite(url)
    if scheme in ("postgresql", "postgres"):
        # imported here: psycopg is an optional extra, needed only by this backend
        from toolgen_runtime.store.postgres import PostgresStore

        return PostgresStore(url)
    raise StoreNotConfigured(
        f"{scheme or url!r} is not a store this runtime knows: use {_EXAMPLES}"
    )


def _open_sqlite(url: str) -> Store:
    if not url.startswith(_SQLITE_PREFIX):
        raise StoreNotConfigured(
            f"{url!r}: a SQLite store URL is sqlite:/// followed by the file's path, "
            "as sqlite:///state/toolgen.db (relative) or sqlite:////var/lib/toolgen.db"
        )
    parts = urlsplit("file:///" + url[len(_SQLITE_PREFIX) :])
    path = unquote(parts.path[1:])
    if not path or path.endswith("/"):
        raise StoreNotConfigured(f"{url!r} names no file")
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    timeout = options.pop("timeout", None)
    if options:
        raise StoreNotConfigured(
            f"{url!r}: unknown option(s) {', '.join(sorted(options))}; "
            "a SQLite store URL takes only ?timeout=SECONDS"
        )
    if timeout is None:
        return SQLiteStore(path)
    try:
        seconds = float(timeout)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise StoreNotConfigured(f"{url!r}: timeout must be a number of seconds")
    return SQLiteStore(path, busy_timeout_s=seconds)


def store_from_environment(environ: Mapping[str, str] | None = None) -> Store:
    """The store named by TOOLGEN_STORE_URL; a clear error when it is not set."""
    env = os.environ if environ is None else environ
    url = env.get(STORE_URL_ENV, "").strip()
    if not url:
        raise StoreNotConfigured(
            f"{STORE_URL_ENV} is not set: tools that are idempotent by key or confirmed by "
            "token record what they did in a store that every worker of the agent shares. "
            f"Set it to {_EXAMPLES}."
        )
    return open_store(url)


_shared: dict[str, Store] = {}
_shared_lock = threading.Lock()


def default_store() -> Store:
    """The process's store for the current TOOLGEN_STORE_URL, opened once and shared by
    every tool (a store is safe to share between threads), and closed when the process
    exits (a connection left open to the end is a ResourceWarning on Python 3.13)."""
    url = os.environ.get(STORE_URL_ENV, "").strip()
    with _shared_lock:
        store = _shared.get(url)
        if store is None:
            store = _shared[url] = store_from_environment()
            atexit.register(store.close)
        return store
