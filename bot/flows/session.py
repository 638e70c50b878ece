"""One conversation turn on a change: the connection, the change as the forge says now, the
review at its head (computed once, when a command needs it), the apply engine and the reply
that says what it did (a comment's `/apply` and `/fix`, the apply label), and the review to
publish with the conversation's state.

Settings that decide who may do what (`commands:`, `apply:`) are read from a commit the change
cannot change (the default branch's checkout, or the change's base), never from its head.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from bot import config, git
from bot.apply.flow import ApplyOutcome, ApplyRequest
from bot.apply.flow import run as run_apply
from bot.apply.rederive import rule_fixes
from bot.ci.base import Runner
from bot.conversation.state import Conversation, read, restated, without_ignored
from bot.errors import BotError, Exit
from bot.forges.base import Change, Connection, PullRequest
from bot.forges.repository import Access, Permission, Repository
from bot.model import ReviewResult, Trigger
from bot.options import Checks, CiOptions, Delivery
from bot.publishing.offer import staged, with_conversation
from bot.publishing.turn import Review
from bot.render.markdown import escape
from bot.render.suggestion import block
from bot.run.artifact import Next
from bot.run.pipeline import run_review

HEAD_WAIT = (1.0, 2.0, 4.0, 8.0)  # a forge updates a change's head shortly after a push


def log(message: str) -> None:
    print(f"reviewbot: {message}", file=sys.stderr)


def least(cfg: config.Config) -> Permission:
    return Permission.MAINTAIN if cfg.command_permission == "maintain" else Permission.WRITE


def fetch_change(checkout: Path, pr: PullRequest, head_ref: str, env: Mapping[str, str],
                 name: str) -> None:
    """The head's commits (from the ref the forge mirrors it to) and the base's into the
    checkout; credentials only in the environment of these git processes."""
    fetch_commits(checkout, ((pr.head, head_ref), (pr.base, pr.base)), env, name)


def fetch_commits(repo: Path, wanted: Sequence[tuple[str, str]], env: Mapping[str, str],
                  name: str) -> None:
    """Each (sha, ref) pair's commit into `repo`, from `ref` when it is not there yet;
    BotError when git cannot get one."""
    for sha, ref in wanted:
        if git.rev_parse(repo, sha) is None:
            git.fetch(repo, "origin", ref, env=dict(env))
        if git.rev_parse(repo, sha) is None:
            raise BotError(f"commit {sha[:12]} of {name} could not be fetched ({ref})",
                           Exit.USAGE)


def change_repository(folder: Path, clone_url: str, env: Mapping[str, str]) -> Path:
    """A bare repository in `folder` with every branch of the change's repository, fetched as
    data (nothing is checked out): where a job that runs none of the change's code works."""
    bare = git.init_bare(folder / "change.git", clone_url)
    git.fetch_branches(bare, "origin", env)
    return bare


def within_change(result: ReviewResult, repo: Path, base: str, head: str) -> ReviewResult:
    """`result`, an analysis another job wrote (untrusted), cut to the files git says the
    change from `base` to `head` changed: no fix, plan or comment of it may touch any other
    file."""
    merge_base = git.merge_base(repo, base, head) or base
    changed = {c.new_path for c in git.diff_raw(repo, merge_base, head)
               if c.new_path and c.status != "D"}
    return replace(result, changes=tuple(c for c in result.changes if c.path in changed),
                   findings=tuple(v for v in result.findings if v.finding.path in changed))


@dataclass(frozen=True)
class Workplace:
    """Where a conversation turn works: a repository holding the change's commits, the
    settings that decide who may do what, and the review of the head when it was computed
    elsewhere (`reviewed`: the analysis artifact of the job that ran the change's code; then
    no tool runs here, and the repository is a bare one the commits were fetched into as
    data)."""

    checkout: Path
    cfg: config.Config
    reviewed: ReviewResult | None = None
    after: Next | None = None  # the analysis's review of the commit a command will make


