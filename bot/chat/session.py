"""One conversation turn on a pull request: the connection, who asked, the PR as GitHub says
now, the review at its head (computed once, when a command needs it), the apply engine, and the
publishing of the result with the conversation's state.

Settings that decide who may do what (`commands:`, `apply:`) are read from a commit the pull
request cannot change (the default branch's checkout, or the PR's base), never from its head.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from bot import config, git
from bot.apply.flow import ApplyOutcome, ApplyRequest
from bot.apply.flow import run as run_apply
from bot.chat import pr as prmod
from bot.chat import publishing
from bot.chat.state import Conversation, without_ignored
from bot.commands import pull_request
from bot.errors import BotError, Exit
from bot.forges import github
from bot.forges.github_repository import GitHubRepository
from bot.forges.repository import Access, Permission
from bot.model import ReviewResult, Trigger

HEAD_WAIT = (1.0, 2.0, 4.0, 8.0)  # GitHub updates a PR's head shortly after a push


def settings(checkout: Path, rev: str) -> config.Config:
    """`.reviewbot.yml` as committed at `rev` (the working tree never counts)."""
    for name in config.FILE_NAMES:
        blob = git.show(checkout, rev, name)
        if blob is not None:
            try:
                return config.parse(blob.decode("utf-8"), name, revision=f"at {git.short(rev)}")
            except UnicodeDecodeError as exc:
                raise BotError(f"{name} at {git.short(rev)} is not UTF-8 text") from exc
    return config.Config()


def allowed(access: Access, cfg: config.Config) -> bool:
    least = Permission.MAINTAIN if cfg.command_permission == "maintain" else Permission.WRITE
    return access.permission >= least


def who_may(access: Access, cfg: config.Config, repository: str, what: str) -> str:
    roles = "admin or maintain" if cfg.command_permission == "maintain" else "admin, maintain or write"
    return (f"Only people with the {roles} role on {repository} may {what}; "
            f"@{access.login} has {access.permission.label}. Nothing was done.")


def log(message: str) -> None:
    print(f"reviewbot: {message}", file=sys.stderr)


def admitted(session: Session, actor: str, refuse: Callable[[Access], None]) -> bool:
    """Whether `actor` may have the bot act. A bot account never, without a word (loop guard);
    anyone without the permission gets `refuse` (a reaction or the label removed, one reply)."""
    access = session.repo.access(actor)
    if access.bot:
        log(f"{actor} is a bot account: ignored")
        return False
    if not allowed(access, session.cfg):
        refuse(access)
        return False
    return True


def checkout_of(args: argparse.Namespace, env: Mapping[str, str]) -> Path:
    return git.toplevel(args.repo or Path(env.get("GITHUB_WORKSPACE") or "."))


@dataclass
class Session:
    args: argparse.Namespace
    env: Mapping[str, str]
    checkout: Path
    cfg: config.Config
    forge: github.GitHubForge
    repo: GitHubRepository
    number: int
    repository: str
    token: str
    state: Conversation = field(default_factory=Conversation)
    pull: prmod.PullRequest | None = None
    sleep: Callable[[float], None] = time.sleep
    _result: ReviewResult | None = None

    @property
    def pr(self) -> prmod.PullRequest:
        if self.pull is None:
            self.pull = prmod.load(self.forge.api, self.number)
        return self.pull

    @property
    def git_env(self) -> dict[str, str]:
        """The token for one git process (fetch, push) at a time, never in a config file."""
        return push_env(self.token, self.env)

    def say(self, body: str) -> None:
        self.repo.reply(self.number, body)

    def result(self) -> ReviewResult:
        """The review of the PR's head (ignored findings included: they are left out when
        published and planned)."""
        if self._result is None or self._result.head != self.pr.head:

            trigger = Trigger("github", "issue_comment", "review", number=self.number,
                              repository=self.repository, head_sha=self.pr.head,
                              base_sha=self.pr.base)
            self._result = pull_request.review_pull_request(self.checkout, trigger, self.args)
        return self._result

    def moved_since(self, created_at: str | None) -> str | None:
        """Why the head is not the one a comment written at `created_at` saw, or None."""
        arrived = prmod.arrived(self.forge.api, self.pr)
        head = self.pr.head[:12]
        if arrived is None:
            return (f"GitHub's activity log does not say when the head {head} arrived, so it "
                    "cannot be told whether the command was written against it. Nothing was done.")
        if created_at is None or arrived >= prmod.parse_time(created_at):
            return (f"The pull request's head moved to {head} after the comment was written "
                    f"(pushed {arrived:%Y-%m-%d %H:%M:%S} UTC). Nothing was done: check the new head "
                    "and comment again.")
        return None

    def apply(self, kind: Literal["apply", "fix"], asked_by: str) -> ApplyOutcome:
        """The engine at the PR head: the plan shown (`apply`) or the safe fixes (`fix`)."""
        result = without_ignored(self.result(), self.state)
        fork = self.pr.fork
        request = ApplyRequest(
            self.checkout, (self.pr.clone_url or "origin") if fork else "origin", self.pr.head_ref,
            result, publishing.staged(self.state) if kind == "apply" else (), kind, asked_by,
            author=self.cfg.apply_author, expected_plan=self.state.shown if kind == "apply" else None,
            can_push=self.pr.can_push, push_env=self.git_env)
        return run_apply(request)

    def pushed(self, commit: str) -> None:
        """After our push: wait until GitHub shows `commit` as the head, and review that."""
        for wait in (0.0, *HEAD_WAIT):
            self.sleep(wait)
            self.pull = prmod.load(self.forge.api, self.number)
            if self.pull.head == commit:
                return
        self.pull = replace(self.pull, head=commit) if self.pull else None
        print(f"reviewbot: GitHub does not show {commit[:12]} as the head yet", file=sys.stderr)

    def publish(self) -> int:
        published = publishing.publish(self.forge, self.checkout, self.result(), self.state,
                                       self.cfg, self.args, self.env, self.number)
        self.state = published.state
        return int(published.gate.exit)


def push_env(token: str, env: Mapping[str, str]) -> dict[str, str]:
    """The token for `git push` only, as an HTTP header in the environment of that one
    process (what actions/checkout writes into .git/config, which a command never gets)."""
    if not token:
        return {}
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}


def connect(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str],
            checkout: Path, cfg: config.Config) -> Session:
    """A session on the trigger's pull request; sends no request."""

    token = args.token or env.get("GITHUB_TOKEN") or ""
    if not token:
        raise BotError("no GitHub token: pass --token or set GITHUB_TOKEN "
                       "(env: GITHUB_TOKEN: ${{ github.token }})", Exit.USAGE)
    repository = env.get("GITHUB_REPOSITORY") or trigger.repository or ""
    assert trigger.number is not None
    forge = pull_request.forge(repository, trigger, token, env)
    assert isinstance(forge, github.GitHubForge)
    return Session(args, env, checkout, cfg, forge,
                   GitHubRepository(forge.api.settings, api=forge.api), trigger.number,
                   repository, token, sleep=forge.api.sleep)
