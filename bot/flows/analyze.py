"""`reviewbot analyze`'s work: review a change and write the analysis artifact
(`bot.run.artifact`) that `reviewbot publish` posts from another job. Needs no token and reads
none: it is the half of the fork-safe pair that runs the change's code (its linters), so no
write token may be in reach; it talks to no forge (git may fetch commits a shallow checkout
lacks).

Inside a CI run for a change (`Runner.in_change_event`) the change (number, repository, base
and head, target branch) comes from the run, without the API (`Runner.analysed_range`); an event
that asks for no review (closed) writes nothing. Elsewhere the change comes from --base/--head,
with no number and the repository read from the `origin` remote's URL when it names owner/name
(else null).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot import atomic, git
from bot import cache as findings_cache
from bot.apply.plan import plan_for
from bot.ci.base import Runner
from bot.conversation.state import Conversation, without_ignored
from bot.conversation.state import read as read_conversation
from bot.errors import BotError, Exit
from bot.flows import successor
from bot.flows.session import fetch_change, log
from bot.forges.base import Range
from bot.model import ReviewResult, Scope, Trigger
from bot.options import Checks
from bot.publishing.offer import staged
from bot.publishing.outputs import writable_output, writing
from bot.revisions import workspace
from bot.run import artifact, shards
from bot.run import part as shard_part
from bot.run.artifact import Next
from bot.run.pipeline import Gathered, ReviewOptions, begin, conclude, gather

# scheme://[user@]host[:port]/PATH or scp-like user@host:PATH; local paths name no repository.
REMOTE_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/]*@)?[^/@]+/|[^@/:]+@[^/:]+:)"
                        r"(?P<path>[^?#]+?)(?:\.git)?/?")


@dataclass(frozen=True)
class Options:
    out: Path
    repo: Path | None = None
    base: str | None = None
    head: str | None = None
    shard: shards.Shard | None = None
    checks: Checks = field(default_factory=Checks)


@dataclass(frozen=True)
class Change:
    """What to analyse and what the artifact says it is."""

    repo: Path
    base: str | None
    head: str
    repository: str | None
    number: int | None
    target_ref: str | None  # None: what --base resolved to (the result's base_ref)
    trigger: Trigger | None = None  # the CI event's, inside one
    state: Conversation = field(default_factory=Conversation)  # read where the forge was asked


def analyze(runner: Runner, options: Options) -> int:
    writable_output(options.out, "--out")
    change = _change(runner, options)
    if change is None:
        return int(Exit.OK)
    review = ReviewOptions(repo=change.repo, base=change.base, head=change.head,
                           config=options.checks.config, timeout=options.checks.timeout,
                           only=options.checks.only, shard=options.shard,
                           cache_dir=findings_cache.default_dir())
    gathered = gather(review, begin(review))
    if options.shard is None:
        result = conclude(gathered)
        texts = workspace.texts(change.repo, result.head,
                                [v.finding.path for v in result.findings])
    else:  # verdicts wait for every part: publish gives them
        result = conclude(replace(gathered, base=(), head=()))
        texts = {}
    base_sha = git.rev_parse(change.repo, change.base or result.base_ref) or result.merge_base
    analysis = artifact.build(result, texts, repository=change.repository, number=change.number,
                              base_sha=base_sha, target_ref=change.target_ref or result.base_ref)
    if options.shard is not None:
        analysis = replace(analysis, part=_part(gathered, options.shard))
    else:
        analysis = replace(analysis, offer=_offer(change.repo, result),
                           next=_next(change, result, options))
    data = artifact.dump(analysis)
    with writing(options.out, "--out"):
        atomic.write(options.out, data)
    what = (f"shard {options.shard}: {len(gathered.head)} finding(s) at the head, "
            f"{len(gathered.base)} at the merge base" if options.shard is not None
            else _counts(result))
    print(f"reviewbot: wrote {options.out} ({len(data)} bytes): {what}"
          + (f" for {change.repository}#{change.number}" if change.number else ""), file=sys.stderr)
    return int(Exit.OK)


def _offer(repo: Path, result: ReviewResult) -> str | None:
    """The id of the plan the head's review offers before any `/ast-edit` (those live in the
    conversation, which publish reads): the rules' fixes and the linters' safe fixes."""
    if not any(v.finding.fix for v in result.findings):
        return None
    plan = plan_for(repo, result, (), "apply")
    return None if plan.empty else plan.id


def _next(change: Change, result: ReviewResult, options: Options) -> Next | None:
    """The review of the commit the event's command or label makes (`bot.flows.successor`)."""
    if change.trigger is None or change.base is None:
        return None
    kind = successor.committing(change.trigger, change.repo, change.base)
    if kind is None:
        return None
    shown = without_ignored(result, change.state)
    base = git.rev_parse(change.repo, change.base) or change.base  # a sha, as one job has it
    try:
        after = successor.review_next(
            change.repo, base, shown, kind, staged(change.state) if kind == "apply" else (),
            options.checks)
    except BotError as exc:  # the head's own analysis stands; the new head waits for /review
        log(f"the commit {kind} would make could not be reviewed ahead: {exc.message}")
        return None
    if after is not None:
        log(f"reviewed the tree of plan {after.plan} ({kind}): {_counts(after.result)}")
    return after


