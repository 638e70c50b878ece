"""A cancelled or killed review leaves nothing behind: no worktree, no scratch folder, no
process. Real `reviewbot review` processes, real signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.revisions import scratch
from tests.conftest import ROOT, GitRepo, require_tool

# ruff, made slow: `check` starts a child that outlives nothing on its own, records both pids
# and waits; everything else (the version query) goes to the real ruff.
SLOW_RUFF = """#!/bin/sh
if [ "$1" = check ]; then
    sleep 300 &
    echo "$$ $!" >> "{pids}"
    wait
    exit 0
fi
exec "{ruff}" "$@"
"""


def process_gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"  # finished, not yet reaped by init


@pytest.fixture
def setup(repo: GitRepo, tmp_path: Path) -> Iterator[tuple[GitRepo, dict[str, str], Path, Path]]:
    """A change reviewed at two worktrees (the head is not the checked-out HEAD), with a slow
    ruff first on PATH and a private temporary folder for the run's scratch folder."""
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n', "a.py": "import os\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport sys\n"})
    repo.checkout("main")
    env, pids, tmp = stand_in(tmp_path, "ruff", SLOW_RUFF.format(pids=tmp_path / "pids",
                                                                 ruff=require_tool("ruff")))
    yield repo, env, pids, tmp
    kill_recorded(pids)


def stand_in(tmp_path: Path, name: str, script: str) -> tuple[dict[str, str], Path, Path]:
    """`script` first on PATH as `name`, and a private temporary folder for the run's scratch
    folder: the environment, the file the script records pids in, the temporary folder."""
    pids, bin_dir, tmp = tmp_path / "pids", tmp_path / "bin", tmp_path / "tmp"
    bin_dir.mkdir()
    tmp.mkdir()
    (bin_dir / name).write_text(script)
    (bin_dir / name).chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "TMPDIR": str(tmp)}, pids, tmp


def kill_recorded(pids: Path) -> None:
    """Never leave a process behind, even when the test fails."""
    for line in pids.read_text().split("\n") if pids.exists() else []:
        for pid in line.split():
            if not process_gone(int(pid)):
                os.kill(int(pid), signal.SIGKILL)


def start(repo: GitRepo, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "review", "--repo", str(repo.path),
                             "--base", "main", "--head", "feat", "--no-cache", "--format", "json"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for_tools(pids: Path, count: int) -> list[int]:
    """The pids of the slow tools and their children, once `count` tools are running."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lines = pids.read_text().splitlines() if pids.exists() else []
        if len(lines) >= count:
            return [int(p) for line in lines for p in line.split()]
        time.sleep(0.05)
    pytest.fail("the slow tool never started")


def leftovers(repo: GitRepo, tmp: Path) -> tuple[list[str], list[str]]:
    return repo.git("worktree", "list").splitlines()[1:], sorted(p.name for p in tmp.iterdir())


def test_sigterm_removes_worktrees_scratch_and_kills_the_tools(
        setup: tuple[GitRepo, dict[str, str], Path, Path]) -> None:
    repo, env, pids, tmp = setup
    run = start(repo, env)
    tools = wait_for_tools(pids, 2)  # base and head: both trees exist
    # The head a worktree, the base ruff reads the changed files' folders (bot.revisions.partial).
    (folder,) = leftovers(repo, tmp)[1]
    assert len(leftovers(repo, tmp)[0]) == 1 and (tmp / folder / "files" / "a.py").is_file()
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 143, err.decode()
    assert err.decode().strip().endswith("reviewbot: terminated")
    assert leftovers(repo, tmp) == ([], [])
    assert [pid for pid in tools if not process_gone(pid)] == []


def test_sigint_kills_the_tools_too(setup: tuple[GitRepo, dict[str, str], Path, Path]) -> None:
    repo, env, pids, tmp = setup
    run = start(repo, env)
    tools = wait_for_tools(pids, 2)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err.decode()
    assert leftovers(repo, tmp) == ([], [])
    assert [pid for pid in tools if not process_gone(pid)] == []


def test_the_next_run_removes_what_a_killed_run_left(
        setup: tuple[GitRepo, dict[str, str], Path, Path]) -> None:
    repo, env, pids, tmp = setup
    run = start(repo, env)
    tools = wait_for_tools(pids, 2)
    run.kill()
    run.communicate(timeout=60)
    worktrees, folders = leftovers(repo, tmp)
    assert len(worktrees) == 1 and len(folders) == 1, "SIGKILL cannot be caught"
    for pid in tools:
        os.kill(pid, signal.SIGKILL)
    env["PATH"] = env["PATH"].split(os.pathsep, 1)[1]  # the real ruff this time
    again = subprocess.run([sys.executable, "-m", "bot.cli", "review", "--repo", str(repo.path),
                            "--base", "main", "--head", "feat", "--no-cache", "--format", "json"],
                           cwd=ROOT, env=env, capture_output=True, timeout=120)
    assert again.returncode == 1, again.stderr.decode()  # the gate: F401 introduced
    assert [t["status"] for t in json.loads(again.stdout)["tools"]] == ["ok"]
    assert leftovers(repo, tmp) == ([], [])


def test_a_reused_pid_is_not_the_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Our own pid, but another start time: the process that made the folder is gone."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    mine = scratch.make(tmp_path / "repo")
    other = scratch.make(tmp_path / "repo")
    owner = json.loads((other / scratch.OWNER).read_text())
    (other / scratch.OWNER).write_text(json.dumps({**owner, "start": "1"}))
    unowned = tmp_path / f"{scratch.PREFIX}just-made"
    unowned.mkdir()
    assert list(scratch.stale_folders()) == [other]
    scratch.prune(tmp_path)  # not a repository: the folders still go, no error
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, unowned.name])


# A language server that never answers: it records its pid and its child's, and waits.
SILENT_SERVER = """#!/bin/sh
sleep 300 &
echo "$$ $!" >> "{pids}"
wait
"""


def test_sigterm_during_a_language_server_session_stops_it_and_cleans_up(
        repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"pyrightconfig.json": "{}\n", "a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x: int = 'no'\n"})
    repo.checkout("main")
    env, pids, tmp = stand_in(tmp_path, "basedpyright-langserver",
                              SILENT_SERVER.format(pids=tmp_path / "pids"))
    run = subprocess.Popen([sys.executable, "-m", "bot.cli", "review", "--repo", str(repo.path),
                            "--base", "main", "--head", "feat", "--no-cache", "--only",
                            "basedpyright", "--format", "json"],
                           cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        servers = wait_for_tools(pids, 1)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=30)
        assert run.returncode == 143, err.decode()
        assert err.decode().strip().endswith("reviewbot: terminated")
        assert [pid for pid in servers if not process_gone(pid)] == []  # before our own kill
        assert leftovers(repo, tmp) == ([], [])
    finally:
        kill_recorded(pids)
        run.kill()


# The kernel hands a signal sent to the process to any thread that does not block it; a
# worker taking it here stands for that choice (it happens under load).
WORKER_TAKES_IT = """
import signal, sys, threading
from bot.safety import cancel

def work(main_waits: threading.Event) -> None:
    main_waits.wait()
    signal.pthread_kill(threading.get_ident(), signal.{name})
    threading.Event().wait(120)  # a tool that takes its time

try:
    with cancel.cancellable():
        waiting = threading.Event()
        worker = threading.Thread(target=work, args=(waiting,), daemon=True)
        worker.start()
        waiting.set()
        worker.join()  # blocked in a lock, as the pipeline waits for a tool's result
except KeyboardInterrupt:
    sys.exit(130)
except cancel.Terminated:
    sys.exit(143)
"""


@pytest.mark.parametrize(("name", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_taken_by_a_worker_thread_still_cancels_at_once(name: str, status: int) -> None:
    run = subprocess.run([sys.executable, "-c", WORKER_TAKES_IT.format(name=name)], cwd=ROOT,
                         capture_output=True, timeout=60)
    assert run.returncode == status, run.stderr.decode()


# The cancel lands in the main thread just as it starts a process, before the bot has taken note
# of it: the signal is sent from inside Popen, so the handler runs the moment Popen returns.
SIGNALLED_WHILE_STARTING = """
import json, signal, subprocess, sys, threading
from bot.safety import cancel
from bot import proc

started = []

class Signalling(subprocess.Popen):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        started.append(self.pid)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)

