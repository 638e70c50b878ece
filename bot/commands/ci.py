"""`reviewbot ci`: review a pull request inside GitHub Actions and publish the review.

Exit statuses: 0 the gate passes (also: PR closed, nothing to do); 1 the gate fails; 2 bad
usage (not a pull_request event, malformed payload, no token, commits missing from the
checkout); 3 the GitHub API failed in a way retries could not fix. A fork PR whose token
cannot write, or a head that moved since the run started, still exits with the gate.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot import git, workspace
from bot.commands import common
from bot.errors import BotError, Exit
from bot.forges import event as event_mod
from bot.forges import github
from bot.forges.base import CheckReport, Forge
from bot.gate import Gate, decide
from bot.model import ReviewResult
from bot.pipeline import ReviewOptions, run_review
from bot.publish import Outcome
from bot.publish import review as publish_review
from bot.render import summary
from bot.review import Annotation, Policy, check_annotations

CHECK_NAME = "reviewbot"
ENABLE_COMMENTS = (
    "reviewbot could not write to this pull request, so its findings are in the job summary and "
    "the annotations only. To get review comments: give the job `permissions: {pull-requests: "
    "write, checks: write}`; for pull requests from forks GitHub hands out a read-only token "
    "(enable 'Send write tokens to workflows from fork pull requests' for private repositories, "
    "or wait for the split analyze/publish mode).")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ci", help="review a pull request in GitHub Actions and publish it",
                       description="Review the pull request of a GitHub Actions `pull_request` "
                                   "event and publish one review, a sticky summary and a check run.")
    p.add_argument("--repo", type=Path, help="checkout (default: $GITHUB_WORKSPACE, else cwd)")
    p.add_argument("--token", help="GitHub token (default: $GITHUB_TOKEN)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the requests that would be sent, as JSON; needs no token")
    common.add_gate_options(p)
    p.add_argument("--max-comments", type=int, default=50, metavar="N",
                   help="inline comments on the PR; the rest go to the summary (default 50)")
    p.add_argument("--max-file-comments", type=int, default=10, metavar="N",
                   help="file-level comments on the PR (default 10)")
    p.add_argument("--sarif", type=Path, metavar="FILE", help="also write SARIF 2.1.0 here")
    common.add_tool_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    ev = event_mod.load(env.get("GITHUB_EVENT_NAME"), env.get("GITHUB_EVENT_PATH"))
    if ev.state != "open":
        print(f"reviewbot: pull request #{ev.number} is {ev.state}; nothing to review", file=sys.stderr)
        return int(Exit.OK)
    token = args.token or env.get("GITHUB_TOKEN")
    if not token and not args.dry_run:
        raise BotError("no GitHub token: pass --token or set GITHUB_TOKEN "
                       "(env: GITHUB_TOKEN: ${{ github.token }}); --dry-run needs none", Exit.USAGE)
    if args.max_comments < 0 or args.max_file_comments < 0:
        raise BotError("--max-comments and --max-file-comments must be >= 0", Exit.USAGE)
    common.writable_output(args.sarif, "--sarif")
    repo = git.toplevel(args.repo or Path(env.get("GITHUB_WORKSPACE") or "."))
    _ensure_commits(repo, (ev.head_sha, ev.base_sha))
    result = run_review(ReviewOptions(repo=repo, base=ev.base_sha, head=ev.head_sha,
                                      config=args.config, timeout=args.timeout,
                                      only=tuple(args.only) if args.only else None,
                                      policy=common.policy_override(args)))
    gate = decide(result)
    texts = _texts(repo, result)
    policy = Policy(max_inline=args.max_comments, max_file=args.max_file_comments)
    common.write_sarif(args.sarif, result)
    repository = env.get("GITHUB_REPOSITORY") or ev.repository
    dry = github.DryRun(repository, ev.number, ev.head_sha) if args.dry_run else None
    forge = dry or _forge(repository, ev, token or "", env)
    outcome = publish_review(forge, result, texts, policy, gate)
    report = _check_report(result, gate, outcome, texts)
    if dry is not None:
        # A dry run has no side effects, and its stdout is only the JSON.
        print(json.dumps({"gate": {"failed": gate.failed, "status": int(gate.exit),
                                   "fail_level": gate.fail_level, "unchecked": list(gate.unchecked)},
                          "requests": dry.requests}, indent=2))
        forge.check(report)
        common.report_gate(gate)
        return int(gate.exit)
    if outcome.status == "read-only" or not forge.check(report):
        _workflow_annotations(report.annotations)
    _log(outcome, ev)
    common.report_gate(gate)
    _job_summary(env.get("GITHUB_STEP_SUMMARY"),
                 summary.job_summary(result, outcome.placed, gate, texts))
    return int(gate.exit)


def _forge(repository: str, ev: event_mod.PullRequestEvent, token: str,
           env: Mapping[str, str]) -> Forge:
    api = (env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    graphql = env.get("GITHUB_GRAPHQL_URL") or _graphql_url(api)
    return github.GitHubForge(github.Settings(api_url=api, graphql_url=graphql, token=token,
                                              repository=repository, number=ev.number))


def _graphql_url(api: str) -> str:
    # github.com: api.github.com/graphql; GHES: https://HOST/api/v3 -> https://HOST/api/graphql
    return api[: -len("/v3")] + "/graphql" if api.endswith("/api/v3") else api + "/graphql"


def _ensure_commits(repo: Path, shas: Sequence[str]) -> None:
    """actions/checkout fetches one merge commit: fetch the PR's head and base if missing."""
    for sha in shas:
        if git.rev_parse(repo, sha) is None:
            # A shallow checkout stays shallow (workspace deepens it to the merge base later).
            git.fetch(repo, "origin", sha, depth=50 if git.is_shallow(repo) else None)
        if git.rev_parse(repo, sha) is None:
            raise BotError(f"commit {sha[:12]} of the pull request is not in the checkout and "
                           "could not be fetched: use actions/checkout with fetch-depth: 0",
                           Exit.USAGE)


