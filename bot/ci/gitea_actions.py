"""Gitea and Forgejo Actions: the run's variables and event payload as a `Trigger`, and where
its API and token are.

Both runners (Gitea's act_runner, forgejo-runner) set the GitHub-compatible GITHUB_* variables
beside their own: GITEA_ACTIONS=true (both), FORGEJO_ACTIONS=true (forgejo-runner 7 and
later), and GITHUB_API_URL ending in /api/v1. The payload at GITHUB_EVENT_PATH is Gitea's own
webhook payload (`modules/structs/hook.go`), not GitHub's: a push to a pull request is action
`synchronized`, a label change is `label_updated` and names no label (only the pull
request's labels after the change), a comment's payload says `is_pull`.

Pure parsing with messages that say what to change. The runner's outputs (annotations, the
job summary, warnings) are GitHub's workflow commands, which both runners read.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bot.ci import github_actions, variables
from bot.ci import payload as payload_file
from bot.ci.base import answered, event_range
from bot.ci.variables import PROJECT, REF, SHA, USER
from bot.errors import BotError, Exit
from bot.forges.base import Annotation, Connection, Range
from bot.forges.gitea.limits import ACTIONS_USERS
from bot.model import Trigger, TriggerKind

if TYPE_CHECKING:
    from bot.forges.gitea.api import Api, Settings

REVIEW_ACTIONS = ("opened", "reopened", "synchronized", "synchronize")
LABEL_ACTIONS = ("label_updated",)
WORKFLOW_HINT = ("run it from a workflow with `on: pull_request` "
                 "(types: opened, synchronize, reopened)")
TOKENS = ("GITEA_TOKEN", "FORGEJO_TOKEN", "GITHUB_TOKEN")
# The secret the publish job of an analyze/publish pair passes its write token in.
PUBLISH_TOKEN = "REVIEWBOT_GITEA_TOKEN"

CHANGE = github_actions.CHANGE
ENABLE_COMMENTS = (
    "reviewbot could not write to this pull request, so its findings are in the job log only. "
    "To get review comments: give the job a token that may write to issues and pull requests "
    f"(`GITEA_TOKEN: ${{{{ secrets.GITEA_TOKEN }}}}`, or a bot account's token in "
    f"{PUBLISH_TOKEN}); pull requests from forks get a read-only token.")
annotate = github_actions.annotate
job_summary = github_actions.job_summary
warn = github_actions.warn


def active(env: Mapping[str, str]) -> bool:
    """Whether this run is a Gitea or Forgejo Actions run."""
    return (variables.optional(env, "GITEA_ACTIONS", variables.FLAG) == "true" or forgejo(env)
            or (env.get("GITHUB_API_URL") or "").rstrip("/").endswith("/api/v1"))


def forgejo(env: Mapping[str, str]) -> bool:
    return variables.optional(env, "FORGEJO_ACTIONS", variables.FLAG) == "true"


def from_env(env: Mapping[str, str]) -> Trigger:
    """The trigger of this run: GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH."""
    name, payload = payload_file.event(env, f"Gitea or Forgejo Actions; {WORKFLOW_HINT}")
    return parse(name, payload, env)


def parse(name: str, payload: Any, env: Mapping[str, str] | None = None) -> Trigger:
    env = env or {}
    if not isinstance(payload, dict):
        raise BotError(f"malformed {name} event: the payload is not an object", Exit.USAGE)
    payload_file.refuse_target(name, WORKFLOW_HINT)
    if name == "pull_request":
        return _pull_request(payload)
    if name == "issue_comment":
        return _issue_comment(payload)
    if name in ("schedule", "workflow_dispatch"):
        actor = variables.optional(env, "GITHUB_ACTOR", USER)
        return _trigger(name, "sweep", repository=variables.optional(env, "GITHUB_REPOSITORY",
                                                                     PROJECT),
                        target_ref=payload_file.branch(variables.optional(env, "GITHUB_REF", REF)),
                        head_sha=variables.optional(env, "GITHUB_SHA", SHA),
                        actor=actor, actor_is_bot=_is_bot(actor))
    return _ignored(name, payload, f"`{name}` events need nothing from `reviewbot ci`")


def _trigger(event: str, kind: TriggerKind, **fields: Any) -> Trigger:
    # Forgejo speaks Gitea's API: one forge for both.
    return Trigger("gitea", event, kind, **fields)


def _ignored(name: str, payload: dict[str, Any], reason: str) -> Trigger:
    return _trigger(name, "ignored", action=payload_file.action(payload, name),
                    repository=payload_file.repository(payload, name), reason=reason)


def _labels(pr: dict[str, Any], event: str) -> tuple[str, ...]:
    """The names of `pull_request.labels` (none when absent or null)."""
    items = payload_file.optional(pr, "labels", list, "pull_request.", event) or []
    return tuple(str(payload_file.field(item, "name", str, f"pull_request.labels[{i}].", event))
                 for i, item in enumerate(items))


def _pull_request(payload: dict[str, Any]) -> Trigger:
    action = payload_file.action(payload, "pull_request")
    kind: TriggerKind = ("review" if action in REVIEW_ACTIONS
                         else "label" if action in LABEL_ACTIONS else "ignored")
    if kind == "ignored":
        return _ignored("pull_request", payload, f"pull_request `{action or '(none)'}` needs "
                        "no review")
    event = "pull_request"
    pr = payload_file.field(payload, "pull_request", dict, event=event)
    head = payload_file.field(pr, "head", dict, "pull_request.", event)
    base = payload_file.field(pr, "base", dict, "pull_request.", event)
    base_repo = payload_file.field(base, "repo", dict, "pull_request.base.", event)
    # null when the fork is deleted
    head_repo = payload_file.optional(head, "repo", dict, "pull_request.head.", event)
    _, login = payload_file.user(payload, "sender", "login", event=event)
    labels = _labels(pr, event)
    return _trigger(
        event, kind, action=action,
        repository=payload_file.field(base_repo, "full_name", str, "pull_request.base.repo.", event),
        number=payload_file.field(pr, "number", int, "pull_request.", event),
        base_sha=payload_file.sha(base, "pull_request.base.sha", event),
        head_sha=payload_file.sha(head, "pull_request.head.sha", event),
        target_ref=payload_file.field(base, "ref", str, "pull_request.base.", event),
        head_ref=payload_file.field(head, "ref", str, "pull_request.head.", event),
        head_repository=payload_file.field(head_repo, "full_name", str, "pull_request.head.repo.",
                                           event) if head_repo is not None else None,
        open=payload_file.one_of(pr, "state", ("open", "closed"), "pull_request.",
                                 event) == "open",
        draft=bool(payload_file.optional(pr, "draft", bool, "pull_request.", event)),
        actor=login, actor_is_bot=_is_bot(login),
        # Gitea's label_updated names no label: the labels the pull request carries now.
        added_labels=labels if kind == "label" else (),
    )


def _issue_comment(payload: dict[str, Any]) -> Trigger:
    event = "issue_comment"
    action = payload_file.action(payload, event)
    issue = payload_file.field(payload, "issue", dict, event=event)
    is_pull = payload_file.optional(payload, "is_pull", bool, event=event)
    if not (is_pull or payload_file.optional(issue, "pull_request", dict, "issue.", event)):
        return _ignored(event, payload, "a comment on an issue, not on a pull request")
    if action != "created":
        return _ignored(event, payload, f"a comment `{action}`: only new comments count")
    comment = payload_file.field(payload, "comment", dict, event=event)
    _, login = payload_file.user(comment, "user", "login", "comment.", event)
    repo = payload_file.field(payload, "repository", dict, event=event)
    return _trigger(
        event, "comment", action=action,
        repository=payload_file.field(repo, "full_name", str, "repository.", event),
        number=payload_file.field(issue, "number", int, "issue.", event),
        open=payload_file.one_of(issue, "state", ("open", "closed"), "issue.", event) == "open",
        actor=login, actor_is_bot=_is_bot(login),
        comment_id=payload_file.field(comment, "id", int, "comment.", event),
        comment_body=payload_file.optional(comment, "body", str, "comment.", event) or "",
        comment_created_at=payload_file.field(comment, "created_at", str, "comment.", event),
    )


def _is_bot(login: str | None) -> bool:
    # Gitea's API user carries no bot flag; the Actions token's own account is known by name.
    return (login or "").lower() in ACTIONS_USERS


def unhandled(trigger: Trigger, handled: Collection[TriggerKind]) -> str:
    """One line: this event needs nothing, and which events do."""
    what = trigger.reason or f"`{trigger.event}` is not handled yet"
    kinds = {"review": "pull_request (opened, synchronized, reopened)",
             "label": "pull_request label_updated",
             "comment": "issue_comment created on a pull request",
             "sweep": "schedule, workflow_dispatch"}
    return f"nothing to do: {what}; handled: {'; '.join(kinds[k] for k in handled if k in kinds)}"


def api(env: Mapping[str, str]) -> tuple[str, str]:
    """The REST API's URL (https://HOST/api/v1) and the repository (owner/name)."""
    url = (env.get("GITHUB_API_URL") or "").rstrip("/")
    if not url:
        server = (env.get("GITEA_SERVER_URL") or env.get("FORGEJO_SERVER_URL")
                  or env.get("GITHUB_SERVER_URL") or "").rstrip("/")
        url = f"{server}/api/v1" if server else ""
    if not url.endswith("/api/v1"):
        raise BotError("GITHUB_API_URL is not a Gitea API URL (https://HOST/api/v1): run "
                       "inside Gitea or Forgejo Actions, or set it", Exit.USAGE)
    repository = env.get("GITHUB_REPOSITORY") or ""
    if "/" not in repository:
        raise BotError("GITHUB_REPOSITORY is not owner/name", Exit.USAGE)
    return url, repository