subprocess.Popen = Signalling
status = 0
try:
    with cancel.cancellable():
        proc.{start}(["sleep", "60"])
        status = 1  # the cancel was lost
except cancel.Terminated:
    status = 143
print(json.dumps({{"status": status, "pid": started[0]}}))
"""


@pytest.mark.parametrize("start", ["run", "spawn"])
def test_a_cancel_as_the_main_thread_starts_a_process_kills_that_process(start: str) -> None:
    done = subprocess.run([sys.executable, "-c", SIGNALLED_WHILE_STARTING.format(start=start)],
                          cwd=ROOT, capture_output=True, text=True, timeout=90)
    out = json.loads(done.stdout)
    try:
        assert out["status"] == 143, done.stderr
        deadline = time.monotonic() + 10
        while not process_gone(out["pid"]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process_gone(out["pid"]), "the process started as the cancel came was left running"
    finally:
        if not process_gone(out["pid"]):
            os.kill(out["pid"], signal.SIGKILL)


CANCELLED_WHILE_MADE = """
import json, os, signal, sys, tempfile
from pathlib import Path
from bot.safety import cancel
from bot.revisions import scratch, workspace

tempfile.tempdir = sys.argv[2]
real = tempfile.mkdtemp

def made_then_cancelled(*args, **kwargs):
    folder = real(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGTERM)  # before the owner file is written
    return folder

scratch.tempfile.mkdtemp = made_then_cancelled
rev = workspace.resolve(Path(sys.argv[1]), "main", "HEAD")
status = 0
try:
    with cancel.cancellable():
        workspace.Checkouts(rev, [])
except cancel.Terminated:
    status = 143
print(json.dumps({"status": status, "left": sorted(os.listdir(sys.argv[2]))}))
"""


def test_a_cancel_while_the_scratch_folder_is_made_leaves_nothing(repo: GitRepo,
                                                                  tmp_path: Path) -> None:
    """A SIGTERM between the folder's making and its owner file: the folder would be no one's,
    and no later run removes a folder it cannot tell is a dead run's. The cancel waits until
    the folder is owned, then the folder goes."""
    repo.commit({"a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = subprocess.run([sys.executable, "-c", CANCELLED_WHILE_MADE, str(repo.path), str(tmp)],
                          cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert json.loads(done.stdout) == {"status": 143, "left": []}, done.stderr
