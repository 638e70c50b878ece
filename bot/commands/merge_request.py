"""A GitLab merge request pipeline (`CI_PIPELINE_SOURCE=merge_request_event`): the review of
the MR head against its merge base, published as diff threads, one sticky summary note and a
commit status, with the Code Quality report and SARIF as files; the summary carries the
conversation (findings ignored with `/ignore`, the staged plan the apply label commits).

Base and head are the MR's latest diff version (never CI_COMMIT_SHA, a merge commit in
merged-result pipelines); the runner's shallow, detached checkout is fetched into as needed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Literal

from bot import git
from bot.chat import publishing, session
from bot.chat.state import read
from bot.commands import common, pull_request
from bot.errors import BotError, Exit
from bot.forges import gitlab
from bot.model import Trigger
from bot.triggers import gitlab_ci

CHECKOUT_HINT = "set `GIT_DEPTH: 0` (or a larger depth) in the job's variables"


def review(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    assert trigger.number is not None
    if args.dry_run:
        raise BotError("--dry-run is not available for GitLab merge requests yet", Exit.USAGE)
    token = args.token or gitlab_ci.token(env)
    gitlab_ci.api(env)  # before any work
    common.writable_output(args.sarif, "--sarif")
    common.writable_output(args.code_quality, "--code-quality")
    repo = git.toplevel(args.repo or Path(env.get("CI_PROJECT_DIR") or "."))
    publish_to = forge(trigger, token, env)
    version, is_open = publish_to.version()
    if not is_open:
        print(f"reviewbot: merge request !{trigger.number} is not open; nothing to review",
              file=sys.stderr)
        return int(Exit.OK)
    mr = replace(trigger, base_sha=version.base, head_sha=version.head)
    result = pull_request.review_pull_request(repo, mr, args, hint=CHECKOUT_HINT)
    # The apply label's name and the command prefix as the target's merge base says.
    cfg = session.settings(repo, version.base)
    state = read(publish_to.summary_body())
    return int(publishing.publish(publish_to, repo, result, state, cfg, args, env,
                                  trigger.number).gate.exit)


def forge(trigger: Trigger, token: str, env: Mapping[str, str]) -> gitlab.GitLabForge:
    """The merge request's forge, at the API this pipeline names (self-managed too)."""
    assert trigger.number is not None
    api, project = gitlab_ci.api(env)
    return gitlab.GitLabForge(gitlab.Settings(api_url=api, token=token, project=project,
                                              iid=trigger.number,
                                              target_url=env.get("CI_JOB_URL") or None))


def repository(token: str, env: Mapping[str, str], users: Mapping[str, int],
               replies: Literal["merge_requests", "issues"] = "merge_requests"
               ) -> gitlab.GitLabRepository:
    """The project's side: replies on merge requests (commands) or on issues (the sweep)."""
    api, project = gitlab_ci.api(env)
    return gitlab.GitLabRepository(gitlab.RepositorySettings(api, token, project,
                                                             replies=replies), users=users)
