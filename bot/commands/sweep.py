"""`reviewbot sweep`, and `reviewbot ci` on schedule / workflow_dispatch: the branch's HEAD
against the last swept commit, the regressions kept in one tracking issue (`bot.sweep.flow`).

Exit statuses: 0 (also with open regressions, unless --fail-on-regressions: then 1); 2 bad
usage (no such branch, no token, no repository to write to); 3 the GitHub API failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from bot import atomic, credentials, git
from bot import cache as findings_cache
from bot import config as config_mod
from bot.ci import github_actions
from bot.commands import common
from bot.commands.analyze import origin_repository
from bot.errors import BotError, Exit
from bot.forges.github.api import Api, Settings
from bot.forges.github.commits import GitHubCommits
from bot.forges.github.repository import GitHubRepository
from bot.forges.repository import Repository
from bot.model import Trigger
from bot.pipeline import ReviewOptions
from bot.sweep import flow
from bot.sweep.dryrun import DryRun, NoPulls


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("sweep", help="report the regressions that landed on a branch since the last sweep",
                       description="Review the branch's HEAD against the commit of the last sweep and "
                                   "keep every regression, with the commit, pull request and author "
                                   "that brought it, in one tracking issue.")
    p.add_argument("--repo", type=Path, help="checkout (default: $GITHUB_WORKSPACE, else cwd)")
    p.add_argument("--ref", metavar="BRANCH",
                   help="branch to sweep (default: the remote's default branch, else the current one)")
    p.add_argument("--fail-on-regressions", action="store_true",
                   help="exit 1 while a regression is open (default: exit 0)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the issue writes as JSON instead of sending them; needs no token")
    p.add_argument("--token", help="GitHub token (default: $GITHUB_TOKEN)")
    p.add_argument("--outcome", type=Path, metavar="FILE",
                   help="also write the outcome here as JSON: kind, open and fixed regression "
                        "counts, the tracking issue's number")
    common.add_tool_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    env = credentials.environ() if env is None else env
    repo = git.toplevel(args.repo or Path(env.get("GITHUB_WORKSPACE") or "."))
    common.writable_output(args.outcome, "--outcome")
    ref = args.ref or default_ref(repo)
    outcome = execute(args, env, repo, ref, head_of(repo, ref), None)
    if args.outcome is not None:
        write_outcome(args.outcome, outcome)
    return int(Exit.GATE if args.fail_on_regressions and outcome.open else Exit.OK)


def write_outcome(path: Path, outcome: flow.Outcome) -> None:
    """What a workflow step reads back (the action's outputs): no finding's text."""
    doc = {"kind": outcome.kind, "open": len(outcome.open), "fixed": len(outcome.fixed),
           "issue": outcome.issue.number if outcome.issue is not None else None}
    with common.writing(path, "--outcome"):
        atomic.write(path, (json.dumps(doc) + "\n").encode())


def from_ci(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    """The `ci` action of a schedule or workflow_dispatch run: sweep the branch it names."""
    repo, ref, head = scheduled(args, trigger, env.get("GITHUB_WORKSPACE"))
    execute(args, env, repo, ref, head, trigger.repository)
    return int(Exit.OK)


def scheduled(args: argparse.Namespace, trigger: Trigger, workspace: str | None
              ) -> tuple[Path, str, str]:
    """The checkout, branch and commit a scheduled run sweeps (the trigger's, else the default
    branch's tip); a commit the checkout lacks is a usage error."""
    repo = git.toplevel(args.repo or Path(workspace or "."))
    ref = trigger.target_ref or default_ref(repo)
    head = trigger.head_sha or head_of(repo, ref)
    if git.rev_parse(repo, head) is None:
        raise BotError(f"commit {head[:12]} of {ref} is not in the checkout", Exit.USAGE)
    return repo, ref, head


def options(args: argparse.Namespace, repo: Path, ref: str, head: str, change: str = "#"
            ) -> flow.Options:
    """The sweep's settings: the label from the head's .reviewbot.yml, the review's from `args`."""
    label = config_mod.for_review(repo, head, head, args.config).config.sweep_label
    review = ReviewOptions(repo, config=args.config, timeout=args.timeout,
                           only=tuple(args.only) if args.only else None,
                           cache_dir=findings_cache.default_dir())
    return flow.Options(repo, ref, head, label, review, change=change)


def execute(args: argparse.Namespace, env: Mapping[str, str], repo: Path, ref: str, head: str,
            repository: str | None) -> flow.Outcome:
    token = args.token or env.get("GITHUB_TOKEN")
    if not token and not args.dry_run:
        raise BotError("no GitHub token: pass --token or set GITHUB_TOKEN; --dry-run needs none",
                       Exit.USAGE)
    name = env.get("GITHUB_REPOSITORY") or repository or origin_repository(repo)
    if not name and not args.dry_run:
        raise BotError("which GitHub repository? set GITHUB_REPOSITORY=owner/name, or add an "
                       "origin remote on GitHub", Exit.USAGE)
    if args.dry_run:
        reads = forge(env, name, token)[0] if token and name else None
        issues: Repository = DryRun(reads)
        pulls: flow.Pulls = forge(env, name, token)[1] if token and name else NoPulls()
    else:
        assert name and token
        issues, pulls = forge(env, name, token)
    outcome = flow.sweep(options(args, repo, ref, head), issues, pulls)
    print(f"reviewbot: {outcome.message}", file=sys.stderr)
    if outcome.summary:
        github_actions.job_summary(env, outcome.summary)
    return outcome


def forge(env: Mapping[str, str], repository: str, token: str
          ) -> tuple[Repository, flow.Pulls]:
    api_url, graphql_url = github_actions.api_urls(env)
    api = Api(Settings(api_url=api_url, graphql_url=graphql_url, token=token,
                       repository=repository))
    return GitHubRepository(api.settings, api=api), GitHubCommits(api)


def default_ref(repo: Path) -> str:
    remote = git.default_branch(repo)
    if remote:
        return remote.split("/", 1)[1]
    current = git.git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    return current.out.strip() if current.returncode == 0 and current.out.strip() else "main"


def head_of(repo: Path, ref: str) -> str:
    for candidate in (f"refs/heads/{ref}", f"refs/remotes/origin/{ref}"):
        sha = git.rev_parse(repo, candidate)
        if sha:
            return sha
    raise BotError(f"--ref {ref}: no such branch in {repo} (nor origin/{ref})", Exit.USAGE)
