"""`reviewbot review`: the local mode. Prints findings; the exit status is the gate."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from bot import cache as findings_cache
from bot import config as config_mod
from bot import git, workspace
from bot.commands import common
from bot.errors import BotError
from bot.pipeline import ReviewOptions, run_review
from bot.publishing.gate import decide
from bot.render import progress, report

# `bot.fixes` (--fix, --working-tree) and `bot.render.text` (--format text) are imported where
# they are used: a JSON review loads neither.


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("review", help="review the change between the merge base and the head",
                       description="Lint the files changed between the merge base of --base and "
                                   "--head, at both revisions, and report what the change made worse.")
    p.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current dir)")
    p.add_argument("--base", help="target branch or commit (default: the remote's default branch, "
                                  "else main, else master)")
    p.add_argument("--head", default="HEAD", help="revision to review (default: HEAD)")
    p.add_argument("--working-tree", action="store_true",
                   help="review the tracked files as they are on disk, uncommitted changes included "
                        "(in a pre-commit hook: what is staged)")
    p.add_argument("--format", choices=("text", "json", "rdjson"), default="text",
                   help="rdjson: reviewdog's Diagnostic format, for `reviewdog -f=rdjson`")
    common.add_gate_options(p)
    common.add_tool_options(p)
    p.add_argument("--show-preexisting", action="store_true",
                   help="list preexisting findings too (text and rdjson)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress lines on stderr (printed only when stderr is a terminal)")
    p.add_argument("--cache-dir", type=Path,
                   help="findings cache (default: $REVIEWBOT_CACHE_DIR, else $XDG_CACHE_HOME/reviewbot)")
    p.add_argument("--no-cache", action="store_true", help="lint everything again, ignore the cache")
    p.add_argument("--sarif", type=Path, metavar="FILE",
                   help="also write SARIF 2.1.0 here (for code scanning, or any SARIF viewer)")
    p.add_argument("--fix", action="store_true",
                   help="apply the safe fixes of introduced and changed findings, then re-lint")
    p.add_argument("--unsafe-fixes", action="store_true", help="with --fix: unsafe fixes too")
    p.add_argument("--force", action="store_true",
                   help="with --fix: fix the working tree as it is, uncommitted changes included")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    common.writable_output(args.sarif, "--sarif")
    cache_dir = None if args.no_cache else (args.cache_dir or findings_cache.default_dir())
    head = args.head
    if args.working_tree or args.fix:
        from bot import fixes
    if args.working_tree:
        if head != "HEAD":
            raise BotError("--working-tree reviews the files on disk: it cannot be given with --head")
        top = git.toplevel(args.repo)
        # The settings being edited on disk, tracked or not: an invalid file is refused with
        # its line, not passed over (an untracked one is not part of the snapshot).
        config_mod.load(top, args.config)
        # A commit of the tracked files that moves nothing; HEAD itself when nothing changed.
        head = fixes.snapshot(top) or head
    if args.fix and args.force and head == "HEAD":
        # Fix what is on disk: review the working tree, uncommitted changes included.
        head = fixes.snapshot(git.toplevel(args.repo)) or head
    # Progress is for a person watching: a log (stderr not a terminal) stays as it was.
    tell = None if args.quiet or not sys.stderr.isatty() else progress.printer(sys.stderr)
    opts = ReviewOptions(repo=args.repo, base=args.base, head=head, config=args.config,
                         only=tuple(args.only) if args.only else None, timeout=args.timeout,
                         cache_dir=cache_dir, policy=common.policy_override(args), progress=tell)
    # The developer's own code: the review saves what it computes (bot.cache.session).
    with findings_cache.session(save=True):
        result = run_review(opts)
        if args.fix:
            fixed = fixes.fix_and_relint(args.repo, result,
                                         lambda head: run_review(dataclasses.replace(opts, head=head)),
                                         unsafe=args.unsafe_fixes, force=args.force)
            sys.stderr.write(fixes.render(fixed))
            result = fixed.remaining or result
    gate = decide(result)
    common.write_sarif(args.sarif, result)
    if args.format == "json":
        sys.stdout.write(report.to_json(result))
    elif args.format == "rdjson":
        from bot.render import rdjson

        texts = workspace.texts(git.toplevel(args.repo), result.head,
                                [v.finding.path for v in result.findings])
        sys.stdout.write(rdjson.to_json(result, lambda path: texts.get(path, []),
                                        args.show_preexisting))
    else:
        from bot.render import text

        texts = workspace.texts(git.toplevel(args.repo), result.head,
                                [v.finding.path for v in result.findings])
        sys.stdout.write(text.render(result, lambda path: texts.get(path, []), args.show_preexisting))
    common.report_gate(gate)
    return int(gate.exit)
