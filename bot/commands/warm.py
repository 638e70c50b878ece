"""`reviewbot warm`: the command line of `bot.flows.warm` (lint the default branch's head and
save the findings cache that the reviews of changes read).

Exit statuses: 0 the cache is saved; 4 a linter could not check its files, or a file it
applies to went unchecked (over the size limit; what could be checked is saved); 2 bad usage
(neither REVIEWBOT_CACHE_SECRET nor REVIEWBOT_CACHE_SIGNING_SECRET, a key that does not read,
--since not a commit of the repository).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bot import cache as findings_cache
from bot import git
from bot.commands import common
from bot.flows import warm as flow


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("warm", help="lint the default branch's head and save the findings cache",
                       description="Lint every file the configured linters apply to at --head "
                                   "(or what changed since --since) and save the results in the "
                                   "findings cache, sealed with $REVIEWBOT_CACHE_SECRET, for the "
                                   "reviews of changes, which only read it. Run it on pushes to "
                                   "the default branch and on a schedule (docs/cache.md).")
    p.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current dir)")
    p.add_argument("--head", default="HEAD", help="revision to lint (default: HEAD)")
    p.add_argument("--since", metavar="REV",
                   help="lint only the files changed between REV and --head (a push's range)")
    p.add_argument("--cache-dir", type=Path,
                   help="findings cache (default: $REVIEWBOT_CACHE_DIR, else $XDG_CACHE_HOME/reviewbot)")
    common.add_tool_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return flow.warm(flow.Options(git.toplevel(args.repo), args.since, args.head,
                                  args.cache_dir or findings_cache.default_dir(),
                                  common.checks(args, gate=False)))