def _part(gathered: Gathered, shard: shards.Shard) -> shard_part.Part:
    return shard_part.of(shard.index, shard.count, gathered.plan, gathered.base, gathered.head,
                         gathered.unbaselined, gathered.evidence)


def _change(runner: Runner, options: Options) -> Change | None:
    """What to analyse; None for an event that asks for no review (closed, ...)."""
    if not runner.in_change_event():
        repo = git.toplevel(options.repo or Path.cwd())
        return Change(repo, options.base, options.head or "HEAD", origin_repository(repo), None,
                      None)
    if options.base or options.head:
        raise BotError("--base and --head come from the change's event here; drop them (or run "
                       "outside the CI event to analyse other revisions)", Exit.USAGE)
    trigger = runner.trigger()  # refuses pull_request_target
    if trigger.kind not in ("review", "comment", "label", "queue") or trigger.number is None \
            or not trigger.open:
        log(f"nothing to analyse: {trigger.reason or f'{trigger.event} on a closed change'}")
        return None
    exposed = runner.exposed_token()
    if exposed:
        log(f"warning: {exposed} is set in this job, which runs the change's code: give it only "
            "to the publish job (docs/security.md)")
    repo = runner.checkout(options.repo)
    state = Conversation()
    change = runner.analysed_range(trigger)
    if change is None:  # a comment: the forge says where the head is (a read-only token will do)
        connection = runner.connect(trigger, runner.token(None))
        assert connection.change is not None
        pr = connection.change.pull_request()
        fetch_change(repo, pr, connection.change.head_ref(trigger.number), connection.push_env,
                     f"{runner.change_name}{trigger.number}")
        change = Range(pr.base, pr.head, pr.open)
        # The staged rewrites and ignored findings decide the plan a command commits.
        state = read_conversation(connection.change.summary_body())
    else:
        if change.base.startswith("refs/remotes/origin/"):  # a branch: fetched whole
            git.fetch_branches(repo, "origin")
        else:
            git.ensure_commits(repo, (change.base,), runner.checkout_hint)
        git.ensure_commits(repo, (change.head,), runner.checkout_hint)
        if trigger.kind == "label":
            state = _conversation(runner, trigger)
    return Change(repo, change.base, change.head, trigger.repository, trigger.number,
                  trigger.target_ref, trigger, state)


def _conversation(runner: Runner, trigger: Trigger) -> Conversation:
    """The staged rewrites and ignored findings the apply label commits, read with the job's
    token where it has one (they make the plan whose commit is reviewed ahead); without one,
    none, and publish finds the plan differs and says how to have the new head reviewed."""
    try:
        token = runner.token(None)
    except BotError:  # none in reach (GitLab's analyze job)
        return Conversation()
    if not token:
        return Conversation()
    try:
        connection = runner.connect(trigger, token)
        assert connection.change is not None
        return read_conversation(connection.change.summary_body())
    except BotError as exc:
        log(f"the conversation could not be read ({exc.message}): the commit is reviewed "
            "ahead without its staged rewrites")
        return Conversation()


def repository_from_url(url: str) -> str | None:
    """owner/name (or a GitLab group path) from a remote URL; None for local paths."""
    found = REMOTE_URL.fullmatch(url.strip())
    if found is None:
        return None
    path = found.group("path").strip("/")
    return path if artifact.REPOSITORY.fullmatch(path) else None


def origin_repository(repo: Path) -> str | None:
    url = git.remote_url(repo, "origin")
    return repository_from_url(url) if url is not None else None


def _counts(result: ReviewResult) -> str:
    return ", ".join(f"{result.count(s)} {s}" for s in Scope)
