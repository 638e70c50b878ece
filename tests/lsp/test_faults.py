"""A server that crashes, hangs or floods: a clear status, the other tools' results stand,
and no process is left behind (the autouse fixture checks every process group)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from bot.analyzer import Target
from bot.lsp.analyzer import LspAnalyzer
from bot.lsp.registry import SERVERS
from bot.lsp.servers import Marker, ServerSpec
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, require_tool
from tests.lsp.conftest import status, table

FAKE = Path(__file__).parent / "fakes" / "fake_server.py"


def fake(mode: str, *args: str, ready_timeout: float = 120.0) -> LspAnalyzer:
    return LspAnalyzer(ServerSpec(
        name="fake", executables=(Path(sys.executable).name,), args=(str(FAKE), mode, *args),
        languages={".py": "python"}, markers=(Marker("pyrightconfig.json"),),
        completion="pull", pull=True, install_hint="-", ready_timeout=ready_timeout))


@pytest.fixture
def py_repo(repo: GitRepo) -> GitRepo:
    require_tool("basedpyright-langserver")
    repo.commit({"pyrightconfig.json": "{}\n", "a.py": "x: int = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "x: int = 1\ny: str = 2\n"})
    return repo


def run(repo: GitRepo, mode: str, timeout: float = 20.0) -> tuple[tuple[str, str], list[str]]:
    analyzers = {"fake": fake(mode), "basedpyright": SERVERS["basedpyright"]}
    result = run_review(ReviewOptions(repo=repo.path, base="main", analyzers=analyzers,
                                      timeout=timeout))
    assert status(result, "basedpyright")[0] == "ok"
    assert ("reportAssignmentType", "a.py", 2, "introduced", "diff") in table(result)
    return status(result, "fake"), [r[0] for r in table(result)]


def test_banner_before_the_first_frame_is_skipped(py_repo: GitRepo) -> None:
    (state, _), rules = run(py_repo, "ok")
    assert state == "ok"
    assert "F0" in rules


def test_crash_mid_message(py_repo: GitRepo) -> None:
    (state, message), rules = run(py_repo, "crash")
    assert state == "failed"
    assert "in the middle of a message" in message and "exit status 3" in message
    # Its stderr in a line or two that say what went wrong, with no temporary checkout path.
    assert "panic: runtime error: index out of range [3]" in message, message
    assert len(message.splitlines()) <= 2 and str(py_repo.path) not in message, message
    assert not [r for r in rules if r.startswith("F")]


def test_server_that_never_answers_is_killed_with_its_children(py_repo: GitRepo) -> None:
    (state, message), _ = run(py_repo, "hang", timeout=10.0)
    assert state == "timeout"
    assert "textDocument/diagnostic" in message


def alone(repo: GitRepo, server: LspAnalyzer, timeout: float) -> tuple[str, str, list[str]]:
    """The fake server's status, message and rules, run alone with a short timeout."""
    result = run_review(ReviewOptions(repo=repo.path, base="main", analyzers={"fake": server},
                                      timeout=timeout))
    return (*status(result, "fake"), [r[0] for r in table(result)])


def test_a_server_showing_progress_past_the_timeout_is_waited_for(py_repo: GitRepo) -> None:
    """A cold start under load: the server works (and says so) longer than the timeout. Each
    sign of progress starts the timeout again."""
    state, message, rules = alone(py_repo, fake("slow", "4"), timeout=2.0)
    assert state == "ok", message
    assert "F0" in rules
    # Without the room past the timeout (as before: one fixed deadline) it timed out.
    state, message, _ = alone(py_repo, fake("slow", "4", ready_timeout=0), timeout=2.0)
    assert state == "timeout"
    assert "still showing progress (Loading packages) after 2s" in message, message


def test_progress_that_never_ends_times_out_at_the_bound_and_says_so(py_repo: GitRepo) -> None:
    state, message, rules = alone(py_repo, fake("slow", "inf", ready_timeout=1.5), timeout=1.5)
    assert state == "timeout"
    assert "textDocument/diagnostic" in message
    assert "still showing progress (Loading packages) after 3s" in message, message
    assert not rules


def test_a_silent_server_times_out_after_the_timeout_and_says_so(py_repo: GitRepo) -> None:
    state, message, _ = alone(py_repo, fake("hang"), timeout=1.5)
    assert state == "timeout"
    assert "it showed no progress" in message, message


