"""The review of the commit a comment's `/fix` or `/apply`, or the apply label, will make,
computed in `reviewbot analyze` (the job that may run the change's linters) for the publish
job, which runs none: the push it makes with the workflow's token starts no workflow, so
without this the new head would have no review, no summary and no check.

The plan is computed and verified at the head as the apply engine does (`bot.apply`), the
tree it gives is built from git objects in a private index (the checkout's files and index
are never touched) with a stand-in commit on the head, and the linters review that commit
against the change's base. Publish trusts none of it blindly: it makes its own commit from
the plan and takes this review only when the commit's tree id is the one analyzed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from bot import config, git
from bot.apply import commit as commits
from bot.apply.plan import StagedRewrite, plan_for
from bot.apply.verify import verify
from bot.conversation.parse import Command
from bot.conversation.parse import commands as parse_commands
from bot.model import ReviewResult, Trigger
from bot.options import Checks
from bot.run.artifact import Next
from bot.run.pipeline import run_review

STAND_IN = commits.Identity("reviewbot", "reviewbot@invalid")  # never pushed


def committing(trigger: Trigger, repo: Path, rev: str) -> Literal["apply", "fix"] | None:
    """What the event asks to commit: the apply label's plan, or the first `/fix` or `/apply`
    of the comment (read with the prefix the settings at `rev` give); None for nothing."""
    if trigger.kind == "label":
        return "apply"
    if trigger.kind != "comment" or not trigger.comment_body:
        return None
    prefix = config.read_at(repo, rev).command_prefix
    for item in parse_commands(trigger.comment_body, prefix):
        if isinstance(item, Command) and item.verb in ("fix", "apply"):
            return "fix" if item.verb == "fix" else "apply"
    return None


def review_next(repo: Path, base: str, result: ReviewResult, kind: Literal["apply", "fix"],
                staged: Sequence[StagedRewrite], checks: Checks) -> Next | None:
    """The review of the commit `kind` makes on `result.head`, or None when it would commit
    nothing (an empty plan, or one the engine refuses)."""
    plan = plan_for(repo, result, staged, kind)
    if plan.empty:
        return None
    checked = verify(repo, plan)
    if not checked.ok or not checked.files:
        return None
    entries = {path: (mode, git.hash_blob(repo, data))
               for path, (mode, data) in checked.files.items()}
    with tempfile.TemporaryDirectory(prefix="reviewbot-next-") as scratch:
        tree = git.tree_with(repo, result.head, entries, Path(scratch) / "index")
    stand_in = git.commit_tree(repo, tree, result.head, f"reviewbot: the tree of plan {plan.id}",
                               STAND_IN.name, STAND_IN.email)
    reviewed = run_review(checks.review(repo, base, stand_in))
    return Next(kind, plan.id, tree, reviewed)
