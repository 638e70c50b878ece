"""One server over one revision's files: start, open, wait for its completion signal, stop.

Raises `SessionError` (status `failed` or `timeout`) when the server dies, never answers or
floods; the process group is killed on every path out.
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot import positions
from bot.errors import MissingBinary, RequestTimeout, RpcError, ServerGone, SessionError
from bot.lsp import servers
from bot.lsp.budget import Budget
from bot.lsp.client import LspClient, ServerState
from bot.lsp.diagnostics import from_tsserver
from bot.lsp.servers import Launch, ServerSpec

MAX_PER_FILE = 2000  # more diagnostics than this for one file is a flood, not a review
FLYCHECK = "rust-analyzer/flycheck"
FLYCHECK_ROUNDS = 3  # checks requested at most (each after the workspace is loaded again)


@dataclass
class SessionResult:
    diagnostics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # rel -> LSP
    texts: dict[str, str] = field(default_factory=dict)  # rel -> the text the server saw
    failed: dict[str, str] = field(default_factory=dict)  # rel -> why it has no result
    version: str | None = None


def read_text(path: Path) -> str:
    # newline="" semantics: keep CRLF so positions match what the server was sent.
    return path.read_bytes().decode("utf-8", errors="replace")


class _Clock:
    """The session's time left: the budget's deadline, moved by the server's progress."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.state: ServerState | None = None  # the running server's, once started

    def left(self, cap: float | None = None) -> float:
        activity = self.state.activity if self.state is not None else 0.0
        remaining = self.budget.deadline(activity) - time.monotonic()
        return max(0.0, remaining if cap is None else min(cap, remaining))

    def why(self) -> str:
        """What the time ran out on, said after a timeout."""
        state = self.state or ServerState()
        working = ", ".join(sorted(set(state.progress.values()))) or None
        return self.budget.why(time.monotonic(), state.activity, working)


def run(launch: Launch, checkout: Path, project: Path, files: Sequence[str],
        budget: Budget) -> SessionResult:
    """Diagnostics for `files` (relative to `checkout`) from a server rooted at `project`.

    The server gets a temporary folder of its own, removed once its process group is gone:
    servers leave things in theirs (typescript-language-server a folder per start for
    tsserver's cancellation pipes) and never clean up.
    """
    return _phases(launch, checkout, project, files, (), [{}], budget)[0]


def run_pair(launch: Launch, checkout: Path, project: Path, files: Sequence[str],
             base_texts: Mapping[str, str], budget: Budget, hidden: Sequence[str] = (),
             base_wanted: Callable[[SessionResult], bool] = lambda head: True
             ) -> tuple[SessionResult | None, SessionResult]:
    """The base's and the head's diagnostics from one server on the head's checkout: `files`
    and `hidden` opened with the head's text (as on disk), `files` diagnosed, then, when
    `base_wanted(head's result)`, all changed to the base's text (`base_texts`; the others as
    on disk) and `files` diagnosed again; else no base result (None). `hidden` files are open
    for their text only (changed files another tool checked). Sound only where the revisions
    differ in nothing but the text of open files (see LspAnalyzer.collect_pair)."""
    results = _phases(launch, checkout, project, files, hidden, [{}, base_texts], budget,
                      lambda done: base_wanted(done[0]))
    return (results[1] if len(results) > 1 else None), results[0]


def _phases(launch: Launch, checkout: Path, project: Path, files: Sequence[str],
            hidden: Sequence[str], overlays: Sequence[Mapping[str, str]], budget: Budget,
            go_on: Callable[[list[SessionResult]], bool] = lambda done: True
            ) -> list[SessionResult]:
    missing = [p for p in _above(project, checkout, launch.spec.created_files) if not p.exists()]
    with tempfile.TemporaryDirectory(prefix="reviewbot-lsp-", ignore_cleanup_errors=True) as tmp:
        launch = servers.with_scratch(launch, Path(tmp))
        env = {**launch.env, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp}
        try:
            return _run(launch, env, checkout, project, files, hidden, overlays, budget, go_on)
        except SessionError as exc:
            # The checkout is a temporary worktree: name files as the repository does.
            raise SessionError(exc.status, relative(exc.message, checkout)) from exc
        finally:
            for path in missing:  # the server is gone: nothing writes them any more
                path.unlink(missing_ok=True)


