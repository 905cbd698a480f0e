"""A model API on 127.0.0.1 for the official SDKs to talk to: it keeps each request's body and
answers from a script, with just enough of the OpenAI Responses, Chat Completions, Anthropic
Messages and Gemini generateContent wire formats for each SDK to parse its answers."""

from __future__ import annotations

import http.server
import json
import threading
from collections import deque
from typing import Any

# (the last part of the path a request goes to, the API)
_APIS = (
    ("/responses", "responses"),
    ("/chat/completions", "chat"),
    ("/messages", "anthropic"),
    (":generateContent", "gemini"),
)


class ModelAPI:
    """The server: `push` what the model answers, one body per request of an API, then read
    back what each SDK sent with `bodies`."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, Any]] = []  # (API, path, body)
        self._script: dict[str, deque[Any]] = {}
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                kind = next((k for end, k in _APIS if self.path.endswith(end)), "")
                api.requests.append((kind, self.path, body))
                queue = api._script.get(kind)
                status, answer = (200, queue.popleft()) if queue else (500, {})
                text = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def push(self, kind: str, *answers: Any) -> None:
        self._script.setdefault(kind, deque()).extend(answers)

    def bodies(self, kind: str) -> list[Any]:
        return [body for k, _, body in self.requests if k == kind]

    def __enter__(self) -> ModelAPI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- what the model answers, in each API's shape ----------------------------------------


def responses(*calls: tuple[str, str, str], text: str = "") -> dict[str, Any]:
    """A Responses API response: function calls (call_id, name, arguments text), or a
    message of `text`."""
    output: list[dict[str, Any]] = [
        {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
            "status": "completed",
        }
        for n, (call_id, name, arguments) in enumerate(calls)
    ]
    if text:
        content = [{"type": "output_text", "text": text, "annotations": []}]
        output.append(
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": content,
            }
        )
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "fake",
        "status": "completed",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": output,
    }


def chat(*calls: tuple[str, str, str], text: str | None = None) -> dict[str, Any]:
    """A Chat Completions response: tool calls (id, name, arguments text), or `text`."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": n, "arguments": a}}
            for call_id, n, a in calls
        ]
    choice = {"index": 0, "finish_reason": "tool_calls" if calls else "stop"}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{**choice, "message": message}],
    }


def anthropic(*calls: tuple[str, str, Any], text: str = "") -> dict[str, Any]:
    """An Anthropic Messages response: tool_use blocks (id, name, input), or `text`."""
    content = [
        {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls
    ]
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "fake",
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": content or [{"type": "text", "text": text}],
    }


def gemini(*calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    """A Gemini generateContent response: function calls (`{name, args?}`), or `text`."""
    parts = [{"functionCall": call} for call in calls] or [{"text": text}]
    content = {"role": "model", "parts": parts}
    return {
        "candidates": [{"content": content, "finishReason": "STOP", "index": 0}],
        "modelVersion": "fake",
    }
