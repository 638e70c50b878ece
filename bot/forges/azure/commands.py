"""A command's comment as Azure DevOps holds it: what a service hook's run acts on.

The run's variables only point at the comment (pull request, thread, comment); its text, its
author and when it was written are read here, with the pipeline's token, and the thread must
be on that pull request. A comment the bot's own identity wrote is marked as a bot's, so its
replies never start commands.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.errors import BotError, Exit, NotFound
from bot.forges.azure import limits
from bot.forges.azure.api import Api
from bot.model import Trigger

BUILD = "Build\\"  # how Azure DevOps names a pipeline's identity: Build\<guid>


def read_comment(api: Api, trigger: Trigger, thread: int, branch: str) -> Trigger:
    """`trigger` (a command's run of `branch`) completed from comment `trigger.comment_id` of
    `thread` on pull request `trigger.number`; BotError (usage) when there is no such comment
    there, or when the run is not of the repository's default branch (whose pipeline and
    settings are the ones trusted to act on commands)."""
    assert trigger.number is not None and trigger.comment_id is not None
    where = f"comment {trigger.comment_id} of thread {thread} on pull request {trigger.number}"
    try:
        data = api.get(f"{api.pull(trigger.number)}/threads/{thread}", limits.THREADS)
        pull = api.get(f"{api.repo}/pullrequests/{trigger.number}", limits.PULL)
    except NotFound as exc:
        raise BotError(f"Azure DevOps has no {where}: {exc.message}", Exit.USAGE) from exc
    repository = pull.get("repository") if isinstance(pull, dict) else None
    default = repository.get("defaultBranch") if isinstance(repository, dict) else None
    if branch != default:
        raise BotError(f"a command's run must be of the default branch ({default or 'unknown'}), "
                       f"not {branch}: the service hook's run names `refs/heads/<default>` "
                       "(docs/azure-devops.md)", Exit.USAGE)
    comments = data.get("comments") if isinstance(data, dict) else None
    found: dict[str, Any] | None = next(
        (c for c in comments or () if isinstance(c, dict) and c.get("id") == trigger.comment_id
         and not c.get("isDeleted")), None)
    if found is None:
        raise BotError(f"Azure DevOps has no {where}", Exit.USAGE)
    author = found.get("author") if isinstance(found.get("author"), dict) else None
    login = str(author.get("uniqueName") or "") if author else ""
    if not login:
        raise BotError(f"Azure DevOps names no author of {where}", Exit.FORGE)
    status = pull.get("status") if isinstance(pull, dict) else None
    return replace(trigger, actor=login, actor_is_bot=login.startswith(BUILD),
                   comment_body=str(found.get("content") or ""),
                   comment_created_at=str(found.get("publishedDate") or "") or None,
                   open=status == "active", action="created")
