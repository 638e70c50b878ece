"""One connection to GitHub (PyGithub for REST, `graphql.py` for GraphQL) and the one place
a REST call is sent, judged and retried; shared by the pull request side (`github.py`) and
the repository side (`github_repository.py`).

Retries are ours, not the library's: PyGithub's default retry re-sends a POST after a 502 that
already took effect. Here a rate-limited request (403/429 with retry-after, reset or a
secondary-limit message) is waited out and sent again, because GitHub did not process it; a
5xx or a timeout on a read is retried with backoff; on a write that is not idempotent it
raises `Uncertain`, and the caller reads the state again before writing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import requests
from github import Auth, Github, GithubException
from github.Repository import Repository as PyRepository
from github.Requester import Requester

from bot.errors import BotError, Exit, NotFound, ReadOnly, Refused, Uncertain
from bot.forges.backoff import Failed, Sent, Wait, retry
from bot.forges.github.graphql import GraphQL
from bot.forges.github.recording import record
from bot.forges.limits import SECONDARY_WAIT, rate_limit_wait, server_wait
from bot.forges.transport import Recording

T = TypeVar("T")
API_VERSION = "2022-11-28"
RETRIES = 3
PER_PAGE = 100  # the most a GitHub list endpoint returns per page


@dataclass(frozen=True)
class Settings:
    api_url: str
    graphql_url: str
    token: str
    repository: str  # owner/name
    number: int | None = None  # the pull request, for the pull request side only
    timeout: float = 15.0
    read_spacing: float = 0.0
    write_spacing: float = 1.0  # GitHub: "wait at least one second between mutative requests"
    max_wait: float = 300.0  # the longest rate-limit wait we accept before giving up


class Api:
    """The REST and GraphQL clients of one repository, with GitHub's retry rules."""

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.sleep = sleep
        self.clock = clock
        # No token: a dry run that reads nothing (PyGithub refuses an empty one).
        self.gh = Github(auth=Auth.Token(settings.token) if settings.token else None,
                         base_url=settings.api_url,
                         timeout=int(max(1, settings.timeout)), retry=None, per_page=PER_PAGE,
                         seconds_between_requests=settings.read_spacing or None,
                         seconds_between_writes=settings.write_spacing or None,
                         lazy=True, api_version=API_VERSION)
        self.repo: PyRepository = self.gh.get_repo(settings.repository)  # lazy: no request
        # REST writes sent so far: a read kept for later is stale once one was sent.
        self.writes = 0
        self.gql = GraphQL(settings.graphql_url, settings.token, timeout=settings.timeout,
                           write_spacing=settings.write_spacing, max_wait=settings.max_wait,
                           sleep=sleep, clock=clock)

    def record_writes(self, *, head: str, reads: bool) -> Recording:
        """A dry run: from now on writes (REST and GraphQL) are recorded in the returned
        `Recording.requests`, not sent; reads go to GitHub when `reads`, else they find a
        fresh pull request at `head` (`recording.py`)."""
        recording = record(self.requester, self.settings.api_url, self.url,
                           self.settings.number, head=head, reads=reads)
        self.gql.mutations = recording
        return recording

    @property
    def requester(self) -> Requester:
        return self.gh.requester

    @property
    def url(self) -> str:
        """The repository's REST URL."""
        return str(self.repo.url)

    def call(self, fn: Callable[[], T], *, write: bool, idempotent: bool = False) -> T:
        """`fn()` (one REST request through PyGithub), retried as GitHub's rules allow."""
        self.writes += write
        def judge(outcome: Sent[T] | Failed) -> Wait | None:
            return None if isinstance(outcome, Sent) else self._judge(outcome, write, idempotent)

        return retry(fn, judge, retries=RETRIES, sleep=self.sleep, exhausted=lambda last: BotError(
            f"GitHub API failed after {RETRIES + 1} attempts: {last}", Exit.FORGE))

    def _judge(self, failed: Failed, write: bool, idempotent: bool) -> Wait | None:
        exc, attempt = failed.error, failed.attempt
        if isinstance(exc, GithubException):
            message = _message(exc)
            wait = rate_limit_wait(exc.status, exc.headers, message, attempt, self.clock(),
                                   fallback=SECONDARY_WAIT)
            if wait is not None and wait <= self.settings.max_wait:
                # not processed: safe to send again, writes included
                return Wait(wait, f"rate limited ({message})")
            _raise_for(exc, message, write)
            if write and not idempotent:
                raise Uncertain(f"GitHub answered {exc.status} ({message})") from exc
            return Wait(server_wait(attempt), f"{exc.status} {message}")
        if isinstance(exc, requests.RequestException):
            if write and not idempotent:
                raise Uncertain(f"no answer from GitHub ({type(exc).__name__})") from exc
            return Wait(server_wait(attempt), type(exc).__name__)
        return None

    def request(self, method: str, url: str, *, parameters: Mapping[str, Any] | None = None,
                body: Mapping[str, Any] | None = None, write: bool | None = None,
                idempotent: bool = False) -> tuple[dict[str, Any], Any]:
        """One JSON request (headers, data); `write` defaults to "not a GET"."""
        writes = method != "GET" if write is None else write
        return self.call(lambda: self.requester.requestJsonAndCheck(
            method, url, parameters=dict(parameters) if parameters is not None else None,
            input=dict(body) if body is not None else None), write=writes, idempotent=idempotent)

    def list(self, url: str, parameters: Mapping[str, Any] | None = None, *,
             max_pages: int | None = None) -> list[dict[str, Any]]:
        """Every page of a list endpoint (at most `max_pages`), as JSON.

        PyGithub's list items are incomplete objects: reading a field GitHub omits (a root
        comment has no `in_reply_to_id`) would cost one GET per comment.
        """
        out: list[dict[str, Any]] = []
        page = 1
        while True:
            headers, data = self.request("GET", url, parameters={
                **(parameters or {}), "per_page": PER_PAGE, "page": page})
            out += data if isinstance(data, list) else []
            if 'rel="next"' not in str(headers.get("link", "")) or page == max_pages:
                return out
            page += 1


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    text = str(data.get("message") or exc.message or "")
    errors = data.get("errors")
    if isinstance(errors, list) and errors:
        text += ": " + "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e)
                                 for e in errors)
    return text


def _raise_for(exc: GithubException, message: str, write: bool) -> None:
    """Errors no retry can fix."""
    if exc.status == 401:
        raise BotError(f"GitHub refused the token (401 {message}); check GITHUB_TOKEN", Exit.FORGE)
    if exc.status == 403 and write:
        raise ReadOnly(f"the token may not write here (403 {message})")
    if exc.status == 422:
        raise Refused(message)
    if exc.status == 404:
        raise NotFound(f"GitHub API error 404: {message}")
    if 400 <= exc.status < 500:
        raise BotError(f"GitHub API error {exc.status}: {message}", Exit.FORGE)
