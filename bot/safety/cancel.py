"""Cancelling a run: SIGTERM (what CI sends on cancel and timeout) and SIGINT kill every tool
and unwind the main thread, so that every `finally` runs (worktrees and the scratch folder go).

The kernel hands a signal sent to the process to any thread that does not block it, and
Python runs the handler only in the main thread. A main thread blocked on a lock (waiting for
a tool's result) is not woken when a worker took the signal: the cancel would wait for the
slowest tool. So the signal is also written to a wake-up pipe, and a small thread sends it on
to the main thread itself, which interrupts that wait.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from bot import proc

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Terminated(BaseException):
    """SIGTERM, raised in the main thread. A BaseException, so that no `except Exception` of
    a tool adapter takes it for the tool's own failure."""


_cancelled = threading.Event()


class _Shield:
    """Clean-ups in progress (in the main thread) and the cancel that waits for them."""

    depth = 0
    pending: BaseException | None = None


def _cancel(signum: int, frame: FrameType | None) -> None:
    if _cancelled.is_set():
        return  # the same signal sent on to the main thread: handled once
    _cancelled.set()
    for each in SIGNALS:
        signal.signal(each, signal.SIG_IGN)  # a second signal must not cut the clean-up short
    cancel = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    if _Shield.depth:  # a clean-up is running (its own git included): it ends, then this
        _Shield.pending = cancel
        return
    # The children run in their own sessions: the signal reached only us.
    proc.kill_all()
    if not proc.defer(cancel):  # else raised as soon as the process being started is tracked
        raise cancel


def _send_on(wakeups: int, main: int) -> None:
    """Send each cancel signal that reached the process on to the main thread."""
    with os.fdopen(wakeups, "rb", buffering=0) as pipe:
        while byte := pipe.read(1):
            if byte[0] in SIGNALS and not _cancelled.is_set():
                signal.pthread_kill(main, byte[0])


def cancelled() -> bool:
    """Whether this run is being cancelled (a SIGTERM or SIGINT arrived)."""
    return _cancelled.is_set()


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """A clean-up (worktrees and scratch folders removed) that a cancel must not cut short: a
    SIGTERM or SIGINT arriving inside it is raised when it ends, not in its middle."""
    _Shield.depth += 1
    try:
        yield
    finally:
        _Shield.depth -= 1
        if not _Shield.depth and _Shield.pending is not None:
            cancel, _Shield.pending = _Shield.pending, None
            proc.kill_all()
            raise cancel


@contextlib.contextmanager
def cancellable() -> Iterator[None]:
    """Within the block, SIGTERM raises `Terminated` and SIGINT `KeyboardInterrupt` in the
    main thread, after every tool is killed. Elsewhere than in the main thread: nothing
    (signal handlers can only be set there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _cancelled.clear()
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # a full pipe must never block the signal handler
    outer = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    sender = threading.Thread(target=_send_on, args=(read_end, threading.get_ident()),
                              name="cancel", daemon=True)
    sender.start()
    previous = {each: signal.signal(each, _cancel) for each in SIGNALS}
    try:
        yield
    finally:
        signal.set_wakeup_fd(outer)
        os.close(write_end)  # the sender reads the end of the pipe and stops
        sender.join()
        for each, handler in previous.items():
            signal.signal(each, handler)
