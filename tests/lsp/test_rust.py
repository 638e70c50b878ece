"""rust-analyzer: for real when it runs on this machine, and always against a recorded
transcript of a real session (so the completion logic is exercised everywhere)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.analyzer import Resolution, Target
from bot.linters import clippy
from bot.linters.runner import LinterAnalyzer
from bot.lsp import servers
from bot.lsp.analyzer import LspAnalyzer
from bot.lsp.registry import SERVERS
from tests.conftest import GitRepo
from tests.lsp.conftest import leftovers, review, status, table

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


def replayer(*args: str) -> LspAnalyzer:
    """The recorded session, played by a fake server found as any tool is (its own Python)."""
    spec = servers.RUST_ANALYZER
    return LspAnalyzer(servers.ServerSpec(**{
        **spec.__dict__, "executables": (Path(sys.executable).name,),
        "args": (str(FAKE), "replay", str(TRANSCRIPT), *args), "probe": None}))


def test_a_cold_start_that_outlasts_the_timeout_while_loading_passes(tmp_path: Path) -> None:
    """On a fresh machine under load rust-analyzer loads (building its compile-time
    dependencies, with progress) longer than the timeout: it is waited for while it works."""
    crate(tmp_path)
    outcome = replayer("4").collect(Target(tmp_path, "HEAD", ("src/calc.rs",), "head",
                                           timeout=2), Resolution(sys.executable))
    assert outcome.status == "ok", outcome.message
    assert [f.rule for f in outcome.findings] == ["unused_variables", "E0061", "E0308"]


def test_a_failure_says_why_in_the_json_and_the_text(repo: GitRepo) -> None:
    """A server whose status turns to error with no message and nothing on stderr: the
    result still says what happened, in the JSON and in the text, not only in a log."""
    from bot.publishing import report
    from bot.render import text

    crate(repo.path)
    (repo.path / "src" / "calc.rs").write_text(CALC)
    repo.commit({}, "base")
    repo.branch("feature")
    repo.commit({"src/calc.rs": CALC.replace("b: i32)", "b: i32, c: i32)")})
    result = review(repo, {"rust-analyzer": replayer("mute")})
    assert status(result, "rust-analyzer")[0] == "failed"
    tool = next(t for t in report.to_dict(result)["tools"] if t["name"] == "rust-analyzer")
    reason = ("rust-analyzer could not load the project: its status turned to error with no "
              "message, and it wrote nothing on stderr")
    assert reason in tool["message"], tool["message"]
    assert reason in text.render(result, lambda path: [])
    assert report.to_dict(result)["gate"]["status"] == 4


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


def real(repo: GitRepo) -> None:
    resolution = SERVERS["rust-analyzer"].resolve(repo.path)
    if resolution.executable is None:
        pytest.skip(f"rust-analyzer does not run here ({resolution.message})")


# Patterns and crates that rust-analyzer's own analysis gets wrong where cargo does not
# (seen on real commits): `None` taken for a binding, an extern crate it cannot resolve.
MATCHES = """extern crate alloc;

pub fn or_zero(x: Option<i32>) -> i32 {
    match x {
        Some(v) => v,
        None => 0,
    }
}

