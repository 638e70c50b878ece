"""How long to wait before sending a forge request again: the one reading of rate-limit
answers (Retry-After, X-RateLimit-Reset, RateLimit-Reset) and the backoff for answers that
may be transient. Pure, forge-neutral; every forge package reads its waits here.

A rate-limited request was not processed, so waiting and sending it again is safe even for a
write; a 5xx or a timeout is different (the write may have happened) and is the caller's
business (`transport.judge`).
"""

from __future__ import annotations

from collections.abc import Mapping

SERVER_WAIT = 1.0
RATE_WAIT = 10.0  # a 429 that names no time
# GitHub's secondary limits name no time: "Otherwise, wait for at least one minute" (REST docs).
SECONDARY_WAIT = 60.0
LONGEST = 300.0  # a rate-limit wait longer than this fails the run instead of stalling it
# Words of a 403 that is a secondary rate limit (GitHub) rather than a refusal.
_SECONDARY = ("rate limit", "abuse", "too quickly")
# (reset, remaining): GitHub's and Gitea's names, then the IETF draft's that GitLab sends.
_RESETS = (("x-ratelimit-reset", "x-ratelimit-remaining"), ("ratelimit-reset", "ratelimit-remaining"))


def header(headers: Mapping[str, str] | None, name: str) -> str | None:
    """A header's value, whatever case the answer spelled its name in."""
    wanted = name.lower()
    for key, value in (headers or {}).items():
        if key.lower() == wanted:
            return value
    return None


def server_wait(attempt: int) -> float:
    """Exponential backoff for 5xx and timeouts on requests that are safe to repeat."""
    return float(SERVER_WAIT * 2**attempt)


def rate_limited(status: int, headers: Mapping[str, str] | None, message: str = "") -> bool:
    """A 429; a 403 with no requests left; a 403 whose message names a secondary limit."""
    if status == 429:
        return True
    if status != 403:
        return False
    if any(header(headers, remaining) == "0" for _, remaining in _RESETS):
        return True
    text = message.lower()
    return any(word in text for word in _SECONDARY)


def rate_wait(headers: Mapping[str, str] | None, attempt: int, now: float, *,
              fallback: float = RATE_WAIT) -> float:
    """Seconds to wait after a rate-limited answer: Retry-After (seconds), else the reset
    (a Unix time) of a limit that has no request left (or that does not say how many are left:
    a secondary limit's 403 carries the primary limit's reset, which says nothing about it),
    else `fallback` doubled each attempt."""
    retry_after = _number(header(headers, "retry-after"))
    if retry_after is not None:
        return max(0.0, retry_after)
    for reset_name, remaining_name in _RESETS:
        reset = _number(header(headers, reset_name))
        remaining = header(headers, remaining_name)
        if reset is not None and remaining in (None, "0"):
            return max(0.0, reset - now) + 1.0
    return float(fallback * 2**attempt)


def rate_limit_wait(status: int, headers: Mapping[str, str] | None, message: str, attempt: int,
                    now: float, *, fallback: float = RATE_WAIT) -> float | None:
    """Seconds to wait for a rate-limited answer, or None when it is not one."""
    if not rate_limited(status, headers, message):
        return None
    return rate_wait(headers, attempt, now, fallback=fallback)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None
