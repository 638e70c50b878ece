"""GitLab CI: the pipeline's predefined variables as a `Trigger`, the token it publishes with,
and the job's own outputs (the job log; GitLab CI has no annotations or job summary).

Pure parsing with messages that say what to change. The SHAs here are what the pipeline
says; the forge takes base, start and head from the merge request's latest diff version,
since in a merged-result pipeline CI_COMMIT_SHA is a merge commit, not the MR head.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from bot.errors import BotError, Exit
from bot.forges.base import Annotation
from bot.model import Trigger, TriggerKind

SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
TOKEN_HINT = ("create a project (or group) access token with the `api` scope and the Developer "
              "role or higher, and store it as the CI/CD variable REVIEWBOT_GITLAB_TOKEN "
              "(masked; not protected, or merge request pipelines cannot read it)")
REVIEW_SOURCE = "merge_request_event"


def active(env: Mapping[str, str]) -> bool:
    """Whether this run is a GitLab CI job (the runner sets GITLAB_CI=true)."""
    return env.get("GITLAB_CI") == "true"


def from_env(env: Mapping[str, str]) -> Trigger:
    source = env.get("CI_PIPELINE_SOURCE") or ""
    project = env.get("CI_PROJECT_PATH")
    if source == REVIEW_SOURCE:
        return Trigger(
            "gitlab", source, "review", repository=_need(env, "CI_PROJECT_PATH"),
            number=_iid(env), base_sha=_sha(env, "CI_MERGE_REQUEST_DIFF_BASE_SHA"),
            # What the pipeline checked out; the MR head is read from its diff version.
            head_sha=_sha(env, "CI_COMMIT_SHA"),
            target_ref=_need(env, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"),
            head_ref=env.get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME") or None,
            head_repository=env.get("CI_MERGE_REQUEST_SOURCE_PROJECT_PATH") or project,
            actor=env.get("GITLAB_USER_LOGIN") or None)
    if source == "schedule":
        return Trigger("gitlab", source, "sweep", repository=project,
                       target_ref=env.get("CI_COMMIT_BRANCH") or None,
                       head_sha=env.get("CI_COMMIT_SHA") or None)
    reason = (f"CI_PIPELINE_SOURCE={source}: only merge request pipelines are reviewed"
              if source else "CI_PIPELINE_SOURCE is not set")
    return Trigger("gitlab", source or "unknown", "ignored", repository=project, reason=reason)


def token(env: Mapping[str, str]) -> str:
    """The token to publish with: REVIEWBOT_GITLAB_TOKEN, else GITLAB_TOKEN. CI_JOB_TOKEN
    cannot write merge request notes, so it is refused by value too."""
    name = "REVIEWBOT_GITLAB_TOKEN" if env.get("REVIEWBOT_GITLAB_TOKEN") else "GITLAB_TOKEN"
    value = env.get(name) or ""
    if not value:
        raise BotError(f"no GitLab token: {TOKEN_HINT}", Exit.USAGE)
    if value == env.get("CI_JOB_TOKEN"):
        raise BotError(f"{name} holds CI_JOB_TOKEN, which cannot write merge request notes: "
                       + TOKEN_HINT, Exit.USAGE)
    return value


def api(env: Mapping[str, str]) -> tuple[str, str]:
    """The REST API (CI_API_V4_URL, else CI_SERVER_URL/api/v4) and the project (CI_PROJECT_ID)."""
    url = env.get("CI_API_V4_URL") or (
        env["CI_SERVER_URL"].rstrip("/") + "/api/v4" if env.get("CI_SERVER_URL") else "")
    if not url:
        raise BotError("neither CI_API_V4_URL nor CI_SERVER_URL is set: run `reviewbot ci` in a "
                       "GitLab CI job", Exit.USAGE)
    return url, _need(env, "CI_PROJECT_ID")


def unhandled(trigger: Trigger, handled: Collection[TriggerKind]) -> str:
    what = trigger.reason or f"CI_PIPELINE_SOURCE={trigger.event} is not handled on GitLab yet"
    return f"nothing to do: {what}; handled: {REVIEW_SOURCE}"


def _need(env: Mapping[str, str], name: str) -> str:
    value = env.get(name)
    if not value:
        raise BotError(f"{name} is not set: `reviewbot ci` reviews merge requests from a job "
                       "with `rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"`",
                       Exit.USAGE)
    return value


def _iid(env: Mapping[str, str]) -> int:
    text = _need(env, "CI_MERGE_REQUEST_IID")
    if not text.isdigit():
        raise BotError(f"CI_MERGE_REQUEST_IID={text!r} is not a merge request number", Exit.USAGE)
    return int(text)


def _sha(env: Mapping[str, str], name: str) -> str:
    value = _need(env, name)
    if not SHA.fullmatch(value):
        raise BotError(f"{name}={value!r} is not a commit sha", Exit.USAGE)
    return value


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
