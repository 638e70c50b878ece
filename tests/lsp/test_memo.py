"""The key of a language server's kept result (bot.lsp.memo): whatever shapes the answer."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from bot.analyzer import Target
from bot.lsp import memo, servers
from bot.lsp.analyzer import _Collected
from bot.lsp.session import SessionResult


def test_every_input_of_the_answer_is_in_the_key(tmp_path: Path) -> None:
    binary = tmp_path / "gopls"
    binary.write_text("#!/bin/sh\n")
    go = tmp_path / "bin" / "go"
    go.parent.mkdir()
    go.write_text("#!/bin/sh\n")
    go.chmod(0o755)
    launch = servers.Launch(servers.GOPLS, (str(binary),), {}, {"gopls": {"a": 1}},
                            {"PATH": str(go.parent)})
    key = memo.session_key(launch, "rev1", "", ["a.go", "b.go"], ["c.go"])
    assert key == memo.session_key(launch, "rev1", "", ["b.go", "a.go"], ["c.go"])
    others = [
        memo.session_key(launch, "rev2", "", ["a.go", "b.go"], ["c.go"]),
        memo.session_key(launch, "rev1", "mod", ["a.go", "b.go"], ["c.go"]),
        memo.session_key(launch, "rev1", "", ["a.go"], ["b.go", "c.go"]),
        memo.session_key(launch, "rev1", "", ["a.go", "b.go"], []),
        memo.session_key(launch, "rev1", "", ["a.go", "b.go"], ["c.go"], "an upgrade"),
        memo.session_key(dataclasses.replace(launch, settings={"gopls": {"a": 2}}), "rev1", "",
                         ["a.go", "b.go"], ["c.go"]),
    ]
    assert key not in others and len(set(others)) == len(others)
    os.utime(go, ns=(1, 1))  # another go command: another standard library
    assert memo.session_key(launch, "rev1", "", ["a.go", "b.go"], ["c.go"]) != key
    binary.write_text("#!/bin/sh\n# reinstalled\n")
    assert memo.session_key(launch, "rev1", "", ["a.go", "b.go"], ["c.go"]) not in (key, None)
    binary.unlink()  # no identity: nothing is kept
    assert memo.session_key(launch, "rev1", "", ["a.go", "b.go"], ["c.go"]) is None


def test_only_a_clean_result_is_offered_for_keeping(tmp_path: Path) -> None:
    target = Target(tmp_path, "rev", ("a.go",), "base")
    text = "package a\n"
    clean = SessionResult({"a.go": []}, {"a.go": text})
    assert _Collected("gopls", servers.GOPLS, target).take(clean, []) == []
    failed = SessionResult({}, {}, {"a.go": "no diagnostics before the deadline"})
    assert _Collected("gopls", servers.GOPLS, target).take(failed, []) is None
    orphan = SessionResult({"a.go": [{"message": "No active builds contain /x/a.go: …",
                                      "range": {"start": {"line": 0, "character": 0},
                                                "end": {"line": 0, "character": 1}}}]},
                           {"a.go": text})
    assert _Collected("gopls", servers.GOPLS, target).take(orphan, []) is None
