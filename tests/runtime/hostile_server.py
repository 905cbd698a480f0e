"""A hostile HTTP server on 127.0.0.1: each connection is answered by a script of raw steps.

The tests of `fetch` set `server.script` and make a request; the server reads the request (up to
the blank line) and plays the script: bytes sent at once or one at a time with a pause between
them, pauses, the same bytes again and again, a close or a reset (RST, by SO_LINGER 0). After
the last step it closes. Nothing here parses HTTP: the server says exactly what the script says.

The other test files import this module by name (pytest puts tests/runtime on sys.path).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Send:
    data: bytes
    every_s: float = 0.0  # above 0: one byte at a time, this long apart


@dataclass(frozen=True, slots=True)
class Repeat:
    data: bytes  # sent again and again until the client goes away
    every_s: float


@dataclass(frozen=True, slots=True)
class Pause:
    seconds: float


@dataclass(frozen=True, slots=True)
class Reset:
    pass


Step = Send | Repeat | Pause | Reset


@dataclass
class HostileServer:
    script: list[Step] = field(default_factory=list)
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.port: int = self._listener.getsockname()[1]
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            worker = threading.Thread(
                target=self._answer, args=(conn, list(self.script)), daemon=True
            )
            self._threads.append(worker)
            worker.start()

    def _read_request(self, conn: socket.socket) -> None:
        conn.settimeout(2.0)
        seen = b""
        while b"\r\n\r\n" not in seen and len(seen) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                break
            seen += chunk
        self.requests.append(seen)

    def _wait(self, seconds: float) -> bool:
        """Sleep; False when the server is stopping."""
        return not self._stop.wait(seconds)

    def _answer(self, conn: socket.socket, script: list[Step]) -> None:
        with contextlib.suppress(OSError), conn:
            self._read_request(conn)
            for step in script:
                if isinstance(step, Reset):
                    conn.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    return
                if isinstance(step, Pause) and not self._wait(step.seconds):
                    return
                if isinstance(step, Send):
                    if not step.every_s:
                        conn.sendall(step.data)
                        continue
                    for index in range(len(step.data)):
                        conn.sendall(step.data[index : index + 1])
                        if not self._wait(step.every_s):
                            return
                if isinstance(step, Repeat):
                    while self._wait(step.every_s):
                        conn.sendall(step.data)  # raises once the client has gone

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        self._accepting.join(timeout=5)
        for worker in self._threads:
            worker.join(timeout=5)


@contextlib.contextmanager
def hostile_server() -> Iterator[HostileServer]:
    server = HostileServer()
    try:
        yield server
    finally:
        server.close()
