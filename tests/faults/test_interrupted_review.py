"""Interruption at random points: SIGTERM or SIGINT sent to `reviewbot review` after a delay
drawn from a fixed seed (so a failure names its delay and reproduces), anywhere from the start
to after the end. Whatever it hit, the run ends finished (the gate) or interrupted (130/143),
leaves no worktree, scratch folder or tool process, and the next run is correct."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, GitRepo, require_tool
from tests.test_cleanup import kill_recorded, leftovers, process_gone, stand_in

# ruff, slower and recording its pids: a run lasts long enough to be hit anywhere.
TIMED_RUFF = """#!/bin/sh
echo "$$" >> "{pids}"
[ "$1" = check ] && sleep 0.4
exec "{ruff}" "$@"
"""
SEED = 21
_DRAW = random.Random(SEED)
DELAYS = sorted(round(_DRAW.uniform(0.0, 3.0), 2) for _ in range(6))
SIGNALS = [signal.SIGTERM, signal.SIGINT] * 3


def review(repo: GitRepo, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "review", "--repo", str(repo.path),
                             "--base", "main", "--head", "feat", "--no-cache", "--format", "json"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize(("delay", "signum"), list(zip(DELAYS, SIGNALS, strict=True)),
                         ids=[f"{s.name}-after-{d}s" for d, s in zip(DELAYS, SIGNALS, strict=True)])
def test_a_signal_at_any_point_leaves_nothing_and_the_next_run_is_right(
        repo: GitRepo, tmp_path: Path, delay: float, signum: signal.Signals) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n', "a.py": "import os\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport sys\n"})
    repo.checkout("main")  # the head gets a worktree of its own, as the base does
    env, pids, tmp = stand_in(tmp_path, "ruff", TIMED_RUFF.format(pids=tmp_path / "pids",
                                                                  ruff=require_tool("ruff")))
    run = review(repo, env)
    try:
        time.sleep(delay)
        run.send_signal(signum)
        out, err = run.communicate(timeout=60)
        interrupted = 130 if signum == signal.SIGINT else 143
        # -signum: ended by the signal itself while Python was still starting, before the bot
        # set any handler or made anything (a shell shows it as 128 + signum, the same status).
        assert run.returncode in (1, interrupted, -signum), err.decode()
        assert b"Traceback" not in err
        assert leftovers(repo, tmp) == ([], []), (run.returncode, err.decode())
        tools = [int(p) for p in pids.read_text().split()] if pids.exists() else []
        assert [p for p in tools if not process_gone(p)] == []
        again = review(repo, env)
        out, err = again.communicate(timeout=120)
        assert again.returncode == 1, err.decode()
        assert json.loads(out)["summary"] == {"introduced": 1, "changed": 0, "preexisting": 1,
                                              "fixed": 0, "unclassified": 0}
        assert leftovers(repo, tmp) == ([], [])
    finally:
        run.kill()
        kill_recorded(pids)


def test_ctrl_c_while_the_command_loads_is_an_interruption(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The moment the random delays above hit once: a real SIGINT while the command's module
    is imported, before the bot's own handlers are set (it was a traceback and exit 1)."""
    import os

    from bot import cli

    # Ctrl-C as a terminal sends it: a suite started in the background of a shell inherits
    # SIGINT ignored, and a process that starts so rightly keeps ignoring it.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(cli.importlib, "import_module",
                        lambda name: os.kill(os.getpid(), signal.SIGINT))
    try:
        assert cli.main(["review"]) == 130
    finally:
        signal.signal(signal.SIGINT, previous)
    assert capsys.readouterr().err == "reviewbot: interrupted\n"


@pytest.mark.parametrize("where", ["making the head's worktree", "removing the worktrees"])
def test_a_signal_at_a_checkout_step_leaves_nothing(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """The two moments the random delays above found under load, hit on purpose with a real
    SIGTERM: just as git finished making a worktree the run had not listed yet, and in the
    middle of the clean-up (which the cancel then cut short)."""
    import os

    from bot import git
    from bot.revisions import workspace
    from bot.safety import cancel

    repo.commit({"a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    repo.checkout("main")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    step = "worktree_add" if where.startswith("making") else "worktree_remove"
    real = getattr(git, step)

    def then_signalled(*args: object, **kwargs: object) -> None:
        if step == "worktree_remove":
            os.kill(os.getpid(), signal.SIGTERM)
        real(*args, **kwargs)
        if step == "worktree_add":
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(git, step, then_signalled)
    rev = workspace.resolve(repo.path, "main", "feat")
    with pytest.raises(cancel.Terminated), cancel.cancellable(), \
            workspace.checkouts(rev, ()) as made:
        made.base()
    assert leftovers(repo, tmp) == ([], [])


def test_ctrl_c_while_the_bot_itself_loads_is_an_interruption(tmp_path: Path) -> None:
    """A real SIGINT while `bot.cli`'s own imports run (found by the matrix's seeded delays:
    a traceback through cancel, proc, credentials, selfproc). Sent here at a fixed point of
    that chain, the import of ctypes."""
    import os

    # Ctrl-C as a terminal sends it (see the test above: SIGINT may be inherited ignored).
    start = ("import builtins, os, runpy, signal, sys\n"
             "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
             "real = builtins.__import__\n"
             "def hit(name, *args, **kwargs):\n"
             "    if name == 'ctypes':\n"
             "        os.kill(os.getpid(), signal.SIGINT)\n"
             "    return real(name, *args, **kwargs)\n"
             "builtins.__import__ = hit\n"
             "sys.argv = ['reviewbot', '--version']\n"
             "runpy.run_module('bot.cli', run_name='__main__', alter_sys=True)\n")
    done = subprocess.run([sys.executable, "-c", start], cwd=tmp_path, capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    assert (done.returncode, done.stderr) == (130, b"reviewbot: interrupted\n")
