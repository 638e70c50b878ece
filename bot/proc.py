"""The one subprocess chokepoint: every external program the bot runs goes through here.

Each call gets a timeout that kills the whole process group (linters fork workers, language
servers fork node), capped stdout/stderr, and a typed error when the binary is missing.
Long-lived processes (language servers) use `spawn` + `kill_group` from here too. No process
started here inherits a credential (see `_env`).
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from bot import secrecy
from bot.errors import Cancelled, MissingBinary, Timeout

DEFAULT_TIMEOUT = 300.0
# Seconds a process's output may stay open after it exited (a child it left holds it) before
# its group is killed.
PIPE_GRACE = 10.0
OUTPUT_CAP = 64 * 1024 * 1024  # bytes kept per stream in memory; the rest is dropped and flagged
# With `run(spill=True)` stdout goes to an anonymous temporary file instead (nothing on disk to
# clean up, whatever happens), read back as a stream; beyond this it is dropped and flagged.
SPILL_CAP = 1024 * 1024 * 1024


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux: every core the machine has
        return os.cpu_count() or 1


# Tool runs at once (linter invocations; git and language servers are not counted): the
# cores this process may use, at least two so that a tool's base and head always run side by
# side. Independent tools start concurrently and wait here for a core (bot.run.pipeline).
TOOL_SLOTS = max(2, _cores())
_tool_slots = threading.BoundedSemaphore(TOOL_SLOTS)


@contextlib.contextmanager
def tool_slot() -> Iterator[None]:
    """Hold one of the `TOOL_SLOTS` while a tool runs."""
    with _tool_slots:
        yield


@dataclass(frozen=True)
class Result:
    """A finished process. With `run(spill=True)`, stdout is in `spool` (read it with `stream`
    or `lines`; `close` frees it) and `stdout` is empty."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes
    truncated: bool = False
    spool: BinaryIO | None = field(default=None, compare=False, repr=False)

    @property
    def out(self) -> str:
        """All of stdout as text (a spooled one up to OUTPUT_CAP bytes: use `lines`)."""
        if self.spool is not None:
            with self.stream() as stream:
                return stream.read(OUTPUT_CAP).decode("utf-8", errors="replace")
        return self.stdout.decode("utf-8", errors="replace")

    @contextlib.contextmanager
    def stream(self) -> Iterator[BinaryIO]:
        """stdout from its start, without reading it into memory."""
        if self.spool is None:
            yield io.BytesIO(self.stdout)
        else:
            self.spool.seek(0)
            yield self.spool

    def lines(self) -> Iterator[str]:
        """stdout line by line (ends stripped), decoded as UTF-8 with replacement."""
        with self.stream() as stream:
            for raw in stream:
                yield raw.decode("utf-8", errors="replace").rstrip("\r\n")

    def out_tail(self, lines: int = 15) -> str:
        """The last non-blank lines of stdout (of its last 64 KiB, when spooled)."""
        if self.spool is None:
            return tail(self.out, lines)
        size = self.spool.seek(0, io.SEEK_END)
        self.spool.seek(max(0, size - 65536))
        return tail(self.spool.read().decode("utf-8", errors="replace"), lines)

    def close(self) -> None:
        if self.spool is not None:
            self.spool.close()

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")

    def err_tail(self, lines: int = 15) -> str:
        return tail(self.err, lines)


def tail(text: str, lines: int = 15) -> str:
    kept = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(kept[-lines:])


def _env(extra: Mapping[str, str] | None) -> dict[str, str]:
    """The environment of every process started here: ours without any credential or file
    command variable (`secrecy.withheld`), plus `extra`. Explicit `extra` entries are the
    caller's intent and are kept even when they look secret (a token handed to one git
    push)."""
    env = {k: v for k, v in os.environ.items() if not secrecy.withheld(k, v)}
    # Tools must not paint their output or ask questions.
    env.update({"NO_COLOR": "1", "FORCE_COLOR": "0", "TERM": "dumb", "GIT_TERMINAL_PROMPT": "0"})
    if extra:
        env.update(extra)
    return env


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill a process started with `start_new_session=True` and everything it forked."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


# Every live process group we started: children run in their own session, so a signal sent
# to the bot never reaches them; `kill_all` does. Reentrant: a signal handler calling
# `kill_all` may interrupt the main thread while it holds the lock.
_live: dict[int, subprocess.Popen[bytes]] = {}
_live_lock = threading.RLock()
_cancelled_by: int | None = None  # the thread that called kill_all
_started = 0


def _track(proc: subprocess.Popen[bytes], program: str) -> None:
    with _live_lock:
        if _cancelled_by is not None and _cancelled_by != threading.get_ident():
            kill_group(proc)  # started by a worker just as the run was cancelled
            raise Cancelled(f"{program}: not run, the review is being cancelled")
        for pid in [pid for pid, p in _live.items() if p.returncode is not None]:
            del _live[pid]  # long-lived processes whose owner has reaped them
        _live[proc.pid] = proc
        global _started
        _started += 1


def started() -> int:
    """How many processes this run has started so far."""
    return _started


def _untrack(proc: subprocess.Popen[bytes]) -> None:
    with _live_lock:
        _live.pop(proc.pid, None)


# A cancel that reached the main thread while it was starting a process (`_starting`): raised
# once the process is tracked, so that it is killed with the others and never left running.
_starts = 0  # the main thread's open `_starting` blocks
_deferred: BaseException | None = None


@contextlib.contextmanager
def _starting() -> Iterator[None]:
    """Start and track a process inside: in the main thread, a cancel that comes meanwhile
    (`defer`) is raised when the block ends, after every process is killed again."""
    global _starts, _deferred
    if threading.current_thread() is not threading.main_thread():
        yield  # a worker tracks what it started itself (`_track` refuses after a cancel)
        return
    _starts += 1
    try:
        yield
    finally:
        _starts -= 1
        if _starts == 0 and _deferred is not None:
            cancel, _deferred = _deferred, None
            kill_all()  # what was started meanwhile is tracked now
            raise cancel


