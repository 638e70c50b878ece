"""`run`: recompute the plan at the PR head, verify it, make one commit, push it with a lease
(or hand back a patch). Every outcome is a status and one paragraph for the reply; nothing
is committed unless every check passed, and nothing is pushed over someone else's push."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot import git
from bot.apply import commit as commits
from bot.apply.plan import WORKFLOWS, Plan, StagedRewrite, plan_for, workflow_files
from bot.apply.verify import verify
from bot.errors import BotError
from bot.model import ReviewResult

Status = Literal["pushed", "nothing", "differs", "moved", "refused", "patch"]
DEFAULT_AUTHOR = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"


@dataclass(frozen=True)
class ApplyRequest:
    checkout: Path  # a git repository holding result.head (the PR head commit)
    remote: str  # "origin" or a URL to push to
    head_ref: str  # the PR's head branch on that remote
    result: ReviewResult  # the review at the PR's current head
    staged: tuple[StagedRewrite, ...]
    kind: Literal["apply", "fix"]
    asked_by: str
    author: str = DEFAULT_AUTHOR
    expected_plan: str | None = None  # the plan id shown before: a different plan now -> "differs"
    can_push: bool = True  # False: a fork PR whose maintainer_can_modify is false
    push_env: Mapping[str, str] = field(default_factory=dict)  # explicit env for `git push` only


@dataclass(frozen=True)
class ApplyOutcome:
    status: Status
    plan: Plan
    commit: str | None = None
    message: str = ""  # one paragraph for the reply: what happened and why
    patch: str | None = None  # status "patch": a `git am`-able patch for the reply


def _what(plan: Plan) -> str:
    n, f = len(plan.edits), len(plan.files)
    return f"plan {plan.id} ({n} edit{'' if n == 1 else 's'} in {f} file{'' if f == 1 else 's'})"


def _refused(plan: Plan, why: str) -> ApplyOutcome:
    return ApplyOutcome("refused", plan, message=f"Nothing was committed: {why}")


def _check(request: ApplyRequest, plan: Plan) -> ApplyOutcome | None:
    """The outcome when the plan cannot be committed as it is, before anything is written."""
    short = plan.head[:12]
    if request.expected_plan is not None and request.expected_plan != plan.id:
        return ApplyOutcome("differs", plan, message=(
            f"Nothing was committed: the plan at {short} is now {_what(plan)}, not plan "
            f"{request.expected_plan} as shown before. Review the new plan and ask again."))
    if plan.empty:
        what = "safe fixes" if request.kind == "fix" else "staged edits"
        return ApplyOutcome("nothing", plan, message=f"Nothing to commit: there are no {what} at {short}.")
    blocked = workflow_files(plan)
    if blocked:
        return _refused(plan, f"{_what(plan)} changes {', '.join(blocked)}, and files under "
                              f"{WORKFLOWS} are never changed by the bot (a workflow runs with this "
                              "repository's secrets). Change them by hand.")
    if not git.branch_name_ok(request.checkout, request.head_ref):
        return _refused(plan, f"{request.head_ref!r} is not a branch name git accepts.")
    if commits.parse_identity(request.author) is None:
        return _refused(plan, f"the commit author {request.author!r} is not `Name <email>`.")
    return None


def run(request: ApplyRequest) -> ApplyOutcome:
    """Apply the plan at `request.result.head` as one commit; see the module's docstring."""
    head = request.result.head
    if git.rev_parse(request.checkout, head) != head:
        raise BotError(f"{request.checkout} does not hold the PR head {head}: fetch it first")
    plan = plan_for(request.checkout, request.result, request.staged, request.kind)
    stop = _check(request, plan)
    if stop is not None:
        return stop
    checked = verify(request.checkout, plan)
    if not checked.ok:
        return _refused(plan, f"{_what(plan)} would break {len(checked.problems)} file(s): "
                              + "; ".join(checked.problems) + ".")
    if not checked.files:
        return ApplyOutcome("nothing", plan, message=f"Nothing to commit: {_what(plan)} changes no file.")
    who = commits.parse_identity(request.author)
    assert who is not None  # checked above
    text = commits.message(plan.id, request.kind, request.asked_by, plan.sources)
    sha = commits.make(request.checkout, head, checked.files, text, who)
    note = (f" Checked to be text only (no parser here): {', '.join(checked.unchecked)}."
            if checked.unchecked else "")
    if not request.can_push:
        return ApplyOutcome("patch", plan, sha, (
            f"{_what(plan)} is commit {sha[:12]} on {head[:12]}, but this branch cannot be pushed "
            "to (a fork that does not allow edits from maintainers): apply the patch below with "
            f"`git am`.{note}"), git.format_patch(request.checkout, sha))
    pushed = commits.push(request.checkout, request.remote, request.head_ref, sha, head,
                          request.push_env)
    if pushed.status == "pushed":
        return ApplyOutcome("pushed", plan, sha, (
            f"Pushed {sha[:12]} to {request.head_ref}: {_what(plan)} on {head[:12]}, asked by "
            f"{commits.one_line(request.asked_by)}.{note}"))
    if pushed.status == "moved":
        now = git.remote_head(request.checkout, request.remote, request.head_ref, request.push_env)
        where = f" (it is at {now[:12]} now)" if now else ""
        return ApplyOutcome("moved", plan, sha, (
            f"Nothing was pushed: {request.head_ref} moved since {head[:12]} was reviewed{where}, "
            "so the lease refused the push and the other commits are intact. The new head will "
            f"be reviewed; ask again there. ({pushed.detail})"))
    return ApplyOutcome("refused", plan, sha, (
        f"Nothing was pushed: the push of {sha[:12]} to {request.head_ref} failed: {pushed.detail}"))
