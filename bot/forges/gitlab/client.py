"""GitLab's REST plumbing (the only module that imports python-gitlab): python-gitlab with its
own retries off, ours in `Client._call`, and a dry run's recording at `_write`.

Retries are ours: python-gitlab's own would send a POST again after a 5xx (a duplicated
note), so each request is sent with them off and goes through `backoff.retry`. A write that
may have taken effect raises `Uncertain`, and the publish flow re-reads before writing again.
A dry run (`record_writes()`) reads as usual and records each write (`transport.Recording`,
the one recording layer of every forge) instead of sending it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import gitlab
import requests

from bot.errors import BotError, Exit, NotFound, ReadOnly, Refused, Uncertain
from bot.forges.backoff import Failed, Sent, Wait, retry
from bot.forges.limits import LONGEST, rate_wait, server_wait
from bot.forges.transport import Recording, Request

RETRIES = 4
PER_PAGE = 100
T = TypeVar("T")
_ISSUE = re.compile(r"/issues(?:/(\d+))?$")  # an issue made or edited: the sweep reads it back


class Client:
    """The REST plumbing both sides share: python-gitlab with its retries off, ours in `_call`."""

    def __init__(self, api_url: str, token: str, project: str, timeout: float,
                 sleep: Callable[[float], None], clock: Callable[[], float]) -> None:
        self._sleep, self._clock = sleep, clock
        self._recording: Recording | None = None  # a dry run's writes, in order
        server = api_url.rstrip("/").removesuffix("/api/v4")
        self._gl = gitlab.Gitlab(server, private_token=token, timeout=timeout,
                                 retry_transient_errors=False, keep_base_url=True)
        self._headers: dict[str, str] = {}  # of the last answer: a 429's Retry-After
        self._gl.session.hooks["response"].append(self._keep_headers)
        self._project = f"/projects/{quote(project, safe='')}"
        self._me: int | None = None

    def record_writes(self, into: Recording | None = None) -> Recording:
        """A dry run: from now on each write is recorded in the returned `Recording.requests`
        (`into`'s, to share one record between the merge request and the project side), not
        sent, and answered with nothing but an issue's own fields (`answer`)."""
        self._recording = into or Recording(answer)
        return self._recording

    def me(self) -> int:
        """The token's user: the bot's own account."""
        if self._me is None:
            self._me = int(self._get("/user")["id"])
        return self._me

    # -- plumbing ----------------------------------------------------------------------

    def _keep_headers(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        self._headers = dict(response.headers)

    def _get(self, path: str) -> dict[str, Any]:
        data = self._call(lambda: self._gl.http_get(path, **OFF), write=False)
        if not isinstance(data, dict):
            raise BotError(f"GitLab answered GET {path} with something else than an object",
                           Exit.FORGE)
        return data

    def _list(self, path: str, query: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
        data = self._call(lambda: list(self._gl.http_list(path, query_data=dict(query or {}),
                                                          get_all=True, per_page=PER_PAGE,
                                                          **OFF)), write=False)
        return [d for d in data if isinstance(d, dict)]

    def _write(self, method: Literal["POST", "PUT", "DELETE"], path: str, *,
               data: Mapping[str, Any] | None = None, query: Mapping[str, str] | None = None,
               idempotent: bool = False) -> Any:
        """Send one write (a dry run records it instead and answers None)."""
        if self._recording is not None:
            return self._recording.send(Request(method, path, dict(query or {}),
                                                dict(data) if data is not None else None)).json()
        post, params = dict(data) if data is not None else None, dict(query or {})
        if method == "DELETE":
            return self._call(lambda: self._gl.http_delete(path, **OFF), write=True,
                              idempotent=idempotent)
        send = self._gl.http_post if method == "POST" else self._gl.http_put
        return self._call(lambda: send(path, query_data=params, post_data=post, **OFF),
                          write=True, idempotent=idempotent)

    def _call(self, send: Callable[[], T], *, write: bool, idempotent: bool = False) -> T:
        """Send with our retries: a 429 waits as GitLab says; a 5xx or a timeout is sent again
        only when repeating it cannot duplicate anything, else it is `Uncertain`."""
        repeatable = not write or idempotent

        def judge(outcome: Sent[T] | Failed) -> Wait | None:
            if isinstance(outcome, Sent):
                return None
            error, attempt = outcome.error, outcome.attempt
            if isinstance(error, requests.exceptions.RequestException):
                if not repeatable:
                    raise Uncertain(f"GitLab did not answer a write in time ({error})")
                return Wait(server_wait(attempt), f"no answer ({type(error).__name__})")
            if not isinstance(error, gitlab.exceptions.GitlabError):
                return None
            code = error.response_code or 0
            message = f"{code}: {error.error_message}"
            if code == 429:
                return Wait(min(LONGEST, rate_wait(self._headers, attempt, self._clock())),
                            message)
            if code >= 500:
                if not repeatable:
                    raise Uncertain(f"GitLab answered a write with {message}")
                return Wait(server_wait(attempt), message)
            if code in (401, 403):
                if write:
                    raise ReadOnly(f"the token may not write to this merge request ({message})")
                raise BotError(f"GitLab refused the token ({message}): it needs the `api` scope "
                               "and the Developer role or higher", Exit.FORGE)
            if code == 404:
                raise NotFound(f"not found ({message})")
            if code in (400, 409, 422):
                raise Refused(message)
            return None

        return retry(send, judge, retries=RETRIES, sleep=self._sleep,
                     exhausted=lambda why: BotError(f"the GitLab API kept failing: {why}",
                                                    Exit.FORGE))


def answer(request: Request) -> dict[str, Any] | None:
    """A recorded write's answer: an issue made or edited is the issue the request describes
    (the sweep goes on with it); GitLab's answer to anything else is not read back."""
    found = _ISSUE.search(request.path)
    if found is None or request.method == "DELETE":
        return None
    body = request.body if isinstance(request.body, Mapping) else {}
    labels = body.get("labels")
    return {"iid": int(found.group(1) or 0), "title": body.get("title", ""),
            "description": body.get("description", ""),
            "labels": [x for x in str(labels).split(",") if x] if labels else [],
            "state": "closed" if body.get("state_event") == "close" else "opened"}


OFF: dict[str, Any] = {"obey_rate_limit": False, "retry_transient_errors": False, "max_retries": 0}


def author(note: Any) -> int | None:
    if not isinstance(note, dict):
        return None
    user = note.get("author", note)
    value = user.get("id") if isinstance(user, dict) else None
    return value if isinstance(value, int) else None
