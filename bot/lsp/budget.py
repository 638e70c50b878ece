"""How long a language server may take: the timeout, started again by each sign of progress,
within a bound.

A cold start (a first index, `cargo metadata`, compile-time dependencies built on a loaded
machine) can take longer than the review's timeout while the server says what it is doing
(`$/progress`, `window/workDoneProgress/create`, rust-analyzer's `experimental/serverStatus`);
a server that says nothing for a whole timeout is stuck. So a wait ends at
`min(bound, max(start, last sign of progress) + timeout)`: a server that keeps working is
waited for, never past the bound (`ServerSpec.ready_timeout` beyond the timeout). A wait
given its deadline as a function looks at it again at least every second: a session whose
result is no longer wanted (`stop`) ends within a second.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

# A wait's time: seconds, or a function giving the seconds left now (a deadline that moves).
Timeout = float | Callable[[], float]


def remaining(timeout: Timeout) -> float:
    return max(0.0, timeout() if callable(timeout) else timeout)


@dataclass(frozen=True)
class Budget:
    start: float  # monotonic: when the tool started
    timeout: float  # seconds a server may go without a sign of progress
    bound: float  # monotonic: the latest end, however much progress is shown
    # Set when the result is no longer wanted: every wait ends at once (a deadline passed).
    stop: threading.Event | None = None

    @classmethod
    def of(cls, timeout: float, extra: float, now: float | None = None,
           stop: threading.Event | None = None) -> Budget:
        start = time.monotonic() if now is None else now
        return cls(start, timeout, start + timeout + max(0.0, extra), stop)

    def deadline(self, last_progress: float) -> float:
        if self.stop is not None and self.stop.is_set():
            return self.start
        return min(self.bound, max(self.start, last_progress) + self.timeout)

    def why(self, now: float, last_progress: float, working: str | None) -> str:
        """What a timeout means, for the tool's message: still working at the bound, silent
        for a whole timeout after some progress, or silent from the start."""
        if working is not None and now >= self.bound - 0.5:
            return (f"still showing progress ({working}) after {self.bound - self.start:g}s, "
                    f"the most a server may take while it works ({self.timeout:g}s timeout "
                    f"+ {self.bound - self.start - self.timeout:g}s)")
        if last_progress > self.start:
            return (f"no progress shown for {self.timeout:g}s"
                    + (f" (last: {working})" if working else ""))
        return "it showed no progress"
