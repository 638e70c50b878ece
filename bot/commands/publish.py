"""`reviewbot publish FILE...`: publish analyses that `reviewbot analyze` wrote, from a job that
holds a write token (normally on `workflow_run`).

It checks out, imports and runs nothing of the pull request, and works in an empty folder.
The artifacts are untrusted data: capped in bytes before they are read, schema-checked, every
path clean, every inline position checked against the pull request's diff as GitHub reports it
(a finding whose line is not there goes to the summary, never to a refused review), and the
analysed head checked against the pull request's current head (if it moved, nothing is posted
inline and the exit status is 0). Several files (shards of one analysis) publish as one review.
The gate's policy is the default branch's `.reviewbot.yml`, read through the API, never the
artifact's: that is the word of a job that ran the pull request's code.

In a GitLab merge request pipeline (a `publish` job that `needs:` the `analyze` job's
artifact) it publishes to that merge request as `ci` does: diff threads, the summary note and
the commit status. The artifact must be of this pipeline: its project, its merge request and
its head are the pipeline's (`bot.ci.gitlab_ci`), else it is refused (exit 2).

With --dry-run it reads as usual (with the token) and prints, as JSON on stdout, the gate and
every write it would send (the review, edits, resolutions, the summary, the check run or commit
status); it sends none.

Exit statuses: the gate (0, 1, 4); 2 a bad artifact or usage (the message says which field and
why); 3 the GitHub API failed after retries.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot import artifact, config, credentials
from bot.assemble import assemble
from bot.chat.publishing import WithConversation, read_state
from bot.chat.state import read as read_conversation
from bot.chat.state import section, without_ignored
from bot.ci import github_actions, gitlab_ci
from bot.ci import payload as payload_file
from bot.commands import common, deliver
from bot.commands import merge_request as gitlab_merge_request
from bot.errors import BotError, Exit
from bot.forges.github import change as github
from bot.forges.github.change import GitHubForge
from bot.forges.github.repository import GitHubRepository
from bot.forges.repository import Repository
from bot.gate import override
from bot.model import FileChange, GatePolicy, ReviewResult

DEFAULT_MAX_BYTES = 10_000_000


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("publish", help="publish analyses written by `reviewbot analyze`",
                       description="Publish one or more analysis artifacts of one pull request: "
                                   "one review, a sticky summary and a check run. Reads no checkout.")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE",
                   help="analysis artifact(s); a folder stands for every .json file in it (the "
                        "parts of a sharded analysis, downloaded together)")
    p.add_argument("--token", help="GitHub token (default: $GITHUB_TOKEN; in GitLab CI: "
                                   "$REVIEWBOT_GITLAB_TOKEN, else $GITLAB_TOKEN)")
    p.add_argument("--max-bytes", type=_positive, default=DEFAULT_MAX_BYTES, metavar="N",
                   help=f"refuse an artifact larger than this (default {DEFAULT_MAX_BYTES})")
    common.add_gate_options(p)
    deliver.add_options(p)
    p.add_argument("--dry-run", action="store_true",
                   help="read with the token, then print the writes as JSON instead of sending them")
    p.set_defaults(func=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of bytes, not {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {value}")
    return value


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    env = credentials.environ() if env is None else env
    if gitlab_ci.active(env):
        return merge_request(args, env)
    token = args.token or env.get("GITHUB_TOKEN")
    if not token:
        raise BotError("no GitHub token: pass --token or set GITHUB_TOKEN "
                       "(env: GITHUB_TOKEN: ${{ github.token }})", Exit.USAGE)
    common.writable_output(args.sarif, "--sarif")
    files = expand(args.files)
    analysis = assemble([read(path, args.max_bytes) for path in files], [str(p) for p in files])
    repository = env.get("GITHUB_REPOSITORY") or analysis.repository
    if analysis.number is None or not repository:
        raise BotError("the analysis names no pull request: run `reviewbot analyze` on a "
                       "pull_request event", Exit.USAGE)
    if analysis.repository is not None and analysis.repository != repository:
        raise BotError(f"the analysis is of {analysis.repository}, but this run publishes to "
                       f"{repository}", Exit.USAGE)
    check_run_event(env, analysis.head_sha, analysis.number)
    forge = _forge(repository, analysis.number, token, env)
    policy = override(trusted_policy(GitHubRepository(forge.api.settings, api=forge.api)),
                      args.fail_level, args.tool_errors)
    # The conversation (ignored findings, staged rewrites) lives in the summary comment: carry
    # it over. The staged plan needs the files themselves, so the next run with a checkout (a
    # command, or `ci`) shows it again.
    talk = replace(read_state(forge.api, analysis.number), shown=None)
    result = within_diff(replace(without_ignored(analysis.result, talk), policy=policy),
                         forge.diff_lines())
    dry = (github.DryRun(repository, analysis.number, analysis.head_sha, reads=forge)
           if args.dry_run else None)
    gate, outcome = deliver.deliver(WithConversation(dry or forge, section(talk)), result,
                                    analysis.texts, deliver.options(args), env, analysis.number,
                                    recorder=dry)
    # The head moved: this analysis is history, and the run of the new head decides.
    return int(Exit.OK) if outcome.status == "stale" else int(gate.exit)


def merge_request(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Publish to the merge request of this GitLab pipeline."""
    trigger = gitlab_ci.from_env(env)
    if trigger.kind != "review" or trigger.number is None:
        raise BotError("in GitLab CI, `reviewbot publish` runs in the merge request pipeline whose "
                       "`analyze` job wrote the artifact (rules: - if: $CI_PIPELINE_SOURCE == "
                       "\"merge_request_event\")", Exit.USAGE)
    token = args.token or gitlab_ci.token(env)
    common.writable_output(args.sarif, "--sarif")
    common.writable_output(args.code_quality, "--code-quality")
    files = expand(args.files)
    analysis = assemble([read(path, args.max_bytes) for path in files], [str(p) for p in files])
    head = gitlab_ci.review_head(env)
    for field, found, expected in (("project", analysis.repository, trigger.repository),
                                   ("merge request", analysis.number, trigger.number),
                                   ("head", analysis.head_sha, head)):
        if found != expected:
            raise BotError(f"the analysis is of {field} {found}, but this pipeline is of "
                           f"{expected}: publish only the artifact of this pipeline's "
                           "`analyze` job", Exit.USAGE)
    forge = gitlab_merge_request.forge(trigger, token, env)
    if args.dry_run:
        forge.record_writes()
    policy = override(trusted_policy(gitlab_merge_request.repository(token, env, {})),
                      args.fail_level, args.tool_errors)
    # The summary note's conversation, as on GitHub; this read is the publish step's too.
    talk = replace(read_conversation(forge.summary_body(keep=True)), shown=None)
    result = within_diff(replace(without_ignored(analysis.result, talk), policy=policy),
                         forge.diff_lines())
    with contextlib.redirect_stdout(sys.stderr) if args.dry_run else contextlib.nullcontext():
        gate, outcome = deliver.deliver(WithConversation(forge, section(talk)), result,
                                        analysis.texts, deliver.options(args), env, trigger.number)
    if args.dry_run:  # the publish step's log went to stderr: stdout is the JSON
        deliver.print_dry_run(gate, forge.requests)
    return int(Exit.OK) if outcome.status == "stale" else int(gate.exit)