def defer(cancel: BaseException) -> bool:
    """Hold `cancel` until the main thread's `_starting` block ends; False outside one (for the
    signal handler, which then raises it at once)."""
    global _deferred
    if _starts == 0 or threading.current_thread() is not threading.main_thread():
        return False
    _deferred = cancel
    return True


def live_pids() -> list[int]:
    with _live_lock:
        return sorted(_live)


def kill_all() -> None:
    """Cancel the run: kill every live process group; from then on only the calling thread
    may start processes (to clean up)."""
    global _cancelled_by
    with _live_lock:
        _cancelled_by = threading.get_ident()
        procs = list(_live.values())
    for proc in procs:
        kill_group(proc)


def _reader(stream: object, sink: bytearray | BinaryIO, flag: list[bool]) -> None:
    read = stream.read  # type: ignore[attr-defined]
    cap = OUTPUT_CAP if isinstance(sink, bytearray) else SPILL_CAP
    kept = 0
    while True:
        chunk = read(65536)
        if not chunk:
            break
        room = cap - kept
        if room > 0:
            if isinstance(sink, bytearray):
                sink.extend(chunk[:room])
            else:
                sink.write(chunk[:room])
            kept += min(room, len(chunk))
        if len(chunk) > room:
            flag[0] = True


def run(
    argv: Sequence[str],
    *,
    cwd: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    hint: str = "",
    spill: bool = False,
) -> Result:
    """Run `argv` to completion; never raises for a non-zero exit, only for missing/timeout.

    `spill`: stdout goes to an anonymous temporary file (up to SPILL_CAP) rather than memory,
    for output that may be large (linters); the caller reads `Result.lines()`/`stream()`."""
    proc = _start(argv, cwd, env, subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                  hint)
    try:
        return _finish(proc, argv, timeout, stdin, spill)
    finally:
        _untrack(proc)


def _finish(proc: subprocess.Popen[bytes], argv: Sequence[str], timeout: float,
            stdin: bytes | None, spill: bool = False) -> Result:
    spool = tempfile.TemporaryFile() if spill else None  # noqa: SIM115 (owned by the Result)
    out, err = bytearray(), bytearray()
    try:
        return _wait(proc, argv, timeout, stdin, spool if spool is not None else out, err, spool)
    except BaseException:
        if spool is not None:
            spool.close()
        raise


def _wait(proc: subprocess.Popen[bytes], argv: Sequence[str], timeout: float,
          stdin: bytes | None, out: bytearray | BinaryIO, err: bytearray,
          spool: BinaryIO | None) -> Result:
    flag = [False]
    threads = [
        threading.Thread(target=_reader, args=(proc.stdout, out, flag), daemon=True),
        threading.Thread(target=_reader, args=(proc.stderr, err, flag), daemon=True),
    ]
    for t in threads:
        t.start()
    if stdin is not None and proc.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write(stdin)
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
    # Popen.wait(timeout) polls with sleeps of up to 50 ms; a blocking waitpid in a thread
    # joined with a timeout returns the moment the process exits.
    waiter = threading.Thread(target=proc.wait, daemon=True)
    waiter.start()
    waiter.join(timeout)
    if waiter.is_alive():
        kill_group(proc)
        waiter.join()
        for t in threads:
            t.join(timeout=5)
        raise Timeout(argv, timeout, bytes(err))
    # The leader exited; children that kept the pipes open must not hang us: both pipes get
    # PIPE_GRACE seconds together (one after the other, a daemon holding both cost twice it).
    deadline = time.monotonic() + PIPE_GRACE
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() for t in threads):
        kill_group(proc)
        for t in threads:
            t.join(timeout=5)
    stdout = bytes(out) if isinstance(out, bytearray) else b""
    return Result(tuple(str(a) for a in argv), proc.returncode, stdout, bytes(err), flag[0], spool)


def replace(argv: Sequence[str]) -> None:
    """Become `argv` (the same process, nothing of ours runs after): for the bot starting
    itself again with other interpreter flags, before it has started anything."""
    os.execv(argv[0], list(argv))


def handoff(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """Run `argv` with exactly `env` (credentials included: the caller chose it) and our own
    stdio, and return its exit status; SIGTERM and SIGINT sent to us are passed on to it. For
    the action's entry point, which hands the job to the bot and then reads its results."""
    started: list[subprocess.Popen[bytes]] = []

    def pass_on(number: int, _: object) -> None:
        for process in started:
            process.send_signal(number)

    forward = {sig: signal.signal(sig, pass_on) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        started.append(subprocess.Popen(list(argv), env=dict(env)))
        return started[0].wait()
    finally:
        for sig, previous in forward.items():
            signal.signal(sig, previous)


def spawn(
    argv: Sequence[str],
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    hint: str = "",
) -> subprocess.Popen[bytes]:
    """Start a long-lived process with piped stdio in its own process group."""
    return _start(argv, cwd, env, subprocess.PIPE, hint)


def _start(argv: Sequence[str], cwd: str | Path | None, env: Mapping[str, str] | None,
           stdin: int, hint: str) -> subprocess.Popen[bytes]:
    """`argv` in a session of its own, stdout and stderr piped, tracked for `kill_all`."""
    with _starting():
        try:
            process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=_env(env),
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise MissingBinary(str(argv[0]), hint) from exc
        except PermissionError as exc:
            raise MissingBinary(str(argv[0]), hint or f"{argv[0]} is not executable") from exc
        _track(process, str(argv[0]))
    return process
