"""One connection to an Azure DevOps Services project's REST API,
`{collection}/{project}/_apis`, over `transport.py`: the token as a bearer token (a
pipeline's `System.AccessToken`, or a personal access token), `api-version` on every request,
lists unwrapped from Azure DevOps's `{"count", "value"}`, and a dry run that records writes
instead of sending them.

Azure DevOps answers a token it does not take with its sign-in page (203, HTML), not with
401: that answer is refused here as the token's fault. Its rate limits answer 429 with
Retry-After, which is waited out (`transport.judge`). A 5xx or a timeout on a write that is
not idempotent raises `Uncertain`: the caller reads again before writing again.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import httpx

from bot.errors import BotError, Exit, HTTPError
from bot.forges.transport import (
    Client,
    Query,
    Request,
    Response,
    segment,
)

TOKEN_HINT = ("map the pipeline's token into the step's env (`SYSTEM_ACCESSTOKEN: "
              "$(System.AccessToken)`) and give the project's Build Service identity "
              "`Contribute to pull requests` on the repository")


@dataclass(frozen=True)
class Settings:
    collection_url: str  # https://dev.azure.com/ORGANIZATION/ (SYSTEM_COLLECTIONURI)
    project: str  # SYSTEM_TEAMPROJECT
    repository: str  # the repository's id (BUILD_REPOSITORY_ID) or name
    token: str
    number: int | None = None  # the pull request, for the pull request side only
    timeout: float = 30.0
    target_url: str | None = None  # where the status links to (the run's page)
    max_wait: float = 300.0  # the longest rate-limit wait accepted
    repository_name: str | None = None  # BUILD_REPOSITORY_NAME, for messages and links
    team: str | None = None  # the team a WIQL query runs in (default: the project's own)
    # A sweep's work item: its type, and its states while open and once closed (the Basic
    # and Scrum processes' names; Agile and CMMI say New and Closed).
    work_item_type: str = "Task"
    open_state: str = "To Do"
    closed_state: str = "Done"

    @property
    def name(self) -> str:
        """project/repository: how the bot names the repository in text."""
        return f"{self.project}/{self.repository_name or self.repository}"


class Api(Client):
    """The REST client of one project and repository. `http` is an httpx transport to send
    through instead of the network (tests: the fake's `httpx.MockTransport`)."""

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None) -> None:
        collection = settings.collection_url.rstrip("/")
        if not collection.startswith(("https://", "http://")):
            raise BotError(f"the collection URL {settings.collection_url!r} is not an http(s) "
                           "URL (SYSTEM_COLLECTIONURI)", Exit.USAGE)
        super().__init__(f"{collection}/{segment(settings.project)}",
                         f"Bearer {settings.token}", forge="Azure DevOps",
                         token_hint=TOKEN_HINT, max_wait=settings.max_wait,
                         timeout=settings.timeout, plausible=_plausible, sleep=sleep,
                         clock=clock, http=http)
        self.settings = settings
        self.repo = f"/git/repositories/{segment(settings.repository)}"

    def pull(self, number: int) -> str:
        return f"{self.repo}/pullRequests/{number}"

    # -- requests ------------------------------------------------------------------------

    def send(self, request: Request, scope: str = "/_apis") -> Response:
        """`request`, its path under the project's `scope`: `/_apis`, or a team's
        (`/{team}/_apis`, where WIQL queries run)."""
        response = super().send(replace(request, path=scope + request.path))
        if response.status == 203 and b"<html" in response.content[:200].lower():
            # The sign-in page: the token was not taken.
            raise HTTPError(f"Azure DevOps refused the token ({request.method} {request.path} "
                            f"answered its sign-in page); {TOKEN_HINT}", 401)
        return response

    def get(self, path: str, version: str, query: Query | None = None) -> Any:
        return self.send(Request("GET", path, {**(query or {}), "api-version": version})).json()

    def list(self, path: str, version: str, query: Query | None = None) -> list[dict[str, Any]]:
        """The items of a list (Azure DevOps wraps every list in `{"count", "value"}`)."""
        data = self.get(path, version, query)
        items = data.get("value") if isinstance(data, dict) else data
        return [d for d in items if isinstance(d, dict)] if isinstance(items, list) else []

    def query(self, wiql: str) -> builtins.list[int]:
        """The ids a flat WIQL query finds, in its order (a POST that writes nothing)."""
        team = self.settings.team or f"{self.settings.project} Team"
        data = self.send(Request("POST", "/wit/wiql", {"api-version": "7.2-preview.2"},
                                 body={"query": wiql}, write=False),
                         scope=f"/{segment(team)}/_apis").json()
        found = data.get("workItems") if isinstance(data, dict) else None
        return [int(w["id"]) for w in found or () if isinstance(w, dict)
                and isinstance(w.get("id"), int)]

    def write(self, method: str, path: str, version: str, body: Any = None, *,
              idempotent: bool = False, query: Query | None = None,
              content_type: str | None = None) -> Any:
        """One write; its answer as JSON (None for an empty answer)."""
        return self.send(Request(method, path, {**(query or {}), "api-version": version},
                                 body=body, idempotent=idempotent,
                                 content_type=content_type)).json()


def _plausible(request: Request) -> Any:
    """What a write would answer, as far as a caller reads it: an id for what it creates."""
    if request.method == "DELETE":
        return None
    if isinstance(request.body, list):  # a work item's JSON Patch
        return {"id": 0, "rev": 1, "fields": {op.get("path", "").removeprefix("/fields/"):
                                               op.get("value") for op in request.body
                                               if isinstance(op, Mapping)}}
    body = request.body if isinstance(request.body, Mapping) else {}
    comments = body.get("comments")
    first = comments[0] if isinstance(comments, list) and comments else {}
    return {"id": 0, **body, "comments": [{"id": 1, **first}] if first else []}
