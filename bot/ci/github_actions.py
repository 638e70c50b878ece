"""GitHub Actions: the run's variables and event payload as a `Trigger`, and the runner's own
outputs (workflow annotations, the job summary).

Pure parsing with messages that say what to change. The head sha comes from the payload,
never from GITHUB_SHA (on `pull_request` that is the merge commit).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bot import git
from bot.ci import merge_group, variables
from bot.ci import payload as payload_file
from bot.ci.base import answered, event_range
from bot.ci.variables import PROJECT, REF, SHA, USER
from bot.errors import BotError, Exit
from bot.forges.base import Annotation, Change, Connection, Pulls, Range
from bot.forges.repository import Repository
from bot.model import Severity, Trigger, TriggerKind
from bot.safety import filecommands

if TYPE_CHECKING:
    from bot.forges.github.api import Api, Settings

CHECKOUT_HINT = "use actions/checkout with fetch-depth: 0"
# What `analyze` answers (a merge queue's group too: its head runs the pull request's code).
PR_EVENTS = ("pull_request", "pull_request_target", "issue_comment", merge_group.EVENT)
REVIEW_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review")
WORKFLOW_HINT = ("run it from a workflow with `on: pull_request` "
                 "(types: opened, synchronize, reopened, ready_for_review)")


def from_env(env: Mapping[str, str]) -> Trigger:
    """The trigger of this run: GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH."""
    name, payload = payload_file.event(
        env, f"GitHub Actions; {WORKFLOW_HINT} (or use `reviewbot review` locally)")
    return parse(name, payload, env)


def parse(name: str, payload: Any, env: Mapping[str, str] | None = None) -> Trigger:
    env = env or {}
    if not isinstance(payload, dict):
        raise BotError(f"malformed {name} event: the payload is not an object", Exit.USAGE)
    payload_file.refuse_target(name, WORKFLOW_HINT + ", or the fork-safe analyze/publish pair "
                               "(README)")
    if name == "pull_request":
        return _pull_request(payload)
    if name == "issue_comment":
        return _issue_comment(payload)
    if name == merge_group.EVENT:
        return merge_group.parse(payload)
    if name in ("schedule", "workflow_dispatch"):
        return Trigger("github", name, "sweep",
                       repository=variables.optional(env, "GITHUB_REPOSITORY", PROJECT),
                       target_ref=payload_file.branch(variables.optional(env, "GITHUB_REF", REF)),
                       head_sha=variables.optional(env, "GITHUB_SHA", SHA),
                       actor=variables.optional(env, "GITHUB_ACTOR", USER))
    hint = "; use `reviewbot publish` there" if name == "workflow_run" else ""
    return _ignored(name, payload, f"`{name}` events need nothing from `reviewbot ci`{hint}")


def _ignored(name: str, payload: dict[str, Any], reason: str) -> Trigger:
    return Trigger("github", name, "ignored", action=payload_file.action(payload, name),
                   repository=payload_file.repository(payload, name), reason=reason)


def _pull_request(payload: dict[str, Any]) -> Trigger:
    action = payload_file.action(payload, "pull_request")
    kind: TriggerKind = ("review" if action in REVIEW_ACTIONS or not action
                         else "label" if action == "labeled" else "ignored")
    if kind == "ignored":
        return _ignored("pull_request", payload,
                        f"pull_request `{action}` needs no review")
    pr = payload_file.field(payload, "pull_request", dict, event="pull_request")
    head = payload_file.field(pr, "head", dict, "pull_request.", "pull_request")
    base = payload_file.field(pr, "base", dict, "pull_request.", "pull_request")
    base_repo = payload_file.field(base, "repo", dict, "pull_request.base.", "pull_request")
    # null when the fork is deleted
    head_repo = payload_file.optional(head, "repo", dict, "pull_request.head.", "pull_request")
    label = payload_file.optional(payload, "label", dict, event="pull_request") or {}
    sender, login = payload_file.user(payload, "sender", "login", event="pull_request")
    return Trigger(
        "github", "pull_request", kind, action=action,
        repository=payload_file.field(base_repo, "full_name", str, "pull_request.base.repo.", "pull_request"),
        number=payload_file.field(pr, "number", int, "pull_request.", "pull_request"),
        base_sha=payload_file.sha(base, "pull_request.base.sha", "pull_request"),
        head_sha=payload_file.sha(head, "pull_request.head.sha", "pull_request"),
        target_ref=payload_file.field(base, "ref", str, "pull_request.base.", "pull_request"),
        head_ref=payload_file.field(head, "ref", str, "pull_request.head.", "pull_request"),
        head_repository=payload_file.field(head_repo, "full_name", str, "pull_request.head.repo.",
                                           "pull_request") if head_repo is not None else None,
        open=payload_file.one_of(pr, "state", ("open", "closed"), "pull_request.",
                                 "pull_request") == "open",
        draft=bool(payload_file.optional(pr, "draft", bool, "pull_request.", "pull_request")),
        actor=login, actor_is_bot=payload_file.is_bot(sender, login, "sender.", "pull_request"),
        label=payload_file.optional(label, "name", str, "label.", "pull_request", empty=False),
    )


def _issue_comment(payload: dict[str, Any]) -> Trigger:
    action = payload_file.action(payload, "issue_comment")
    issue = payload_file.field(payload, "issue", dict, event="issue_comment")
    if payload_file.optional(issue, "pull_request", dict, "issue.", "issue_comment") is None:
        return _ignored("issue_comment", payload, "a comment on an issue, not on a pull request")
    if action != "created":
        return _ignored("issue_comment", payload, f"a comment `{action}`: only new comments count")
    comment = payload_file.field(payload, "comment", dict, event="issue_comment")
    user, login = payload_file.user(comment, "user", "login", "comment.", "issue_comment")
    repo = payload_file.field(payload, "repository", dict, event="issue_comment")
    return Trigger(
        "github", "issue_comment", "comment", action=action,
        repository=payload_file.field(repo, "full_name", str, "repository.", "issue_comment"),
        number=payload_file.field(issue, "number", int, "issue.", "issue_comment"),
        open=payload_file.one_of(issue, "state", ("open", "closed"), "issue.",
                                 "issue_comment") == "open",
        actor=login, actor_is_bot=payload_file.is_bot(user, login, "comment.user.", "issue_comment"),
        comment_id=payload_file.field(comment, "id", int, "comment.", "issue_comment"),
        comment_body=payload_file.optional(comment, "body", str, "comment.", "issue_comment")
        or "",
        comment_created_at=payload_file.field(comment, "created_at", str, "comment.", "issue_comment"),
    )


def unhandled(trigger: Trigger, handled: Collection[TriggerKind]) -> str:
    """One line: this event needs nothing, and which events do."""
    what = trigger.reason or f"`{trigger.event}` is not handled yet"
    kinds = {"review": "pull_request (" + ", ".join(REVIEW_ACTIONS) + ")",
             "label": "pull_request labeled", "comment": "issue_comment created on a pull request",
             "sweep": "schedule, workflow_dispatch", "queue": "merge_group checks_requested"}
    return f"nothing to do: {what}; handled: {'; '.join(kinds[k] for k in handled if k in kinds)}"


# --- the runner's outputs ---------------------------------------------------------------

def annotate(annotations: Sequence[Annotation]) -> None:
    """Workflow commands: annotations the runner shows without any token."""
    commands = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    for a in annotations:
        message = a.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        props = f"file={_prop(a.path)},line={a.start_line},endLine={a.end_line},title={_prop(a.title)}"
        print(f"::{commands[a.severity]} {props}::{message}")
    if len(annotations) > 10:
        print("reviewbot: GitHub shows at most 10 annotations of each level per step; "
              "all findings are in the job summary")


def _prop(value: str) -> str:
    return (value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            .replace(":", "%3A").replace(",", "%2C"))


def job_summary(env: Mapping[str, str], text: str) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        filecommands.append(path, text + "\n")
    except OSError as exc:
        print(f"reviewbot: cannot write the job summary {path}: {exc.strerror}", file=sys.stderr)


def warn(text: str) -> None:
    print(f"::warning::{text}")


def checkout(env: Mapping[str, str], given: Path | None) -> Path:
    """`given`, else the Actions workspace (GitHub's and Gitea's runners set it), else the cwd."""
    workspace = variables.optional(env, "GITHUB_WORKSPACE", variables.ABSOLUTE)
    return git.toplevel(given or Path(workspace or "."))


def in_change_event(env: Mapping[str, str]) -> bool:
    return env.get("GITHUB_EVENT_NAME") in PR_EVENTS


CHANGE = "PR #"  # how the job log names a change: PR #7, MR !3
ENABLE_COMMENTS = (
    "reviewbot could not write to this pull request, so its findings are in the job summary and "
    "the annotations only. To get review comments: give the job `permissions: {pull-requests: "
    "write, checks: write}`; for pull requests from forks GitHub hands out a read-only token: "
    "use the fork-safe analyze/publish workflows (README, 'Pull requests from forks').")


def api_urls(env: Mapping[str, str]) -> tuple[str, str]:
    """REST and GraphQL endpoints (GitHub Enterprise Server sets both)."""
    api = (variables.optional(env, "GITHUB_API_URL", variables.URL)
           or "https://api.github.com").rstrip("/")
    # github.com: api.github.com/graphql; GHES: https://HOST/api/v3 -> https://HOST/api/graphql
    default = api[: -len("/v3")] + "/graphql" if api.endswith("/api/v3") else api + "/graphql"
    return api, variables.optional(env, "GITHUB_GRAPHQL_URL", variables.URL) or default


class GitHubActions:
    """The GitHub Actions runner (`bot.ci.base.Runner`)."""

    forge: Literal["github"] = "github"
    change_name = CHANGE
    enable_comments = ENABLE_COMMENTS
    checkout_hint = CHECKOUT_HINT

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def trigger(self) -> Trigger:
        return from_env(self._env)

    def checkout(self, given: Path | None) -> Path:
        return checkout(self._env, given)

    def in_change_event(self) -> bool:
        return in_change_event(self._env)

    def analysed_range(self, trigger: Trigger) -> Range | None:
        return event_range(trigger)

    def exposed_token(self) -> str | None:
        return None  # the job's own GITHUB_TOKEN is what its `permissions:` make it

    def repository_name(self, trigger: Trigger | None = None) -> str:
        return self._env.get("GITHUB_REPOSITORY") or (trigger.repository if trigger else None) or ""

    def token(self, given: str | None) -> str:
        return given or self._env.get("GITHUB_TOKEN") or ""

    def connect(self, trigger: Trigger, token: str | None, *, dry_run: bool = False
                ) -> Connection:
        token = self.token(token)
        name = self.repository_name(trigger)
        if not token and not dry_run:
            raise BotError("no GitHub token: pass --token or set GITHUB_TOKEN "
                           "(env: GITHUB_TOKEN: ${{ github.token }}); --dry-run needs none",
                           Exit.USAGE)
        return connect(self._env, name, token, trigger.number, dry_run=dry_run,
                       head=trigger.head_sha)

    def publishing(self, repository: str | None, number: int | None, head: str,
                   label: bool = False) -> Trigger:
        """The pull request an analysis is published to, checked against this run: the
        repository it runs in and, on `workflow_run`, the run that triggered it."""
        name = self.repository_name() or repository
        if number is None or not name:
            raise BotError("the analysis names no pull request: run `reviewbot analyze` on a "
                           "pull_request event", Exit.USAGE)
        if repository is not None and repository != name:
            raise BotError(f"the analysis is of {repository}, but this run publishes to {name}",
                           Exit.USAGE)
        if self._env.get("GITHUB_EVENT_NAME") in ("issue_comment", "pull_request",
                                                  merge_group.EVENT):
            # The second job of the event's own workflow: the artifact answers this event.
            return answered(self.trigger(), name, number, head)
        queue = check_run_event(self._env, head, number)
        return Trigger("github", self._env.get("GITHUB_EVENT_NAME") or "workflow_run",
                       "queue" if queue else "label" if label else "review", repository=name,
                       number=number, head_sha=head)

    def clone_url(self, repository: str) -> str:
        return clone_url(self._env, repository)

    def connect_repository(self, name: str, token: str, *, dry_run: bool = False
                           ) -> Connection:
        """The repository alone (a sweep run outside of an event)."""
        return connect(self._env, name, token, None, dry_run=dry_run)

    def unhandled(self, trigger: Trigger, handled: Collection[TriggerKind]) -> str:
        return unhandled(trigger, handled)

    def annotate(self, annotations: Sequence[Annotation]) -> None:
        annotate(annotations)

    def job_summary(self, text: str) -> None:
        job_summary(self._env, text)

    def warn(self, text: str) -> None:
        warn(text)


def connect(env: Mapping[str, str], name: str, token: str, number: int | None, *,
            dry_run: bool = False, head: str | None = None) -> Connection:
    """GitHub at the API this run names (GitHub Enterprise Server too); sends no request. A
    dry run reads with the token when there is one (what it records is what a run would send
    now), and reads nothing without (what a first run would send)."""
    # Here, not at the top: reading a trigger (`analyze`) must not load PyGithub.
    from bot.forges.github.api import Settings
    from bot.forges.github.change import GitHubChange
    from bot.forges.github.commits import GitHubCommits
    from bot.forges.github.host import push_env
    from bot.forges.github.repository import GitHubRepository

    api_url, graphql_url = api_urls(env)
    api = open_api(Settings(api_url=api_url, graphql_url=graphql_url, token=token,
                            repository=name, number=number))
    reads = bool(token and name)
    repository: Repository = GitHubRepository(api.settings, api=api)
    pulls: Pulls = GitHubCommits(api)
    # A dry run: both sides' writes are recorded where PyGithub sends (`recording.py`).
    recorded = api.record_writes(head=head or "", reads=reads).requests if dry_run else None
    # Without a token a dry run's conversation reads are GitHub's answers to no token (what
    # a fork check needs), not the recording's picture of a fresh pull request.
    change: Change | None = GitHubChange(
        api.settings, api=api, reads=None if reads or not dry_run else open_api(api.settings)
    ) if number is not None else None
    return Connection(name, repository, pulls, "#", change,
                      push_env(token, env.get("GITHUB_SERVER_URL") or ""), recorded,
                      sleep=api.sleep)


def clone_url(env: Mapping[str, str], repository: str) -> str:
    """The repository's git URL on this server (tests point it at a local repository)."""
    return f"{(env.get('GITHUB_SERVER_URL') or 'https://github.com').rstrip('/')}/{repository}.git"


