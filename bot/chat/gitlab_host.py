"""GitLab's side of a conversation (`session.Host`, `session.Side`): the merge request as its
latest diff version says, its commits fetched from `refs/merge-requests/IID/head`, the state in
the bot's own summary note, and GitLab's role names.

A webhook's pipeline runs on the default branch: its checkout is never the merge request, so
the head is fetched here and every file is read from git at that commit. The head a command was
written against is the payload's `last_commit.id`; the merge request's latest diff version is
what GitLab says the head is now.
"""

from __future__ import annotations

import argparse
import base64
from collections.abc import Mapping
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from bot import config, git
from bot.chat.pr import PullRequest
from bot.chat.session import Session, Side
from bot.chat.state import Conversation, read
from bot.ci import gitlab_ci
from bot.commands import merge_request
from bot.errors import BotError, Exit
from bot.forges.gitlab import change as gitlab
from bot.forges.repository import Permission
from bot.model import Trigger


class GitLabHost:
    name: Literal["github", "gitlab"] = "gitlab"
    after_push = ("the push also starts a merge request pipeline of its own, which finds this "
                  "review in place.")

    def __init__(self, forge: gitlab.GitLabForge, repository: str,
                 push_env: Mapping[str, str], server: str = "") -> None:
        self._forge, self._repository, self._push_env = forge, repository, dict(push_env)
        host = urlsplit(server).hostname or "gitlab.invalid"
        self.author = f"reviewbot <reviewbot@noreply.{host}>"

    def load(self) -> PullRequest:
        mr = self._forge.merge_request()
        return PullRequest(mr.iid, mr.version.head, mr.version.base, mr.source_branch,
                           mr.source_project if mr.fork else self._repository, mr.source_url,
                           mr.allow_collaboration, mr.open, self._repository)

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        seen = trigger.head_sha
        if seen is None:
            return ("The webhook does not say which head the comment was written against. "
                    "Nothing was done.")
        if pr.head != seen:
            return (f"The merge request's head moved to {pr.head[:12]} after the comment was "
                    f"written at {seen[:12]}. Nothing was done: check the new head and comment "
                    "again.")
        return None

    def fetch_head(self, checkout: Path, pr: PullRequest) -> None:
        """The head from `refs/merge-requests/IID/head` (GitLab mirrors a fork's head there
        too) and the base; credentials only in the environment of these git processes."""
        for sha, ref in ((pr.head, f"refs/merge-requests/{pr.number}/head"), (pr.base, pr.base)):
            if git.rev_parse(checkout, sha) is None:
                git.git(checkout, "fetch", "--quiet", "--no-tags", "origin", ref,
                        env=self._push_env, check=False)
            if git.rev_parse(checkout, sha) is None:
                raise BotError(f"commit {sha[:12]} of merge request !{pr.number} could not be "
                               f"fetched ({ref})", Exit.USAGE)

    def read_state(self) -> Conversation:
        return read(self._forge.summary_body())

    def push_env(self) -> dict[str, str]:
        return dict(self._push_env)

    def role(self, permission: Permission) -> str:
        return gitlab.role(permission)


def push_env(token: str, env: Mapping[str, str]) -> dict[str, str]:
    """The token as an HTTP header for git on this GitLab server only (GitLab takes an access
    token as the password of any user name), in the environment of one process."""
    server = (env.get("CI_SERVER_URL") or "").rstrip("/")
    if not token or not server:
        return {}
    basic = base64.b64encode(f"reviewbot:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}


def checkout(args: argparse.Namespace, env: Mapping[str, str]) -> Path:
    return git.toplevel(args.repo or Path(env.get("CI_PROJECT_DIR") or "."))


def connect(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str],
            repo: Path, cfg: config.Config) -> Session:
    """A session on the trigger's merge request; sends no request."""
    assert trigger.number is not None
    token = args.token or gitlab_ci.token(env)
    forge = merge_request.forge(trigger, token, env)
    users = {trigger.actor: trigger.actor_id} if trigger.actor and trigger.actor_id else {}
    repository = trigger.repository or env.get("CI_PROJECT_PATH") or ""
    return Session(args, env, repo, cfg, forge,
                   merge_request.repository(token, env, users), trigger.number, repository,
                   token, GitLabHost(forge, repository, push_env(token, env),
                                     env.get("CI_SERVER_URL") or ""))


GITLAB = Side(checkout, connect)
