"""The one retry loop every forge request goes through, REST or GraphQL.

Neutral and small: the caller sends, a `judge` classifies what came back (done, wait N
seconds and send again, or raise), and the loop keeps count. What counts as retryable, and
for how long to wait, is the forge's own rule (rate-limit answers are read in `limits.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Sent(Generic[T]):
    """The request was answered (the answer may still be a failure the judge retries)."""

    attempt: int  # 0 for the first
    value: T


@dataclass(frozen=True)
class Failed:
    """The request raised."""

    attempt: int
    error: Exception


@dataclass(frozen=True)
class Wait:
    """Send again after `seconds`; `why` is kept for the message when every attempt fails."""

    seconds: float
    why: str


def retry(send: Callable[[], T], judge: Callable[[Sent[T] | Failed], Wait | None], *,
          retries: int, sleep: Callable[[float], None],
          exhausted: Callable[[str], Exception]) -> T:
    """`send()` until `judge` accepts its outcome (None), at most `retries` more times.

    An accepted failure is raised as it was; `judge` may raise an error of its own instead.
    After the last attempt nothing is waited for: `exhausted(last reason)` is raised.
    """
    for attempt in range(retries + 1):
        outcome: Sent[T] | Failed
        try:
            outcome = Sent(attempt, send())
        except Exception as exc:  # the judge decides; what it does not know is raised below
            outcome = Failed(attempt, exc)
        wait = judge(outcome)
        if wait is None:
            if isinstance(outcome, Failed):
                raise outcome.error
            return outcome.value
        if attempt == retries:
            raise exhausted(wait.why)
        sleep(wait.seconds)
    raise AssertionError("unreachable")
