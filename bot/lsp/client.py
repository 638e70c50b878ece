"""A headless LSP client: one deliberate capability set, answers to every server request,
a record of what the server published, and a shutdown that always leaves no process behind.

Incoming messages stay plain dicts (an unknown enum value in a diagnostic must never drop it);
`lsprotocol` supplies the method names and enum values.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types as T

from bot import proc
from bot.errors import RequestTimeout, RpcError, ServerGone
from bot.lsp.budget import Timeout, remaining
from bot.lsp.rpc import Connection

RETRYABLE = {int(T.LSPErrorCodes.ServerCancelled), int(T.LSPErrorCodes.ContentModified)}
LOG_LINES = 200


@dataclass
class ServerState:
    """What the server told us so far; guarded by the client's condition."""

    diagnostics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # uri -> latest
    publishes: dict[str, int] = field(default_factory=dict)  # uri -> how many publishes
    largest: int = 0  # the most diagnostics one publish carried (flood detection)
    last_publish: float = 0.0  # monotonic time of the latest publish
    progress: dict[str, str] = field(default_factory=dict)  # active token -> title
    finished: list[tuple[str, str]] = field(default_factory=list)  # (token, title) ended
    begun: list[str] = field(default_factory=list)  # every token that began, in order
    quiescent: bool = False  # rust-analyzer's experimental/serverStatus
    health: str = "ok"  # its "ok" | "warning" | "error"
    status_message: str = ""
    # The latest sign that the server is working (monotonic; 0: none yet): a progress
    # notification or token, a status change. It moves the session's deadline (bot.lsp.budget).
    activity: float = 0.0
    registrations: dict[str, str] = field(default_factory=dict)  # registration id -> method
    logs: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    other: dict[str, dict[str, Any]] = field(default_factory=dict)  # last params by method
    closed: str | None = None


def capabilities(pull: bool) -> dict[str, Any]:
    """What we implement; `pull` adds pull diagnostics (it changes how some servers behave)."""
    text_document: dict[str, Any] = {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"relatedInformation": False, "versionSupport": True,
                               "codeDescriptionSupport": True, "tagSupport": {"valueSet": [1, 2]}},
    }
    if pull:
        text_document["diagnostic"] = {"dynamicRegistration": True, "relatedDocumentSupport": False}
    return {
        "general": {"positionEncodings": [str(T.PositionEncodingKind.Utf16)]},
        "textDocument": text_document,
        # applyEdit false: a review only reads; edits a server asks for are refused below.
        "workspace": {"applyEdit": False, "configuration": True, "workspaceFolders": True,
                      "didChangeConfiguration": {"dynamicRegistration": True},
                      "diagnostics": {"refreshSupport": True}},
        "window": {"workDoneProgress": True, "showMessage": {}},
        "experimental": {"serverStatusNotification": True},
    }


def lookup(settings: Mapping[str, Any], section: str | None) -> Any:
    """`workspace/configuration` semantics: a dotted section of our settings, else null."""
    if not section:
        return dict(settings)
    node: Any = settings
    for part in section.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