pub fn first(v: &alloc::vec::Vec<i32>) -> i32 {
    let unused = 1;
    v[0]
}
"""


def without_sysroot() -> LspAnalyzer:
    """rust-analyzer as configured, but blind to the standard library (as on a toolchain
    without rust-src): its own analysis then calls `None` a binding and `alloc` unresolved."""
    spec = servers.RUST_ANALYZER
    config = spec.settings["rust-analyzer"]
    blind = {**config, "cargo": {**config["cargo"], "sysroot": None}}
    return LspAnalyzer(dataclasses.replace(spec, settings={"rust-analyzer": blind},
                                           init_options=blind))


# A dependency and no Cargo.lock: `cargo check` writes one (cargo has no stable flag against
# it), and a target/ of its own unless told otherwise.
WITH_DEP = {"Cargo.toml": CARGO + '\n[dependencies]\ndep = { path = "dep" }\n',
            "dep/Cargo.toml": CARGO.replace('"demo"', '"dep"'),
            "dep/src/lib.rs": "pub fn g() -> i32 {\n    1\n}\n",
            ".gitignore": "target/\n", "src/lib.rs": "pub mod m;\n",
            "src/m.rs": "pub fn one() -> i32 {\n    dep::g()\n}\n"}


def test_only_cargos_diagnostics_are_findings(repo: GitRepo) -> None:
    real(repo)
    repo.commit(WITH_DEP, "base")
    repo.branch("feature")
    repo.commit({"src/m.rs": MATCHES})
    before = repo.git("status", "--porcelain", "--ignored")
    result = review(repo, {"rust-analyzer": without_sysroot()})
    assert status(result, "rust-analyzer")[0] == "ok", status(result, "rust-analyzer")[1]
    rows = table(result)
    # The one thing cargo says about this file.
    assert [r for r in rows if r[3] == "introduced"] == [
        ("unused_variables", "src/m.rs", 11, "introduced", "diff")], rows
    # Nothing written into the checkout: no Cargo.lock, no target/ (not even ignored ones).
    assert repo.git("status", "--porcelain", "--ignored") == before


def test_a_project_cargo_cannot_load_is_a_failure(repo: GitRepo) -> None:
    real(repo)
    repo.commit({"Cargo.toml": CARGO, ".gitignore": "target/\n",
                 "src/lib.rs": "pub fn one() -> i32 {\n    1\n}\n"}, "base")
    repo.branch("feature")
    repo.commit({"Cargo.toml": CARGO.replace('edition = "2021"', "edition = 2021 ="),
                 "src/lib.rs": "pub fn one() -> i32 {\n    let x = 1;\n    1\n}\n"})
    result = review(repo, {"rust-analyzer": SERVERS["rust-analyzer"]})
    state, message = status(result, "rust-analyzer")
    assert state == "failed", (message, table(result))
    assert "could not load the project" in message and "Cargo.toml" in message, message
    assert str(repo.path) not in message and "/tmp/" not in message, message
    assert len(message.splitlines()) <= 2, message
    assert not [v for v in result.findings if v.scope == "introduced"], table(result)


def test_a_session_leaves_the_checkout_as_it_found_it(repo: GitRepo, private_tmpdir: Path) -> None:
    """Any checkout, the base worktree too: no Cargo.lock, no target/ left behind (and
    nothing in the temporary folder, where the build went)."""
    real(repo)
    repo.commit({**WITH_DEP, "src/m.rs": MATCHES}, "base")
    before = repo.git("status", "--porcelain", "--ignored")
    analyzer = SERVERS["rust-analyzer"]
    outcome = analyzer.collect(Target(repo.path, "HEAD", ("src/m.rs",), "base", timeout=120),
                               analyzer.resolve(repo.path))
    assert outcome.status == "ok", outcome.message
    assert [(f.rule, f.line) for f in outcome.findings] == [("unused_variables", 11)]
    assert repo.git("status", "--porcelain", "--ignored") == before
    assert leftovers(private_tmpdir) == []


def _sessions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The project folder of every rust-analyzer session the review starts."""
    from bot.lsp import session

    started: list[Path] = []
    real = session.run

    def recording(launch: servers.Launch, checkout: Path, project: Path, *rest: Any) -> Any:
        started.append(project)
        return real(launch, checkout, project, *rest)

    monkeypatch.setattr(session, "run", recording)
    return started


def test_next_to_clippy_a_crate_without_dependents_needs_no_rust_analyzer(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """clippy checked the only crate there is (its rustc errors included): rust-analyzer's
    cargo check would repeat it, so no session starts; the breakage is still reported."""
    require_tool_runs()
    started = _sessions(monkeypatch)
    repo.commit({"Cargo.toml": CARGO, ".gitignore": "target/\n", "src/lib.rs": LIB,
                 "src/calc.rs": CALC}, "base")
    repo.branch("feature")
    repo.commit({"src/calc.rs": CALC.replace("b: i32)", "b: i32, c: i32)")})
    result = review(repo, {"clippy": LinterAnalyzer(clippy.SPEC),
                           "rust-analyzer": SERVERS["rust-analyzer"]})
    assert [(t.name, t.status) for t in result.tools] == [("clippy", "ok"), ("rust-analyzer", "ok")]
    assert started == []
    assert ("clippy", "E0061", "src/lib.rs", "introduced") in {
        (v.finding.tool, v.finding.rule, v.finding.path, v.scope) for v in result.findings}


WORKSPACE = '[workspace]\nmembers = ["core", "app"]\nresolver = "2"\n'
APP_CARGO = ('[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n'
             '[dependencies]\ndemo = { path = "../core" }\n')
APP = "pub fn run() -> i32 {\n    demo::calc::add(1, 2)\n}\n"


def test_next_to_clippy_a_crate_with_dependents_still_gets_rust_analyzer(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """clippy lints the changed crate only; the crate that depends on it is rust-analyzer's."""
    require_tool_runs()
    started = _sessions(monkeypatch)
    repo.commit({"Cargo.toml": WORKSPACE, ".gitignore": "target/\n", "core/Cargo.toml": CARGO,
                 "core/src/lib.rs": "pub mod calc;\n", "core/src/calc.rs": CALC,
                 "app/Cargo.toml": APP_CARGO, "app/src/lib.rs": APP}, "base")
    repo.branch("feature")
    repo.commit({"core/src/calc.rs": CALC.replace("b: i32)", "b: i32, c: i32)")})
    result = review(repo, {"clippy": LinterAnalyzer(clippy.SPEC),
                           "rust-analyzer": SERVERS["rust-analyzer"]})
    assert [(t.name, t.status) for t in result.tools] == [("clippy", "ok"), ("rust-analyzer", "ok")]
    assert len(started) == 2  # base and head
    assert ("rust-analyzer", "E0061", "app/src/lib.rs", "introduced") in {
        (v.finding.tool, v.finding.rule, v.finding.path, v.scope) for v in result.findings}


def require_tool_runs() -> None:
    resolution = SERVERS["rust-analyzer"].resolve(Path.cwd())
    if resolution.executable is None:
        pytest.skip(f"rust-analyzer does not run here ({resolution.message})")
