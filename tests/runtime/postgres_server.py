"""The PostgreSQL server the tests use: named by TOOLGEN_TEST_POSTGRES_URL, or skipped.

CI starts a throwaway server in .ci/run (scripts/postgres-server.sh) and exports the URL;
without it the PostgreSQL tests skip with a message that says how to run them.
"""

from __future__ import annotations

import os
from urllib.parse import quote

import pytest

POSTGRES_URL_ENV = "TOOLGEN_TEST_POSTGRES_URL"
HOW_TO_RUN_POSTGRES = (
    f"{POSTGRES_URL_ENV} is not set, so the PostgreSQL store is not tested here. To run "
    'these tests: eval "$(scripts/postgres-server.sh start)" (installs PostgreSQL from '
    "the system's packages if missing, starts a throwaway server on 127.0.0.1 and prints "
    f"the export of {POSTGRES_URL_ENV}), then run pytest again; .ci/run does this."
)


def postgres_server_url() -> str:
    """The test server's URL; skips the calling test when there is none, except in CI,
    where .ci/run starts the server and a missing URL means it is broken."""
    url = os.environ.get(POSTGRES_URL_ENV, "").strip()
    if not url:
        if os.environ.get("CI"):
            pytest.fail(
                f"CI is set but {POSTGRES_URL_ENV} is not: .ci/run must start it"
            )
        pytest.skip(HOW_TO_RUN_POSTGRES)
    return url


def with_search_path(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"
