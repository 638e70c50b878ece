"""One connection to Bitbucket Cloud's REST API 2.0 over `transport.py`: the token in
`Authorization: Bearer …` (a repository or workspace access token), collections paged by
`page`/`pagelen` and followed by their `next` link, and a dry run that records writes
instead of sending them.

Bitbucket answers 429 when a rate limit is reached (waited out, `transport.judge`). A 5xx or
a timeout on a write that is not idempotent raises `Uncertain`: the caller reads again
before writing again. Its errors are `{"type": "error", "error": {"message": …}}`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from bot.errors import BotError, Exit, HTTPError
from bot.forges.bitbucket.limits import PAGE_SIZE
from bot.forges.transport import (
    Client,
    Query,
    Request,
    Response,
    segment,
)

API_URL = "https://api.bitbucket.org/2.0"
TOKEN_HINT = ("set REVIEWBOT_BITBUCKET_TOKEN to a repository (or workspace) access token with "
              "the pull request write scope, as a secured repository variable "
              "(docs/bitbucket.md)")
MAX_PAGES = 50  # 5000 items: a list longer than that is not one the bot wrote


@dataclass(frozen=True)
class Settings:
    api_url: str  # https://api.bitbucket.org/2.0
    token: str
    repository: str  # workspace/repo_slug
    number: int | None = None  # the pull request, for the pull request side only
    timeout: float = 30.0
    target_url: str | None = None  # where the build status links to (the pipeline's page)
    max_wait: float = 300.0  # the longest rate-limit wait accepted


class Api(Client):
    """The REST client of one repository. `http` is an httpx transport to send through
    instead of the network (tests: `httpx.MockTransport`)."""

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None) -> None:
        workspace, _, slug = settings.repository.partition("/")
        if not workspace or not slug or "/" in slug:
            raise BotError(f"the repository {settings.repository!r} is not workspace/slug",
                           Exit.USAGE)
        super().__init__(settings.api_url, f"Bearer {settings.token}", forge="Bitbucket",
                         token_hint=TOKEN_HINT, max_wait=settings.max_wait,
                         timeout=settings.timeout, plausible=_plausible, sleep=sleep,
                         clock=clock, http=http)
        self.settings = settings
        self.workspace, self.slug = workspace, slug
        self.repo = f"/repositories/{segment(workspace)}/{segment(slug)}"
        self._me: dict[str, Any] | None = None

    # -- requests ------------------------------------------------------------------------

    def get(self, path: str, query: Query | None = None) -> Any:
        return self.send(Request("GET", path, query or {})).json()

    def list(self, path: str, query: Query | None = None, *,
             paged: bool = True) -> list[dict[str, Any]]:
        """Every value of a collection: page after page while the answer names a `next`.
        `paged=False`: the first page alone, asked for without `pagelen`, where the
        description does not call the answer a page (a pull request's commits, newest first)."""
        if not paged:
            data = self.get(path, query)
            values = data.get("values") if isinstance(data, dict) else None
            return [v for v in values or () if isinstance(v, dict)]
        out: list[dict[str, Any]] = []
        ask: dict[str, Any] = {**(query or {}), "pagelen": PAGE_SIZE}
        for _ in range(MAX_PAGES):
            data = self.send(Request("GET", path, ask)).json()
            if not isinstance(data, dict):
                return out
            out += [v for v in data.get("values") or () if isinstance(v, dict)]
            following = data.get("next")
            if not isinstance(following, str):
                return out
            # The `next` link names the same path with its own page (and query).
            ask = {**dict(parse_qsl(urlsplit(following).query)), "pagelen": PAGE_SIZE}
        return out

    def write(self, method: str, path: str, body: Any = None, *,
              idempotent: bool = False) -> Any:
        """One write; its answer as JSON (None for 204)."""
        return self.send(Request(method, path, body=body, idempotent=idempotent)).json()

    def follow(self, path: str) -> Response:
        """A read whose answer is a redirect elsewhere in the API (a pull request's diff
        answers 302 to the repository's `diff/{spec}`): the answer where it leads."""
        response = self.send(Request("GET", path))
        for _ in range(3):
            where = response.header("location")
            if response.status not in (301, 302, 303, 307, 308) or not where:
                return response
            target = urlsplit(where)
            base = urlsplit(self.settings.api_url)
            if (target.scheme, target.netloc) != (base.scheme, base.netloc) \
                    or not target.path.startswith(base.path.rstrip("/") + "/"):
                raise BotError(f"Bitbucket redirected {path} outside its API ({where})",
                               Exit.FORGE)
            response = self.send(Request("GET", target.path[len(base.path.rstrip("/")):],
                                         dict(parse_qsl(target.query))))
        return response

    # -- who -------------------------------------------------------------------------------

    def me(self) -> dict[str, Any]:
        """The token's account (`GET /user`): the bot's own."""
        if self._me is None:
            try:
                data = self.get("/user")
            except HTTPError as exc:
                if exc.status == 401:
                    raise
                raise BotError(f"Bitbucket did not say whose token this is ({exc.message}); "
                               "reviewbot knows its own comments by their author", Exit.FORGE
                               ) from exc
            if not isinstance(data, dict) or not isinstance(data.get("account_id") or
                                                            data.get("uuid"), str):
                raise BotError("Bitbucket answered GET /user without an account", Exit.FORGE)
            self._me = data
        return self._me


def account(user: Any) -> str | None:
    """An account's stable id (its `account_id`, else its `uuid`)."""
    if not isinstance(user, Mapping):
        return None
    value = user.get("account_id") or user.get("uuid")
    return value if isinstance(value, str) else None


def _plausible(request: Request) -> Any:
    """What a write would answer, as far as a caller reads it: an id for what it creates."""
    if request.method == "DELETE":
        return None
    body = request.body if isinstance(request.body, Mapping) else {}
    return {"id": 0, **body, "state": body.get("state", "new")}
