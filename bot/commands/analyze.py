"""`reviewbot analyze`: review a change and write the analysis artifact (`bot.artifact`) that
`reviewbot publish` posts from another job. Needs no token and reads none: it is the half of
the fork-safe pair that runs the pull request's code (its linters), so no write token may be in
reach; it talks to no forge (git may fetch PR commits a shallow checkout lacks).

Inside GitHub Actions on `pull_request` the pull request (number, repository, base and head
sha, target branch) comes from the event (`bot.ci.github_actions`); a pull_request event
that asks for no review (closed) writes nothing. In a GitLab merge request pipeline it comes
from the pipeline's variables (`bot.ci.gitlab_ci`: the iid, the project's path, the
diff's base and the merge request's head, never a merged-result commit). Elsewhere the
change comes from --base/--head, with no number and the repository read from the `origin`
remote's URL when it names owner/name (else null).
Exit statuses: 0 once the artifact is written, whatever the gate (publishing decides it); 2
bad usage (an --out that cannot be written, bad revisions, configuration or event).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from bot import artifact, atomic, credentials, git, shards, workspace
from bot import part as shard_part
from bot.ci import github_actions, gitlab_ci
from bot.commands import common
from bot.errors import BotError, Exit
from bot.flows.session import ensure_commits
from bot.model import ReviewResult
from bot.pipeline import Gathered, ReviewOptions, conclude, gather

PR_EVENTS = ("pull_request", "pull_request_target")
# scheme://[user@]host[:port]/PATH or scp-like user@host:PATH; local paths name no repository.
REMOTE_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/]*@)?[^/@]+/|[^@/:]+@[^/:]+:)"
                        r"(?P<path>[^?#]+?)(?:\.git)?/?")


@dataclass(frozen=True)
class Change:
    """What to analyse and what the artifact says it is."""

    repo: Path
    base: str | None
    head: str
    repository: str | None
    number: int | None
    target_ref: str | None  # None: what --base resolved to (the result's base_ref)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("analyze", help="review a change and write the analysis artifact (no token)",
                       description="Review the change between the merge base and the head, as "
                                   "`review` does, and write the result with the source lines its "
                                   "comments need to one JSON artifact for `reviewbot publish`. "
                                   "Needs no token.")
    p.add_argument("--repo", type=Path,
                   help="checkout (default: $GITHUB_WORKSPACE inside Actions, else the current dir)")
    p.add_argument("--base", help="target branch or commit, outside a pull_request event "
                                  "(default: the remote's default branch, else main)")
    p.add_argument("--head", help="revision to analyse, outside a pull_request event (default: HEAD)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE",
                   help="where to write the artifact (replaced all at once)")
    p.add_argument("--shard", type=_shard, metavar="I/N",
                   help="do only shard I of N of the work (a CI matrix job); `reviewbot publish` "
                        "takes every part and publishes one review")
    common.add_tool_options(p)
    p.set_defaults(func=run)


def _shard(text: str) -> shards.Shard:
    try:
        return shards.parse(text)
    except BotError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--shard {text!r}: ")
                                         .removeprefix(f"--shard {text}: ")) from None


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    env = credentials.environ() if env is None else env
    common.writable_output(args.out, "--out")
    change = _change(args, env)
    if change is None:
        return int(Exit.OK)
    gathered = gather(ReviewOptions(repo=change.repo, base=change.base, head=change.head,
                                    config=args.config, timeout=args.timeout,
                                    only=tuple(args.only) if args.only else None,
                                    shard=args.shard))
    if args.shard is None:
        result = conclude(gathered)
        texts = workspace.texts(change.repo, result.head,
                                [v.finding.path for v in result.findings])
    else:  # verdicts wait for every part: publish gives them
        result = conclude(replace(gathered, base=(), head=()))
        texts = {}
    base_sha = git.rev_parse(change.repo, change.base or result.base_ref) or result.merge_base
    analysis = artifact.build(result, texts, repository=change.repository, number=change.number,
                              base_sha=base_sha, target_ref=change.target_ref or result.base_ref)
    if args.shard is not None:
        analysis = replace(analysis, part=_part(gathered, args.shard))
    data = artifact.dump(analysis)
    with common.writing(args.out, "--out"):
        atomic.write(args.out, data)
    what = (f"shard {args.shard}: {len(gathered.head)} finding(s) at the head, "
            f"{len(gathered.base)} at the merge base" if args.shard is not None
            else _counts(result))
    print(f"reviewbot: wrote {args.out} ({len(data)} bytes): {what}"
          + (f" for {change.repository}#{change.number}" if change.number else ""), file=sys.stderr)
    return int(Exit.OK)


def _part(gathered: Gathered, shard: shards.Shard) -> shard_part.Part:
    changes = gathered.changes
    return shard_part.of(shard.index, shard.count, gathered.plan, gathered.base, gathered.head,
                         gathered.unbaselined, changes.pairs(), changes.base_files,
                         changes.head_files, changes.maps)


def _change(args: argparse.Namespace, env: Mapping[str, str]) -> Change | None:
    """What to analyse; None for a pull_request event that asks for no review (closed, ...)."""
    if gitlab_ci.merge_request_pipeline(env):
        return _merge_request(args, env)
    if env.get("GITHUB_EVENT_NAME") not in PR_EVENTS:
        repo = git.toplevel(args.repo or Path.cwd())
        return Change(repo, args.base, args.head or "HEAD", origin_repository(repo), None, None)
    if args.base or args.head:
        raise BotError("--base and --head come from the pull_request event here; drop them "
                       "(or unset GITHUB_EVENT_NAME to analyse other revisions)", Exit.USAGE)
    trigger = github_actions.from_env(env)  # refuses pull_request_target
    if trigger.number is None or not trigger.base_sha or not trigger.head_sha:
        print(f"reviewbot: nothing to analyse: {trigger.reason}", file=sys.stderr)
        return None
    repo = git.toplevel(args.repo or Path(env.get("GITHUB_WORKSPACE") or "."))
    ensure_commits(repo, (trigger.head_sha, trigger.base_sha), github_actions.CHECKOUT_HINT)
    return Change(repo, trigger.base_sha, trigger.head_sha, trigger.repository, trigger.number,
                  trigger.target_ref)


def _merge_request(args: argparse.Namespace, env: Mapping[str, str]) -> Change:
    if args.base or args.head:
        raise BotError("--base and --head come from the merge request pipeline here; drop them",
                       Exit.USAGE)
    trigger = gitlab_ci.from_env(env)
    exposed = gitlab_ci.token_in_reach(env)
    if exposed:
        print(f"reviewbot: warning: {exposed} is set in this job, which runs the merge request's "
              "code: give the variable the environment scope `reviewbot`, which only the publish "
              "job names (docs/gitlab.md)", file=sys.stderr)
    head = gitlab_ci.review_head(env)
    assert trigger.base_sha is not None
    repo = git.toplevel(args.repo or Path(env.get("CI_PROJECT_DIR") or "."))
    ensure_commits(repo, (head, trigger.base_sha), gitlab_ci.CHECKOUT_HINT)
    return Change(repo, trigger.base_sha, head, trigger.repository, trigger.number,
                  trigger.target_ref)


def repository_from_url(url: str) -> str | None:
    """owner/name (or a GitLab group path) from a remote URL; None for local paths."""
    found = REMOTE_URL.fullmatch(url.strip())
    if found is None:
        return None
    path = found.group("path").strip("/")
    return path if artifact.REPOSITORY.fullmatch(path) else None


def origin_repository(repo: Path) -> str | None:
    result = git.git(repo, "remote", "get-url", "origin", check=False)
    return repository_from_url(result.out) if result.returncode == 0 else None


def _counts(result: ReviewResult) -> str:
    return ", ".join(f"{result.count(s)} {s}" for s in ("introduced", "changed", "preexisting",
                                                         "fixed", "unclassified"))