def open_api(settings: Settings) -> Api:
    """The one connection of a run (tests tune its timeouts and pacing here)."""
    from bot.forges.github.api import Api

    return Api(settings)


def check_run_event(env: Mapping[str, str], head: str, number: int) -> bool:
    """On `workflow_run`, the artifact must be of the run that triggered this one: its head is
    the one GitHub names in the (trusted) event payload. True when that run was a merge
    queue's (`merge_group`): then the artifact must be of the pull request its branch holds."""
    if env.get("GITHUB_EVENT_NAME") != "workflow_run" or not env.get("GITHUB_EVENT_PATH"):
        return False
    payload: Any = payload_file.read(env["GITHUB_EVENT_PATH"], "the workflow_run event payload")
    expected, prs = _run_of(payload)
    if expected != head:
        raise BotError(f"the analysis is of {head[:12]}, but the workflow run that triggered "
                       f"this one analysed {str(expected)[:12]}", Exit.USAGE)
    run = payload["workflow_run"]
    if run.get("event") == merge_group.EVENT:
        branch = run.get("head_branch")
        held = merge_group.number_of(branch) if isinstance(branch, str) else None
        if held != number:
            raise BotError(f"the analysis is of pull request #{number}, but the merge queue's "
                           f"run was of the branch {branch!r}", Exit.USAGE)
        return True
    numbers = {pr["number"] for pr in prs if isinstance(pr, dict)
               and isinstance(pr.get("number"), int) and not isinstance(pr["number"], bool)}
    if numbers and number not in numbers:  # empty for fork pull requests
        raise BotError(f"the analysis is of pull request #{number}, but the workflow run was for "
                       f"#{', #'.join(str(n) for n in sorted(numbers))}", Exit.USAGE)
    return False


def _run_of(payload: Any) -> tuple[str, list[Any]]:
    """The head sha and the pull requests of a workflow_run event; BotError naming the field."""
    run = payload.get("workflow_run") if isinstance(payload, dict) else None
    if not isinstance(run, dict):
        raise BotError("malformed workflow_run event payload: `workflow_run` is missing or not "
                       "an object", Exit.USAGE)
    head = run.get("head_sha")
    if not isinstance(head, str) or not payload_file.SHA.fullmatch(head):
        raise BotError("malformed workflow_run event payload: `workflow_run.head_sha` is not a "
                       "commit sha", Exit.USAGE)
    prs = run.get("pull_requests")
    if prs is not None and not isinstance(prs, list):  # GitHub sends [] for a fork's run
        raise BotError("malformed workflow_run event payload: `workflow_run.pull_requests` is "
                       "not a list", Exit.USAGE)
    return head, prs or []
