"""`reviewbot bitbucket-relay`: Bitbucket's comment webhook relayed to the custom pipeline that
runs the comment's commands (`bot.forges.bitbucket.relay`). Run it where the webhook is
received (any HTTP endpoint that can run a command with the payload as a file or stdin).

Exit statuses: 0 the pipeline was started, or the comment needs none (one line says why);
2 bad usage (a malformed payload, no token); 3 Bitbucket's API failed in a way retries could
not fix (an uncertain start is not repeated: the comment would be answered twice).
"""

from __future__ import annotations

import argparse
import sys

from bot.commands import relay as relay_command
from bot.errors import Exit
from bot.safety import credentials


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("bitbucket-relay",
                       help="start the custom pipeline for a Bitbucket comment webhook",
                       description="Read a Bitbucket `pullrequest:comment_created` webhook "
                                   "payload and start the repository's custom pipeline "
                                   "(default `reviewbot`) with the pull request, the comment "
                                   "and the head it names; the pipeline's `reviewbot ci` runs "
                                   "the comment's commands (docs/bitbucket.md). The token is "
                                   "$REVIEWBOT_BITBUCKET_TOKEN.")
    relay_command.add_payload(p, "webhook")
    p.add_argument("--pipeline", default="reviewbot",
                   help="the custom pipeline's name (default: reviewbot)")
    p.add_argument("--prefix", default="/", help="the command prefix (default: /)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bot.ci import bitbucket_pipelines
    from bot.forges.bitbucket import relay
    from bot.forges.bitbucket.api import Settings

    relayed = relay.request(relay_command.payload(args.payload, "webhook"),
                            pipeline=args.pipeline, prefix=args.prefix)
    if relayed.body is None:
        return relay_command.nothing(relayed.reason)
    env = credentials.environ()
    token = relay_command.token(env, bitbucket_pipelines.TOKEN, "Bitbucket",
                                bitbucket_pipelines.TOKEN_HINT)
    api = bitbucket_pipelines.open_api(Settings(bitbucket_pipelines.api_url(env), token,
                                                relayed.repository))
    uuid = relay.start(api, relayed.body)
    print(f"reviewbot: started the custom pipeline {args.pipeline} ({uuid})", file=sys.stderr)
    return int(Exit.OK)

