"""`reviewbot publish FILE...`: the command line of `bot.flows.publish` (publish analyses that
`reviewbot analyze` wrote, from a job that holds a write token and runs nothing of the change);
what the flow decided is published by `bot.publishing.turn.publish`.

Exit statuses: the gate (0, 1, 4); 2 a bad artifact or usage (the message says which field and
why); 3 the forge's API failed after retries.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from bot.ci.environment import current
from bot.commands import common
from bot.flows import publish as flow
from bot.publishing.turn import publish
from bot.safety import credentials

DEFAULT_MAX_BYTES = flow.DEFAULT_MAX_BYTES


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
    common.add_delivery_options(p)
    p.add_argument("--label", action="store_true",
                   help="the artifact is of the apply label's analysis, published on a "
                        "workflow_run (fork pull requests): who added the label is asked of "
                        "the forge")
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
    runner = current(credentials.environ() if env is None else env)
    turn = flow.publish(runner, flow.Options(
        tuple(args.files), args.max_bytes, args.token, args.dry_run, args.fail_level,
        args.tool_errors, common.delivery(args), args.label))
    return publish(runner, turn)
