"""Bitbucket Cloud's repository side (`repository.Repository`): replies, permissions and the
sweep's tracking issue, over `api.Api`. Built from the repository alone (no pull request
number).

What Bitbucket cannot do, and what is done instead:

- No reactions on comments and no labels on pull requests: `react`, `add_label` and
  `remove_label` are no-ops (the replies say what happened; the apply trigger is
  `/apply PLAN`).
- Who may command the bot is the commenter's permission on the repository
  (`GET /workspaces/{workspace}/permissions/repositories/{repo_slug}`), which only a token
  with **admin** permission may read. Any other answer stops the run (`BotError`): a
  permission that cannot be read is never taken for one.
- The tracking issue is an issue where the repository's tracker is on. Where it is off
  (Bitbucket answers 404), it is a Code Insights report (`reviewbot-sweep`) on the swept
  commit: found again on the branch's history (`history`, newest first), its state at the
  start of the report's details. Issues have no labels: the marker alone finds them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from bot.errors import BotError, Exit, HTTPError, NotFound
from bot.forges import replies, sticky
from bot.forges.bitbucket.api import Api, Settings, account
from bot.forges.bitbucket.limits import DETAILS_LIMIT, SWEEP_REPORT
from bot.forges.bitbucket.markers import from_wire, to_wire
from bot.forges.limits import server_wait
from bot.forges.repository import Access, Issue, Permission, Reaction, Repository
from bot.forges.transport import Request, segment
from bot.render.markdown import clip

NOTE_RETRIES = 3  # as the summary's (bot.forges.bitbucket.change)
PERMISSIONS = {"admin": Permission.ADMIN, "write": Permission.WRITE, "read": Permission.READ,
               "none": Permission.NONE}
CLOSED = ("resolved", "invalid", "duplicate", "wontfix", "closed")
REPORT = 0  # the number of the tracking "issue" that is a Code Insights report
ADMIN_HINT = ("reading who may command reviewbot needs a token with admin permission on the "
              "repository (a repository access token with the Admin scope, docs/bitbucket.md)")


class BitbucketRepository:
    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None, api: Api | None = None,
                 default_ref: str | None = None, history: Sequence[str] = (),
                 sweeping: bool = False) -> None:
        """`default_ref`: the commit the target branch's files are read at when no ref is
        given; `history`: the swept branch's commits, newest first (the sweep's report);
        `sweeping`: replies are comments on the tracking issue, not on a pull request."""
        self._api = api or Api(settings, sleep=sleep, clock=clock, http=http)
        self._default_ref = default_ref
        self._history = tuple(history)
        self._tracker: bool | None = None
        self._sweeping = sweeping

    def _comments(self, number: int) -> str:
        return f"{self._api.repo}/pullrequests/{number}/comments"

    def reply(self, number: int, body: str) -> int:
        if self._sweeping and (number == REPORT or self._issues() is None):
            return 0  # the sweep's report has no comments: its details say it all
        comments = (f"{self._api.repo}/issues/{number}/comments" if self._sweeping
                    else self._comments(number))
        kind = "issue_comment" if self._sweeping else "pullrequest_comment"

        def post(text: str) -> int:
            made = self._api.write("POST", comments, {"type": kind,
                                                      "content": {"raw": to_wire(text)}})
            return int(made["id"]) if isinstance(made, dict) and isinstance(
                made.get("id"), int) else 0

        def find(key: str) -> int | None:
            return replies.found(key, ((int(c["id"]), _raw(c)) for c in self._api.list(comments)
                                       if isinstance(c.get("id"), int)))

        return replies.once(body, post, find)

    def note(self, number: int, marker: str, body: str, *, create: bool = True) -> None:
        comments = self._comments(number)

        def find() -> sticky.Sticky[None] | None:
            # Anybody can write the marker: only the bot's own comment is ours to edit.
            mine = account(self._api.me())
            return next((sticky.Sticky(int(c["id"]), _raw(c), None)
                         for c in self._api.list(comments)
                         if marker in _raw(c) and not c.get("deleted")
                         and account(c.get("user")) == mine and isinstance(c.get("id"), int)),
                        None)

        def change(current: sticky.Sticky[None], text: str) -> sticky.Sticky[None]:
            self._api.write("PUT", f"{comments}/{current.id}",
                            {"type": "pullrequest_comment", "content": {"raw": to_wire(text)}},
                            idempotent=True)
            return sticky.Sticky(current.id, text, None)

        def post(text: str) -> sticky.Sticky[None] | None:
            made = self._api.write("POST", comments, {"type": "pullrequest_comment",
                                                      "content": {"raw": to_wire(text)}})
            return sticky.Sticky(int(made["id"]), text, None) if isinstance(made, dict) \
                and isinstance(made.get("id"), int) else None

        sticky.note(body, sticky.Writes(change, post, find, self._api.sleep,
                                        server_wait, NOTE_RETRIES, noun="comment"), create=create)

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        """Bitbucket has no reactions: the reply says what was done."""

    def access(self, login: str) -> Access:
        """`login` is the account's `account_id` (what the relay's comment names)."""
        me = self._api.me()
        bot = login in (account(me), me.get("uuid"))
        try:
            data = self._api.get(
                f"/workspaces/{segment(self._api.workspace)}/permissions/repositories/"
                f"{segment(self._api.slug)}", {"q": f'user.account_id="{_quoted(login)}"'})
        except HTTPError as exc:
            raise BotError(f"the permission of {login} on {self._api.settings.repository} could "
                           f"not be read ({exc.message}); {ADMIN_HINT}. Nothing was done.",
                           Exit.FORGE) from exc
        values = data.get("values") if isinstance(data, dict) else None
        if not isinstance(values, list):
            raise BotError("Bitbucket answered the permission request without a list; "
                           "nothing was done", Exit.FORGE)
        return access_of(login, values, bot)

    def add_label(self, number: int, label: str) -> None:
        """Bitbucket pull requests carry no labels."""

    def remove_label(self, number: int, label: str) -> None:
        """Bitbucket pull requests carry no labels."""

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        at = ref or self._default_ref
        if not at:
            raise BotError(f"no commit to read {path} at: the pipeline names none "
                           "(BITBUCKET_COMMIT)", Exit.USAGE)
        quoted = "/".join(segment(part) for part in path.split("/"))
        try:
            return self._api.send(Request("GET", f"{self._api.repo}/src/{segment(at)}/{quoted}")
                                  ).content
        except NotFound:
            return None

    # -- the tracking issue ----------------------------------------------------------------

    def _issues(self) -> list[dict[str, Any]] | None:
        """Every issue, or None where the repository has no tracker."""
        if self._tracker is False:
            return None
        try:
            found = self._api.list(f"{self._api.repo}/issues")
        except NotFound:
            self._tracker = False
            where = self._history[0][:12] if self._history else "the swept commit"
            print(f"reviewbot: {self._api.settings.repository} has no issue tracker: the sweep "
                  f"is kept in the Code Insights report {SWEEP_REPORT} on {where}")
            return None
        self._tracker = True
        return found

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        issues = self._issues()
        if issues is None:
            return self._find_report(marker)
        found = [raw for raw in issues if marker in _raw(raw)]
        oldest = min(found, key=lambda raw: int(raw.get("id") or 0), default=None)
        return issue_of(oldest) if oldest is not None else None

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        if self._issues() is None:
            return self._write_report(title, body, True)
        made = self._api.write("POST", f"{self._api.repo}/issues", {
            "type": "issue", "title": title, "kind": "bug",
            "content": {"raw": to_wire(body), "markup": "markdown"}})
        return issue_of(made if isinstance(made, dict) else {})

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        if number == REPORT and self._tracker is False:
            current = self._find_report("")
            return self._write_report(title or (current.title if current else "reviewbot"),
                                      body if body is not None else
                                      (current.body if current else ""),
                                      open if open is not None else bool(current and current.open))
        change: dict[str, Any] = {"type": "issue"}
        if title is not None:
            change["title"] = title
        if body is not None:
            change["content"] = {"raw": to_wire(body), "markup": "markdown"}
        if open is not None:
            change["state"] = "open" if open else "resolved"
        path = f"{self._api.repo}/issues/{number}"
        raw = (self._api.write("PUT", path, change, idempotent=True) if len(change) > 1
               else self._api.get(path))
        return issue_of(raw if isinstance(raw, dict) else {})

    def _find_report(self, marker: str) -> Issue | None:
        for sha in self._history:
            try:
                raw = self._api.get(f"{self._api.repo}/commit/{sha}/reports/{SWEEP_REPORT}")
            except NotFound:
                continue
            if isinstance(raw, dict) and marker in str(raw.get("details") or ""):
                return Issue(REPORT, str(raw.get("title") or ""), str(raw.get("details") or ""),
                             (), raw.get("result") == "FAILED")
        return None

    def _write_report(self, title: str, body: str, open: bool) -> Issue:
        if not self._history:
            raise BotError("the repository has no issue tracker, and the sweep's report needs "
                           "the swept commit", Exit.USAGE)
        state_end = body.find("-->") + 3 if body.startswith("<!--") else 0
        if state_end > DETAILS_LIMIT:
            raise BotError(f"the sweep's state ({state_end} characters) does not fit a Code "
                           f"Insights report's details ({DETAILS_LIMIT}): turn the repository's "
                           "issue tracker on, where the sweep keeps an issue instead",
                           Exit.USAGE)
        details = clip(body, DETAILS_LIMIT)
        self._api.write("PUT", f"{self._api.repo}/commit/{self._history[0]}/reports/"
                               f"{SWEEP_REPORT}",
                        {"type": "report", "title": title[:255], "details": details,
                         "report_type": "BUG", "reporter": "reviewbot",
                         "result": "FAILED" if open else "PASSED"}, idempotent=True)
        return Issue(REPORT, title, details, (), open)


def _quoted(text: str) -> str:
    """A value inside a BBQL string: its quotes and backslashes escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _raw(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    return from_wire(str(content.get("raw") or "")) if isinstance(content, dict) else ""


def access_of(login: str, values: Sequence[Any], bot: bool) -> Access:
    """The answer of the permissions request as an `Access` (no entry: no access)."""
    level = max((PERMISSIONS.get(str(v.get("permission")), Permission.NONE) for v in values
                 if isinstance(v, dict) and account(v.get("user")) == login),
                default=Permission.NONE)
    names = [str(v["user"].get("nickname") or v["user"].get("display_name") or login)
             for v in values if isinstance(v, dict) and isinstance(v.get("user"), dict)
             and account(v["user"]) == login]
    return Access(names[0] if names else login, level, bot)


def issue_of(raw: Mapping[str, Any]) -> Issue:
    if not isinstance(raw.get("id"), int):
        raise BotError("Bitbucket answered an issue request without an issue", Exit.FORGE)
    return Issue(int(raw["id"]), str(raw.get("title") or ""), _raw(raw), (),
                 str(raw.get("state") or "new") not in CLOSED)


def _is_repository(repository: BitbucketRepository) -> Repository:
    """mypy checks here that `BitbucketRepository` is a `Repository`."""
    return repository
