"""GitLab CI: the pipeline's predefined variables as a `Trigger`, the token it publishes with,
and the job's own outputs (the job log; GitLab CI has no annotations or job summary).

GitLab has no comment trigger for CI: a project webhook (Comments, Merge request events)
pointed at the pipeline trigger URL of the default branch starts a pipeline with
CI_PIPELINE_SOURCE=trigger, whose TRIGGER_PAYLOAD is a file variable: it holds the path of a
file with the webhook's JSON. Who acted is the payload's `user`, never GITLAB_USER_* (those
name the trigger token's owner).

Pure parsing with messages that say what to change. The SHAs here are what the pipeline
says; the forge takes base, start and head from the merge request's latest diff version,
since in a merged-result pipeline CI_COMMIT_SHA is a merge commit, not the MR head.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from bot import git
from bot.ci import payload as payload_file
from bot.ci import variables
from bot.ci.base import answered, event_range
from bot.ci.variables import BRANCH, NAME, NUMBER, PROJECT, SHA, URL, USER
from bot.errors import BotError, Exit
from bot.forges.base import Annotation, Connection, Range
from bot.model import Trigger, TriggerKind
from bot.secrecy import is_secret_name

if TYPE_CHECKING:
    from bot.forges.gitlab.change import GitLabChange
    from bot.forges.gitlab.change import Settings as ForgeSettings
    from bot.forges.gitlab.repository import GitLabRepository, RepositorySettings

TOKEN_HINT = ("create a project (or group) access token with the `api` scope and the Developer "
              "role or higher, and store it as the CI/CD variable REVIEWBOT_GITLAB_TOKEN "
              "(masked; not protected, or merge request pipelines cannot read it)")
REVIEW_SOURCE = "merge_request_event"
TRAIN = "merge_train"  # CI_MERGE_REQUEST_EVENT_TYPE of a merge train's pipeline
HOOK_SOURCE = "trigger"
CHECKOUT_HINT = "set `GIT_DEPTH: 0` (or a larger depth) in the job's variables"
HOOK_HINT = ("point a project webhook (Comments; Merge request events) at the pipeline trigger "
             "URL of the default branch (docs/gitlab.md)")


def active(env: Mapping[str, str]) -> bool:
    """Whether this run is a GitLab CI job (the runner sets GITLAB_CI=true); any other value
    than `true`, `false` or none is refused, not read as another CI."""
    return variables.optional(env, "GITLAB_CI", variables.FLAG) == "true"


def merge_request_pipeline(env: Mapping[str, str]) -> bool:
    """Whether this is a GitLab merge request pipeline (what `ci` reviews, `analyze` analyses
    and `publish` publishes to)."""
    return active(env) and env.get("CI_PIPELINE_SOURCE") == REVIEW_SOURCE


def review_head(env: Mapping[str, str]) -> str:
    """The merge request's head as the pipeline names it, without the API: the source branch's
    sha in a merged-result pipeline (whose CI_COMMIT_SHA is a merge commit), else CI_COMMIT_SHA."""
    return (variables.optional(env, "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", SHA)
            or _sha(env, "CI_COMMIT_SHA"))


def from_env(env: Mapping[str, str]) -> Trigger:
    """The pipeline's trigger. Every GitLab pipeline says why it runs (CI_PIPELINE_SOURCE)
    and of which project (CI_PROJECT_PATH): a job without them is misconfigured (a variable
    cleared, another CI's runner), refused rather than read as "nothing to do"."""
    source = variables.required(env, "CI_PIPELINE_SOURCE", NAME, _EVERY_PIPELINE)
    project = variables.required(env, "CI_PROJECT_PATH", PROJECT, _EVERY_PIPELINE)
    if source == REVIEW_SOURCE and \
            variables.optional(env, "CI_MERGE_REQUEST_EVENT_TYPE", NAME) == TRAIN:
        return _train(env, project)
    if source == REVIEW_SOURCE:
        return Trigger(
            "gitlab", source, "review", repository=project,
            number=_iid(env), base_sha=_sha(env, "CI_MERGE_REQUEST_DIFF_BASE_SHA"),
            # What the pipeline checked out; the MR head is read from its diff version.
            head_sha=_sha(env, "CI_COMMIT_SHA"),
            target_ref=variables.required(env, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", BRANCH,
                                          _MR_HINT),
            head_ref=variables.optional(env, "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", BRANCH),
            head_repository=(variables.optional(env, "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH",
                                                PROJECT) or project),
            actor=variables.optional(env, "GITLAB_USER_LOGIN", USER))
    if source == HOOK_SOURCE:
        return from_payload(env)
    if source == "schedule":
        return Trigger("gitlab", source, "sweep", repository=project,
                       target_ref=variables.optional(env, "CI_COMMIT_BRANCH", BRANCH),
                       head_sha=variables.optional(env, "CI_COMMIT_SHA", SHA))
    return Trigger("gitlab", source, "ignored", repository=project,
                   reason=f"CI_PIPELINE_SOURCE={source}: only merge request pipelines are "
                          "reviewed")


def _train(env: Mapping[str, str], project: str) -> Trigger:
    """A merge train's pipeline: CI_COMMIT_SHA is the train's merged result (this merge
    request merged onto what is ahead of it in the train), CI_MERGE_REQUEST_TARGET_BRANCH_SHA
    what it is merged onto (the car ahead's result, or the target branch)."""
    return Trigger(
        "gitlab", REVIEW_SOURCE, "queue", action=TRAIN, repository=project, number=_iid(env),
        base_sha=variables.required(env, "CI_MERGE_REQUEST_TARGET_BRANCH_SHA", SHA,
                                    "a merge train pipeline names what it merges onto there"),
        head_sha=_sha(env, "CI_COMMIT_SHA"),
        target_ref=variables.required(env, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", BRANCH,
                                      _MR_HINT),
        head_ref=variables.optional(env, "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", BRANCH),
        head_repository=(variables.optional(env, "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH", PROJECT)
                         or project),
        actor=variables.optional(env, "GITLAB_USER_LOGIN", USER))


def from_payload(env: Mapping[str, str]) -> Trigger:
    """The webhook that triggered this pipeline, from the file TRIGGER_PAYLOAD names."""
    path = env.get("TRIGGER_PAYLOAD")
    if not path:
        return Trigger("gitlab", HOOK_SOURCE, "ignored", repository=env.get("CI_PROJECT_PATH"),
                       reason="a trigger pipeline without TRIGGER_PAYLOAD (not started by a "
                              "webhook): " + HOOK_HINT)
    return parse_hook(payload_file.read(path, "TRIGGER_PAYLOAD"))


def project_dir(env: Mapping[str, str]) -> Path | None:
    """The checkout GitLab made (CI_PROJECT_DIR, an absolute path), if it says."""
    found = variables.optional(env, "CI_PROJECT_DIR", variables.ABSOLUTE)
    return Path(found) if found else None


def parse_hook(payload: Any) -> Trigger:
    """A webhook body as a Trigger: a new note on a merge request is a `comment`, a merge
    request update that adds labels a `label`; anything else is `ignored`."""
    if not isinstance(payload, dict):
        raise BotError("malformed webhook payload: not an object", Exit.USAGE)
    kind = payload_file.optional(payload, "object_kind", str, event="webhook", empty=False)
    project = payload_file.optional(payload, "project", dict, event="webhook") or {}
    repository = payload_file.optional(project, "path_with_namespace", str, "project.",
                                       "webhook", empty=False)
    if kind == "note":
        return _note(payload, repository)
    if kind == "merge_request":
        return _merge_request(payload, repository)
    return Trigger("gitlab", HOOK_SOURCE, "ignored", repository=repository,
                   reason=f"a {kind or 'unknown'} webhook needs nothing from `reviewbot ci`")


def _note(payload: dict[str, Any], repository: str | None) -> Trigger:
    note = _obj(payload, "object_attributes", "note")
    # `action` is sent since GitLab 16.11
    action = str(_text(note, "action", "object_attributes.", "note") or "create")
    noteable = _text(note, "noteable_type", "object_attributes.", "note")
    if noteable != "MergeRequest":
        return _ignored("note", repository, f"a comment on a {noteable}, not on a merge "
                                            "request", action)
    if action != "create" or payload_file.optional(note, "system", bool, "object_attributes.",
                                                   "note"):
        return _ignored("note", repository, f"a comment `{action}`: only new comments count",
                        action)
    mr = _obj(payload, "merge_request", "note")
    user = _obj(payload, "user", "note")
    return Trigger(
        "gitlab", "note", "comment", action=action, repository=repository,
        **_merge_request_fields(mr, repository, "merge_request.", "note"),
        actor=_text(user, "username", "user.", "note"),
        actor_id=_int(user, "id", "user.", "note"),
        comment_id=_int(note, "id", "object_attributes.", "note"),
        comment_body=payload_file.optional(note, "note", str, "object_attributes.", "note") or "",
        comment_created_at=_text(note, "created_at", "object_attributes.", "note"))


def _merge_request(payload: dict[str, Any], repository: str | None) -> Trigger:
    mr = _obj(payload, "object_attributes", "merge_request")
    action = _text(mr, "action", "object_attributes.", "merge_request") or ""
    changes = payload_file.optional(payload, "changes", dict, event="merge_request") or {}
    labels = payload_file.optional(changes, "labels", dict, "changes.", "merge_request") or {}
    before = _titles(labels, "previous")
    after = _titles(labels, "current")
    added = tuple(t for t in after if t not in before)
    if action != "update" or not added:
        return _ignored("merge_request", repository,
                        f"a merge request `{action or 'event'}` that adds no label", action)
    user = _obj(payload, "user", "merge_request")
    return Trigger(
        "gitlab", "merge_request", "label", action=action, repository=repository,
        **_merge_request_fields(mr, repository, "object_attributes.", "merge_request"),
        actor=_text(user, "username", "user.", "merge_request"),
        actor_id=_int(user, "id", "user.", "merge_request"),
        label=added[0], added_labels=added)


class _MergeRequestFields(TypedDict):
    number: int
    head_sha: str
    target_ref: str | None
    head_ref: str | None
    head_repository: str | None
    open: bool
    draft: bool


def _merge_request_fields(mr: dict[str, Any], repository: str | None, prefix: str, event: str
                          ) -> _MergeRequestFields:
    """The Trigger fields a webhook's merge request object gives, wherever it sits (`prefix`:
    its place in the payload, for error messages)."""
    return {"number": _int(mr, "iid", prefix, event), "head_sha": _last_commit(mr, prefix, event),
            "target_ref": _text(mr, "target_branch", prefix, event),
            "head_ref": _text(mr, "source_branch", prefix, event),
            "head_repository": _source(mr, repository, prefix, event),
            "open": payload_file.one_of(mr, "state", ("opened", "closed", "locked", "merged"),
                                        prefix, event) == "opened",
            # `work_in_progress`: the older name, still sent beside `draft`
            "draft": bool(payload_file.optional(mr, "draft", bool, prefix, event)
                          or payload_file.optional(mr, "work_in_progress", bool, prefix, event))}


def _ignored(event: str, repository: str | None, reason: str, action: str = "") -> Trigger:
    return Trigger("gitlab", event, "ignored", action=action, repository=repository,
                   reason=reason)


def _obj(obj: dict[str, Any], key: str, event: str) -> dict[str, Any]:
    value = obj.get(key)
    if not isinstance(value, dict):
        raise BotError(f"malformed {event} webhook: `{key}` is missing or not an object",
                       Exit.USAGE)
    return value


def _int(obj: dict[str, Any], key: str, prefix: str, event: str) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BotError(f"malformed {event} webhook: `{prefix}{key}` is missing or not a number",
                       Exit.USAGE)
    return value


def _text(obj: dict[str, Any], key: str, prefix: str, event: str) -> str | None:
    """A non-empty string field; None when absent or null, refused when malformed."""
    found = payload_file.optional(obj, key, str, prefix, event, empty=False)
    return str(found) if found is not None else None


def _last_commit(mr: dict[str, Any], prefix: str, event: str) -> str:
    """The head the event saw (`last_commit.id`): what a command was written against."""
    commit = mr.get("last_commit")
    sha = commit.get("id") if isinstance(commit, dict) else None
    if not isinstance(sha, str) or not payload_file.SHA.fullmatch(sha):
        raise BotError(f"malformed {event} webhook: `{prefix}last_commit.id` is not a commit sha",
                       Exit.USAGE)
    return sha


def _source(mr: dict[str, Any], repository: str | None, prefix: str, event: str) -> str | None:
    """The source project's path: the target's unless the ids differ (a fork)."""
    if _int(mr, "source_project_id", prefix, event) == _int(mr, "target_project_id", prefix,
                                                            event):
        return repository
    source = payload_file.optional(mr, "source", dict, prefix, event) or {}
    return _text(source, "path_with_namespace", f"{prefix}source.", event)


def _titles(labels: dict[str, Any], side: str) -> tuple[str, ...]:
    """The label titles of `changes.labels.<side>` (none when the update left labels alone)."""
    items = payload_file.optional(labels, side, list, "changes.labels.", "merge_request") or []
    return tuple(str(payload_file.field(item, "title", str, f"changes.labels.{side}[{i}].",
                                        "merge_request"))
                 for i, item in enumerate(items))


def token(env: Mapping[str, str]) -> str:
    """The token to publish with: the variable REVIEWBOT_TOKEN_VARIABLE names (the CI/CD
    component's `token_variable` input), else REVIEWBOT_GITLAB_TOKEN, else GITLAB_TOKEN.
    CI_JOB_TOKEN cannot write merge request notes, so it is refused by value too."""
    chosen = env.get("REVIEWBOT_TOKEN_VARIABLE")
    if chosen and not is_secret_name(chosen):
        # The processes reviewbot starts (the linters) inherit no variable named so; any
        # other name would hand them the token.
        raise BotError(f"REVIEWBOT_TOKEN_VARIABLE={chosen!r}: the token's variable must have "
                       "TOKEN, SECRET or PASSWORD in its name, so that the linters reviewbot "
                       "runs never inherit it", Exit.USAGE)
    name = chosen or ("REVIEWBOT_GITLAB_TOKEN" if env.get("REVIEWBOT_GITLAB_TOKEN")
                      else "GITLAB_TOKEN")
    value = env.get(name) or ""
    if not value:
        where = f"the variable {name} (REVIEWBOT_TOKEN_VARIABLE) is empty or not set; " \
            if chosen else ""
        raise BotError(f"no GitLab token: {where}{TOKEN_HINT}", Exit.USAGE)
    if value == env.get("CI_JOB_TOKEN"):
        raise BotError(f"{name} holds CI_JOB_TOKEN, which cannot write merge request notes: "
                       + TOKEN_HINT, Exit.USAGE)
    return value


def token_in_reach(env: Mapping[str, str]) -> str | None:
    """The name of a token variable set in this job, if any (`analyze` runs the merge
    request's code and should see none)."""
    names = (env.get("REVIEWBOT_TOKEN_VARIABLE") or "", "REVIEWBOT_GITLAB_TOKEN", "GITLAB_TOKEN")
    return next((name for name in names if name and env.get(name)), None)


def api(env: Mapping[str, str]) -> tuple[str, str]:
    """The REST API (CI_API_V4_URL, else CI_SERVER_URL/api/v4) and the project (CI_PROJECT_ID)."""
    given = variables.optional(env, "CI_API_V4_URL", URL)
    server = variables.optional(env, "CI_SERVER_URL", URL)
    url = given or (server.rstrip("/") + "/api/v4" if server else "")
    if not url:
        raise BotError("neither CI_API_V4_URL nor CI_SERVER_URL is set: run `reviewbot ci` in a "
                       "GitLab CI job", Exit.USAGE)
    return url, variables.required(env, "CI_PROJECT_ID", NUMBER, _EVERY_PIPELINE)


def unhandled(trigger: Trigger, handled: Collection[TriggerKind]) -> str:
    what = trigger.reason or f"CI_PIPELINE_SOURCE={trigger.event} is not handled on GitLab yet"
    kinds = {"review": REVIEW_SOURCE, "comment": "trigger (a note hook on a merge request)",
             "label": "trigger (a merge request hook adding the apply label)",
             "sweep": "schedule", "queue": f"{REVIEW_SOURCE} of a merge train"}
    return f"nothing to do: {what}; handled: {'; '.join(kinds[k] for k in handled if k in kinds)}"


_MR_HINT = ("`reviewbot ci` reviews merge requests from a job with "
            "`rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"`")
_EVERY_PIPELINE = ("GitLab sets it in every pipeline: run `reviewbot ci` in a GitLab CI job, and "
                   "clear no predefined variable")


def _iid(env: Mapping[str, str]) -> int:
    return int(variables.required(env, "CI_MERGE_REQUEST_IID", NUMBER, _MR_HINT))


def _sha(env: Mapping[str, str], name: str) -> str:
    return variables.required(env, name, SHA, _MR_HINT)


# --- the job's outputs ----------------------------------------------------------------

def annotate(annotations: Sequence[Annotation]) -> None:
    """The findings in the job log, where a token that cannot write leaves them."""
    for a in annotations:
        first = a.message.splitlines()[0] if a.message else ""
        print(f"{a.path}:{a.start_line}: {a.severity.label}: {a.title}: {first}")


def job_summary(env: Mapping[str, str], text: str) -> None:
    """GitLab CI has no job summary: the summary note and the Code Quality report show it."""


def warn(text: str) -> None:
    print(f"reviewbot: warning: {text}")


CHANGE = "MR !"  # how the job log names a change: PR #7, MR !3
ENABLE_COMMENTS = ("reviewbot could not write to this merge request, so its findings are in the "
                   "job log only. " + TOKEN_HINT[0].upper() + TOKEN_HINT[1:] + ".")


class GitLabCI:
    """The GitLab CI runner (`bot.ci.base.Runner`)."""

    forge: Literal["gitlab"] = "gitlab"
    change_name = CHANGE
    enable_comments = ENABLE_COMMENTS
    checkout_hint = CHECKOUT_HINT

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def trigger(self) -> Trigger:
        return from_env(self._env)

    def checkout(self, given: Path | None) -> Path:
        return git.toplevel(given or project_dir(self._env) or Path("."))

    def in_change_event(self) -> bool:
        """A merge request pipeline, or a webhook's (a note, a label on a merge request)."""
        return active(self._env) and self._env.get("CI_PIPELINE_SOURCE") in (REVIEW_SOURCE,
                                                                            HOOK_SOURCE)

    def analysed_range(self, trigger: Trigger) -> Range | None:
        """The diff's base and the merge request's head, never a merged-result commit; for a
        webhook's pipeline (a note, a label), the payload's last commit against the target
        branch (the review takes their merge base)."""
        if trigger.kind == "queue":  # the train's merged result against what it merges onto
            return event_range(trigger)
        if trigger.kind != "review":
            if not (trigger.head_sha and trigger.target_ref):
                return None
            return Range(f"refs/remotes/origin/{trigger.target_ref}", trigger.head_sha,
                         trigger.open)
        assert trigger.base_sha is not None
        return Range(trigger.base_sha, review_head(self._env), trigger.open)

    def exposed_token(self) -> str | None:
        return token_in_reach(self._env)

    def connect(self, trigger: Trigger, token: str | None, *, dry_run: bool = False
                ) -> Connection:
        """A dry run reads with the token too: what it records is what a run would send now."""
        # Here, not at the top: reading a trigger (`analyze`) must not load python-gitlab.
        from bot.forges.gitlab.change import Settings as ForgeSettings
        from bot.forges.gitlab.host import push_env
        from bot.forges.gitlab.merge_requests import MergeRequests
        from bot.forges.gitlab.repository import RepositorySettings

        token = self.token(token)
        url, project = api(self._env)
        name = trigger.repository or self._env.get("CI_PROJECT_PATH") or ""
        server = self._env.get("CI_SERVER_URL") or ""
        users = {trigger.actor: trigger.actor_id} if trigger.actor and trigger.actor_id else {}
        replies: Literal["merge_requests", "issues"] = (
            "issues" if trigger.kind == "sweep" else "merge_requests")
        gitlab_repository = open_repository(RepositorySettings(url, token, project,
                                                               replies=replies), users)
        # A dry run: the project's writes and the merge request's are recorded in one list.
        recording = gitlab_repository.record_writes() if dry_run else None
        recorded = recording.requests if recording else None
        if trigger.number is None or trigger.kind == "sweep":
            return Connection(name, gitlab_repository, MergeRequests(gitlab_repository), "!",
                              push_env=push_env(token, server), recorded=recorded)
        change = open_change(ForgeSettings(api_url=url, token=token, project=project,
                                           iid=trigger.number,
                                           target_url=self._env.get("CI_JOB_URL") or None,
                                           repository=name, server=server))
        if recording:
            change.record_writes(recording)
        return Connection(name, gitlab_repository, MergeRequests(gitlab_repository), "!", change,
                          push_env(token, server), recorded)

    def clone_url(self, repository: str) -> str:
        return clone_url(self._env, repository)

    def token(self, given: str | None = None) -> str:
        """GitLab's token is never optional: no token is a usage error naming the variable."""
        return given or token(self._env)

    def publishing(self, repository: str | None, number: int | None, head: str,
                   label: bool = False) -> Trigger:
        """This pipeline's merge request, which the analysis must be of: its project, its
        merge request and its head."""
        trigger = from_env(self._env)
        # A webhook's pipeline, or a merge train's: its second job.
        if trigger.kind in ("comment", "label", "queue"):
            return answered(trigger, repository, number, head)
        if trigger.kind != "review" or trigger.number is None:
            raise BotError("in GitLab CI, `reviewbot publish` runs in the merge request pipeline "
                           "whose `analyze` job wrote the artifact (rules: - if: "
                           "$CI_PIPELINE_SOURCE == \"merge_request_event\")", Exit.USAGE)
        expected_head = review_head(self._env)
        for field, found, expected in (("project", repository, trigger.repository),
                                       ("merge request", number, trigger.number),
                                       ("head", head, expected_head)):
            if found != expected:
                raise BotError(f"the analysis is of {field} {found}, but this pipeline is of "
                               f"{expected}: publish only the artifact of this pipeline's "
                               "`analyze` job", Exit.USAGE)
        return trigger

    def unhandled(self, trigger: Trigger, handled: Collection[TriggerKind]) -> str:
        return unhandled(trigger, handled)

    def annotate(self, annotations: Sequence[Annotation]) -> None:
        annotate(annotations)

    def job_summary(self, text: str) -> None:
        job_summary(self._env, text)

    def warn(self, text: str) -> None:
        warn(text)


def clone_url(env: Mapping[str, str], repository: str) -> str:
    """The project's git URL on this server (tests point it at a local repository)."""
    return f"{(env.get('CI_SERVER_URL') or '').rstrip('/')}/{repository}.git"


def open_change(settings: ForgeSettings) -> GitLabChange:
    """The merge request's connection (tests tune its timeouts and pacing here)."""
    from bot.forges.gitlab.change import GitLabChange

    return GitLabChange(settings)


def open_repository(settings: RepositorySettings, users: Mapping[str, int]) -> GitLabRepository:
    """The project's connection: `users` are ids the event already named."""
    from bot.forges.gitlab.repository import GitLabRepository

    return GitLabRepository(settings, users=users)
