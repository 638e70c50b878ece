"""GitHub's merge queue: the `merge_group` event as a `Trigger`, and the pull request a queue
branch holds.

GitHub builds each queue entry on a branch `gh-readonly-queue/<base>/pr-<N>-<sha>` whose head
is the pull request merged onto what is ahead of it in the queue (`base_sha`: the target
branch, or the entry ahead). Pure parsing; a malformed field is refused with a message that
names it (exit status 2).
"""

from __future__ import annotations

import re
from typing import Any

from bot.ci import payload as payload_file
from bot.errors import BotError, Exit
from bot.model import Trigger

EVENT = "merge_group"
# The branch GitHub names a queue entry with; `.+` for the base: a branch name may hold `/`.
QUEUE_REF = re.compile(r"(?:refs/heads/)?gh-readonly-queue/(?P<base>.+)/pr-(?P<number>[1-9][0-9]*)"
                       r"-(?P<sha>[0-9a-f]{40}(?:[0-9a-f]{24})?)")


def number_of(ref: str) -> int | None:
    """The pull request a queue branch (or ref) holds; None for any other branch."""
    found = QUEUE_REF.fullmatch(ref)
    return int(found["number"]) if found else None


def parse(payload: dict[str, Any]) -> Trigger:
    """`checks_requested`: gate the group's head against its base; `destroyed` (merged,
    dequeued or invalidated) needs nothing."""
    action = payload_file.action(payload, EVENT)
    repo = payload_file.field(payload, "repository", dict, event=EVENT)
    repository = payload_file.field(repo, "full_name", str, "repository.", EVENT)
    if action != "checks_requested":
        return Trigger("github", EVENT, "ignored", action=action, repository=repository,
                       reason=f"a merge group `{action}`: only `checks_requested` asks for "
                              "the gate")
    group = payload_file.field(payload, "merge_group", dict, event=EVENT)
    head_ref = payload_file.field(group, "head_ref", str, "merge_group.", EVENT)
    number = number_of(head_ref)
    if number is None:
        raise BotError(f"malformed {EVENT} event: `merge_group.head_ref` {head_ref!r} is not a "
                       "merge queue branch (gh-readonly-queue/BASE/pr-N-SHA)", Exit.USAGE)
    sender, login = payload_file.user(payload, "sender", "login", event=EVENT)
    return Trigger(
        "github", EVENT, "queue", action=action, repository=repository, number=number,
        base_sha=_sha(group, "base_sha"), head_sha=_sha(group, "head_sha"),
        target_ref=payload_file.branch(payload_file.field(group, "base_ref", str,
                                                          "merge_group.", EVENT)),
        head_ref=payload_file.branch(head_ref), head_repository=repository,
        actor=login, actor_is_bot=payload_file.is_bot(sender, login, "sender.", EVENT))


def _sha(group: dict[str, Any], key: str) -> str:
    value = payload_file.field(group, key, str, "merge_group.", EVENT)
    if not payload_file.SHA.fullmatch(value):
        raise BotError(f"malformed {EVENT} event: `merge_group.{key}` is not a commit sha",
                       Exit.USAGE)
    return str(value)
