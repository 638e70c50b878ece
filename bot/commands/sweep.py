"""`reviewbot sweep`: the branch's HEAD against the last swept commit, the regressions kept in
one tracking issue (`bot.flows.sweep`; `reviewbot ci` runs the same on a schedule). The forge is
the CI's, as `reviewbot ci` finds it (`bot.ci.environment`): GitLab CI, Gitea or Forgejo
Actions, else GitHub (also outside of any CI).

Exit statuses: 0 (also with open regressions, unless --fail-on-regressions: then 1); 2 bad
usage (no such branch, no token, no repository to write to); 3 the forge's API failed.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from bot import cache as findings_cache
from bot.ci.environment import current
from bot.commands import common
from bot.errors import BotError, Exit
from bot.flows import sweep as sweeps
from bot.flows.analyze import origin_repository
from bot.model import Trigger
from bot.publishing.outputs import writable_output
from bot.safety import credentials


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("sweep", help="report the regressions that landed on a branch since the last sweep",
                       description="Review the branch's HEAD against the commit of the last sweep and "
                                   "keep every regression, with the commit, pull request and author "
                                   "that brought it, in one tracking issue.")
    p.add_argument("--repo", type=Path,
                   help="checkout (default: $GITHUB_WORKSPACE or $CI_PROJECT_DIR, else cwd)")
    p.add_argument("--ref", metavar="BRANCH",
                   help="branch to sweep (default: the remote's default branch, else the current one)")
    p.add_argument("--fail-on-regressions", action="store_true",
                   help="exit 1 while a regression is open (default: exit 0)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the issue writes as JSON instead of sending them; needs no token "
                        "on GitHub")
    p.add_argument("--token", help="the forge's token (default: $GITHUB_TOKEN; on GitLab: "
                                   "$REVIEWBOT_GITLAB_TOKEN, else $GITLAB_TOKEN)")
    p.add_argument("--outcome", type=Path, metavar="FILE",
                   help="also write the outcome here as JSON: kind, open and fixed regression "
                        "counts, the tracking issue's number")
    common.add_tool_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    runner = current(credentials.environ() if env is None else env)
    repo = runner.checkout(args.repo)
    writable_output(args.outcome, "--outcome")
    ref = args.ref or sweeps.default_ref(repo)
    head = sweeps.head_of(repo, ref)
    # The sweep's own trigger: the branch and its HEAD; the repository is the CI's, else the
    # origin remote's.
    trigger = Trigger(runner.forge, "sweep", "sweep", repository=origin_repository(repo),
                      head_sha=head, target_ref=ref)
    connection = runner.connect(trigger, args.token, dry_run=args.dry_run)
    if not connection.repository_name and not args.dry_run:
        raise BotError(f"which {FORGES[runner.forge]} repository? set GITHUB_REPOSITORY="
                       "owner/name, or add an origin remote on it", Exit.USAGE)
    with findings_cache.session(save=True):  # the default branch's own commits
        outcome = sweeps.sweep(runner, connection, repo, ref, head, common.checks(args, gate=False))
    if args.outcome is not None:
        sweeps.write_outcome(args.outcome, outcome)
    return int(Exit.GATE if args.fail_on_regressions and outcome.open else Exit.OK)


FORGES = {"github": "GitHub", "gitlab": "GitLab", "gitea": "Gitea", "bitbucket": "Bitbucket",
          "azure": "Azure DevOps"}
