"""JSON-RPC 2.0 over a child process's stdio: correlation, ordered dispatch, timeouts, teardown.

Threads, not asyncio: the analyzers are synchronous and each server needs only three loops —
a stdout reader that dispatches messages strictly in arrival order (so publishes are never
reordered), a stdin writer (so a server that stops reading cannot block us), and a stderr
drain (so a chatty server cannot fill its pipe and deadlock). Every request waits with a
timeout; when the stream closes, every pending request fails at once with the stderr tail.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from lsprotocol.types import ErrorCodes

from bot import proc
from bot.errors import FramingError, RequestTimeout, RpcError, ServerGone
from bot.lsp import framing
from bot.lsp.budget import Timeout, remaining

RequestHandler = Callable[[Any], Any]
NotificationHandler = Callable[[str, Any], None]
STDERR_LINES = 200


class Connection:
    """One JSON-RPC peer behind a process started with `bot.proc.spawn`."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        requests: Mapping[str, RequestHandler],
        on_notification: NotificationHandler,
    ) -> None:
        self.process = process
        self._requests = dict(requests)
        self._on_notification = on_notification
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, Future[Any]]] = {}
        self._lock = threading.Lock()
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._closed: str | None = None  # why the stream ended
        self.reader = framing.FrameReader()
        self._threads = [
            threading.Thread(target=self._read_loop, name="lsp-read", daemon=True),
            threading.Thread(target=self._write_loop, name="lsp-write", daemon=True),
            threading.Thread(target=self._stderr_loop, name="lsp-stderr", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # -- API -------------------------------------------------------------------------------

    @property
    def closed(self) -> str | None:
        return self._closed

    def stderr_tail(self, lines: int = 15) -> str:
        return proc.tail("".join(self._stderr), lines)

    def request(self, method: str, params: Any, timeout: Timeout) -> Any:
        """Send a request and wait for its result; raises RpcError/ServerGone/RequestTimeout.
        A `timeout` given as a function is asked again as the wait goes on (a deadline that
        the server's progress moves)."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closed is not None:
                raise ServerGone(self._closed)
            ident = next(self._ids)
            self._pending[ident] = (method, future)
        started = time.monotonic()
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            left = remaining(timeout)
            try:
                # A moving deadline is looked at again every second.
                return future.result(timeout=min(left, 1.0) if callable(timeout) else left)
            except FutureTimeout:
                if callable(timeout) and remaining(timeout) > 0:
                    continue
                with self._lock:
                    self._pending.pop(ident, None)
                self.notify("$/cancelRequest", {"id": ident})
                raise RequestTimeout(method, round(time.monotonic() - started, 1)) from None

    def notify(self, method: str, params: Any) -> None:
        if self._closed is None:
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def kill(self) -> None:
        """Kill the server's whole process group and wait for our threads to see it."""
        proc.kill_group(self.process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self._outbox.put(None)
        for thread in self._threads:
            thread.join(timeout=5)

    # -- loops -----------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        self._outbox.put(framing.encode(message))

    def _write_loop(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        while True:
            data = self._outbox.get()
            if data is None:
                break
            try:
                stdin.write(data)
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                break
        with contextlib.suppress(OSError, ValueError):
            stdin.close()

    def _read_loop(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        why = "the server closed its output"
        try:
            while True:
                # os.read returns what is there (a partial message, or several): no blocking
                # until a buffer fills.
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    break
                for body in self.reader.feed(chunk):
                    self._dispatch(body)
        except (OSError, ValueError) as exc:
            why = f"reading from the server failed: {exc}"
        if self.reader.truncated:
            why += " in the middle of a message"
        self._close(why)

    def _stderr_loop(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for line in iter(stderr.readline, b""):
                self._stderr.append(line.decode("utf-8", errors="replace"))

    def _close(self, why: str) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2)
        code = self.process.poll()
        if code is not None:
            why += f" (exit status {code})"
            # Its last words may still be in the pipe: the drain ends at their end (a
            # grandchild holding the pipe open is waited for a second at most).
            self._threads[2].join(timeout=1.0)
        tail = self.stderr_tail()
        detail = why + (f"; stderr:\n{tail}" if tail else "")
        with self._lock:
            self._closed = detail
            pending, self._pending = self._pending, {}
        for _method, future in pending.values():
            future.set_exception(ServerGone(detail))
        self._outbox.put(None)
        with contextlib.suppress(Exception):
            self._on_notification("$/closed", {"detail": detail})

    # -- dispatch (reader thread, in arrival order) -----------------------------------------

    def _dispatch(self, body: bytes) -> None:
        try:
            message = framing.decode(body)
        except FramingError as exc:
            self._stderr.append(f"[reviewbot] dropped a message: {exc}\n")
            return
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self._answer(message["id"], method, message.get("params"))
            else:
                self._on_notification(method, message.get("params"))
            return
        ident = message.get("id")
        with self._lock:
            entry = self._pending.pop(ident, None) if isinstance(ident, int) else None
        if entry is None:
            return  # an answer to a request we gave up on
        name, future = entry
        error = message.get("error")
        if isinstance(error, dict):
            future.set_exception(RpcError(name, int(error.get("code", 0)),
                                          str(error.get("message", "")), error.get("data")))
        else:
            future.set_result(message.get("result"))

    def _answer(self, ident: Any, method: str, params: Any) -> None:
        handler = self._requests.get(method)
        if handler is None:
            self._send({"jsonrpc": "2.0", "id": ident, "error": {
                "code": int(ErrorCodes.MethodNotFound), "message": f"unhandled: {method}"}})
            return
        try:
            result = handler(params)
        except Exception as exc:  # a handler bug must not kill the reader
            self._send({"jsonrpc": "2.0", "id": ident, "error": {
                "code": int(ErrorCodes.InternalError), "message": str(exc)}})
            return
        self._send({"jsonrpc": "2.0", "id": ident, "result": result})
