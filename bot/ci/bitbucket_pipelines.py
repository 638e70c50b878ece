"""Bitbucket Pipelines: the step's `BITBUCKET_*` variables as a `Trigger`, and where its API
and token are.

Each variable is read by its form (`variables.py`): one that is set but malformed is refused
with exit status 2, naming it. What starts a run:

- a `pull-requests:` pipeline (BITBUCKET_PR_ID, BITBUCKET_PR_DESTINATION_BRANCH,
  BITBUCKET_PR_DESTINATION_COMMIT, BITBUCKET_COMMIT the source branch's head: never the clone's
  HEAD, which in a pull request pipeline is a merge Bitbucket made of both branches): a review;
- a custom pipeline started by the webhook relay (`bot.forges.bitbucket.relay`) with the
  variables REVIEWBOT_PR_ID, REVIEWBOT_COMMENT_ID and REVIEWBOT_HEAD: a comment's commands.
  Pipelines has no comment trigger. The comment itself (its text, its author, whether it
  still exists) and the pull request (open, from this repository) are read from the API,
  never from the variables, which whoever runs a custom pipeline chooses. Its two steps:
  `reviewbot analyze` without the token reviews the head the relay named (REVIEWBOT_HEAD)
  against the branch the pipeline runs on, and reads nothing from the API; `reviewbot publish`
  with the token reads the comment and the pull request, checks that head and branch against
  them, and runs the commands on the analysis;
- any other branch pipeline (BITBUCKET_BRANCH; a schedule's, or a custom pipeline's): a
  sweep of that branch. A tag's pipeline needs nothing.

The token is a repository (or workspace) access token in the secured variable
REVIEWBOT_BITBUCKET_TOKEN: Pipelines gives a step no token of its own. Pipelines has no
annotations and no job summary: the findings go to the log, the Code Insights report and the
summary comment.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from bot import git
from bot.ci import variables
from bot.ci.base import answered, event_range
from bot.ci.variables import ABSOLUTE, BRANCH, NUMBER, SHA, URL, Form
from bot.errors import BotError, Exit
from bot.forges.base import Annotation, Connection, Range
from bot.model import Trigger, TriggerKind

if TYPE_CHECKING:
    from bot.forges.bitbucket.api import Api, Settings

TOKEN = "REVIEWBOT_BITBUCKET_TOKEN"
API_VARIABLE = "REVIEWBOT_BITBUCKET_API"  # another API root (tests; a proxy)
API_URL = "https://api.bitbucket.org/2.0"
TOKEN_HINT = (f"store a repository (or workspace) access token with the pull request write "
              f"scope as the secured repository variable {TOKEN} (docs/bitbucket.md)")
CHECKOUT_HINT = "set `clone: depth: full` in the pipeline (or a larger depth)"
PR_HINT = ("`reviewbot ci` reviews pull requests in a `pull-requests:` pipeline, which sets "
           "it (examples/bitbucket-pipelines.yml)")
RELAY_HINT = ("the webhook relay sets it when it starts the custom pipeline for a comment "
              "(docs/bitbucket.md)")
# A commit as Pipelines names it: BITBUCKET_COMMIT in full, BITBUCKET_PR_DESTINATION_COMMIT
# abbreviated (12 characters).
COMMIT = Form("a commit sha (7 to 40 hex digits)",
              lambda value: re.fullmatch(r"[0-9a-f]{7,40}", value) is not None)
SLUG = Form("a Bitbucket workspace or repository slug",
            lambda value: re.fullmatch(r"[A-Za-z0-9_.-]+|\{[0-9a-f-]{36}\}", value) is not None)
CHANGE = "PR #"
ENABLE_COMMENTS = ("reviewbot could not write to this pull request, so its findings are in the "
                   "pipeline's log only. To get comments: " + TOKEN_HINT + ".")


def active(env: Mapping[str, str]) -> bool:
    """Whether this run is a Bitbucket Pipelines step (it sets BITBUCKET_BUILD_NUMBER)."""
    return variables.optional(env, "BITBUCKET_BUILD_NUMBER", NUMBER) is not None


def repository(env: Mapping[str, str]) -> str:
    """workspace/repo_slug, from BITBUCKET_WORKSPACE and BITBUCKET_REPO_SLUG."""
    hint = "Pipelines sets it in every step: run `reviewbot ci` in a Bitbucket Pipelines step"
    workspace = variables.required(env, "BITBUCKET_WORKSPACE", SLUG, hint)
    slug = variables.required(env, "BITBUCKET_REPO_SLUG", SLUG, hint)
    return f"{workspace}/{slug}"


def parse(env: Mapping[str, str]) -> Trigger:
    """The trigger as the variables name it. Pure: a comment's text and author are the API's
    (`BitbucketPipelines.trigger` reads them)."""
    name = repository(env)
    commit = variables.required(env, "BITBUCKET_COMMIT", SHA,
                                "Pipelines sets it in every step")
    number = variables.optional(env, "BITBUCKET_PR_ID", NUMBER)
    comment = variables.optional(env, "REVIEWBOT_COMMENT_ID", NUMBER)
    if number is not None:
        return _trigger("pull-requests", "review", action="pull-requests", repository=name,
                        number=int(number), head_sha=commit,
                        base_sha=variables.required(env, "BITBUCKET_PR_DESTINATION_COMMIT",
                                                    COMMIT, PR_HINT),
                        target_ref=variables.required(env, "BITBUCKET_PR_DESTINATION_BRANCH",
                                                      BRANCH, PR_HINT),
                        head_ref=variables.optional(env, "BITBUCKET_BRANCH", BRANCH),
                        head_repository=name)
    if comment is not None:
        return _trigger("comment", "comment", action="created", repository=name,
                        number=int(variables.required(env, "REVIEWBOT_PR_ID", NUMBER,
                                                      RELAY_HINT)),
                        comment_id=int(comment),
                        head_sha=variables.optional(env, "REVIEWBOT_HEAD", COMMIT))
    if variables.optional(env, "BITBUCKET_TAG", variables.REF) is not None:
        return _trigger("tag", "ignored", repository=name,
                        reason="a tag's pipeline needs nothing from `reviewbot ci`")
    branch = variables.optional(env, "BITBUCKET_BRANCH", BRANCH)
    if branch is None:
        return _trigger("custom", "ignored", repository=name,
                        reason="a pipeline of no branch, pull request or comment")
    return _trigger("branch", "sweep", repository=name, target_ref=branch, head_sha=commit)


def commands_hint(env: Mapping[str, str]) -> str | None:
    """REVIEWBOT_COMMANDS, the comment's command lines as the relay copied them: the token-less
    analyze step reviews ahead the commit a /fix or /apply among them would make. A hint only:
    the publish step acts on the comment as the API serves it, and keeps that review only when
    its plan and tree are those of the commit it made."""
    text = env.get("REVIEWBOT_COMMANDS") or ""
    if any(ord(c) < 0x20 and c != "\n" for c in text):
        raise BotError("REVIEWBOT_COMMANDS holds a control character: it is the comment's "
                       f"command lines, one a line; {RELAY_HINT}", Exit.USAGE)
    return text or None


def _trigger(event: str, kind: TriggerKind, **fields: Any) -> Trigger:
    return Trigger("bitbucket", event, kind, **fields)


def unhandled(trigger: Trigger, handled: Collection[TriggerKind]) -> str:
    """One line: this event needs nothing, and which events do."""
    what = trigger.reason or f"`{trigger.event}` is not handled yet"
    kinds = {"review": "a pull-requests: pipeline",
             "comment": "the relay's custom pipeline for a comment",
             "sweep": "a branch pipeline (a schedule's)"}
    return f"nothing to do: {what}; handled: {'; '.join(kinds[k] for k in handled if k in kinds)}"


def api_url(env: Mapping[str, str]) -> str:
    return variables.optional(env, API_VARIABLE, URL) or API_URL


def server(env: Mapping[str, str]) -> str:
    """The web server git pushes to: BITBUCKET_GIT_HTTP_ORIGIN's, else bitbucket.org."""
    origin = variables.optional(env, "BITBUCKET_GIT_HTTP_ORIGIN", URL)
    if origin is None:
        return "https://bitbucket.org"
    parts = urlsplit(origin)
    # Pipelines names it with http://; git is served over https.
    return f"https://{parts.netloc}"


