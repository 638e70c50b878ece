"""`reviewbot ci`: inside GitHub Actions, GitLab CI or Gitea/Forgejo Actions: the CI's runner
(`bot.ci`) says what the run was started for; the flow for it (`ACTIONS`) reviews, runs a
comment's commands, acts on the apply label, sweeps the branch or gates a merge queue's group
(a GitLab merge train's result), on any forge, and returns what it decided; that is published
here, in one place (`bot.publishing.turn.publish`). Events with nothing to do exit 0 with one
line that names the events handled.

Exit statuses: 0 the gate passes (also: change closed, nothing to do); 1 the gate fails; 4 the
change could not be fully checked; 2 bad usage (pull_request_target, malformed payload, no
token, commits missing from the checkout); 3 the forge's API failed in a way retries could not
fix; 5 a security check failed (bot.safety.lockdown, bot.safety.gitcreds). A fork's change whose token cannot
write, or a head that moved since the run started, still exits with the gate.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from bot import cache as findings_cache
from bot.ci.base import Runner
from bot.ci.environment import require
from bot.commands import common
from bot.errors import BotError, Exit
from bot.flows import comment, label, queue, review, sweep
from bot.model import Trigger, TriggerKind
from bot.options import CiOptions
from bot.publishing.turn import Turn, publish
from bot.safety import credentials


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ci", help="review a pull request (GitHub Actions, Gitea/Forgejo Actions) "
                                  "or a merge request (GitLab CI) and publish it",
                       description="Act on the event that started this run: for a pull request, "
                                   "publish one review, a sticky summary and a check run (a "
                                   "commit status on GitLab and Gitea); slash commands in a "
                                   "comment; the apply label; a scheduled sweep; a merge "
                                   "queue's group (merge_group) or a GitLab merge train: the "
                                   "gate on the merged result, one comment when it fails.")
    p.add_argument("--repo", type=Path,
                   help="checkout (default: $GITHUB_WORKSPACE or $CI_PROJECT_DIR, else cwd)")
    p.add_argument("--token", help="the forge's token (default: $GITHUB_TOKEN; on GitLab: "
                                   "$REVIEWBOT_GITLAB_TOKEN, else $GITLAB_TOKEN)")
    p.add_argument("--dry-run", action="store_true",
                   help="reviews and sweeps: print the requests that would be sent, as JSON; "
                        "reads with the token when there is one (GitHub needs none)")
    common.add_gate_options(p)
    common.add_delivery_options(p)
    common.add_tool_options(p)
    p.set_defaults(func=run)


def options(args: argparse.Namespace) -> CiOptions:
    return CiOptions(args.repo, args.token, args.dry_run, common.checks(args),
                     common.delivery(args))


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    runner = require(credentials.environ() if env is None else env)
    trigger = runner.trigger()
    action = ACTIONS.get(trigger.kind)
    if action is None:
        print(f"reviewbot: {runner.unhandled(trigger, tuple(ACTIONS))}", file=sys.stderr)
        return int(Exit.OK)
    if args.dry_run and trigger.kind not in DRY_RUNS:
        # Commands and the label reply, react, commit and push: a dry run would still write.
        raise BotError(f"--dry-run works for reviews and sweeps, not for a {trigger.kind} event "
                       "(its commands would still reply, commit and push)", Exit.USAGE)
    # A pull request's tools run in every action but the sweep: those only read the cache.
    with findings_cache.session(save=trigger.kind == "sweep"):
        # The flow decides; what it decided is published here, in one place.
        return publish(runner, action(runner, options(args), trigger))


def _review(runner: Runner, options: CiOptions, trigger: Trigger) -> Turn:
    connection = runner.connect(trigger, options.token, dry_run=options.dry_run)
    return review.review(runner, options, trigger, connection)


def _sweep(runner: Runner, options: CiOptions, trigger: Trigger) -> Turn:
    """The sweep publishes its own findings (issues, not a change's review): its exit status
    is its turn."""
    return Turn(sweep.from_ci(runner, options.repo, options.token, options.dry_run,
                              options.checks, trigger))


# The kinds whose action prints its writes instead of sending them under --dry-run.
DRY_RUNS: frozenset[TriggerKind] = frozenset({"review", "sweep", "queue"})

Action = Callable[[Runner, CiOptions, Trigger], Turn]
ACTIONS: dict[TriggerKind, Action] = {
    # The review, with the conversation: ignored findings left out, the staged plan shown.
    "review": _review,
    "comment": comment.comment,  # slash commands
    "label": label.label,  # the apply label
    "sweep": _sweep,  # schedule, workflow_dispatch
    # A merge queue's group (merge_group) or a merge train's pipeline: the merged result's gate.
    "queue": queue.gate,
}
