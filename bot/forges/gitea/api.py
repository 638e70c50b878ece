"""One connection to a Gitea (or Forgejo) server's REST API, `/api/v1`, over `transport.py`:
the token in `Authorization: token …`, lists paged by `page`/`limit`, Gitea's retry rules,
and a dry run that records writes instead of sending them.

Gitea sets no API rate limit of its own; a proxy in front of it may answer 429 with
Retry-After, which is waited out (`transport.judge`). A 5xx or a timeout on a write that is
not idempotent raises `Uncertain`: the caller reads again before writing again.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from bot.errors import BotError, Exit, HTTPError
from bot.forges.gitea.limits import PAGE_SIZE
from bot.forges.transport import (
    Client,
    Query,
    Request,
    Response,
    pages,
    segment,
)

TOKEN_HINT = ("set GITEA_TOKEN (or pass the workflow's token: `GITEA_TOKEN: ${{ "
              "secrets.GITEA_TOKEN }}`); it needs write access to issues and pull requests")
VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class Settings:
    api_url: str  # https://HOST/api/v1 (GITHUB_API_URL in Gitea Actions)
    token: str
    repository: str  # owner/name
    number: int | None = None  # the pull request, for the pull request side only
    timeout: float = 30.0
    target_url: str | None = None  # where the commit status links to (the run's page)
    max_wait: float = 300.0  # the longest rate-limit wait accepted


class Api(Client):
    """The REST client of one repository. `http` is an httpx transport to send through
    instead of the network (tests: `httpx.MockTransport`)."""

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None) -> None:
        if not settings.api_url.rstrip("/").endswith("/api/v1"):
            raise BotError(f"the Gitea API URL {settings.api_url!r} does not end in /api/v1 "
                           "(GITHUB_API_URL in a Gitea or Forgejo Actions run)", Exit.USAGE)
        owner, _, name = settings.repository.partition("/")
        if not owner or not name:
            raise BotError(f"the repository {settings.repository!r} is not owner/name",
                           Exit.USAGE)
        super().__init__(settings.api_url, f"token {settings.token}", forge="Gitea",
                         token_hint=TOKEN_HINT, max_wait=settings.max_wait,
                         timeout=settings.timeout, plausible=_plausible, sleep=sleep,
                         clock=clock, http=http)
        self.settings = settings
        self.repo = f"/repos/{segment(owner)}/{segment(name)}"
        self._me: dict[str, Any] | None = None
        self._version: tuple[int, int, int] | None = None
        self._forgejo = False

    # -- requests ------------------------------------------------------------------------

    def get(self, path: str, query: Query | None = None) -> Any:
        return self.send_get(path, query).json()

    def send_get(self, path: str, query: Query | None = None) -> Response:
        """A read whose answer is wanted as it came (a raw file, a diff)."""
        return self.send(Request("GET", path, query or {}))

    def list(self, path: str, query: Query | None = None, *,
             paged: bool = True) -> list[dict[str, Any]]:
        """Every item of a list; `paged=False` for the endpoints Gitea does not page."""
        if paged:
            data = pages(self._sender, Request("GET", path, query or {}), size=PAGE_SIZE)
        else:
            data = self.get(path, query)
        return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []

    def write(self, method: str, path: str, body: Any = None, *,
              idempotent: bool = False) -> Any:
        """One write; its answer as JSON (None for 204)."""
        return self.send(Request(method, path, body=body, idempotent=idempotent)).json()

    # -- who and what ----------------------------------------------------------------------

    def me(self) -> dict[str, Any]:
        """The token's account (`GET /user`): the bot's own."""
        if self._me is None:
            try:
                data = self.get("/user")
            except HTTPError as exc:
                if exc.status == 401:
                    raise
                raise BotError(f"Gitea did not say whose token this is ({exc.message}); "
                               "reviewbot knows its own comments by their author: give the "
                               "token the read:user scope", Exit.FORGE) from exc
            if not isinstance(data, dict) or not isinstance(data.get("login"), str):
                raise BotError("Gitea answered GET /user without a user", Exit.FORGE)
            self._me = data
        return self._me

    def version(self) -> tuple[int, int, int]:
        """The server's Gitea version (`GET /version`); Forgejo's `X.Y.Z+gitea-A.B.C` is
        read as the Gitea version it names, and `forgejo` says so. (0, 0, 0) when unknown."""
        if self._version is None:
            data = self.get("/version")
            self._version, self._forgejo = parse_version(
                str(data.get("version") or "") if isinstance(data, dict) else "")
        return self._version

    @property
    def forgejo(self) -> bool:
        self.version()
        return self._forgejo


def parse_version(text: str) -> tuple[tuple[int, int, int], bool]:
    """The Gitea version `GET /version` names, and whether the server is Forgejo (whose
    `X.Y.Z+gitea-A.B.C` names the Gitea version it is compatible with)."""
    forgejo = "+gitea-" in text
    found = VERSION.search(text.split("+gitea-", 1)[1] if forgejo else text)
    if found is None:
        return (0, 0, 0), forgejo
    return (int(found.group(1)), int(found.group(2)), int(found.group(3) or 0)), forgejo


def _plausible(request: Request) -> Any:
    """What a write would answer, as far as a caller reads it: an id for what it creates."""
    if request.method == "DELETE":
        return None
    body = request.body if isinstance(request.body, Mapping) else {}
    return {"id": 0, "number": 0, **{k: v for k, v in body.items() if k != "comments"},
            "labels": [], "state": "open"}
