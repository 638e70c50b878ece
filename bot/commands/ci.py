"""`reviewbot ci`: inside GitHub Actions or GitLab CI, trigger → action → publish.

The trigger says what the run was started for (`bot.ci.github_actions`, or
`bot.ci.gitlab_ci` when GITLAB_CI=true); the action (`ACTIONS`, `GITLAB_ACTIONS`)
reviews, runs a comment's commands, acts on the apply label or sweeps the branch. Events with
nothing to do exit 0 with one line that names the events handled.

Exit statuses: 0 the gate passes (also: PR closed, nothing to do); 1 the gate fails; 4 the
change could not be fully checked; 2 bad usage (pull_request_target, malformed payload, no
token, commits missing from the checkout); 3 the GitHub API failed in a way retries could not
fix; 5 a security check failed (bot.lockdown, bot.gitcreds). A fork PR whose token cannot
write, or a head that moved since the run started, still exits with the gate.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from bot import credentials
from bot.chat import flow as chat_flow
from bot.chat import review as chat_review
from bot.ci.environment import current
from bot.commands import common, deliver, gitlab_chat, gitlab_sweep, label, merge_request, sweep
from bot.errors import BotError, Exit
from bot.model import Trigger, TriggerKind

Action = Callable[[argparse.Namespace, Trigger, Mapping[str, str]], int]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ci", help="review a pull request (GitHub Actions) or a merge request "
                                  "(GitLab CI) and publish it",
                       description="Act on the event that started this run: for a pull request, "
                                   "publish one review, a sticky summary and a check run; for a "
                                   "GitLab merge request, diff threads, a sticky summary note and "
                                   "a commit status.")
    p.add_argument("--repo", type=Path,
                   help="checkout (default: $GITHUB_WORKSPACE or $CI_PROJECT_DIR, else cwd)")
    p.add_argument("--token", help="GitHub token (default: $GITHUB_TOKEN; on GitLab: "
                                   "$REVIEWBOT_GITLAB_TOKEN, else $GITLAB_TOKEN)")
    p.add_argument("--dry-run", action="store_true",
                   help="reviews and sweeps: print the requests that would be sent, as JSON; needs no token "
                        "(on GitLab it reads the merge request with the token)")
    common.add_gate_options(p)
    deliver.add_options(p)
    common.add_tool_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    env = credentials.environ() if env is None else env
    runner = current(env)
    trigger = runner.from_env(env)
    actions = GITLAB_ACTIONS if trigger.forge == "gitlab" else ACTIONS
    action = actions.get(trigger.kind)
    if action is None:
        print(f"reviewbot: {runner.unhandled(trigger, tuple(actions))}", file=sys.stderr)
        return int(Exit.OK)
    if args.dry_run and trigger.kind not in DRY_RUNS:
        # Commands and the label reply, react, commit and push: a dry run would still write.
        raise BotError(f"--dry-run works for reviews and sweeps, not for a {trigger.kind} event "
                       "(its commands would still reply, commit and push)", Exit.USAGE)
    return action(args, trigger, env)


# The kinds whose action prints its writes instead of sending them under --dry-run.
DRY_RUNS: frozenset[TriggerKind] = frozenset({"review", "sweep"})


ACTIONS: dict[TriggerKind, Action] = {
    # The review, with the conversation: ignored findings left out, the staged plan shown.
    "review": chat_review.review,
    "comment": chat_flow.comment,  # slash commands
    "label": label.label,  # the apply label
    "sweep": sweep.from_ci,  # schedule, workflow_dispatch
}

GITLAB_ACTIONS: dict[TriggerKind, Action] = {
    "review": merge_request.review,  # merge_request_event
    "comment": gitlab_chat.comment,  # trigger: a note hook on a merge request
    "label": gitlab_chat.label,  # trigger: a merge request hook that adds labels
    "sweep": gitlab_sweep.from_ci,  # schedule
}
