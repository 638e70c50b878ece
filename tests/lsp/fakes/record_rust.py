"""Records the transcript tests/lsp/data/rust-analyzer.json from a real rust-analyzer.

Run: .venv/bin/python -m tests.lsp.fakes.record_rust  (needs a working rust-analyzer)
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from bot import positions
from bot.analyzer import Target
from bot.lsp import framing, rpc
from bot.lsp.registry import SERVERS
from tests.lsp.test_rust import TRANSCRIPT, crate


def main() -> None:
    captured: list[dict[str, Any]] = []
    original = rpc.Connection._dispatch

    def tap(self: rpc.Connection, body: bytes) -> None:
        captured.append(framing.decode(body))
        original(self, body)

    rpc.Connection._dispatch = tap  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        crate(root)
        analyzer = SERVERS["rust-analyzer"]
        outcome = analyzer.collect(Target(root, "HEAD", ("src/calc.rs",), "head"),
                                   analyzer.resolve(root))
        assert outcome.status == "ok", outcome.message
        root_uri = positions.path_to_uri(root)
    initialize = next(m["result"] for m in captured if m.get("id") == 1 and "result" in m)
    # Server notifications and requests, in order, up to the end of the session.
    # Progress reports name files on this machine and carry no signal: left out.
    messages = [m for m in captured if "method" in m and not _report(m)]
    text = json.dumps({"initialize": initialize, "messages": messages}, indent=1)
    text = text.replace(root_uri, "{root}").replace(str(Path.home()), "~")
    TRANSCRIPT.write_text(text + "\n")
    print(f"{len(messages)} messages -> {TRANSCRIPT}")


def _report(message: dict[str, Any]) -> bool:
    value = (message.get("params") or {}).get("value")
    return message["method"] == "$/progress" and isinstance(value, dict) and value.get(
        "kind") == "report"


if __name__ == "__main__":
    main()
