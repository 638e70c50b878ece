"""A change opened or pushed to: the review of its head against its merge base, with the
conversation (ignored findings left out, the staged plan shown), to publish on any forge; the
exit status is the gate's."""

from __future__ import annotations

from bot import config, git
from bot.ci.base import Runner
from bot.conversation.state import read
from bot.errors import Exit
from bot.flows.session import log
from bot.forges.base import Connection
from bot.model import Trigger
from bot.options import CiOptions
from bot.publishing.offer import with_conversation
from bot.publishing.outputs import writable
from bot.publishing.turn import Review, Turn
from bot.run.pipeline import run_review


def review(runner: Runner, options: CiOptions, trigger: Trigger, connection: Connection) -> Turn:
    assert trigger.number is not None and connection.change
    writable(options.delivery)
    checkout = runner.checkout(options.repo)
    change = connection.change.review_range(trigger)
    if not change.open:
        log(f"{runner.change_name}{trigger.number} is not open; nothing to review")
        return Turn(int(Exit.OK))
    git.ensure_commits(checkout, (change.head, change.base), runner.checkout_hint)
    # The apply label's name and the command prefix as the target branch says.
    cfg = config.read_at(checkout, change.base)
    result = run_review(options.checks.review(checkout, change.base, change.head))
    # Kept: the publish step's first read of the change is this one.
    state = read(connection.change.summary_body(keep=True))
    offered = with_conversation(checkout, result, state, cfg,
                                labels=connection.change.dialect.labels)
    return Turn(review=Review(connection, trigger.number, offered.shown, options.delivery),
                exiting="gate")
