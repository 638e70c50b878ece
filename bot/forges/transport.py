"""The one place an httpx-based forge client sends an HTTP request: a JSON `Request` in, a
`Response` out, retried through `backoff.retry` as the forge's `judge` says.

Forge-neutral. A forge module supplies its base URL, its headers and its judge (rate limits,
which answers are worth sending again); the rules every forge shares are `judge()` here:
a rate-limited request was not processed, so it is waited out and sent again, writes too; a
5xx or a timeout is sent again only when repeating it cannot duplicate anything (a read, an
idempotent write), else it raises `Uncertain` and the caller reads the state again before
writing; a 403 on a write is `ReadOnly`.

`Recording` is the dry run: reads pass through (or are answered by a handler), writes are
kept as JSON-able `{method, path, body}` and answered with a plausible value, never sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote

import httpx

from bot.errors import BotError, Exit, HTTPError, NotFound, ReadOnly, Refused, Uncertain
from bot.forges.backoff import Failed, Sent, Wait, retry
from bot.forges.limits import LONGEST, header, rate_limited, rate_wait, server_wait

RETRIES = 4
Query = Mapping[str, str | int | bool | Sequence[str]]


@dataclass(frozen=True)
class Request:
    """One request. `path` is relative to the client's base URL (already quoted where a part
    holds user text: `segment()`); `body` is sent as JSON; `write` defaults to "not a GET"."""

    method: str
    path: str
    query: Query = field(default_factory=dict)
    body: Any = None
    write: bool | None = None
    idempotent: bool = False  # sending it twice leaves the same state (PATCH, PUT, DELETE)
    # The body's media type when it is not plain JSON (a JSON Patch document, RFC 6902).
    content_type: str | None = None

    @property
    def writes(self) -> bool:
        return self.method != "GET" if self.write is None else self.write

    @property
    def repeatable(self) -> bool:
        return not self.writes or self.idempotent


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]
    content: bytes = b""

    def json(self) -> Any:
        """The body as JSON; None for an empty body (204) or a body that is not JSON."""
        if not self.content:
            return None
        try:
            return json.loads(self.content)
        except ValueError:
            return None

    def header(self, name: str) -> str | None:
        return header(self.headers, name)


class Sender(Protocol):
    def send(self, request: Request) -> Response: ...


Judge = Callable[[Request, "Sent[httpx.Response] | Failed", float], Wait | None]


def segment(text: str) -> str:
    """One path segment of user text (a login, a label name), quoted."""
    return quote(text, safe="")


def message_of(response: httpx.Response) -> str:
    """What the forge said: its JSON `message` (Gitea, GitHub), or `error.message`
    (Bitbucket), else the text, shortened."""
    try:
        data = response.json()
    except ValueError:
        data = None
    text = data.get("message") if isinstance(data, dict) else None
    nested = data.get("error") if isinstance(data, dict) else None
    if not text and isinstance(nested, dict):
        text = nested.get("message")
    if not isinstance(text, str) or not text:
        text = response.text[:300]
    return f"{response.status_code} {text}".strip()


def forge_judge(forge: str, token_hint: str, max_wait: float) -> Judge:
    """`judge` with one forge's name, its hint for a refused token and its longest wait."""
    def verdict(request: Request, outcome: Sent[httpx.Response] | Failed,
                now: float) -> Wait | None:
        return judge(request, outcome, now, forge=forge, token_hint=token_hint,
                     max_wait=max_wait)
    return verdict


def judge(request: Request, outcome: Sent[httpx.Response] | Failed, now: float, *,
          forge: str, token_hint: str, max_wait: float = LONGEST) -> Wait | None:
    """The shared rules; a forge's own judge wraps this one (its names, its extra rules)."""
    what = f"{request.method} {request.path}"
    if isinstance(outcome, Failed):
        error = outcome.error
        if not isinstance(error, httpx.TransportError):
            return None  # not the network's fault: raised as it is
        if not request.repeatable:
            raise Uncertain(f"{forge} did not answer {what} ({type(error).__name__}); "
                            "it may have taken effect")
        return Wait(server_wait(outcome.attempt), f"no answer ({type(error).__name__})")
    response = outcome.value
    status = response.status_code
    if status < 400:
        return None
    message = message_of(response)
    if rate_limited(status, response.headers, message):
        wait = rate_wait(response.headers, outcome.attempt, now)
        if wait > max_wait:
            raise BotError(f"{forge} rate-limited {what} for {wait:.0f}s, longer than "
                           f"reviewbot waits ({max_wait:.0f}s)", Exit.FORGE)
        return Wait(wait, f"rate limited ({message})")
    if status >= 500:
        if not request.repeatable:
            raise Uncertain(f"{forge} answered {what} with {message}; it may have taken effect")
        return Wait(server_wait(outcome.attempt), message)
    if status == 401:
        raise HTTPError(f"{forge} refused the token ({message}); {token_hint}", status)
    if status == 403 and request.writes:
        raise ReadOnly(f"the token may not write here ({what}: {message})")
    if status == 404:
        raise NotFound(f"{forge}: not found ({what}: {message})", status)
    if status in (400, 409, 422):
        raise Refused(f"{forge} refused {what}: {message}", status)
    raise HTTPError(f"{forge} API error on {what}: {message}", status)


