"""How long to wait before sending a GitLab request again. Pure.

A 429 was not processed, so waiting and sending it again is safe even for a write; GitLab
says how long in `Retry-After` (seconds) or `RateLimit-Reset` (a Unix time). A 5xx or a
timeout may have taken effect: that is the caller's business (re-read before writing again).
"""

from __future__ import annotations

from collections.abc import Mapping

RATE_WAIT = 10.0  # a 429 that names no time
SERVER_WAIT = 1.0
LONGEST = 300.0  # a reset further away than this fails the run instead of stalling it


def header(headers: Mapping[str, str] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value
    return None


def rate_limit_wait(headers: Mapping[str, str] | None, attempt: int, now: float) -> float:
    """Seconds to wait after a 429."""
    retry_after = header(headers, "retry-after")
    if retry_after is not None:
        try:
            return min(LONGEST, max(0.0, float(retry_after)))
        except ValueError:
            pass
    reset = header(headers, "ratelimit-reset")
    if reset is not None:
        try:
            return min(LONGEST, max(0.0, float(reset) - now) + 1.0)
        except ValueError:
            pass
    return float(RATE_WAIT * 2**attempt)


def server_wait(attempt: int) -> float:
    """Exponential backoff for 5xx and timeouts on requests that are safe to repeat."""
    return float(SERVER_WAIT * 2**attempt)
