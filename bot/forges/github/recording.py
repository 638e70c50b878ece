"""GitHub's dry run: the one recording layer (`transport.Recording`) put at the one place
every REST request of PyGithub is sent (its requester's `requestJsonAndCheck`) and at the
GraphQL client's mutations. The pull request side and the repository side run as they do for
real; their writes are recorded as `{method, path, body}`, exactly as they would be sent, and
answered with a plausible value; their reads go to GitHub with the token, and without one are
answered as a first run on a fresh pull request would find it (nothing of ours yet).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from github.Requester import Requester

from bot.forges.transport import Recording, Request, Response

SendJson = Callable[..., tuple[dict[str, Any], Any]]
_ISSUE = re.compile(r"/issues(?:/(\d+))?$")  # an issue made or edited: the sweep reads it back


class _Requester:
    """A `transport.Sender` over PyGithub's requester: the reads of a dry run with a token."""

    def __init__(self, send: SendJson, base: str) -> None:
        self._send, self._base = send, base

    def send(self, request: Request) -> Response:
        headers, data = self._send(request.method, self._base + request.path,
                                   parameters=dict(request.query) or None, input=request.body)
        return Response(200, dict(headers or {}), json.dumps(data).encode())


def record(requester: Requester, api_url: str, repository_url: str, number: int | None, *,
           head: str, reads: bool) -> Recording:
    """From now on `requester` records its writes (the returned `Recording.requests`)."""
    base = api_url.rstrip("/")
    recording = Recording(_answer(base, repository_url, number, head),
                          _Requester(requester.requestJsonAndCheck, base) if reads else None)

    def send(verb: str, url: str, parameters: dict[str, Any] | None = None,
             headers: dict[str, str] | None = None, input: Any | None = None,
             follow_302_redirect: bool = False) -> tuple[dict[str, Any], Any]:
        path = url.removeprefix(base) if url.startswith(base) else url
        response = recording.send(Request(verb, path, parameters or {}, input))
        return dict(response.headers), response.json()

    # The requester is PyGithub's one way out: every object it made sends through it.
    requester.requestJsonAndCheck = send  # type: ignore[method-assign]
    return recording


def _answer(base: str, repository_url: str, number: int | None, head: str
            ) -> Callable[[Request], Any]:
    repository = repository_url.removeprefix(base)

    def answer(request: Request) -> Any:
        """What GitHub would answer, as far as the caller reads it."""
        if request.method == "DELETE":
            return None
        if request.method == "GET":
            return _read(request.path)
        body = request.body if isinstance(request.body, Mapping) else {}
        made: dict[str, Any] = {"id": 0, **{k: v for k, v in body.items() if k != "comments"}}
        issue = _ISSUE.search(request.path)
        if issue:
            made = {"number": int(issue.group(1) or 0), "state": "open", **made}
        if request.path.endswith("/check-runs"):  # its annotations go on with PATCHes to it
            made["url"] = f"{repository_url}/check-runs/{{check_run_id}}"
        return made

    def _read(path: str) -> Any:
        if path.endswith("/permission"):  # a collaborator's: nobody's, with no token
            return {}
        if number is not None and path == f"{repository}/pulls/{number}":
            pull = f"{repository_url}/pulls/{number}"
            repo = {"full_name": repository.removeprefix("/repos/"), "url": repository_url}
            return {"number": number, "state": "open", "url": pull,
                    "issue_url": f"{repository_url}/issues/{number}",
                    "head": {"sha": head, "ref": "", "repo": repo},
                    "base": {"sha": "", "ref": "", "repo": repo}}
        return []  # a list: nothing of ours yet

    return answer
