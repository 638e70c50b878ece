"""The HTTP side of the fake forges: one loopback handler that hands every request to a fake's
`handle(method, path, headers, body) -> (status, headers, payload)` and answers with JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any


@dataclass
class Fault:
    """Answer the next `times` requests matching `target` with `kind` instead of normally; each
    fake says which targets and kinds it knows (`FAULT_KINDS` in its module)."""

    target: str
    kind: str
    times: int = 1
    hit: int = 0


Handle = Callable[[str, str, dict[str, str], bytes], tuple[int, dict[str, str], Any]]


def json_handler(handle: Handle, content_type: str = "application/json"
                 ) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, payload = handle(self.command, self.path, dict(self.headers), body)
            # bytes are a raw body (a file's content), anything else is JSON
            data = (payload if isinstance(payload, bytes)
                    else json.dumps(payload).encode() if payload is not None else b"")
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout fault)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        def log_message(self, *args: Any) -> None:
            pass

    return Handler
