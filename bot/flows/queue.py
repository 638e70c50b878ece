"""A merge queue's group (GitHub `merge_group`) or a merge train's pipeline (GitLab): the gate
where the merge really happens.

The merged result (the change on top of what is ahead of it) is reviewed against what it is
merged onto, with the same settings and tools as the change's own review, and the gate is
published where the queue reads it: the check run (GitHub) or commit status (GitLab) on the
merged result, and the CI's job summary. No inline comment: the merged result is no change's
head. When the gate fails, one comment on the change the queue holds (`bot.publishing.queue`)
names what the combination introduced beyond what the change's own review raised, found again
by its hidden marker so a re-run edits it; when a later run passes, an earlier one is edited to
say so, and none is posted.

A merged result whose findings the change's own review already raised fails or passes as that
review did: it is the same findings under the same gate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot import git
from bot.ci.base import Runner
from bot.errors import BotError, Exit
from bot.forges.base import Connection
from bot.model import ReviewResult, Trigger
from bot.options import CiOptions, Delivery
from bot.publishing.outputs import writable
from bot.publishing.turn import Queued, Review, Shown, Turn
from bot.revisions.workspace import texts as head_texts
from bot.run.pipeline import run_review


def name_of(trigger: Trigger) -> str:
    """What the forge calls it: GitHub's merge queue, GitLab's merge train."""
    return "merge train" if trigger.forge == "gitlab" else "merge queue"


def gate(runner: Runner, options: CiOptions, trigger: Trigger) -> Turn:
    """`reviewbot ci` on the queue's event: review the merged result here; its gate is what
    is to be published."""
    if trigger.number is None or not trigger.base_sha or not trigger.head_sha:
        raise BotError(f"the {name_of(trigger)}'s event names no change, base or head",
                       Exit.USAGE)
    writable(options.delivery)
    connection = runner.connect(trigger, options.token, dry_run=options.dry_run)
    refuse_a_fork(runner, connection, trigger)  # a dry run too: it runs the same code
    checkout = runner.checkout(options.repo)
    git.ensure_commits(checkout, (trigger.head_sha, trigger.base_sha), runner.checkout_hint)
    result = run_review(options.checks.review(checkout, trigger.base_sha, trigger.head_sha))
    texts = head_texts(checkout, result.head, [v.finding.path for v in result.findings])
    return publish(connection, trigger, result, texts, options.delivery)


def refuse_a_fork(runner: Runner, connection: Connection, trigger: Trigger) -> None:
    """The queue's job holds the token its workflow gives, whoever opened the change: a fork's
    change is not linted next to it (the two jobs are for that), whatever the token may do."""
    assert connection.change is not None
    if connection.change.pull_request().fork:
        raise BotError(f"{runner.change_name}{trigger.number} comes from a fork: its "
                       f"{name_of(trigger)} run would lint its code next to this job's token; "
                       "run `reviewbot analyze` there and `reviewbot publish` in a job of its "
                       "own (docs/merge-queues.md)", Exit.USAGE)


def publish(connection: Connection, trigger: Trigger, result: ReviewResult,
            texts: Mapping[str, Sequence[str]], delivery: Delivery) -> Turn:
    """The gate of `result` (the merged result's review) to publish where the queue reads it,
    with the word on the change; the exit status is the gate's."""
    assert trigger.number is not None
    queued = Queued(name_of(trigger), trigger.target_ref)
    return Turn(review=Review(connection, trigger.number, Shown(result, texts), delivery,
                              queued=queued), exiting="gate")
