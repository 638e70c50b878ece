"""`reviewbot ci`: inside GitHub Actions, trigger → action → publish.

The trigger says what the run was started for (`bot.triggers.github_actions`); the action
computes what to publish (today: the review of a pull request); `deliver` publishes it.
Events with nothing to do exit 0 with one line that names the events handled.

Exit statuses: 0 the gate passes (also: PR closed, nothing to do); 1 the gate fails; 4 the
change could not be fully checked; 2 bad usage (pull_request_target, malformed payload, no
token, commits missing from the checkout); 3 the GitHub API failed in a way retries could not
fix. A fork PR whose token cannot write, or a head that moved since the run started, still
exits with the gate.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from bot import git, workspace
from bot.chat import flow as chat_flow
from bot.chat import review as chat_review
from bot.commands import common, deliver, label
from bot.errors import BotError, Exit
from bot.forges import github
from bot.forges.base import Forge
from bot.model import ReviewResult, Trigger, TriggerKind
from bot.pipeline import ReviewOptions, run_review
from bot.triggers import github_actions

Action = Callable[[argparse.Namespace, Trigger, Mapping[str, str]], int]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ci", help="review a pull request in GitHub Actions and publish it",
                       description="Act on the GitHub Actions event that started this run: for a "
                                   "pull request, publish one review, a sticky summary and a check run.")
    p.add_argument("--repo", type=Path, help="checkout (default: $GITHUB_WORKSPACE, else cwd)")
    p.add_argument("--token", help="GitHub token (default: $GITHUB_TOKEN)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the requests that would be sent, as JSON; needs no token")
    common.add_gate_options(p)
    deliver.add_options(p)
    common.add_tool_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    trigger = github_actions.from_env(env)
    action = ACTIONS.get(trigger.kind)
    if action is None:
        print(f"reviewbot: {github_actions.unhandled(trigger, tuple(ACTIONS))}", file=sys.stderr)
        return int(Exit.OK)
    return action(args, trigger, env)


def review(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    """Review the pull request and publish the review."""
    assert trigger.number is not None and trigger.head_sha and trigger.base_sha
    if not trigger.open:
        print(f"reviewbot: pull request #{trigger.number} is closed; nothing to review",
              file=sys.stderr)
        return int(Exit.OK)
    token = args.token or env.get("GITHUB_TOKEN")
    if not token and not args.dry_run:
        raise BotError("no GitHub token: pass --token or set GITHUB_TOKEN "
                       "(env: GITHUB_TOKEN: ${{ github.token }}); --dry-run needs none", Exit.USAGE)
    common.writable_output(args.sarif, "--sarif")
    repo = git.toplevel(args.repo or Path(env.get("GITHUB_WORKSPACE") or "."))
    result = review_pull_request(repo, trigger, args)
    repository = env.get("GITHUB_REPOSITORY") or trigger.repository or ""
    forge = (github.DryRun(repository, trigger.number, trigger.head_sha) if args.dry_run
             else _forge(repository, trigger, token or "", env))
    gate, _ = deliver.deliver(forge, result, texts(repo, result), deliver.options(args), env,
                              trigger.number)
    return int(gate.exit)


ACTIONS: dict[TriggerKind, Action] = {"review": review}
# The conversation (bot.chat): the review with ignored findings and the staged plan, slash
# commands, the apply label.
ACTIONS["review"] = chat_review.review
ACTIONS["comment"] = chat_flow.comment
ACTIONS["label"] = label.label
ACTIONS["sweep"] = lambda *run: int(__import__("bot.commands.sweep", fromlist=["*"]).from_ci(*run))


def review_pull_request(repo: Path, trigger: Trigger, args: argparse.Namespace) -> ReviewResult:
    """The review of the trigger's pull request in the checkout `repo` (what `analyze` runs)."""
    assert trigger.head_sha and trigger.base_sha
    ensure_commits(repo, (trigger.head_sha, trigger.base_sha))
    return run_review(ReviewOptions(repo=repo, base=trigger.base_sha, head=trigger.head_sha,
                                    config=args.config, timeout=args.timeout,
                                    only=tuple(args.only) if args.only else None,
                                    policy=common.policy_override(args)))


def _forge(repository: str, trigger: Trigger, token: str, env: Mapping[str, str]) -> Forge:
    api, graphql = github_actions.api_urls(env)
    assert trigger.number is not None
    return github.GitHubForge(github.Settings(api_url=api, graphql_url=graphql, token=token,
                                              repository=repository, number=trigger.number))


def ensure_commits(repo: Path, shas: Sequence[str]) -> None:
    """actions/checkout fetches one merge commit: fetch the PR's head and base if missing."""
    for sha in shas:
        if git.rev_parse(repo, sha) is None:
            # A shallow checkout stays shallow (workspace deepens it to the merge base later).
            git.fetch(repo, "origin", sha, depth=50 if git.is_shallow(repo) else None)
        if git.rev_parse(repo, sha) is None:
            raise BotError(f"commit {sha[:12]} of the pull request is not in the checkout and "
                           "could not be fetched: use actions/checkout with fetch-depth: 0",
                           Exit.USAGE)


def texts(repo: Path, result: ReviewResult) -> dict[str, list[str]]:
    """The head's lines of every file with a finding: what comments and frames quote."""
    return workspace.texts(repo, result.head, [v.finding.path for v in result.findings])
