"""A misbehaving language server for fault tests; the mode is the first argument.

ok      answers pulls with one diagnostic (after a banner on stdout, as some servers print)
crash   dies in the middle of the answer to the first pull
hang    never answers after initialize (nor shutdown), and has a child in its process group
flood   answers pulls with far too many diagnostics
replay  plays a recorded transcript (JSON: initialize result, then server messages); a
        second argument, seconds, shows that long of loading progress before it is quiescent
        (a cold start under load); "mute" after the path: its status turns to error, no words
slow    answers pulls as `ok` does, after showing progress for the seconds of its second
        argument ("inf": forever)
edit    asks the client to apply an edit to the pulled file (workspace/applyEdit), then
        answers the pull with the client's reply as the diagnostic's message
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bot.lsp import framing

MODE = sys.argv[1]
out = sys.stdout.buffer


def send(message: dict[str, Any]) -> None:
    out.write(framing.encode(message))
    out.flush()


def diagnostic(line: int, code: str) -> dict[str, Any]:
    return {"range": {"start": {"line": line, "character": 0},
                      "end": {"line": line, "character": 1}},
            "severity": 1, "code": code, "message": f"fake {code}"}


def progress(seconds: float, title: str) -> None:
    """`seconds` of work in progress, reported every quarter of a second, as servers do."""
    token = f"fake/{title}"
    send({"jsonrpc": "2.0", "id": f"create-{title}", "method": "window/workDoneProgress/create",
          "params": {"token": token}})
    send({"jsonrpc": "2.0", "method": "$/progress",
          "params": {"token": token, "value": {"kind": "begin", "title": title}}})
    end = time.monotonic() + seconds
    done = 0
    while time.monotonic() < end:
        time.sleep(0.25)
        done += 1
        send({"jsonrpc": "2.0", "method": "$/progress",
              "params": {"token": token, "value": {"kind": "report", "message": f"{done} done"}}})
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": token,
                                                              "value": {"kind": "end"}}})


def replay(transcript: dict[str, Any], root_uri: str, only_check: bool = False,
           loading: float = 0.0, mute: bool = False) -> None:
    """The whole transcript, or (`only_check`) the recorded `cargo check` run, as the real
    server answers `rust-analyzer/runFlycheck`."""
    messages = transcript["messages"]
    if only_check:
        start = next(i for i, m in enumerate(messages) if "flycheck" in json.dumps(m.get("params")))
        messages = messages[start:]
    for message in messages:
        text = json.dumps(message).replace("{root}", root_uri)
        if message.get("method") == "experimental/serverStatus" and message["params"]["quiescent"]:
            if loading:
                progress(loading, "Building compile-time-deps")
            if mute:
                text = json.dumps({**message, "params": {"health": "error", "quiescent": True,
                                                         "message": None}})
        send(json.loads(text))


def main() -> None:
    reader = framing.FrameReader()
    transcript = json.loads(Path(sys.argv[2]).read_text()) if MODE == "replay" else {}
    mute = sys.argv[3:4] == ["mute"]
    loading = float(sys.argv[3]) if MODE == "replay" and len(sys.argv) > 3 and not mute else 0.0
    if MODE == "ok":
        out.write(b"fake server 1.0 starting up\r\n")  # a banner before the first frame
    root_uri = ""
    pending_pull: Any = None
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            return
        for body in reader.feed(chunk):
            message = framing.decode(body)
            method, ident = message.get("method"), message.get("id")
            if method == "initialize":
                root_uri = message["params"]["rootUri"]
                if MODE == "hang":
                    subprocess.Popen(["sleep", "300"])  # a grandchild the group kill must reap
                result = transcript.get("initialize", {"capabilities": {
                    "diagnosticProvider": {"interFileDependencies": True,
                                           "workspaceDiagnostics": False}},
                    "serverInfo": {"name": "fake", "version": "1.0"}})
                send({"jsonrpc": "2.0", "id": ident, "result": result})
            elif method == "initialized" and MODE == "replay":
                replay(transcript, root_uri, loading=loading, mute=mute)
            elif method == "rust-analyzer/runFlycheck" and MODE == "replay":
                replay(transcript, root_uri, only_check=True)
            elif MODE == "hang" and ident is not None:
                continue
            elif method == "textDocument/diagnostic" and MODE == "edit":
                uri = message["params"]["textDocument"]["uri"]
                everything = {"start": {"line": 0, "character": 0},
                              "end": {"line": 99, "character": 0}}
                pending_pull = ident
                send({"jsonrpc": "2.0", "id": "edit-1", "method": "workspace/applyEdit",
                      "params": {"label": "tidy", "edit": {"changes": {
                          uri: [{"range": everything, "newText": "rewritten = 1\n"}]}}}})
            elif ident == "edit-1" and method is None:
                answer = json.dumps(message.get("result", message.get("error")))
                items = [{**diagnostic(0, "EDIT"), "message": answer}]
                send({"jsonrpc": "2.0", "id": pending_pull,
                      "result": {"kind": "full", "items": items}})
            elif method == "textDocument/diagnostic":
                if MODE == "crash":
                    # What a Go server prints as it dies: noise around one meaningful line.
                    for line in ("starting", "panic: runtime error: index out of range [3]",
                                 "", "goroutine 1 [running]:", "main.check(...)",
                                 f"\t{os.getcwd()}/a.py:3 +0x1d", "exit"):
                        sys.stderr.write(line + "\n")
                    sys.stderr.flush()
                    out.write(b"Content-Length: 500\r\n\r\n{\"jsonrpc\":")
                    out.flush()
                    os._exit(3)
                if MODE == "slow":
                    progress(float(sys.argv[2]), "Loading packages")
                count = 50_000 if MODE == "flood" else 1
                items = [diagnostic(i % 3, f"F{i}") for i in range(count)]
                send({"jsonrpc": "2.0", "id": ident, "result": {"kind": "full", "items": items}})
            elif method == "shutdown":
                send({"jsonrpc": "2.0", "id": ident, "result": None})
            elif method == "exit":
                return
            elif method is not None and ident is not None:
                send({"jsonrpc": "2.0", "id": ident, "result": None})


main()
