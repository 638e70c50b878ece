"""`reviewbot analyze`: the command line of `bot.flows.analyze` (review a change and write the
analysis artifact that `reviewbot publish` posts from another job; no token).

Exit statuses: 0 once the artifact is written, whatever the gate (publishing decides it); 2
bad usage (an --out that cannot be written, bad revisions, configuration or event).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from bot import cache as findings_cache
from bot.ci.environment import current
from bot.commands import common
from bot.errors import BotError
from bot.flows import analyze as flow
from bot.run import shards
from bot.safety import credentials


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("analyze", help="review a change and write the analysis artifact (no token)",
                       description="Review the change between the merge base and the head, as "
                                   "`review` does, and write the result with the source lines its "
                                   "comments need to one JSON artifact for `reviewbot publish`. "
                                   "Needs no token.")
    p.add_argument("--repo", type=Path,
                   help="checkout (default: $GITHUB_WORKSPACE inside Actions, else the current dir)")
    p.add_argument("--base", help="target branch or commit, outside a pull_request event "
                                  "(default: the remote's default branch, else main, else master)")
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
    runner = current(credentials.environ() if env is None else env)
    # It runs the change's tools: it reads the cache and saves nothing (bot.cache.session).
    with findings_cache.session(save=False):
        return flow.analyze(runner, flow.Options(args.out, args.repo, args.base, args.head,
                                                 args.shard, common.checks(args, gate=False)))