@dataclass
class Session:
    runner: Runner
    checks: Checks  # how the head is reviewed here (the tools, the gate's policy)
    delivery: Delivery  # the output files and the caps of what is published
    connection: Connection
    checkout: Path
    cfg: config.Config
    number: int
    reviewed: ReviewResult | None = None  # see Workplace
    state: Conversation = field(default_factory=Conversation)
    pull: PullRequest | None = None
    sleep: Callable[[float], None] = time.sleep
    _result: ReviewResult | None = None
    notes: tuple[str, ...] = ()  # the analysis's fixes not offered, and why
    after: Next | None = None  # see Workplace

    @property
    def change(self) -> Change:
        assert self.connection.change is not None  # a session is about one change
        return self.connection.change

    @property
    def repo(self) -> Repository:
        return self.connection.repository

    @property
    def pr(self) -> PullRequest:
        if self.pull is None:
            self.pull = self.change.pull_request()
        return self.pull

    def say(self, body: str) -> None:
        self.repo.reply(self.number, body)

    def admitted(self, actor: str, refuse: Callable[[Access], None]) -> bool:
        """Whether `actor` may have the bot act. A bot account never, without a word (loop
        guard); anyone without the permission gets `refuse` (a reaction or the label removed,
        one reply)."""
        access = self.repo.access(actor)
        if access.bot:
            log(f"{actor} is a bot account: ignored")
            return False
        if access.permission < least(self.cfg):
            refuse(access)
            return False
        return True

    def who_may(self, access: Access, what: str) -> str:
        roles = [self.change.role(p) for p in sorted(Permission, reverse=True)
                 if p >= least(self.cfg)]
        allowed = ", ".join(roles[:-1]) + " or " + roles[-1]
        return (f"Only people with the {allowed} role on {self.connection.repository_name} may "
                f"{what}; @{access.login} has {self.change.role(access.permission)}. "
                "Nothing was done.")

    def fetch_head(self) -> None:
        fetch_change(self.checkout, self.pr, self.change.head_ref(self.number),
                     self.connection.push_env, f"{self.runner.change_name}{self.number}")

    def read_state(self) -> Conversation:
        return read(self.change.summary_body())

    @property
    def reviews_here(self) -> bool:
        """Whether this turn may run the tools (else the head's review came with it)."""
        return self.reviewed is None

    def result(self) -> ReviewResult:
        """The review of the head (ignored findings included: they are left out when
        published and planned)."""
        if self.reviewed is not None:
            if self.reviewed.head != self.pr.head:
                raise BotError(f"the head moved to {self.pr.head[:12]} since the analysis of "
                               f"{self.reviewed.head[:12]}; nothing was done: comment again",
                               Exit.OK)
            if self._result is None:  # each rule's fix re-derived from the head's rules
                checked = rule_fixes(self.checkout, self.reviewed)
                self._result = within_change(checked.result, self.checkout, self.pr.base,
                                             self.pr.head)
                self.notes = checked.notes
            return self._result
        if self._result is None or self._result.head != self.pr.head:
            git.ensure_commits(self.checkout, (self.pr.head, self.pr.base), self.runner.checkout_hint)
            self._result = run_review(self.checks.review(self.checkout, self.pr.base,
                                                         self.pr.head))
        return self._result

    @property
    def author(self) -> str:
        """The configured apply author, else the forge's own bot identity."""
        chosen = self.cfg.apply_author
        return self.change.author if chosen == config.DEFAULT_AUTHOR else chosen

    def moved_since(self, trigger: Trigger) -> str | None:
        return self.change.moved_since(self.pr, trigger)

    def apply(self, kind: Literal["apply", "fix"], asked_by: str) -> ApplyOutcome:
        """The engine at the head: the plan shown (`apply`) or the safe fixes (`fix`)."""
        result = without_ignored(self.result(), self.state)
        fork = self.pr.fork
        request = ApplyRequest(
            self.checkout, (self.pr.clone_url or "origin") if fork else "origin", self.pr.head_ref,
            result, staged(self.state) if kind == "apply" else (), kind, asked_by,
            author=self.author, expected_plan=self.state.shown if kind == "apply" else None,
            can_push=self.pr.can_push, push_env=dict(self.connection.push_env))
        return run_apply(request)

    def take_review(self, commit: str, plan: str, kind: Literal["apply", "fix"]) -> str | None:
        """After our push in a job that runs no linter: the analysis's review of the commit
        becomes the head's when analyze reviewed this plan's tree, which git, here, says
        `commit` has (None); else why not, and the new head is left unreviewed."""
        after, self.after = self.after, None  # one commit per analysis
        if after is None:
            return "the analysis holds no review of a commit"
        if (after.kind, after.plan) != (kind, plan):
            return (f"the analysis reviewed the commit of plan {after.plan} ({after.kind}), "
                    f"not of plan {plan}")
        tree = git.tree_of(self.checkout, commit)
        if tree != after.tree:
            return (f"the analysis reviewed the tree {after.tree[:12]}, and the commit's is "
                    f"{(tree or 'unknown')[:12]}")
        self.reviewed, self._result = replace(after.result, head=commit), None
        return None

    def pushed(self, commit: str) -> None:
        """After our push: wait until the forge shows `commit` as the head, and review that."""
        for wait in (0.0, *HEAD_WAIT):
            self.sleep(wait)
            self.pull = self.change.pull_request()
            if self.pull.head == commit:
                return
        self.pull = replace(self.pull, head=commit) if self.pull else None
        log(f"the forge does not show {commit[:12]} as the head yet")

    def save_state(self) -> None:
        """The conversation's state into the summary, whose review stays the one it shows:
        after a push in a job that has no review of the new head (the push's own run reviews
        it and reads this state)."""
        body = self.change.summary_body()
        if body is None:
            if self.state != Conversation():
                log("no summary to keep the conversation's state in: it is the next run's")
            return
        self.change.summary(self.change.load(), restated(body, self.state))

    def to_publish(self) -> Review | None:
        """The review of the head with the conversation, to publish; None when the head moved
        since the analysis (the state is saved: the review is the next run's)."""
        if self.reviewed is not None and self.reviewed.head != self.pr.head:
            log(f"the head moved to {self.pr.head[:12]}: its review is the next run's")
            self.save_state()
            return None
        offered = with_conversation(self.checkout, self.result(), self.state, self.cfg,
                                    self.notes, labels=self.change.dialect.labels)
        self.state = offered.state
        return Review(self.connection, self.number, offered.shown, self.delivery)


