"""A scheduled run (schedule, workflow_dispatch): the sweep of the branch it names
(`bot.sweep.flow`), with the forge's issue as its tracking issue and the change that brought
each regression, on any forge."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bot import atomic, git
from bot import cache as findings_cache
from bot import config as config_mod
from bot.ci.base import Runner
from bot.errors import BotError, Exit
from bot.forges.base import Connection
from bot.model import Trigger
from bot.options import Checks
from bot.publishing.outputs import writing
from bot.publishing.sinks import print_dry_run
from bot.run.pipeline import ReviewOptions
from bot.sweep import flow


def from_ci(runner: Runner, repo: Path | None, token: str | None, dry_run: bool,
            checks: Checks, trigger: Trigger) -> int:
    """Sweep the branch the trigger names (else the default branch's tip)."""
    checkout = runner.checkout(repo)
    ref = trigger.target_ref or default_ref(checkout)
    head = trigger.head_sha or head_of(checkout, ref)
    if git.rev_parse(checkout, head) is None:
        raise BotError(f"commit {head[:12]} of {ref} is not in the checkout", Exit.USAGE)
    sweep(runner, runner.connect(trigger, token, dry_run=dry_run), checkout, ref, head, checks)
    return int(Exit.OK)


def sweep(runner: Runner | None, connection: Connection, checkout: Path, ref: str, head: str,
          checks: Checks) -> flow.Swept:
    """One sweep; its summary goes to the CI's job summary when there is a CI (`runner`). A
    dry run prints the writes it did not send (`connection.recorded`) as one JSON document."""
    outcome = flow.sweep(options(checks, checkout, ref, head, connection.change_prefix),
                         connection.repository, connection.pulls)
    print(f"reviewbot: {outcome.message}", file=sys.stderr)
    if connection.recorded is not None:
        print_dry_run(None, connection.recorded)
    if outcome.summary and runner is not None:
        runner.job_summary(outcome.summary)
    return outcome


def options(checks: Checks, repo: Path, ref: str, head: str, change: str) -> flow.Options:
    """The sweep's settings: the label from the head's .reviewbot.yml, the review's from `checks`."""
    label = config_mod.for_review(repo, head, head, checks.config).config.sweep_label
    review = ReviewOptions(repo, config=checks.config, timeout=checks.timeout, only=checks.only,
                           cache_dir=findings_cache.default_dir())
    return flow.Options(repo, ref, head, label, review, change=change)


def write_outcome(path: Path, outcome: flow.Swept) -> None:
    """What a workflow step reads back (the action's outputs): no finding's text."""
    doc = {"kind": outcome.kind, "open": len(outcome.open), "fixed": len(outcome.fixed),
           "issue": outcome.issue.number if outcome.issue is not None else None}
    with writing(path, "--outcome"):
        atomic.write(path, (json.dumps(doc) + "\n").encode())


def default_ref(repo: Path) -> str:
    remote = git.default_branch(repo)
    if remote:
        return remote.split("/", 1)[1]
    return git.current_branch(repo) or "main"


def head_of(repo: Path, ref: str) -> str:
    for candidate in (f"refs/heads/{ref}", f"refs/remotes/origin/{ref}"):
        sha = git.rev_parse(repo, candidate)
        if sha:
            return sha
    raise BotError(f"--ref {ref}: no such branch in {repo} (nor origin/{ref})", Exit.USAGE)
