"""The service hook relay: Azure Pipelines has no comment trigger, so a service hook on "Pull
request commented on" (`ms.vss-code.git-pullrequest-comment-event`, a Web Hooks subscription)
is relayed to a run of the reviewbot pipeline on the repository's default branch, started
through the pipelines `runs` operation (`POST {project}/_apis/pipelines/{id}/runs`) with five
variables, each settable at queue time: REVIEWBOT_PULL_REQUEST, REVIEWBOT_THREAD,
REVIEWBOT_COMMENT (where the comment is), REVIEWBOT_HEAD and REVIEWBOT_TARGET (the pull
request's source commit and target branch the hook names, which the token-less analyze job
reviews).

The relay only points: the pipeline reads the comment's text and author from Azure DevOps
(`bot.forges.azure.commands`), so nothing the hook's sender wrote is trusted. A comment with
no line that starts with the command prefix starts nothing, and neither does a comment the
pipeline's own identity wrote (its replies). Pure but for `start`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.errors import BotError, Exit
from bot.forges.azure import limits
from bot.forges.azure.api import Api
from bot.forges.azure.commands import BUILD
from bot.forges.relay import Fields, commands

EVENT = "ms.vss-code.git-pullrequest-comment-event"
COMMENT_LINK = re.compile(r"/threads/(\d+)/comments/(\d+)$")
SHA = re.compile(r"[0-9a-f]{40}")
FIELDS = Fields(f"{EVENT} payload")
_obj, _text, _number = FIELDS.obj, FIELDS.text, FIELDS.number


@dataclass(frozen=True)
class Relayed:
    """What the relay does for one service hook: `body` to start the run with (in `project`,
    of `collection`), or None and why not."""

    collection: str
    project: str
    body: dict[str, Any] | None
    reason: str = ""


def request(payload: Any, *, prefix: str = "/", branch: str | None = None) -> Relayed:
    """The run request for a service hook's payload; BotError (usage) naming the field when
    the payload is not a pull request comment's. `branch`: the default branch, when the
    payload's repository does not name it."""
    if not isinstance(payload, dict):
        raise BotError("malformed service hook payload: not an object", Exit.USAGE)
    if payload.get("eventType") != EVENT:
        raise BotError(f"the service hook's eventType is {payload.get('eventType')!r}, not "
                       f"{EVENT} (Pull request commented on)", Exit.USAGE)
    resource = _obj(payload, "resource")
    comment = _obj(resource, "comment", "resource.")
    pull = _obj(resource, "pullRequest", "resource.")
    repository = _obj(pull, "repository", "resource.pullRequest.")
    project = _text(_obj(repository, "project", "resource.pullRequest.repository."), "name",
                    "resource.pullRequest.repository.project.")
    collection = _text(_obj(_obj(payload, "resourceContainers"), "collection",
                            "resourceContainers."), "baseUrl",
                       "resourceContainers.collection.")
    content = comment.get("content")
    if not commands(content, prefix):
        return Relayed(collection, project, None, "the comment holds no command line")
    author = comment.get("author")
    if isinstance(author, dict) and str(author.get("uniqueName") or "").startswith(BUILD):
        return Relayed(collection, project, None, "the pipeline's own identity wrote it")
    if comment.get("isDeleted"):
        return Relayed(collection, project, None, "the comment was deleted")
    link = _text(_obj(_obj(comment, "_links", "resource.comment."), "self",
                      "resource.comment._links."), "href", "resource.comment._links.self.")
    found = COMMENT_LINK.search(link)
    if found is None:
        raise FIELDS.malformed("resource.comment._links.self.href names no thread and comment")
    head = _text(_obj(pull, "lastMergeSourceCommit", "resource.pullRequest."), "commitId",
                 "resource.pullRequest.lastMergeSourceCommit.")
    if not SHA.fullmatch(head):
        raise FIELDS.malformed("the source commit is not a sha")
    default = repository.get("defaultBranch") or branch
    if not isinstance(default, str) or not default.startswith("refs/heads/"):
        raise BotError("the payload names no default branch: pass --branch refs/heads/<default>",
                       Exit.USAGE)
    values = {"REVIEWBOT_PULL_REQUEST": str(_number(pull, "pullRequestId",
                                                    "resource.pullRequest.")),
              "REVIEWBOT_THREAD": found.group(1), "REVIEWBOT_COMMENT": found.group(2),
              "REVIEWBOT_HEAD": head,
              "REVIEWBOT_TARGET": _text(pull, "targetRefName", "resource.pullRequest.")}
    return Relayed(collection, project, {
        "resources": {"repositories": {"self": {"refName": default}}},
        "variables": {key: {"value": value, "isSecret": False} for key, value in values.items()}})


def start(api: Api, pipeline: int, body: dict[str, Any]) -> int:
    """Start the run; its id. Not repeated after an uncertain answer (`Uncertain`): a second
    run would answer the comment twice."""
    made = api.write("POST", f"/pipelines/{pipeline}/runs", limits.RUNS, body)
    return int(made.get("id") or 0) if isinstance(made, dict) else 0