def reply_outcome(session: Session, outcome: ApplyOutcome, quoted: str,
                  kind: Literal["apply", "fix"]) -> bool:
    """Say what the engine did; after a push, the new head is what gets reviewed."""
    text = outcome.message
    if outcome.patch:
        text += "\n\n" + block(outcome.patch.splitlines(), "diff")
    if outcome.status == "pushed" and outcome.commit:
        # Two jobs: the analysis's review of this commit, when its tree is the one analyzed.
        why = None if session.reviews_here else session.take_review(outcome.commit,
                                                                     outcome.plan.id, kind)
        text += (f"\n\nCommit {outcome.commit}. The review of the new head follows in this run: "
                 f"{session.change.after_push}" if why is None else
                 f"\n\nCommit {outcome.commit}. This job runs no linter (the analysis was "
                 f"another job's), and {escape(why)}, so the new head is not reviewed here: "
                 f"{session.change.after_push} Comment `{session.cfg.command_prefix}review` or "
                 "push a commit to have it reviewed.")
        # The staged rewrites are in the commit; `/fix` took none of them.
        session.state = session.state.applied() if kind == "apply" else replace(
            session.state, shown=None)
        session.pushed(outcome.commit)
    session.say(f"{quoted}\n\n{text}" if quoted else text)
    return outcome.status in ("pushed", "nothing", "patch")


def start(runner: Runner, options: CiOptions, trigger: Trigger, at: Workplace) -> Session:
    """A session on the trigger's change, working at `at`; sends no request."""
    assert trigger.number is not None
    connection = runner.connect(trigger, options.token)
    return Session(runner, options.checks, options.delivery, connection, at.checkout, at.cfg,
                   trigger.number, at.reviewed, sleep=connection.sleep, after=at.after)
