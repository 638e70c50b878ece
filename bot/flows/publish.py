"""`reviewbot publish`'s work: publish analyses that `reviewbot analyze` wrote, from a job that
holds a write token (normally on `workflow_run`).

It checks out, imports and runs nothing of the pull request, and works in an empty folder.
The artifacts are untrusted data: capped in bytes before they are read, schema-checked, every
path clean, every inline position checked against the pull request's diff as the forge reports it
(a finding whose line is not there goes to the summary, never to a refused review), and the
analysed head checked against the pull request's current head (if it moved, nothing is posted
inline and the exit status is 0). Several files (shards of one analysis) publish as one review.
The gate's policy is the default branch's `.reviewbot.yml`, read through the API, never the
artifact's: that is the word of a job that ran the pull request's code.

On a comment or the apply label (the second job of the event's own workflow, or `--label` on a
`workflow_run` for a fork's label) it runs the comment's commands or the label on the
artifact's review instead (`_act`): the same flows as one job, with no tool run here. For a
merge queue's group or a merge train's result it publishes the gate (`bot.flows.queue`): the
check run or commit status on the merged result, one comment on the change when it fails.

In a GitLab merge request pipeline (a `publish` job that `needs:` the `analyze` job's
artifact) it publishes to that merge request as `ci` does: diff threads, the summary note and
the commit status. The artifact must be of this pipeline: its project, its merge request and
its head are the pipeline's (`bot.ci.gitlab_ci`), else it is refused (exit 2). On Gitea it
runs in a second job of the pull request's own workflow, with a token only that job is given
(`bot.ci.gitea_actions`). Which change the artifact must be of is the runner's word
(`Runner.publishing`).

With --dry-run it reads as usual (with the token) and prints, as JSON on stdout, the gate and
every write it would send (the review, edits, resolutions, the summary, the check run or commit
status); it sends none.

Exit statuses: the gate (0, 1, 4); 2 a bad artifact or usage (the message says which field and
why); 3 the forge's API failed after retries.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot import config
from bot.apply.plan import plan_for
from bot.apply.rederive import rule_fixes
from bot.ci.base import Runner
from bot.conversation.state import Conversation, section, without_ignored
from bot.conversation.state import read as read_conversation
from bot.errors import ArtifactError, BotError, Exit
from bot.flows import queue
from bot.flows.comment import comment
from bot.flows.label import label
from bot.flows.session import Workplace, change_repository, fetch_commits, log, within_change
from bot.forges.base import Connection
from bot.forges.repository import Repository
from bot.model import ReviewResult, Trigger
from bot.options import Checks, CiOptions, Delivery
from bot.publishing.offer import offer
from bot.publishing.outputs import writable
from bot.publishing.turn import Review, Shown, Turn
from bot.render.markdown import escape
from bot.run import artifact
from bot.run.assemble import assemble

DEFAULT_MAX_BYTES = 10_000_000


@dataclass(frozen=True)
class Options:
    files: tuple[Path, ...]
    max_bytes: int = DEFAULT_MAX_BYTES
    token: str | None = None
    dry_run: bool = False
    fail_level: str | None = None
    tool_errors: str | None = None
    delivery: Delivery = field(default_factory=Delivery)
    label: bool = False  # the apply label's analysis, published on a `workflow_run`


def publish(runner: Runner, options: Options) -> Turn:
    writable(options.delivery)
    files = expand(options.files)
    analysis = assemble([read(path, options.max_bytes) for path in files], [str(p) for p in files])
    # The run's own word on which change this is: the artifact must agree with it.
    trigger = runner.publishing(analysis.repository, analysis.number, analysis.head_sha,
                                options.label)
    assert trigger.number is not None
    token = runner.token(options.token)
    if not token:
        raise BotError(f"no {runner.forge} token: pass --token, or give this job the token "
                       "(GitHub: `env: GITHUB_TOKEN: ${{ github.token }}`; Gitea: "
                       "REVIEWBOT_GITEA_TOKEN)", Exit.USAGE)
    acts = trigger.kind in ("comment", "label")
    if acts and options.dry_run:
        raise BotError(f"--dry-run works for reviews, not for a {trigger.kind} event (its "
                       "commands would still reply, commit and push)", Exit.USAGE)
    connection = runner.connect(trigger, token, dry_run=options.dry_run)
    assert connection.change is not None
    settled = _settled(runner, connection, trigger)
    if settled is None:
        return Turn()
    trigger, cfg = settled
    assert trigger.number is not None
    if acts:
        return _act(runner, options, trigger, token, analysis, connection, cfg)
    found = replace(analysis.result,
                    policy=cfg.policy.chosen(options.fail_level, options.tool_errors))
    if trigger.kind == "queue":  # a merge queue's group: its gate, no inline comment
        return queue.publish(connection,
                             replace(trigger, target_ref=trigger.target_ref or analysis.target_ref),
                             found, analysis.texts, options.delivery)
    # The conversation (ignored findings, staged rewrites) lives in the summary comment: carry
    # it over. This read is the publish step's first too.
    talk = read_conversation(connection.change.summary_body(keep=True))
    shown, extra, talk = _offered(runner, connection, trigger, analysis, found, talk, cfg)
    # Cut to the forge's diff: the analysis's positions are the word of the change's code.
    # The head moved: this analysis is history, and the run of the new head decides.
    return Turn(review=Review(connection, trigger.number,
                              Shown(shown, analysis.texts, section(talk, extra)),
                              options.delivery, in_diff=True), exiting="gate unless stale")


def _settled(runner: Runner, connection: Connection, trigger: Trigger
             ) -> tuple[Trigger, config.Config] | None:
    """The settings, read once through the API, and the trigger as the forge completes it.
    They decide who may do what and the gate's policy: the default branch's, but the change's
    base for the label (what the one-job flows read from their checkout). A label on a
    `workflow_run`, which did not see the label's event: the forge says who added it (None:
    the change does not carry it now)."""
    assert connection.change is not None and trigger.number is not None
    if trigger.kind != "label" or trigger.actor is not None:
        ref = trigger.base_sha if trigger.kind == "label" else None
        return trigger, settings_from(connection.repository, ref)
    pr = connection.change.pull_request()
    cfg = settings_from(connection.repository, pr.base)
    who = connection.change.labeled_by(cfg.apply_label)
    if who is None:
        log(f"{runner.change_name}{trigger.number} does not carry the apply label "
            f"{cfg.apply_label!r} now: nothing to do")
        return None
    return replace(trigger, base_sha=pr.base, actor=who.login, actor_is_bot=who.bot,
                   label=cfg.apply_label, open=pr.open), cfg


def _offered(runner: Runner, connection: Connection, trigger: Trigger, analysis: artifact.Analysis,
             found: ReviewResult, talk: Conversation, cfg: config.Config
             ) -> tuple[ReviewResult, str, Conversation]:
    """The staged plan at the analysed head, as one job shows it, from git objects alone: the
    change's commits fetched as data, each rule's fix re-derived from the head's rules (a fix
    the analysis claims but the rule does not give is dropped, and said), the plan computed
    over the files git says the change changed since its base as the forge names it (the
    artifact's base is the word of the job that ran the change's code). Returns the review
    without the ignored findings, with the re-derived fixes; the summary's text for the plan,
    and the state with the id shown. Nothing to plan: no fetch."""
    shown = without_ignored(found, talk)
    if not talk.staged and not any(v.finding.fix for v in shown.findings):
        return shown, "", replace(talk, shown=None)
    assert trigger.repository and connection.change is not None and trigger.number is not None
    with tempfile.TemporaryDirectory(prefix="reviewbot-publish-") as folder:
        try:
            base = connection.change.pull_request().base
            bare = change_repository(Path(folder), runner.clone_url(trigger.repository),
                                     connection.push_env)
            fetch_commits(bare, ((analysis.head_sha, connection.change.head_ref(trigger.number)),
                                 (base, base)),
                          connection.push_env, f"{runner.change_name}{trigger.number}")
        except BotError as exc:
            log(f"the staged plan is not shown: {exc.message}")
            return shown, (f"The staged plan could not be checked here ({escape(exc.message)}): "
                           "nothing is offered in this run."), replace(talk, shown=None)
        checked = rule_fixes(bare, found)
        planned = within_change(checked.result, bare, base, analysis.head_sha)
        notes = list(checked.notes)
        # The analysis cannot read the conversation: its plan is of every finding, and so is
        # the one it is checked against; the ignored ones are left out of what is shown.
        if analysis.offer is not None:
            mine = plan_for(bare, planned, (), "apply")
            if mine.id != analysis.offer:
                notes.append(f"the analysis offered plan {analysis.offer}; recomputed here from "
                             f"git objects it is plan {mine.id}, which is the one shown")
        text, talk = offer(bare, without_ignored(planned, talk), talk, cfg, notes,
                           labels=connection.change.dialect.labels if connection.change else True)
    return without_ignored(checked.result, talk), text, talk


def _act(runner: Runner, options: Options, trigger: Trigger, token: str,
         analysis: artifact.Analysis, connection: Connection, cfg: config.Config) -> Turn:
    """A comment's commands or the apply label, in the job that holds the write token and runs
    nothing of the change: the review is the artifact's (checked to be of the change's head
    now), the change's commits are fetched as data into a bare repository, and every edit is
    checked and committed from git objects (`bot.apply`), as in one job. What is shown is
    read from the bare repository before it goes."""
    assert trigger.repository
    ci = CiOptions(token=token, checks=Checks(fail_level=options.fail_level,
                                              tool_errors=options.tool_errors),
                   delivery=options.delivery)
    with tempfile.TemporaryDirectory(prefix="reviewbot-publish-") as folder:
        bare = change_repository(Path(folder), runner.clone_url(trigger.repository),
                                 connection.push_env)
        at = Workplace(bare, cfg, analysis.result, analysis.next)
        if trigger.kind == "comment":
            return comment(runner, ci, trigger, at)
        return label(runner, ci, trigger, at)


def settings_from(repository: Repository, ref: str | None = None) -> config.Config:
    """`.reviewbot.yml` as the forge serves it at `ref` (default: the default branch)."""
    return config.read(lambda name: repository.read_file(name, ref),
                       f"at {ref[:12]}" if ref else "on the default branch")


def expand(paths: Sequence[Path]) -> list[Path]:
    """The artifact files: a folder stands for the .json files in it, by name."""
    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            out.append(path)
            continue
        found = sorted(p for p in path.glob("*.json") if p.is_file())
        if not found:
            raise BotError(f"{path}: a folder with no .json file in it: nothing to publish",
                           Exit.USAGE)
        out += found
    return out


def read(path: Path, max_bytes: int) -> artifact.Analysis:
    """One artifact, refused before it is read when it is over the cap."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise BotError(f"{path}: {size} bytes, over the cap of {max_bytes} (--max-bytes)",
                           Exit.USAGE)
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # the file may grow after the stat
    except OSError as exc:
        raise BotError(f"cannot read {path}: {exc.strerror or exc}", Exit.USAGE) from exc
    try:
        return artifact.load(data, max_bytes=max_bytes)
    except ArtifactError as exc:
        raise BotError(f"{path}: {exc}", Exit.USAGE) from exc