def _texts(repo: Path, result: ReviewResult) -> dict[str, list[str]]:
    return workspace.texts(repo, result.head, [v.finding.path for v in result.findings])


def _check_report(result: ReviewResult, gate: Gate, outcome: Outcome,
                  texts: Mapping[str, Sequence[str]]) -> CheckReport:
    introduced = result.count("introduced") + result.count("changed")
    title = (f"{'failing' if gate.failed else 'passing'}: {introduced} new or changed finding"
             f"{'s' * (introduced != 1)}, {result.count('preexisting')} pre-existing")
    if gate.unchecked:
        title += f"; not fully checked: {gate.unchecked[0]}" + (" …" if len(gate.unchecked) > 1 else "")
    body = summary.render(result, outcome.placed, gate, texts, marker=False, limit=60_000)
    return CheckReport(CHECK_NAME, result.head, "failure" if gate.failed else "success",
                       title, body, check_annotations(result))


def _workflow_annotations(annotations: Sequence[Annotation]) -> None:
    commands = {"failure": "error", "warning": "warning", "notice": "notice"}
    for a in annotations:
        message = a.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        props = f"file={_prop(a.path)},line={a.start_line},endLine={a.end_line},title={_prop(a.title)}"
        print(f"::{commands[a.level]} {props}::{message}")
    if len(annotations) > 10:
        print("reviewbot: GitHub shows at most 10 annotations of each level per step; "
              "all findings are in the job summary")


def _prop(value: str) -> str:
    return (value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            .replace(":", "%3A").replace(",", "%2C"))


def _log(outcome: Outcome, ev: event_mod.PullRequestEvent) -> None:
    placed = outcome.placed
    if outcome.status == "read-only":
        print(f"::warning::{ENABLE_COMMENTS}")
        print(f"reviewbot: {outcome.message}", file=sys.stderr)
        return
    if outcome.status != "published":
        print(f"reviewbot: {outcome.message}")
        return
    new = sum(1 for i in placed.items if i.key in placed.new)
    folded = sum(1 for i in placed.items if i.kind == "summary")
    print(f"reviewbot: PR #{ev.number}: {new} new comments, {len(placed.kept)} kept "
          f"({placed.edited} edited), {placed.resolved} fixed threads resolved, "
          f"{folded} findings in the summary only")


def _job_summary(path: str | None, text: str) -> None:
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    except OSError as exc:
        print(f"reviewbot: cannot write the job summary {path}: {exc.strerror}", file=sys.stderr)