class LspClient:
    """One running server. Build with `LspClient.start`, always end with `close()`."""

    def __init__(self, argv: Sequence[str], root: Path, root_uri: str,
                 settings: Mapping[str, Any], env: Mapping[str, str] | None = None) -> None:
        self.root_uri = root_uri
        self.settings = settings
        self.state = ServerState()
        self.cond = threading.Condition()
        self.server_info: dict[str, Any] = {}
        self.server_capabilities: dict[str, Any] = {}
        process = proc.spawn(argv, cwd=root, env=env)
        self.pgid = process.pid  # spawn starts a new session: the leader's pid is the group id
        self.conn = Connection(process, self._request_handlers(), self._on_notification)

    # -- lifecycle -------------------------------------------------------------------------

    def initialize(self, timeout: float, pull: bool,
                   init_options: Mapping[str, Any] | None = None) -> None:
        folder = {"uri": self.root_uri, "name": "workspace"}
        result = self.conn.request(T.INITIALIZE, {
            "processId": os.getpid(),
            "clientInfo": {"name": "reviewbot"},
            "rootUri": self.root_uri,
            "workspaceFolders": [folder],
            "capabilities": capabilities(pull),
            "initializationOptions": dict(init_options or {}),
        }, timeout)
        if isinstance(result, dict):
            self.server_info = dict(result.get("serverInfo") or {})
            self.server_capabilities = dict(result.get("capabilities") or {})
        self.conn.notify(T.INITIALIZED, {})
        # Servers that never ask for configuration (pyright without the capability path) read
        # this instead; the others ignore it.
        self.conn.notify(T.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": dict(self.settings)})

    def close(self, timeout: float = 5.0) -> None:
        """shutdown → exit → wait; then kill the process group whatever happened."""
        try:
            if self.conn.closed is None:
                self.conn.request(T.SHUTDOWN, None, timeout)
                self.conn.notify(T.EXIT, None)
                self.conn.process.wait(timeout=timeout)
        except Exception:  # a server that cannot shut down is killed below
            pass
        self.conn.kill()

    # -- documents -------------------------------------------------------------------------

    def open(self, uri: str, language_id: str, text: str) -> None:
        self.conn.notify(T.TEXT_DOCUMENT_DID_OPEN, {"textDocument": {
            "uri": uri, "languageId": language_id, "version": 1, "text": text}})

    def change(self, uri: str, version: int, text: str) -> None:
        """The document's whole new text (full sync: every server takes it)."""
        self.conn.notify(T.TEXT_DOCUMENT_DID_CHANGE, {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})

    def save(self, uri: str) -> None:
        self.conn.notify(T.TEXT_DOCUMENT_DID_SAVE, {"textDocument": {"uri": uri}})

    def pull(self, uri: str, timeout: Timeout, attempts: int = 5) -> list[dict[str, Any]]:
        """Pull diagnostics for one open document, retrying what the spec says to retry."""
        if not callable(timeout):
            deadline = time.monotonic() + timeout
            timeout = lambda: deadline - time.monotonic()  # noqa: E731
        for attempt in range(attempts):
            try:
                report = self.conn.request(T.TEXT_DOCUMENT_DIAGNOSTIC, {
                    "textDocument": {"uri": uri}}, timeout)
            except RpcError as exc:
                if exc.code in RETRYABLE and attempt + 1 < attempts:
                    continue
                raise
            items = report.get("items") if isinstance(report, dict) else None
            return [d for d in items or [] if isinstance(d, dict)]
        return []

    def execute(self, command: str, arguments: list[Any], timeout: Timeout) -> Any:
        return self.conn.request(T.WORKSPACE_EXECUTE_COMMAND,
                                 {"command": command, "arguments": arguments}, timeout)

    def wait(self, predicate: Callable[[ServerState], bool], timeout: Timeout) -> bool:
        """Block until `predicate(state)` holds (True) or the time is up / the server died.
        A `timeout` given as a function is asked again at each message (a moving deadline)."""
        deadline = None if callable(timeout) else time.monotonic() + timeout
        with self.cond:
            while not predicate(self.state):
                if self.state.closed is not None:
                    raise ServerGone(self.state.closed)
                left = remaining(timeout) if deadline is None else deadline - time.monotonic()
                if left <= 0:
                    return False
                # A moving deadline may also move closer (a stopped session): looked at again.
                self.cond.wait(left if deadline is not None else min(left, 1.0))
            return True

    # -- server → client -------------------------------------------------------------------

    def _request_handlers(self) -> dict[str, Callable[[Any], Any]]:
        def configuration(params: Any) -> list[Any]:
            items = params.get("items", []) if isinstance(params, dict) else []
            return [lookup(self.settings, item.get("section")) for item in items]

        def register(params: Any) -> None:
            with self.cond:
                for reg in (params or {}).get("registrations", []):
                    self.state.registrations[str(reg.get("id"))] = str(reg.get("method"))
                self.cond.notify_all()

        def unregister(params: Any) -> None:
            with self.cond:
                for reg in (params or {}).get("unregisterations", []):
                    self.state.registrations.pop(str(reg.get("id")), None)

        def null(_params: Any) -> None:
            return None

        def progress_token(_params: Any) -> None:
            with self.cond:
                self.state.activity = time.monotonic()
                self.cond.notify_all()

        def refuse_edit(_params: Any) -> dict[str, Any]:
            # gopls may ask to fix a go.mod, a server to apply a code action: never on disk.
            return {"applied": False, "failureReason": "reviewbot never edits the files it reviews"}

        return {
            T.WORKSPACE_CONFIGURATION: configuration,
            T.CLIENT_REGISTER_CAPABILITY: register,
            T.CLIENT_UNREGISTER_CAPABILITY: unregister,
            T.WORKSPACE_APPLY_EDIT: refuse_edit,
            T.WINDOW_WORK_DONE_PROGRESS_CREATE: progress_token,
            T.WORKSPACE_DIAGNOSTIC_REFRESH: null,
            T.WORKSPACE_SEMANTIC_TOKENS_REFRESH: null,
            T.WORKSPACE_INLAY_HINT_REFRESH: null,
            T.WORKSPACE_CODE_LENS_REFRESH: null,
            T.WINDOW_SHOW_MESSAGE_REQUEST: null,
            T.WORKSPACE_WORKSPACE_FOLDERS: lambda _p: [{"uri": self.root_uri, "name": "workspace"}],
        }

    def _on_notification(self, method: str, params: Any) -> None:
        with self.cond:
            self._record(method, params if isinstance(params, dict) else {})
            self.cond.notify_all()

    def _record(self, method: str, params: dict[str, Any]) -> None:
        state = self.state
        if method == T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            uri = str(params.get("uri", ""))
            items = [d for d in params.get("diagnostics") or [] if isinstance(d, dict)]
            state.diagnostics[uri] = items
            state.publishes[uri] = state.publishes.get(uri, 0) + 1
            state.largest = max(state.largest, len(items))
            state.last_publish = time.monotonic()
        elif method == T.PROGRESS:
            state.activity = time.monotonic()
            token, value = str(params.get("token")), params.get("value") or {}
            kind = value.get("kind") if isinstance(value, dict) else None
            if kind == "begin":
                state.progress[token] = str(value.get("title", ""))
                state.begun.append(token)
            elif kind == "end":
                state.finished.append((token, state.progress.pop(token, "")))
        elif method in (T.WINDOW_LOG_MESSAGE, T.WINDOW_SHOW_MESSAGE):
            state.logs.append(str(params.get("message", "")))
        elif method == "experimental/serverStatus":
            state.activity = time.monotonic()
            state.quiescent = bool(params.get("quiescent"))
            state.health = str(params.get("health") or "ok")
            state.status_message = str(params.get("message") or "")
        elif method == "$/closed":
            state.closed = str(params.get("detail", "the server exited"))
        else:
            state.other[method] = params


__all__ = ["LspClient", "RequestTimeout", "RpcError", "ServerGone", "ServerState", "capabilities"]
