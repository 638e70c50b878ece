"""What the fault tests share: the CLI run as a separate process (a fault must not be able to
take the test runner down with it), optionally without the privilege to read other users'
files, and the one reading of its outcome."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT
from tests.security.unprivileged import reaching

# Root reads any folder whatever its mode; without these two capabilities (dropped from the
# bounding set, so the started program never has them) it sees permissions as any user does.
_DROP_READ_OVERRIDES = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


@dataclass(frozen=True)
class Outcome:
    status: int
    stdout: str
    stderr: str

    @property
    def crashed(self) -> bool:
        """A traceback or the internal-error status: what no input may cause."""
        return self.status == 70 or "Traceback (most recent call last)" in self.stderr


def as_user() -> list[str]:
    """The prefix that runs a program with an ordinary user's view of file permissions."""
    return _DROP_READ_OVERRIDES if os.geteuid() == 0 else []


def reviewbot(args: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None,
              unprivileged: bool = False, timeout: float = 180,
              interrupt: tuple[signal.Signals, float] | None = None) -> Outcome:
    """`reviewbot ARGS` in `cwd`, as its own process; `env` replaces the environment;
    `interrupt`: the signal sent to it after that many seconds (if it still runs)."""
    environment = dict(os.environ if env is None else env)
    environment["PYTHONPATH"] = str(ROOT)  # the package under test, from any cwd
    dropped = unprivileged and os.geteuid() == 0
    with (reaching(as_user()) if dropped else nullcontext([])) as prefix, subprocess.Popen(
            [*prefix, sys.executable, "-m", "bot.cli", *args], cwd=cwd, env=environment,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        try:
            if interrupt is not None:
                signum, delay = interrupt
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(delay)
                if process.returncode is None:
                    process.send_signal(signum)
            out, err = process.communicate(timeout=timeout)
        finally:
            process.kill()
    return Outcome(process.returncode, out.decode("utf-8", "replace"),
                   err.decode("utf-8", "replace"))


def strays(work: Path, groups: Collection[int] = ()) -> list[tuple[int, str]]:
    """Processes still running in a folder under `work` (their working directory), or in one
    of the process `groups` (each tool is a group of its own: a child that moved elsewhere is
    still in it): a tool, a git or a language server the run should have ended. Each is
    killed once seen."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            group = os.getpgid(int(entry.name))
        except OSError:
            continue
        inside = cwd == str(work) or cwd.startswith(f"{work}/")
        if (inside or group in groups) and running(int(entry.name)):
            found.append((int(entry.name), cwd[len(str(work)):] if inside else f"group {group}"))
            with contextlib.suppress(OSError):
                os.kill(int(entry.name), 9)
    return found


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")