def _above(project: Path, checkout: Path, names: Sequence[str]) -> list[Path]:
    """`names` in `project` and every folder above it up to the checkout's root."""
    if not names:
        return []
    top = checkout.resolve()
    folders = [project]
    while folders[-1].resolve() != top and folders[-1] != folders[-1].parent:
        folders.append(folders[-1].parent)
    return [folder / name for folder in folders for name in names]


def _run(launch: Launch, env: dict[str, str], checkout: Path, project: Path,
         files: Sequence[str], hidden: Sequence[str], overlays: Sequence[Mapping[str, str]],
         budget: Budget, go_on: Callable[[list[SessionResult]], bool]) -> list[SessionResult]:
    """One result per overlay (file texts over the disk's): the first opens the files, each
    next one changes those whose text differs, then the completion signal is awaited again;
    before each next one, `go_on(the results so far)` may end the session there."""
    spec = launch.spec
    clock = _Clock(budget)
    try:
        client = LspClient(launch.argv, project, positions.path_to_uri(project),
                           launch.settings, env=env)
    except MissingBinary as exc:
        raise SessionError("failed", str(exc)) from exc
    clock.state = client.state
    try:
        client.initialize(clock.left(spec.start_timeout), spec.pull, launch.init_options)
        version = _version(client)
        opened = [*files, *(rel for rel in hidden if rel not in files)]
        disk = {rel: read_text(checkout / rel) for rel in opened}
        every = {rel: positions.path_to_uri(checkout / rel) for rel in opened}
        uris = {rel: every[rel] for rel in files}  # the ones diagnosed
        texts: dict[str, str] = {}
        results: list[SessionResult] = []
        for number, overlay in enumerate(overlays):
            if number and not go_on(results):
                break
            result = SessionResult(version=version)
            for rel in opened:
                text = overlay.get(rel, disk[rel])
                if number == 0:
                    client.open(every[rel], spec.language_id(rel) or "plaintext", text)
                elif text != texts[rel]:
                    client.change(every[rel], number + 1, text)
                texts[rel] = text
                if rel in uris:
                    result.texts[rel] = text
            _COMPLETIONS[spec.completion](client, spec, uris, clock, result)
            _late_version(client, result)
            if spec.completion == "flycheck":
                _check_health(client, spec.load_errors)  # the check itself may have failed
                _take_workspace(client, checkout, result)
            else:
                _check_loaded(client, spec.name, spec.load_errors)
            _check_flood(result)
            version = result.version
            results.append(result)
        return results
    except RequestTimeout as exc:
        raise SessionError("timeout", f"{spec.name}: {exc}; {clock.why()}{_tail(client)}"
                           ) from exc
    except ServerGone as exc:
        why, _, stderr = exc.detail.partition("; stderr:\n")
        gist = stderr_gist(stderr)
        raise SessionError("failed", f"{spec.name} exited: {why}"
                                     + (f"; stderr: {gist}" if gist else "")) from exc
    except RpcError as exc:
        raise SessionError("failed", f"{spec.name}: {exc}{_tail(client)}") from exc
    finally:
        client.close(timeout=clock.left(5.0) or 1.0)


def _tail(client: LspClient) -> str:
    gist = stderr_gist(client.conn.stderr_tail(50))
    return f"; stderr: {gist}" if gist else ""


_MEANINGFUL = re.compile(r"error|fail|panic|fatal|cannot|could not|not found|invalid", re.I)


def stderr_gist(text: str, lines: int = 2) -> str:
    """The lines of a server's stderr that say what went wrong (else its last lines)."""
    candidates = [line.strip() for line in text.splitlines() if line.strip()]
    meaningful = [line for line in candidates if _MEANINGFUL.search(line)]
    return " | ".join((meaningful or candidates)[-lines:])


def relative(text: str, checkout: Path) -> str:
    """`text` with the checkout's absolute paths (also as file URIs) made repository-relative."""
    for root in sorted({str(checkout), str(checkout.resolve())}, key=len, reverse=True):
        for form in (positions.path_to_uri(Path(root)), root):
            text = text.replace(form + "/", "").replace(form, ".")
    return text


