"""A GitLab merge request pipeline (`CI_PIPELINE_SOURCE=merge_request_event`): the review of
the MR head against its merge base, published as diff threads, one sticky summary note and a
commit status, with the Code Quality report and SARIF as files; the summary carries the
conversation (findings ignored with `/ignore`, the staged plan the apply label commits).

Base and head are the MR's latest diff version (never CI_COMMIT_SHA, a merge commit in
merged-result pipelines); the runner's shallow, detached checkout is fetched into as needed.
The discussions are read once, after the review: the conversation and the publish step share
that read.

With --dry-run it reads as usual (with the token) and prints, as JSON on stdout, the gate and
every write it would send (threads with their positions, edits, resolutions, the summary note,
the commit status); it sends none.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Literal

from bot import git
from bot.chat import publishing, session
from bot.chat.state import read
from bot.ci import gitlab_ci
from bot.commands import common, deliver, pull_request
from bot.errors import Exit
from bot.forges.gitlab import change as gitlab
from bot.model import Trigger

CHECKOUT_HINT = gitlab_ci.CHECKOUT_HINT


def review(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    assert trigger.number is not None
    token = args.token or gitlab_ci.token(env)  # a dry run reads with it too
    gitlab_ci.api(env)  # before any work
    common.writable_output(args.sarif, "--sarif")
    common.writable_output(args.code_quality, "--code-quality")
    repo = git.toplevel(args.repo or Path(env.get("CI_PROJECT_DIR") or "."))
    publish_to = forge(trigger, token, env)
    if args.dry_run:
        publish_to.record_writes()
    version, is_open = publish_to.version()
    if not is_open:
        print(f"reviewbot: merge request !{trigger.number} is not open; nothing to review",
              file=sys.stderr)
        return int(Exit.OK)
    mr = replace(trigger, base_sha=version.base, head_sha=version.head)
    result = pull_request.review_pull_request(repo, mr, args, hint=CHECKOUT_HINT)
    # The apply label's name and the command prefix as the target's merge base says.
    cfg = session.settings(repo, version.base)
    # The publish step's first read of the merge request is this one.
    state = read(publish_to.summary_body(keep=True))
    if not args.dry_run:
        return int(publishing.publish(publish_to, repo, result, state, cfg, args, env,
                                      trigger.number).gate.exit)
    with contextlib.redirect_stdout(sys.stderr):  # the publish step's log: stdout is the JSON
        published = publishing.publish(publish_to, repo, result, state, cfg, args, env,
                                       trigger.number)
    deliver.print_dry_run(published.gate, publish_to.requests)
    return int(published.gate.exit)


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
