"""A scheduled GitLab pipeline (`CI_PIPELINE_SOURCE=schedule`): the sweep of the branch it runs
on (`bot.sweep.flow`), with a GitLab issue as its tracking issue and the merge request that
brought each regression (`GET .../repository/commits/:sha/merge_requests`).

Exit status 0 (also with open regressions); 2 bad usage (no token); 3 the GitLab API failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from bot.ci import gitlab_ci
from bot.commands import merge_request, sweep
from bot.errors import Exit
from bot.forges.github.commits import PullRef
from bot.forges.gitlab.change import GitLabRepository
from bot.forges.repository import Repository
from bot.model import Trigger
from bot.sweep import flow
from bot.sweep.dryrun import DryRun


class MergeRequests:
    """The sweep's `Pulls` on GitLab: the merge request a commit came in with."""

    def __init__(self, repository: GitLabRepository) -> None:
        self._repository = repository

    def pull_of(self, sha: str) -> PullRef | None:
        found = self._repository.merge_request_of(sha)
        return PullRef(*found) if found else None


def from_ci(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    repo, ref, head = sweep.scheduled(args, trigger, env.get("CI_PROJECT_DIR"))
    token = args.token or gitlab_ci.token(env)
    issues = merge_request.repository(token, env, {}, "issues")
    target: Repository = DryRun(issues) if args.dry_run else issues
    outcome = flow.sweep(sweep.options(args, repo, ref, head, change="!"), target,
                         MergeRequests(issues))
    print(f"reviewbot: {outcome.message}", file=sys.stderr)
    return int(Exit.OK)
