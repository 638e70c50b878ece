"""`pull_request` `labeled`: the apply label commits the staged plan the summary shows.

Another label: one log line, no request. A label added by a bot: ignored. By someone without
the permission: the label is removed with one comment saying who may. Otherwise the plan is
recomputed at the PR's current head and handed to the apply engine with the id the summary
showed: a head that moved since the label was added, or a plan that differs, commits nothing.
The label is removed whatever happened, the reply says what did, and after a push the new head
is reviewed in the same run (a push made with GITHUB_TOKEN starts no workflow).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from bot.chat import pr as prmod
from bot.chat import publishing
from bot.chat.flow import reply_outcome
from bot.chat.session import admitted, checkout_of, connect, log, settings, who_may
from bot.commands import pull_request
from bot.errors import Exit
from bot.forges.repository import Access
from bot.model import Trigger


def label(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:

    assert trigger.number is not None and trigger.head_sha and trigger.base_sha
    checkout = checkout_of(args, env)
    pull_request.ensure_commits(checkout, (trigger.base_sha,))
    cfg = settings(checkout, trigger.base_sha)  # the target's settings: the PR cannot change them
    if trigger.label != cfg.apply_label:
        log(f"label {trigger.label!r} is not the apply label {cfg.apply_label!r}: nothing to do")
        return int(Exit.OK)
    if trigger.actor_is_bot or not trigger.actor:
        log(f"the label was added by the bot account {trigger.actor or '(unknown)'}: ignored")
        return int(Exit.OK)
    if not trigger.open:
        log(f"pull request #{trigger.number} is closed; the label is not acted on")
        return int(Exit.OK)
    session = connect(args, trigger, env, checkout, cfg)
    number = trigger.number

    def refuse(access: Access) -> None:
        session.repo.remove_label(number, cfg.apply_label)
        session.say(who_may(access, cfg, session.repository,
                            f"have the label `{cfg.apply_label}` acted on"))

    if not admitted(session, trigger.actor, refuse):
        return int(Exit.OK)
    done = f"The label `{cfg.apply_label}` was removed."
    if session.pr.head != trigger.head_sha:
        session.repo.remove_label(trigger.number, cfg.apply_label)
        session.say(f"The pull request's head moved to {session.pr.head[:12]} after the label "
                    f"was added at {trigger.head_sha[:12]}: nothing was committed. {done}")
        return int(Exit.OK)
    prmod.fetch_head(checkout, session.pr, session.git_env)
    session.state = publishing.read_state(session.forge.api, trigger.number)
    if session.state.shown is None:
        session.repo.remove_label(trigger.number, cfg.apply_label)
        session.say(f"Nothing to apply: the summary shows no staged plan at "
                    f"{session.pr.head[:12]}. {done}")
        return int(Exit.OK)
    outcome = session.apply("apply", trigger.actor)
    session.repo.remove_label(trigger.number, cfg.apply_label)
    reply_outcome(session, outcome, f"{done}", "apply")
    if outcome.status in ("pushed", "differs"):
        session.publish()  # the new head, or the plan as it is now; its gate is the check run's
    return int(Exit.OK)

