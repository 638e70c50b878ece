"""The webhook relay: Bitbucket Pipelines has no comment trigger, so a repository webhook
(`pullrequest:comment_created`) is relayed to a custom pipeline (`custom: reviewbot:` in
`bitbucket-pipelines.yml`) on the pull request's destination branch, started through the API
(`POST /repositories/{workspace}/{repo_slug}/pipelines`) with four variables:
REVIEWBOT_PR_ID, REVIEWBOT_COMMENT_ID, REVIEWBOT_HEAD (the head the webhook names, which
the commands are then held to) and REVIEWBOT_COMMANDS (the comment's command lines: what the
token-less analyze step reviews ahead, nothing more).

The relay only points: the pipeline reads the comment's text and author from the API
(`bot.ci.bitbucket_pipelines`), so nothing the webhook's sender wrote is trusted. A comment
with no line that starts with the command prefix starts nothing. Pure but for `start`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.errors import BotError, Exit
from bot.forges.bitbucket.api import Api
from bot.forges.relay import Fields, commands

EVENT = "pullrequest:comment_created"
PIPELINE = "reviewbot"  # the custom pipeline's name in bitbucket-pipelines.yml
COMMAND_LINE, COMMANDS = 200, 1000  # a hint's line and whole: characters kept
FIELDS = Fields(f"{EVENT} webhook")
_obj, _text, _number = FIELDS.obj, FIELDS.text, FIELDS.number


@dataclass(frozen=True)
class Relayed:
    """What the relay does for one webhook: `body` to start the pipeline with, or None and
    why not."""

    repository: str
    body: dict[str, Any] | None
    reason: str = ""


def request(payload: Any, *, pipeline: str = PIPELINE, prefix: str = "/") -> Relayed:
    """The pipeline request for a webhook's payload; BotError (usage) naming the field when the
    payload is not a comment webhook's."""
    if not isinstance(payload, dict):
        raise BotError("malformed webhook payload: not an object", Exit.USAGE)
    repository = _text(_obj(payload, "repository"), "full_name", "repository.")
    comment = _obj(payload, "comment")
    pull = _obj(payload, "pullrequest")
    raw = (comment.get("content") or {}).get("raw") if isinstance(comment.get("content"),
                                                                  dict) else None
    lines = commands(raw, prefix)
    if not lines:
        return Relayed(repository, None, "the comment holds no command line")
    if comment.get("deleted"):
        return Relayed(repository, None, "the comment was deleted")
    source, destination = _obj(pull, "source", "pullrequest."), _obj(pull, "destination",
                                                                     "pullrequest.")
    head = _text(_obj(source, "commit", "pullrequest.source."), "hash",
                 "pullrequest.source.commit.")
    branch = _text(_obj(destination, "branch", "pullrequest.destination."), "name",
                   "pullrequest.destination.branch.")
    values = {"REVIEWBOT_PR_ID": str(_number(pull, "id", "pullrequest.")),
              "REVIEWBOT_COMMENT_ID": str(_number(comment, "id", "comment.")),
              "REVIEWBOT_HEAD": head,
              # What the token-less analyze step reviews ahead (the commit a /fix or /apply
              # would make): a hint only, the publish step reads the comment from the API.
              "REVIEWBOT_COMMANDS": "\n".join(line[:COMMAND_LINE] for line in lines)[:COMMANDS]}
    return Relayed(repository, {
        "type": "pipeline",
        "target": {"type": "pipeline_ref_target", "ref_type": "branch", "ref_name": branch,
                   "selector": {"type": "custom", "pattern": pipeline}},
        "variables": [{"type": "pipeline_variable", "key": key, "value": value,
                       "secured": False} for key, value in values.items()]})


def start(api: Api, body: dict[str, Any]) -> str:
    """Start the pipeline; its uuid. Not repeated after an uncertain answer (`Uncertain`):
    a second pipeline would answer the comment twice."""
    made = api.write("POST", f"{api.repo}/pipelines", body)
    return str(made.get("uuid") or "") if isinstance(made, dict) else ""
