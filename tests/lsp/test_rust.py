"""rust-analyzer: for real when it runs on this machine, and always against a recorded
transcript of a real session (so the completion logic is exercised everywhere)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.analyzer import Resolution, Target
from bot.lsp import servers
from bot.lsp.analyzer import LspAnalyzer
from bot.lsp.registry import SERVERS
from tests.conftest import GitRepo
from tests.lsp.conftest import review, status, table

CARGO = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'
LIB = ("pub mod calc;\n\n"
       "pub fn total() -> i32 {\n    calc::add(1, 2)\n}\n\n"
       "pub fn legacy() -> i32 {\n    \"preexisting\"\n}\n")
CALC = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
TRANSCRIPT = Path(__file__).parent / "data" / "rust-analyzer.json"
FAKE = Path(__file__).parent / "fakes" / "fake_server.py"


def crate(root: Path) -> None:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "Cargo.toml").write_text(CARGO)
    (root / "src" / "lib.rs").write_text(LIB)
    (root / "src" / "calc.rs").write_text(CALC.replace("b: i32)", "b: i32, c: i32)"))


def test_recorded_session_gives_the_cross_file_finding(tmp_path: Path) -> None:
    """The transcript of a real rust-analyzer 1.95.0 session on `crate()` (recorded by
    tests/lsp/fakes/record_rust.py), replayed by a fake server: quiescence, then flycheck."""
    crate(tmp_path)
    spec = servers.RUST_ANALYZER
    replaying = LspAnalyzer(servers.ServerSpec(
        **{**spec.__dict__, "args": (str(FAKE), "replay", str(TRANSCRIPT)), "probe": None}))
    outcome = replaying.collect(Target(tmp_path, "HEAD", ("src/calc.rs",), "head", timeout=30),
                                Resolution(sys.executable))
    assert outcome.status == "ok", outcome.message
    # rustc's notes and help lines arrive as hints (severity 4) and are not findings.
    assert [(f.rule, f.path, f.line) for f in outcome.findings] == [
        ("unused_variables", "src/calc.rs", 1), ("E0061", "src/lib.rs", 4),
        ("E0308", "src/lib.rs", 8)]
    assert outcome.extra_paths == {"src/lib.rs"}


def test_real_rust_analyzer_cross_file(repo: GitRepo) -> None:
    resolution = SERVERS["rust-analyzer"].resolve(repo.path)
    if resolution.executable is None:
        pytest.skip(f"rust-analyzer does not run here ({resolution.message}); "
                    "covered by the recorded transcript")
    repo.commit({"Cargo.toml": CARGO, ".gitignore": "target/\n", "src/lib.rs": LIB,
                 "src/calc.rs": CALC}, "base")
    repo.branch("feature")
    repo.commit({"src/calc.rs": CALC.replace("b: i32)", "b: i32, c: i32)")})
    result = review(repo, {"rust-analyzer": SERVERS["rust-analyzer"]})
    assert status(result, "rust-analyzer")[0] == "ok", status(result, "rust-analyzer")[1]
    rows = table(result)
    assert ("E0061", "src/lib.rs", 4, "introduced", "elsewhere") in rows
    assert ("E0308", "src/lib.rs", 8, "preexisting", None) in rows
    assert ("unused_variables", "src/calc.rs", 1, "introduced", "diff") in rows


def test_a_stub_that_does_not_run_is_not_offered(tmp_path: Path) -> None:
    """rustup installs a `rust-analyzer` proxy even without the component: it must not count."""
    crate(tmp_path)
    stub = tmp_path / "node_modules" / ".bin" / "rust-analyzer"
    stub.parent.mkdir(parents=True)
    stub.write_text("#!/bin/sh\necho \"error: Unknown binary 'rust-analyzer'\" >&2\nexit 1\n")
    stub.chmod(0o755)
    resolution = SERVERS["rust-analyzer"].resolve(tmp_path)
    assert resolution.executable is None and "Unknown binary" in resolution.message
    assert not SERVERS["rust-analyzer"].applies(tmp_path, ["src/calc.rs"])
