"""Headless Chromium driven through the DevTools protocol over a pipe (no WebSocket library,
no port): open a page, record every request it makes, read its DOM, take a screenshot.

Chromium is Debian's (`/usr/bin/chromium`, installed by .ci/run); `find_chromium()` returns
None when it is absent, and the tests skip with a message. It runs with a new empty profile and
every background service off, so the requests recorded are the page's own.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    for candidate in (
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class Browser:
    """One Chromium process; `open(url)` loads a page in a new tab."""

    def __init__(self, binary: str, width: int = 1000, height: int = 1400) -> None:
        self.profile = tempfile.mkdtemp(prefix="toolgen-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4
        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=_pipes(to_chrome_r, from_chrome_w),
        )  # fmt: skip
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _send(self, method: str, params: dict[str, Any] | None = None,
              session: str | None = None) -> int:  # fmt: skip
        self._next_id += 1
        message: dict[str, Any] = {
            "id": self._next_id,
            "method": method,
            "params": params or {},
        }
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        found: dict[str, Any] = json.loads(raw)
        return found

    def call(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None, timeout: float = 60) -> dict[str, Any]:  # fmt: skip
        wanted = self._send(method, params, session)
        while True:
            message = self._read(timeout)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(
        self, method: str, session: str, timeout: float = 60
    ) -> dict[str, Any]:
        for index, event in enumerate(self.events):
            if event.get("method") == method and event.get("sessionId") == session:
                return self.events.pop(index)
        while True:
            message = self._read(timeout)
            if message.get("method") == method and message.get("sessionId") == session:
                return message
            self.events.append(message)

    def open(self, url: str) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call(
            "Target.attachToTarget", {"targetId": target, "flatten": True}
        )["sessionId"]
        self.call("Network.enable", session=session)
        self.call("Page.enable", session=session)
        started = time.perf_counter()
        self.call("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired", session)
        seconds = time.perf_counter() - started
        requests = [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
            and e.get("sessionId") == session
        ]
        return Page(self, session, seconds, requests)

    def close(self) -> None:
        try:
            self._send("Browser.close")
            self.process.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)


def _pipes(read_end: int, write_end: int) -> Any:
    def place() -> None:
        os.dup2(read_end, 3)
        os.dup2(write_end, 4)

    return place


class Page:
    def __init__(
        self, browser: Browser, session: str, seconds: float, requests: list[str]
    ):
        self.browser, self.session = browser, session
        self.load_seconds = seconds  # from navigation to the load event
        self.requests = requests  # every URL the page asked for, itself included

    def evaluate(self, expression: str) -> Any:
        result = self.browser.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True},
            session=self.session,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full: bool = True) -> None:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full}
        data = self.browser.call("Page.captureScreenshot", params, session=self.session)
        path.write_bytes(base64.b64decode(data["data"]))

    def emulate(self, width: int, height: int, dark: bool = False) -> None:
        self.browser.call(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": width,
                "height": height,
                "deviceScaleFactor": 1,
                "mobile": width < 600,
            },
            session=self.session,
        )
        self.browser.call(
            "Emulation.setEmulatedMedia",
            {
                "features": [
                    {
                        "name": "prefers-color-scheme",
                        "value": "dark" if dark else "light",
                    }
                ]
            },
            session=self.session,
        )