def test_a_stopped_session_ends_within_a_second_and_leaves_nothing(py_repo: GitRepo) -> None:
    """A session whose result is no longer wanted (the base's, when the head has nothing to
    classify) ends at its next look at the clock, its server stopped."""
    server = fake("slow", "inf")
    stop = threading.Event()
    target = Target(py_repo.path, "HEAD", ("a.py",), "head", timeout=60)
    threading.Timer(1.0, stop.set).start()
    started = time.monotonic()
    outcome = server.collect(target, server.resolve(py_repo.path), stop)
    assert time.monotonic() - started < 5.0
    assert outcome.status == "timeout" and outcome.findings == ()


def test_flood_is_refused(py_repo: GitRepo) -> None:
    (state, message), rules = run(py_repo, "flood")
    assert state == "failed" and "flooded" in message
    assert not [r for r in rules if r.startswith("F")]


def test_server_without_binary_is_not_offered(py_repo: GitRepo) -> None:
    ghost = LspAnalyzer(ServerSpec(
        name="ghost", executables=("no-such-langserver",), args=(), languages={".py": "python"},
        markers=(Marker("pyrightconfig.json"),), completion="pull", pull=True,
        install_hint="pip install ghost"))
    assert ghost.resolve(py_repo.path).executable is None
    assert not ghost.applies(py_repo.path, ["a.py"])
    result = run_review(ReviewOptions(repo=py_repo.path, base="main", analyzers={"ghost": ghost}))
    assert [t.name for t in result.tools] == []


def test_edits_the_server_asks_for_are_refused(py_repo: GitRepo) -> None:
    """A server may ask the client to apply edits (gopls' go.mod fixes): a review never
    writes the checkout, and says so in its answer."""
    before = (py_repo.path / "a.py").read_bytes()
    analyzers = {"fake": fake("edit")}
    result = run_review(ReviewOptions(repo=py_repo.path, base="main", analyzers=analyzers))
    assert status(result, "fake")[0] == "ok"
    assert (py_repo.path / "a.py").read_bytes() == before
    answers = {v.finding.message for v in result.findings if v.finding.rule == "EDIT"}
    assert answers == {'{"applied": false, "failureReason": "reviewbot never edits the files '
                       'it reviews"}'}


def test_a_session_no_longer_wanted_starts_no_server(repo: GitRepo, no_orphans: list[int]) -> None:
    """`stop` set before (or between) a revision's sessions: the sessions left start nothing,
    and their files are said not checked, never clean."""
    repo.commit({"p/pyrightconfig.json": "{}\n", "p/a.py": "x = 1\n",
                 "q/pyrightconfig.json": "{}\n", "q/b.py": "y = 2\n"})
    server = fake("ok")
    stop = threading.Event()
    stop.set()
    target = Target(repo.path, "HEAD", ("p/a.py", "q/b.py"), "base", timeout=30)
    outcome = server.collect(target, server.resolve(repo.path), stop)
    assert no_orphans == []  # no server started
    assert outcome.status == "timeout" and outcome.findings == ()
    assert outcome.failed_paths == {"p/a.py", "q/b.py"}


def test_the_head_first_pair_survives_a_broken_side(
        py_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """One revision's collect raising (a bug in an adapter) must neither lose the other's
    result nor leave the base's server running: each side is guarded as the pipeline guards
    a tool (bot.run.pipeline._safe_collect)."""
    server = fake("ok")
    real = LspAnalyzer.collect

    def broken_at(side: str) -> object:
        def collect(self: LspAnalyzer, target: Target, resolution: object,
                    stop: threading.Event | None = None) -> object:
            if target.side == side:
                raise RuntimeError(f"broken at the {side}")
            return real(self, target, resolution, stop)  # type: ignore[arg-type]
        return collect

    base = Target(py_repo.path, "main", ("a.py",), "base", timeout=30)
    head = Target(py_repo.path, "HEAD", ("a.py",), "head", timeout=30)
    resolution = server.resolve(py_repo.path)
    monkeypatch.setattr(LspAnalyzer, "collect", broken_at("base"))
    base_o, head_o = server._head_first(base, head, resolution)
    assert base_o.status == "failed" and "RuntimeError: broken at the base" in base_o.message
    assert base_o.failed_paths == {"a.py"}
    assert head_o.status == "ok" and head_o.findings  # the fake reports F0 on every file
    monkeypatch.setattr(LspAnalyzer, "collect", broken_at("head"))
    started = time.monotonic()
    base_o, head_o = server._head_first(base, head, resolution)
    assert head_o.status == "failed" and "RuntimeError: broken at the head" in head_o.message
    assert head_o.failed_paths == {"a.py"}
    assert time.monotonic() - started < 20