def _check_health(client: LspClient, patterns: Sequence[str]) -> None:
    """rust-analyzer says in its status when it could not load the workspace (a broken
    Cargo.toml, no cargo metadata) or could not run the check: that is the tool failing,
    whatever it published."""
    with client.cond:
        health, message = client.state.health, client.state.status_message
    if health == "error" or any(re.search(p, message) for p in patterns):
        said = _status_gist(message) or " ".join(message.split())
        why = _workspace_error(client.conn.stderr_tail(200)) or " ".join(
            part for part in (said, stderr_gist(client.conn.stderr_tail(50))) if part) or (
            f"its status turned to {health} with no message, and it wrote nothing on stderr")
        raise SessionError("failed", f"rust-analyzer could not load the project: {why}")


def _workspace_error(stderr: str) -> str | None:
    """cargo's own words from rust-analyzer's log line about the failed load (the log line
    also holds the whole command it ran, which says nothing to a reader)."""
    for line in reversed(stderr.splitlines()):
        if "FetchWorkspaceError" not in line:
            continue
        manifest = re.search(r"the project at (\S+?):", line)
        why = line.rsplit("error: ", 1)[-1].strip()
        return f"{manifest[1]}: {why}" if manifest else why
    return None


def _status_gist(message: str) -> str:
    """The first two sentences of a status message, without its advice about settings."""
    lines = [line.strip() for line in message.splitlines()
             if line.strip() and "linkedProjects" not in line and "language server logs" not in line]
    return " ".join(lines[:2])


def _check_loaded(client: LspClient, name: str, patterns: Sequence[str]) -> None:
    """gopls publishes "packages.Load error" (on go.mod, or on an open file) when the go
    command cannot list the packages at all: nothing was type-checked, so the run failed."""
    with client.cond:
        published = [item for items in client.state.diagnostics.values() for item in items]
    for item in published:
        message = str(item.get("message", ""))
        if any(re.search(p, message) for p in patterns):
            # The go command's own words come after its stderr marker.
            said = message.rsplit("stderr:", 1)[-1]
            raise SessionError("failed", f"{name} could not load the project: "
                                         f"{stderr_gist(said)}")


def _version(client: LspClient) -> str | None:
    version = client.server_info.get("version")
    if isinstance(version, str) and version.startswith("{"):
        with contextlib.suppress(ValueError, AttributeError):
            version = json.loads(version).get("Version")  # gopls: its build info as JSON
    return str(version) if version else None


def _late_version(client: LspClient, result: SessionResult) -> None:
    """typescript-language-server names the TypeScript it loaded in a notification."""
    with client.cond:
        ts = client.state.other.get("$/typescriptVersion", {}).get("version")
    if ts and result.version is None:
        result.version = f"TypeScript {ts}"


def _check_flood(result: SessionResult) -> None:
    for rel, items in result.diagnostics.items():
        if len(items) > MAX_PER_FILE:
            raise SessionError("failed", f"flooded: {len(items)} diagnostics for {rel} "
                                         f"(more than {MAX_PER_FILE}); results discarded")


def _wait(client: LspClient, predicate: Callable[[ServerState], bool], clock: _Clock,
          what: str) -> None:
    started = time.monotonic()
    if not client.wait(predicate, clock.left):
        raise RequestTimeout(what, round(time.monotonic() - started, 1))


# -- completion signals (`ServerSpec.completion`) ------------------------------------------


def _pull(client: LspClient, spec: ServerSpec, uris: dict[str, str], clock: _Clock,
          result: SessionResult) -> None:
    """pyright and tsc --lsp: the pull answer is final for that document."""
    if not client.server_capabilities.get("diagnosticProvider"):
        # pyright registers pull diagnostics dynamically, right after `initialized`.
        client.wait(lambda s: "textDocument/diagnostic" in s.registrations.values(),
                    clock.left(30.0))
    for rel, uri in uris.items():
        try:
            result.diagnostics[rel] = client.pull(uri, clock.left)
        except RpcError as exc:
            result.failed[rel] = str(exc)


def _tsserver(client: LspClient, spec: ServerSpec, uris: dict[str, str], clock: _Clock,
              result: SessionResult) -> None:
    """typescript-language-server pushes with no completion marker; tsserver's synchronous
    diagnostics requests (through `typescript.tsserverRequest`) return the final lists."""
    for rel, uri in uris.items():
        items: list[dict[str, Any]] = []
        for command in ("syntacticDiagnosticsSync", "semanticDiagnosticsSync"):
            answer = client.execute("typescript.tsserverRequest",
                                    [command, {"file": str(positions.uri_to_path(uri))}],
                                    clock.left)
            if not isinstance(answer, dict) or answer.get("success") is False:
                # tsserver died behind the wrapper, or refused the file: no result, not clean.
                result.failed[rel] = f"tsserver {command}: {_why(answer)}"
                break
            items += [from_tsserver(d) for d in answer.get("body") or [] if isinstance(d, dict)]
        else:
            result.diagnostics[rel] = items
    if any("[tsserver] Exited" in line or "TSServer exited" in line for line in client.state.logs):
        raise ServerGone("tsserver exited behind typescript-language-server")


