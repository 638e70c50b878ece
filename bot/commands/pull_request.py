"""A pull request reviewed from a checkout: the pieces every action on a pull request uses
(`ci`'s review, the conversation's commands and label, `analyze`): fetch its commits, review its
head, read the lines its comments quote, connect to it, and the plain review-and-publish.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot import git, workspace
from bot.ci import github_actions
from bot.commands import common, deliver
from bot.errors import BotError, Exit
from bot.forges.github import change as github
from bot.model import ReviewResult, Trigger
from bot.pipeline import ReviewOptions, run_review

CHECKOUT_HINT = "use actions/checkout with fetch-depth: 0"


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
    dry = github.DryRun(repository, trigger.number, trigger.head_sha) if args.dry_run else None
    publish_to = dry or forge(repository, trigger, token or "", env)
    gate, _ = deliver.deliver(publish_to, result, texts(repo, result), deliver.options(args), env,
                              trigger.number, recorder=dry)
    return int(gate.exit)


def review_pull_request(repo: Path, trigger: Trigger, args: argparse.Namespace, *,
                        hint: str = CHECKOUT_HINT) -> ReviewResult:
    """The review of the trigger's pull request in the checkout `repo` (what `analyze` runs)."""
    assert trigger.head_sha and trigger.base_sha
    ensure_commits(repo, (trigger.head_sha, trigger.base_sha), hint=hint)
    return run_review(ReviewOptions(repo=repo, base=trigger.base_sha, head=trigger.head_sha,
                                    config=args.config, timeout=args.timeout,
                                    only=tuple(args.only) if args.only else None,
                                    policy=common.policy_override(args)))


def forge(repository: str, trigger: Trigger, token: str, env: Mapping[str, str]
          ) -> github.GitHubForge:
    """The pull request's forge, at the API this run names (GitHub Enterprise Server too)."""
    api, graphql = github_actions.api_urls(env)
    assert trigger.number is not None
    return github.GitHubForge(github.Settings(api_url=api, graphql_url=graphql, token=token,
                                              repository=repository, number=trigger.number))


def ensure_commits(repo: Path, shas: Sequence[str], *, hint: str = CHECKOUT_HINT) -> None:
    """actions/checkout fetches one merge commit (a GitLab runner, a shallow detached
    checkout): fetch the PR's head and base if missing."""
    for sha in shas:
        if git.rev_parse(repo, sha) is None:
            # A shallow checkout stays shallow (workspace deepens it to the merge base later).
            git.fetch(repo, "origin", sha, depth=50 if git.is_shallow(repo) else None)
        if git.rev_parse(repo, sha) is None:
            raise BotError(f"commit {sha[:12]} of the pull request is not in the checkout and "
                           f"could not be fetched: {hint}", Exit.USAGE)


def texts(repo: Path, result: ReviewResult) -> dict[str, list[str]]:
    """The head's lines of every file with a finding: what comments and frames quote."""
    return workspace.texts(repo, result.head, [v.finding.path for v in result.findings])
