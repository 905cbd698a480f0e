"""The PostgreSQL server the tests use: named by TOOLGEN_TEST_POSTGRES_URL, or skipped.

`make test` runs the tests inside a throwaway server of their own (scripts/postgres-server.sh
run) and exports the URL; without it the PostgreSQL tests skip with a message that says how to
run them.
"""

from __future__ import annotations

import os
from urllib.parse import quote

import pytest

POSTGRES_URL_ENV = "TOOLGEN_TEST_POSTGRES_URL"
HOW_TO_RUN_POSTGRES = (
    f"{POSTGRES_URL_ENV} is not set, so the PostgreSQL store is not tested here. To run "
    "these tests: make test (which starts a throwaway server), or "
    'eval "$(scripts/postgres-server.sh start)" (installs PostgreSQL from the system\'s '
    "packages if missing, starts a server on 127.0.0.1 and prints the export of "
    f"{POSTGRES_URL_ENV}), then run pytest again"
)


def postgres_server_url() -> str:
    """The test server's URL; skips the calling test when there is none, except in CI,
    where make test starts the server and a missing URL means it is broken."""
    url = os.environ.get(POSTGRES_URL_ENV, "").strip()
    if not url:
        if os.environ.get("CI"):
            pytest.fail(
                f"CI is set but {POSTGRES_URL_ENV} is not: make test must start it"
            )
        pytest.skip(HOW_TO_RUN_POSTGRES)
    return url


def with_search_path(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"