class Transport:
    """Requests to one API over an `httpx.Client`, each retried as `judge` allows."""

    def __init__(self, base_url: str, headers: Mapping[str, str], judge: Judge, *,
                 forge: str, timeout: float = 30.0, retries: int = RETRIES,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(headers=dict(headers), timeout=timeout, transport=transport,
                                    follow_redirects=False)
        self._judge = judge
        self._forge = forge
        self._retries = retries
        self.sleep = sleep
        self.clock = clock

    def close(self) -> None:
        self._client.close()

    def send(self, request: Request) -> Response:
        def once() -> httpx.Response:
            if request.content_type is not None and request.body is not None:
                return self._client.request(
                    request.method, self.base_url + request.path,
                    params=_params(request.query), content=json.dumps(request.body).encode(),
                    headers={"Content-Type": request.content_type})
            return self._client.request(
                request.method, self.base_url + request.path,
                params=_params(request.query),
                json=request.body if request.body is not None else None)

        def verdict(outcome: Sent[httpx.Response] | Failed) -> Wait | None:
            return self._judge(request, outcome, self.clock())

        answer = retry(once, verdict, retries=self._retries, sleep=self.sleep,
                       exhausted=lambda why: BotError(
                           f"{self._forge} API failed after {self._retries + 1} attempts "
                           f"({request.method} {request.path}): {why}", Exit.FORGE))
        return Response(answer.status_code, dict(answer.headers), answer.content)


def _params(query: Query) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for key, value in query.items():
        values = [value] if isinstance(value, str | int | bool) else list(value)
        for one in values:
            out.append((key, str(one).lower() if isinstance(one, bool) else str(one)))
    return tuple(out)


def pages(sender: Sender, request: Request, *, size: int, page: str = "page",
          limit: str = "limit", max_pages: int | None = None) -> list[Any]:
    """Every item of a list endpoint paged by `page` (1-based) and `limit`.

    The next page is asked for while the answer's Link header names one; from a server that
    sends no Link header, while a full page came back and X-Total-Count (when sent) says more
    exist.
    """
    out: list[Any] = []
    number = 1
    linked = False  # a server that sent Link once leaves it out (or names no next) at the end
    while True:
        response = sender.send(Request(request.method, request.path,
                                       {**request.query, page: number, limit: size}))
        batch = response.json()
        items = batch if isinstance(batch, list) else []
        out += items
        link = response.header("link")
        total = response.header("x-total-count")
        linked = linked or link is not None
        if linked:
            more = link is not None and 'rel="next"' in link
        else:
            more = len(items) >= size and (not total or not total.isdigit()
                                           or len(out) < int(total))
        if not more or not items or number == max_pages:
            return out
        number += 1


Answer = Callable[[Request], Any]


class Recording:
    """The dry run: writes are recorded in `requests` and answered by `answer` (a plausible
    JSON value, e.g. the object a POST would create), never sent. Reads go to `reads`, or
    are answered by `answer` too when there is nothing to read from (no token needed)."""

    def __init__(self, answer: Answer, reads: Sender | None = None) -> None:
        self._answer = answer
        self._reads = reads
        self.requests: list[dict[str, Any]] = []

    def send(self, request: Request) -> Response:
        if not request.writes:
            if self._reads is not None:
                return self._reads.send(request)
            return _respond(200, self._answer(request))
        entry: dict[str, Any] = {"method": request.method, "path": request.path}
        if request.query:
            entry["query"] = {k: v if isinstance(v, str | int | bool) else list(v)
                              for k, v in request.query.items()}
        entry["body"] = request.body if request.body is not None else {}
        self.requests.append(entry)
        value = self._answer(request)
        return _respond(204 if value is None else 201 if request.method == "POST" else 200,
                        value)


class Client:
    """The opening every httpx forge client shares (its `Api` builds on this): JSON over a
    `Transport` with the token's `Authorization` header and the forge's `judge`, the `sleep`
    its writers wait with, and the dry run's switch from sending writes to recording them
    (answered by `plausible`, or by the `answer` given)."""

    def __init__(self, base_url: str, authorization: str, *, forge: str, token_hint: str,
                 max_wait: float, timeout: float, plausible: Answer,
                 sleep: Callable[[float], None], clock: Callable[[], float],
                 http: httpx.BaseTransport | None) -> None:
        self.sleep = sleep
        self._plausible = plausible
        self._network = Transport(
            base_url, {"Authorization": authorization, "Accept": "application/json"},
            forge_judge(forge, token_hint, max_wait), forge=forge, timeout=timeout,
            sleep=sleep, clock=clock, transport=http)
        self._sender: Sender = self._network
        # Writes sent so far (a dry run's recorded ones too): a read kept for later
        # (`Change.summary_body(keep=True)`) is stale once one went out.
        self.writes = 0

    def record_writes(self, answer: Answer | None = None) -> Recording:
        """From now on writes are recorded (the returned `Recording.requests`), not sent."""
        recording = Recording(answer or self._plausible, self._network)
        self._sender = recording
        return recording

    def send(self, request: Request) -> Response:
        self.writes += request.writes
        return self._sender.send(request)


def _respond(status: int, value: Any) -> Response:
    content = b"" if value is None else json.dumps(value).encode()
    return Response(status, {"content-type": "application/json"}, content)
