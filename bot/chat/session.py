"""One conversation turn on a pull request: the connection, who asked, the PR as GitHub says
now, the review at its head (computed once, when a command needs it), the apply engine, and the
publishing of the result with the conversation's state.

Settings that decide who may do what (`commands:`, `apply:`) are read from a commit the pull
request cannot change (the default branch's checkout, or the PR's base), never from its head.

What differs between forges is behind two seams: `Host` (the change as the forge says now,
its commits, the conversation's state, its role names) and `Side` (where the checkout is, and
how a session is connected). GitHub's are in `pr.py`, GitLab's in `gitlab_host.py`.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, Protocol

from bot import config, git
from bot.apply.flow import ApplyOutcome, ApplyRequest
from bot.apply.flow import run as run_apply
from bot.chat import pr as prmod
from bot.chat import publishing
from bot.chat.state import Conversation, without_ignored
from bot.commands import pull_request
from bot.errors import BotError, Exit
from bot.forges.base import Forge
from bot.forges.github import change as github
from bot.forges.github.repository import GitHubRepository
from bot.forges.repository import Access, Permission, Repository
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


def who_may(access: Access, cfg: config.Config, repository: str, what: str,
            host: Host | None = None) -> str:
    names = host.role if host is not None else (lambda p: p.label)
    least = Permission.MAINTAIN if cfg.command_permission == "maintain" else Permission.WRITE
    allowed_roles = [names(p) for p in sorted(Permission, reverse=True) if p >= least]
    roles = ", ".join(allowed_roles[:-1]) + " or " + allowed_roles[-1]
    return (f"Only people with the {roles} role on {repository} may {what}; "
            f"@{access.login} has {names(access.permission)}. Nothing was done.")


class Host(Protocol):
    """The forge side of a conversation on one change (a pull or merge request)."""

    name: Literal["github", "gitlab"]
    # What the reply after a push adds: whether the push starts a pipeline of its own.
    after_push: str
    # The apply commit's author when `apply: {author: …}` does not name one.
    author: str

    def load(self) -> prmod.PullRequest:
        """The change as the forge says now (its head, base, branch, and fork)."""
        ...

    def moved_since(self, pr: prmod.PullRequest, trigger: Trigger) -> str | None:
        """Why `pr.head` is not the head the trigger's comment was written against, or None."""
        ...

    def fetch_head(self, checkout: Path, pr: prmod.PullRequest) -> None:
        """The head's and base's commits into the checkout; BotError when they cannot be."""
        ...

    def read_state(self) -> Conversation:
        """The conversation's state in the bot's own summary."""
        ...

    def push_env(self) -> dict[str, str]:
        """The credentials for one git process, in its environment only."""
        ...

    def role(self, permission: Permission) -> str:
        """The forge's own name for an access level."""
        ...


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


Connect = Callable[[argparse.Namespace, Trigger, Mapping[str, str], Path, config.Config],
                   "Session"]


@dataclass(frozen=True)
class Side:
    """How one forge's conversations start: where the checkout is, and the session on it."""

    checkout: Callable[[argparse.Namespace, Mapping[str, str]], Path]
    connect: Connect


@dataclass
class Session:
    args: argparse.Namespace
    env: Mapping[str, str]
    checkout: Path
    cfg: config.Config
    forge: Forge
    repo: Repository
    number: int
    repository: str
    token: str
    host: Host
    state: Conversation = field(default_factory=Conversation)
    pull: prmod.PullRequest | None = None
    sleep: Callable[[float], None] = time.sleep
    _result: ReviewResult | None = None

    @property
    def pr(self) -> prmod.PullRequest:
        if self.pull is None:
            self.pull = self.host.load()
        return self.pull

    @property
    def git_env(self) -> dict[str, str]:
        """The token for one git process (fetch, push) at a time, never in a config file."""
        return self.host.push_env()

    def say(self, body: str) -> None:
        self.repo.reply(self.number, body)

    def who_may(self, access: Access, what: str) -> str:
        return who_may(access, self.cfg, self.repository, what, self.host)

    def fetch_head(self) -> None:
        self.host.fetch_head(self.checkout, self.pr)

    def read_state(self) -> Conversation:
        return self.host.read_state()

    def result(self) -> ReviewResult:
        """The review of the PR's head (ignored findings included: they are left out when
        published and planned)."""
        if self._result is None or self._result.head != self.pr.head:

            trigger = Trigger(self.host.name, "comment", "review", number=self.number,
                              repository=self.repository, head_sha=self.pr.head,
                              base_sha=self.pr.base)
            self._result = pull_request.review_pull_request(self.checkout, trigger, self.args)
        return self._result

    @property
    def author(self) -> str:
        """The configured apply author, else the forge's own bot identity."""
        chosen = self.cfg.apply_author
        return self.host.author if chosen == config.DEFAULT_AUTHOR else chosen

    def moved_since(self, trigger: Trigger) -> str | None:
        """Why the head is not the one the trigger's comment saw, or None."""
        return self.host.moved_since(self.pr, trigger)

    def apply(self, kind: Literal["apply", "fix"], asked_by: str) -> ApplyOutcome:
        """The engine at the PR head: the plan shown (`apply`) or the safe fixes (`fix`)."""
        result = without_ignored(self.result(), self.state)
        fork = self.pr.fork
        request = ApplyRequest(
            self.checkout, (self.pr.clone_url or "origin") if fork else "origin", self.pr.head_ref,
            result, publishing.staged(self.state) if kind == "apply" else (), kind, asked_by,
            author=self.author, expected_plan=self.state.shown if kind == "apply" else None,
            can_push=self.pr.can_push, push_env=self.git_env)
        return run_apply(request)

    def pushed(self, commit: str) -> None:
        """After our push: wait until GitHub shows `commit` as the head, and review that."""
        for wait in (0.0, *HEAD_WAIT):
            self.sleep(wait)
            self.pull = self.host.load()
            if self.pull.head == commit:
                return
        self.pull = replace(self.pull, head=commit) if self.pull else None
        print(f"reviewbot: the forge does not show {commit[:12]} as the head yet", file=sys.stderr)

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
    host = prmod.GitHubHost(forge.api, trigger.number, push_env(token, env))
    return Session(args, env, checkout, cfg, forge,
                   GitHubRepository(forge.api.settings, api=forge.api), trigger.number,
                   repository, token, host, sleep=forge.api.sleep)


GITHUB = Side(checkout_of, connect)
