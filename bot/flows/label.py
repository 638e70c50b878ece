"""The apply label added to a change (GitHub's `pull_request` `labeled`, a GitLab merge
request hook, Gitea's `label_updated`): it commits the staged plan the summary shows.

Another label: one log line, no request. A label added by a bot: ignored. Where the event
names no label (Gitea), the forge says who added the apply label: an event by anyone else (a
change to another label) does nothing. By someone without
the permission: the label is removed with one comment saying who may. Otherwise the plan is
recomputed at the PR's current head and handed to the apply engine with the id the summary
showed: a head that moved since the label was added, or a plan that differs, commits nothing.
The label is removed whatever happened, the reply says what did, and after a push the new head
is reviewed in the same run (a push made with GITHUB_TOKEN starts no workflow).
"""

from __future__ import annotations

from bot import config, git
from bot.ci.base import Runner
from bot.flows.actor import Skip, acting
from bot.flows.session import Workplace, log, reply_outcome, start
from bot.forges.repository import Access
from bot.model import Trigger
from bot.options import CiOptions
from bot.publishing.turn import Turn


def label(runner: Runner, options: CiOptions, trigger: Trigger,
          at: Workplace | None = None) -> Turn:
    """The apply label; `at` where it works (default: the CI's checkout, with the settings of
    the change's base)."""
    assert trigger.number is not None and trigger.head_sha
    if at is None:
        checkout = runner.checkout(options.repo)
        if trigger.base_sha:
            git.ensure_commits(checkout, (trigger.base_sha,), runner.checkout_hint)
        # The target's settings (the PR cannot change them): its base when the event names
        # it, else the checkout, which is then the default branch (a GitLab webhook's pipeline).
        at = Workplace(checkout, config.read_at(checkout, trigger.base_sha or "HEAD"))
    cfg = at.cfg
    added = trigger.added_labels or ((trigger.label,) if trigger.label else ())
    if cfg.apply_label not in added:
        log(f"label {', '.join(map(repr, added))} is not the apply label {cfg.apply_label!r}: "
            "nothing to do")
        return Turn()
    actor = acting(trigger, "the label was added", "the label is not acted on")
    if isinstance(actor, Skip):
        log(actor.line)
        return Turn()
    session = start(runner, options, trigger, at)
    number = trigger.number
    by = session.pr.labeled_by
    if by is not None and by.get(cfg.apply_label) != actor:
        # The event names no label: this change was to another one, and the apply label is
        # its adder's request (acted on in that run), not this sender's.
        log(f"the label {cfg.apply_label!r} was not added by {actor} "
            f"({'added by ' + by[cfg.apply_label] if cfg.apply_label in by else 'not on it'}): "
            "nothing to do")
        return Turn()

    def refuse(access: Access) -> None:
        session.repo.remove_label(number, cfg.apply_label)
        session.say(session.who_may(access, f"have the label `{cfg.apply_label}` acted on"))

    if not session.admitted(actor, refuse):
        return Turn()
    done = f"The label `{cfg.apply_label}` was removed."
    if session.pr.head != trigger.head_sha:
        session.repo.remove_label(trigger.number, cfg.apply_label)
        session.say(f"The pull request's head moved to {session.pr.head[:12]} after the label "
                    f"was added at {trigger.head_sha[:12]}: nothing was committed. {done}")
        return Turn()
    session.fetch_head()
    session.state = session.read_state()
    if session.state.shown is None:
        session.repo.remove_label(trigger.number, cfg.apply_label)
        session.say(f"Nothing to apply: the summary shows no staged plan at "
                    f"{session.pr.head[:12]}. {done}")
        return Turn()
    outcome = session.apply("apply", actor)
    session.repo.remove_label(trigger.number, cfg.apply_label)
    reply_outcome(session, outcome, f"{done}", "apply")
    # The new head, or the plan as it is now; its gate is the check run's.
    return Turn(review=session.to_publish() if outcome.status in ("pushed", "differs") else None)

