"""The fixtures the example catalogue's implementations are tested with: the generated tests
run each accepted example through impl/inventory (`tests:` in spec/inventory/catalogue.yaml,
docs/spec.md#generated-tests), and these give them their data, as a project's own conftest.py
gives its tools theirs.

The store and the secret of the write tools come from toolgen-runtime's pytest plugin, as in
every project: nothing is set by hand.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from impl.inventory import read_supplier_notice
from impl.inventory.db import Database, close_database, use_database


@pytest.fixture
def inventory_db() -> Iterator[Database]:
    """A new inventory database for one test: in memory, created and seeded on first use."""
    yield use_database(":memory:")
    close_database()


class _Notices(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"kind": "delay", "effective_on": "2026-12-09", "delay_days": 7}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def supplier_portal() -> Iterator[str]:
    """The supplier portal, stood in for by a server on loopback that answers every page
    with one notice: read_supplier_notice reaches it through its gateway route, so no test
    leaves the machine."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Notices)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    read_supplier_notice.route_through(
        read_supplier_notice.Gateway(
            origin, allow_networks=("127.0.0.0/8",), timeout_s=5
        )
    )
    yield origin
    read_supplier_notice.route_through(None)
    server.shutdown()
    server.server_close()