def _why(answer: Any) -> str:
    if isinstance(answer, dict):
        return str(answer.get("message") or "refused")
    return "no answer (tsserver not running)"


def _diagnose_files(client: LspClient, spec: ServerSpec, uris: dict[str, str], clock: _Clock,
                    result: SessionResult) -> None:
    """gopls: `gopls.diagnose_files` returns once the files are diagnosed and published."""
    client.execute("gopls.diagnose_files", [{"Files": list(uris.values())}], clock.left)
    _take_pushed(client, uris, result)


def _flycheck(client: LspClient, spec: ServerSpec, uris: dict[str, str], clock: _Clock,
              result: SessionResult) -> None:
    """rust-analyzer: once the workspace is loaded (quiescent), ask for a `cargo check` and wait
    for a check that began after the request to end, with the server still quiescent.

    The check rust-analyzer starts by itself on load is not enough: a workspace reload (e.g.
    when `cargo metadata` sees the new target folder) cancels it, its progress still ends,
    and no new check may follow; so the check is requested, and requested again after a reload.
    That automatic check is switched off (`checkOnSave: false`): racing our request, it was
    cancelled and restarted, and the gap between the two looked like a finished check.
    """
    for _ in range(FLYCHECK_ROUNDS):
        _wait(client, lambda s: s.quiescent, clock, "rust-analyzer quiescence")
        # A workspace that failed to load is quiescent too, and a check would never start.
        _check_health(client, spec.load_errors)
        with client.cond:
            mark = len(client.state.begun)
        client.conn.notify("rust-analyzer/runFlycheck", {"textDocument": None})

        def checked(state: ServerState, mark: int = mark) -> bool:
            began = any(t.startswith(FLYCHECK) for t in state.begun[mark:])
            running = any(t.startswith(FLYCHECK) for t in state.progress)
            return began and not running

        _wait(client, checked, clock, "rust-analyzer flycheck")
        # The check's diagnostics are flushed by the server's main loop, which may send the
        # progress end first: a request round trip is answered only after that flush.
        with contextlib.suppress(RpcError, RequestTimeout):
            client.conn.request("rust-analyzer/analyzerStatus", {}, min(clock.left(), 30.0))
        with client.cond:
            if client.state.quiescent and not client.state.progress and not _reloaded(
                    client.state.begun[mark:]):
                break
    _take_pushed(client, uris, result)


def _reloaded(begun: Sequence[str]) -> bool:
    """Did the workspace reload (which cancels a running check) after the check began?"""
    first = next((i for i, token in enumerate(begun) if token.startswith(FLYCHECK)), len(begun))
    return any(not token.startswith(FLYCHECK) for token in begun[first:])


def _take_pushed(client: LspClient, uris: dict[str, str], result: SessionResult) -> None:
    with client.cond:
        published = {positions.uri_key(u): d for u, d in client.state.diagnostics.items()}
    for rel, uri in uris.items():
        result.diagnostics[rel] = list(published.get(positions.uri_key(uri), []))


def _take_workspace(client: LspClient, checkout: Path, result: SessionResult) -> None:
    """Servers that check the whole workspace (flycheck): every file they reported counts."""
    with client.cond:
        published = dict(client.state.diagnostics)
    for uri, items in published.items():
        rel = positions.uri_to_relpath(uri, checkout)
        if rel is None or rel in result.diagnostics or not items:
            continue
        try:
            result.texts[rel] = read_text(checkout / rel)
        except OSError:
            continue
        result.diagnostics[rel] = list(items)


_COMPLETIONS: dict[str, Callable[[LspClient, ServerSpec, dict[str, str], _Clock, SessionResult],
                                None]] = {
    "pull": _pull,
    "tsserver": _tsserver,
    "diagnose_files": _diagnose_files,
    "flycheck": _flycheck,
}
