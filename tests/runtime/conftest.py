"""Fixtures for the store and confirmation tests: a real SQLite file, a real PostgreSQL server.

The PostgreSQL tests need a running server, named by TOOLGEN_TEST_POSTGRES_URL. `make test`
starts one (scripts/postgres-server.sh run); without it they skip with a message that says how
to start one. Each test gets a schema of its own on that server (through the URL's
search_path), dropped after, so tests running side by side never meet.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_server import postgres_server_url, with_search_path
from toolgen_runtime.store import Store, open_store

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A URL whose tables land in a fresh schema of the test server."""
    import psycopg

    server = postgres_server_url()
    schema = f"toolgen_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield with_search_path(server, schema)
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty store on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state' / 'toolgen.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = open_store(store_url)
    try:
        yield opened
    finally:
        opened.close()