def server(env: Mapping[str, str]) -> str:
    """The server's web URL, where git pushes go."""
    return (env.get("GITHUB_SERVER_URL") or env.get("GITEA_SERVER_URL")
            or env.get("FORGEJO_SERVER_URL") or api(env)[0].removesuffix("/api/v1"))


def token(env: Mapping[str, str], *, publish: bool = False) -> str:
    """The API token: the publish job's own secret first when `publish`, then the workflow's
    (GITEA_TOKEN, FORGEJO_TOKEN, GITHUB_TOKEN as the workflow passes it). BotError when none."""
    names = ((PUBLISH_TOKEN,) if publish else ()) + TOKENS
    for name in names:
        if env.get(name):
            return env[name]
    raise BotError(f"no Gitea token: set {' or '.join(names)} in the step's env "
                   "(`GITEA_TOKEN: ${{ secrets.GITEA_TOKEN }}`)", Exit.USAGE)


class GiteaActions:
    """The Gitea and Forgejo Actions runner (`bot.ci.base.Runner`). Its outputs are GitHub's
    workflow commands and job summary file, which both runners read."""

    forge: Literal["gitea"] = "gitea"
    change_name = CHANGE
    enable_comments = ENABLE_COMMENTS
    checkout_hint = github_actions.CHECKOUT_HINT

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def trigger(self) -> Trigger:
        return from_env(self._env)

    def checkout(self, given: Path | None) -> Path:
        return github_actions.checkout(self._env, given)

    def in_change_event(self) -> bool:
        return github_actions.in_change_event(self._env)

    def analysed_range(self, trigger: Trigger) -> Range | None:
        return event_range(trigger)

    def exposed_token(self) -> str | None:
        return PUBLISH_TOKEN if self._env.get(PUBLISH_TOKEN) else None

    def token(self, given: str | None) -> str:
        """`given`, else the publish job's own secret, else the workflow's token; "" when none."""
        for name in (PUBLISH_TOKEN, *TOKENS):
            if self._env.get(name):
                return given or self._env[name]
        return given or ""

    def publishing(self, repository: str | None, number: int | None, head: str,
                   label: bool = False) -> Trigger:
        """The event of this run (the publish job runs in the workflow of the analysis, `needs:`
        it): the analysis must be of its repository, change and head."""
        return answered(self.trigger(), repository, number, head)

    def clone_url(self, repository: str) -> str:
        return clone_url(self._env, repository)

    def connect(self, trigger: Trigger, token: str | None, *, dry_run: bool = False
                ) -> Connection:
        """A dry run reads with the token (what it records is what a run would send now)."""
        # Here, not at the top: reading a trigger (`analyze`) must not load httpx.
        from bot.forges.gitea.api import Settings
        from bot.forges.gitea.change import GiteaChange
        from bot.forges.gitea.host import push_env
        from bot.forges.gitea.pulls import GiteaPulls
        from bot.forges.gitea.repository import GiteaRepository

        token = self.token(token)
        if not token:
            raise BotError(f"no Gitea token: set {' or '.join((PUBLISH_TOKEN, *TOKENS))} in the "
                           "step's env (`GITEA_TOKEN: ${{ secrets.GITEA_TOKEN }}`)", Exit.USAGE)
        url, name = api(self._env)
        number = trigger.number if trigger.kind != "sweep" else None
        api_ = open_api(Settings(url, token, name, number, target_url=self._run_url()))
        recorded = api_.record_writes().requests if dry_run else None
        change = GiteaChange(api_.settings, api=api_, forgejo=forgejo(self._env),
                             labels=trigger.kind == "label") if number is not None else None
        return Connection(name, GiteaRepository(api_.settings, api=api_), GiteaPulls(api_), "#",
                          change, push_env(token, server(self._env)), recorded, sleep=api_.sleep)

    def _run_url(self) -> str | None:
        run = self._env.get("GITHUB_RUN_ID")
        repository = self._env.get("GITHUB_REPOSITORY")
        base = (self._env.get("GITHUB_SERVER_URL") or "").rstrip("/")
        return f"{base}/{repository}/actions/runs/{run}" if run and repository and base else None

    def unhandled(self, trigger: Trigger, handled: Collection[TriggerKind]) -> str:
        return unhandled(trigger, handled)

    def annotate(self, annotations: Sequence[Annotation]) -> None:
        github_actions.annotate(annotations)

    def job_summary(self, text: str) -> None:
        github_actions.job_summary(self._env, text)

    def warn(self, text: str) -> None:
        github_actions.warn(text)


def clone_url(env: Mapping[str, str], repository: str) -> str:
    """The repository's git URL on this server (tests point it at a local repository)."""
    return f"{server(env).rstrip('/')}/{repository}.git"


def open_api(settings: Settings) -> Api:
    """The one connection of a run (tests point it at the fake Gitea here)."""
    from bot.forges.gitea.api import Api

    return Api(settings)