def trusted_policy(repository: Repository) -> GatePolicy:
    """The gate's policy from the default branch's settings, where this workflow runs from.
    The artifact's own policy is the word of a job that ran the pull request's code."""
    for name in config.FILE_NAMES:
        blob = repository.read_file(name)
        if blob is not None:
            text = blob.decode("utf-8", errors="replace")
            return config.parse(text, name, revision="on the default branch").policy
    return GatePolicy()


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
    except artifact.ArtifactError as exc:
        raise BotError(f"{path}: {exc}", Exit.USAGE) from exc


def check_run_event(env: Mapping[str, str], head: str, number: int) -> None:
    """On `workflow_run`, the artifact must be of the run that triggered this one: its head is
    the one GitHub names in the (trusted) event payload."""
    if env.get("GITHUB_EVENT_NAME") != "workflow_run" or not env.get("GITHUB_EVENT_PATH"):
        return
    payload: Any = payload_file.read(env["GITHUB_EVENT_PATH"], "the workflow_run event payload")
    expected, prs = _run_of(payload)
    if expected != head:
        raise BotError(f"the analysis is of {head[:12]}, but the workflow run that triggered "
                       f"this one analysed {str(expected)[:12]}", Exit.USAGE)
    numbers = {pr["number"] for pr in prs if isinstance(pr, dict)
               and isinstance(pr.get("number"), int) and not isinstance(pr["number"], bool)}
    if numbers and number not in numbers:  # empty for fork pull requests
        raise BotError(f"the analysis is of pull request #{number}, but the workflow run was for "
                       f"#{', #'.join(str(n) for n in sorted(numbers))}", Exit.USAGE)


def _run_of(payload: Any) -> tuple[str, list[Any]]:
    """The head sha and the pull requests of a workflow_run event; BotError naming the field."""
    run = payload.get("workflow_run") if isinstance(payload, dict) else None
    if not isinstance(run, dict):
        raise BotError("malformed workflow_run event payload: `workflow_run` is missing or not "
                       "an object", Exit.USAGE)
    head = run.get("head_sha")
    if not isinstance(head, str) or not github_actions.SHA.fullmatch(head):
        raise BotError("malformed workflow_run event payload: `workflow_run.head_sha` is not a "
                       "commit sha", Exit.USAGE)
    prs = run.get("pull_requests")
    if prs is not None and not isinstance(prs, list):  # GitHub sends [] for a fork's run
        raise BotError("malformed workflow_run event payload: `workflow_run.pull_requests` is "
                       "not a list", Exit.USAGE)
    return head, prs or []


def within_diff(result: ReviewResult, commentable: Mapping[str, frozenset[int]]
                ) -> ReviewResult:
    """The result with its hunks cut to the lines GitHub lets a comment sit on: a file the
    pull request does not show is dropped (its findings go to the summary)."""
    changes: Sequence[FileChange] = [
        replace(c, hunk_lines=c.hunk_lines & commentable[c.path])
        for c in result.changes if c.path in commentable]
    return replace(result, changes=tuple(changes))


def _forge(repository: str, number: int, token: str, env: Mapping[str, str]) -> GitHubForge:
    api, graphql = github_actions.api_urls(env)
    return github.GitHubForge(github.Settings(api_url=api, graphql_url=graphql, token=token,
                                              repository=repository, number=number))
