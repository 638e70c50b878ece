"""The one reading of rate-limit answers, as GitHub, GitLab and Gitea send them."""

from __future__ import annotations

import pytest

from bot.forges import limits

NOW = 1_000_000.0


@pytest.mark.parametrize(("status", "headers", "message", "wait"), [
    (429, {"Retry-After": "7"}, "", 7.0),
    (429, {"retry-after": "-3"}, "", 0.0),
    (403, {"Retry-After": "30"}, "You have exceeded a secondary rate limit", 30.0),
    # GitHub's primary limit: no request left, the reset a Unix time
    (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(NOW) + 20)}, "", 21.0),
    # GitLab's 429 names RateLimit-Reset
    (429, {"RateLimit-Remaining": "0", "RateLimit-Reset": str(int(NOW) + 5)}, "", 6.0),
    (429, {"RateLimit-Reset": str(int(NOW) + 5)}, "", 6.0),
    # a secondary limit's 403 carries the primary reset, with requests left: a minute
    (403, {"X-RateLimit-Remaining": "4000", "X-RateLimit-Reset": str(int(NOW) + 3000)},
     "You have exceeded a secondary rate limit", 60.0),
    (429, {"Retry-After": "soon"}, "", 60.0),
    (403, {}, "Resource not accessible by integration", None),
    (404, {"Retry-After": "7"}, "", None),
    (500, {}, "rate limit", None),
])
def test_a_rate_limited_answer_waits_as_it_says(status: int, headers: dict[str, str],
                                               message: str, wait: float | None) -> None:
    assert limits.rate_limit_wait(status, headers, message, 0, NOW,
                                  fallback=limits.SECONDARY_WAIT) == wait


def test_an_answer_that_names_no_time_backs_off_doubling() -> None:
    assert [limits.rate_wait({}, attempt, NOW) for attempt in range(3)] == [10.0, 20.0, 40.0]
    assert [limits.server_wait(attempt) for attempt in range(3)] == [1.0, 2.0, 4.0]


def test_headers_are_read_whatever_their_case() -> None:
    assert limits.header({"X-RATELIMIT-REMAINING": "0"}, "x-ratelimit-remaining") == "0"
    assert limits.header(None, "retry-after") is None
