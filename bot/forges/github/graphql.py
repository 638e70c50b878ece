"""A small GitHub GraphQL client over httpx: what REST cannot do (review threads).

Only idempotent operations go through it (queries, resolve/unresolve a thread), so a 5xx or
a timeout is retried; rate limits are waited out (the rules of `bot/forges/limits.py`, in the
one retry loop, `backoff.py`); mutations are spaced like REST writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from bot.errors import GraphQLError
from bot.forges.backoff import Failed, Sent, Wait, retry
from bot.forges.limits import SECONDARY_WAIT, rate_limit_wait, server_wait
from bot.forges.transport import Request, Sender

RETRIES = 3


class GraphQL:
    def __init__(self, url: str, token: str, *, timeout: float = 15.0, write_spacing: float = 1.0,
                 max_wait: float = 300.0, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        self._url = url
        self._client = httpx.Client(timeout=timeout, headers={
            "Authorization": f"bearer {token}", "User-Agent": "reviewbot"})
        self._spacing = write_spacing
        self._max_wait = max_wait
        self._sleep = sleep
        self._clock = clock
        self._last_write = 0.0
        self.requests = 0
        # A dry run: mutations go here (recorded, not sent) instead of to GitHub.
        self.mutations: Sender | None = None

    def close(self) -> None:
        self._client.close()

    def run(self, document: str, variables: Mapping[str, Any], *, mutation: bool = False
            ) -> dict[str, Any]:
        """The `data` of a successful response; raises GraphQLError after the retries."""
        if mutation and self.mutations is not None:
            self.mutations.send(Request("POST", "/graphql", body={
                "query": document, "variables": dict(variables)}))
            return {}
        if mutation:
            self._pace()

        def send() -> httpx.Response:
            self.requests += 1
            return self._client.post(self._url, json={"query": document,
                                                      "variables": dict(variables)})

        response = retry(send, self._judge, retries=RETRIES, sleep=self._sleep,
                         exhausted=lambda last: GraphQLError(
                             f"GitHub GraphQL failed after {RETRIES + 1} attempts: {last}"))
        return self._data(response)

    def _judge(self, outcome: Sent[httpx.Response] | Failed) -> Wait | None:
        """Only idempotent documents come here, so a 5xx or a timeout is sent again."""
        if isinstance(outcome, Failed):
            if isinstance(outcome.error, httpx.TransportError):  # timeouts included
                error = outcome.error
                return Wait(server_wait(outcome.attempt), f"{type(error).__name__}: {error}")
            return None
        wait = self._wait(outcome.value, outcome.attempt)
        return None if wait is None else Wait(wait, f"HTTP {outcome.value.status_code}")

    def _wait(self, response: httpx.Response, attempt: int) -> float | None:
        if response.status_code >= 500:
            return server_wait(attempt)
        wait = rate_limit_wait(response.status_code, response.headers, response.text, attempt,
                               self._clock(), fallback=SECONDARY_WAIT)
        if wait is None and response.status_code == 200 and '"RATE_LIMITED"' in response.text:
            wait = rate_limit_wait(429, response.headers, "rate limit", attempt, self._clock(),
                                   fallback=SECONDARY_WAIT)
        return None if wait is None else min(wait, self._max_wait)

    def _data(self, response: httpx.Response) -> dict[str, Any]:
        if response.status_code == 401:
            raise GraphQLError("GitHub GraphQL refused the token (401 Bad credentials)")
        try:
            payload = response.json()
        except ValueError as exc:
            raise GraphQLError(f"GitHub GraphQL answered HTTP {response.status_code} "
                               "with a body that is not JSON") from exc
        errors = payload.get("errors") if isinstance(payload, dict) else None
        if response.status_code != 200 or errors or not isinstance(payload.get("data"), dict):
            detail = "; ".join(str(e.get("message", e)) for e in errors or []) or response.text[:300]
            raise GraphQLError(f"GitHub GraphQL error (HTTP {response.status_code}): {detail}")
        data: dict[str, Any] = payload["data"]
        return data

    def _pace(self) -> None:
        gap = self._last_write + self._spacing - self._clock()
        if gap > 0:
            self._sleep(gap)
        self._last_write = self._clock()
