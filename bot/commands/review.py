"""`reviewbot review`: the local mode (`bot.flows.local`). Prints findings; the exit status is
the gate."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot import cache as findings_cache
from bot.commands import common
from bot.flows import local


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


def options(args: argparse.Namespace) -> local.LocalOptions:
    return local.LocalOptions(
        repo=args.repo, base=args.base, head=args.head, working_tree=args.working_tree,
        checks=common.checks(args), format=args.format, show_preexisting=args.show_preexisting,
        quiet=args.quiet,
        cache_dir=None if args.no_cache else (args.cache_dir or findings_cache.default_dir()),
        sarif=args.sarif,
        fix=local.Fixing(args.unsafe_fixes, args.force) if args.fix else None)


def run(args: argparse.Namespace) -> int:
    typed = options(args)
    return local.review(typed)