def annotate(annotations: Sequence[Annotation]) -> None:
    """The findings in the step's log (Pipelines has no annotations)."""
    for a in annotations:
        first = a.message.splitlines()[0] if a.message else ""
        print(f"{a.path}:{a.start_line}: {a.severity.label}: {a.title}: {first}")


def warn(text: str) -> None:
    print(f"reviewbot: warning: {text}")


class BitbucketPipelines:
    """The Bitbucket Pipelines runner (`bot.ci.base.Runner`)."""

    forge: Literal["bitbucket"] = "bitbucket"
    change_name = CHANGE
    enable_comments = ENABLE_COMMENTS
    checkout_hint = CHECKOUT_HINT

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env
        self._trigger: Trigger | None = None

    def trigger(self) -> Trigger:
        if self._trigger is None:
            trigger = parse(self._env)
            if trigger.kind == "review":
                trigger = self._full_base(trigger)
            elif trigger.kind == "comment" and self._env.get(TOKEN):
                trigger = self._comment(trigger)
            elif trigger.kind == "comment":
                # The analyze step of the commands' pipeline holds no token: it reads nothing
                # and reviews the head the relay named against the branch it runs on. Who
                # commented and what is read by the publish step, which alone acts.
                trigger = replace(trigger, target_ref=variables.optional(
                    self._env, "BITBUCKET_BRANCH", BRANCH), comment_body=commands_hint(self._env))
            self._trigger = trigger
        return self._trigger

    def _full_base(self, trigger: Trigger) -> Trigger:
        """Pipelines abbreviates the destination's commit: git names it in full, when the
        clone holds it (else the review says which commit is missing)."""
        assert trigger.base_sha is not None
        if len(trigger.base_sha) == 40:
            return trigger
        try:
            checkout = self.checkout(None)
        except BotError:  # a step that clones nothing (`clone: enabled: false`)
            return trigger
        full = git.rev_parse(checkout, f"{trigger.base_sha}^{{commit}}")
        if full is None and trigger.target_ref:
            git.fetch(checkout, "origin", trigger.target_ref)
            full = git.rev_parse(checkout, f"{trigger.base_sha}^{{commit}}")
        return replace(trigger, base_sha=full) if full else trigger

    def _comment(self, trigger: Trigger) -> Trigger:
        """The comment and its pull request as the API says (the variables only point)."""
        from bot.errors import NotFound
        from bot.forges.bitbucket.api import Settings, account

        assert trigger.number is not None and trigger.comment_id is not None
        api = open_api(Settings(api_url(self._env), self.token(None) or _no_token(),
                                trigger.repository or ""))
        pull = f"{api.repo}/pullrequests/{trigger.number}"
        try:
            comment = api.get(f"{pull}/comments/{trigger.comment_id}")
            pr = api.get(pull)
        except NotFound:
            return replace(trigger, kind="ignored", reason=f"comment {trigger.comment_id} on "
                           f"pull request #{trigger.number} does not exist")
        if not isinstance(comment, dict) or not isinstance(pr, dict):
            raise BotError("Bitbucket answered the comment's request without one", Exit.FORGE)
        if comment.get("deleted"):
            return replace(trigger, kind="ignored",
                           reason=f"comment {trigger.comment_id} was deleted")
        source = ((pr.get("source") or {}).get("repository") or {}).get("full_name")
        if source and source != trigger.repository:
            return replace(trigger, kind="ignored", reason=(
                f"pull request #{trigger.number} comes from the fork {source}: the commands' "
                "pipeline runs for this repository's pull requests only (a fork's commits are "
                "not in it, and one step would run them with the token in reach)"))
        # The settings that say who may command the bot are read from this pipeline's branch:
        # it must be the one the pull request goes into, which the pull request cannot change.
        target = ((pr.get("destination") or {}).get("branch") or {}).get("name")
        branch = variables.optional(self._env, "BITBUCKET_BRANCH", BRANCH)
        if branch != target:
            raise BotError(f"the commands' pipeline runs on {branch or 'no branch'}, not on "
                           f"{target}, the branch pull request #{trigger.number} goes into: "
                           "start it there (the relay does)", Exit.USAGE)
        author = account(comment.get("user"))
        content = comment.get("content")
        raw = content.get("raw") if isinstance(content, dict) else None
        return replace(trigger, target_ref=target,
                       actor=author, actor_is_bot=author == account(api.me()),
                       comment_body=str(raw or ""),
                       comment_created_at=str(comment.get("created_on") or "") or None,
                       open=pr.get("state") == "OPEN", head_repository=trigger.repository)

    def checkout(self, given: Path | None) -> Path:
        where = variables.optional(self._env, "BITBUCKET_CLONE_DIR", ABSOLUTE)
        return git.toplevel(given or (Path(where) if where else Path(".")))

    def in_change_event(self) -> bool:
        return active(self._env) and parse(self._env).kind in ("review", "comment")

    def analysed_range(self, trigger: Trigger) -> Range | None:
        """A review's commits as the pipeline names them. A command's: the head the relay
        named (REVIEWBOT_HEAD) and the commit of the branch the pipeline runs on (the review
        takes their merge base); the publish step checks the head and the branch against the
        pull request."""
        if trigger.kind != "comment":
            return event_range(trigger)
        if not trigger.head_sha:
            raise BotError("REVIEWBOT_HEAD is not set: the commands' analyze step reviews the "
                           f"head the relay named; {RELAY_HINT}", Exit.USAGE)
        if not trigger.target_ref:
            raise BotError("BITBUCKET_BRANCH is not set: the commands' pipeline runs on the "
                           f"branch the pull request goes into; {RELAY_HINT}", Exit.USAGE)
        base = variables.required(self._env, "BITBUCKET_COMMIT", SHA,
                                  "Pipelines sets it in every step")
        return Range(base, self._full_head(trigger), True)

    def _full_head(self, trigger: Trigger) -> str:
        """The relay's head in full: a webhook may abbreviate it, and git finds it on the
        repository's branches (a fork's commits are not there: its commands are refused)."""
        assert trigger.head_sha is not None
        if len(trigger.head_sha) == 40:
            return trigger.head_sha
        checkout = self.checkout(None)
        full = git.rev_parse(checkout, trigger.head_sha)
        if full is None:
            git.fetch_branches(checkout, "origin")
            full = git.rev_parse(checkout, trigger.head_sha)
        if full is None:
            raise BotError(f"commit {trigger.head_sha} (REVIEWBOT_HEAD) is on no branch of the "
                           "repository: the commands' pipeline reviews a pull request of this "
                           "repository only", Exit.USAGE)
        return full

    def exposed_token(self) -> str | None:
        return TOKEN if self._env.get(TOKEN) else None

    def token(self, given: str | None) -> str:
        return given or self._env.get(TOKEN) or ""

    def publishing(self, repository: str | None, number: int | None, head: str,
                   label: bool = False) -> Trigger:
        """The pull request of this pipeline, which the analysis must be of."""
        return answered(self.trigger(), repository, number, head)

    def clone_url(self, repository: str) -> str:
        return clone_url(self._env, repository)

    def connect(self, trigger: Trigger, token: str | None, *, dry_run: bool = False
                ) -> Connection:
        """A dry run reads with the token (what it records is what a run would send now)."""
        # Here, not at the top: reading a trigger (`analyze`) must not load httpx.
        from bot.forges.bitbucket.api import Settings
        from bot.forges.bitbucket.change import BitbucketChange
        from bot.forges.bitbucket.host import push_env
        from bot.forges.bitbucket.pulls import BitbucketPulls
        from bot.forges.bitbucket.repository import BitbucketRepository

        token = self.token(token) or _no_token()
        name = trigger.repository or repository(self._env)
        number = trigger.number if trigger.kind != "sweep" else None
        api = open_api(Settings(api_url(self._env), token, name, number,
                                target_url=self._run_url()))
        recorded = api.record_writes().requests if dry_run else None
        commit = variables.optional(self._env, "BITBUCKET_COMMIT", SHA)
        history: Sequence[str] = ()
        if trigger.kind == "sweep" and commit:
            history = git.first_parents(self.checkout(None), commit, 200)
        repo = BitbucketRepository(api.settings, api=api, history=history,
                                   default_ref=trigger.base_sha or commit,
                                   sweeping=trigger.kind == "sweep")
        change = BitbucketChange(api.settings, api=api) if number is not None else None
        return Connection(name, repo, BitbucketPulls(api), "#", change,
                          push_env(token, server(self._env)), recorded, sleep=api.sleep)

    def _run_url(self) -> str | None:
        number = self._env.get("BITBUCKET_BUILD_NUMBER")
        name = self._env.get("BITBUCKET_REPO_FULL_NAME")
        return (f"https://bitbucket.org/{name}/pipelines/results/{number}"
                if number and name else None)

    def unhandled(self, trigger: Trigger, handled: Collection[TriggerKind]) -> str:
        return unhandled(trigger, handled)

    def annotate(self, annotations: Sequence[Annotation]) -> None:
        annotate(annotations)

    def job_summary(self, text: str) -> None:
        """Pipelines has no job summary: the summary comment and the report show it."""

    def warn(self, text: str) -> None:
        warn(text)


def clone_url(env: Mapping[str, str], repository: str) -> str:
    """The repository's git URL (tests point it at a local repository)."""
    return f"{server(env)}/{repository}.git"


def _no_token() -> str:
    raise BotError(f"no Bitbucket token: {TOKEN_HINT}", Exit.USAGE)


def open_api(settings: Settings) -> Api:
    """The one connection of a run (tests point it at the fake Bitbucket here)."""
    from bot.forges.bitbucket.api import Api

    return Api(settings)
