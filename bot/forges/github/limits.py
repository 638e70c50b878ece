"""How long to wait before sending a GitHub request again: GitHub's documented rate-limit
rules, and the backoff for answers that may be transient.

Pure. A rate-limited request was not processed, so waiting and sending it again is safe even
for a write; a 5xx or a timeout is different (the write may have happened) and is the
caller's business.
"""

from __future__ import annotations

from collections.abc import Mapping

SECONDARY_WAIT = 60.0  # "Otherwise, wait for at least one minute" (GitHub REST docs)
SERVER_WAIT = 1.0


def header(headers: Mapping[str, str] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value
    return None


def rate_limit_wait(status: int, headers: Mapping[str, str] | None, message: str, attempt: int,
                    now: float) -> float | None:
    """Seconds to wait for a rate-limited response, or None when it is not one."""
    if status not in (403, 429):
        return None
    retry_after = header(headers, "retry-after")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            pass
    reset = header(headers, "x-ratelimit-reset")
    if header(headers, "x-ratelimit-remaining") == "0" and reset is not None:
        try:
            return max(0.0, float(reset) - now) + 1.0
        except ValueError:
            pass
    text = message.lower()
    if status == 429 or "rate limit" in text or "abuse" in text or "too quickly" in text:
        return float(SECONDARY_WAIT * 2**attempt)
    return None


def server_wait(attempt: int) -> float:
    """Exponential backoff for 5xx and timeouts on requests that are safe to repeat."""
    return float(SERVER_WAIT * 2**attempt)
