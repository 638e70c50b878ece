"""`reviewbot azure-relay`: Azure DevOps's "Pull request commented on" service hook relayed to
a run of the pipeline that runs the comment's commands (`bot.forges.azure.relay`). Run it
where the service hook's Web Hooks subscription posts (any HTTP endpoint that can run a
command with the payload as a file or stdin).

Exit statuses: 0 the run was started, or the comment needs none (one line says why); 2 bad
usage (a malformed payload, no token); 3 Azure DevOps's API failed in a way retries could not
fix (an uncertain start is not repeated: the comment would be answered twice).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot.errors import BotError, Exit
from bot.safety import credentials

TOKEN = "REVIEWBOT_AZURE_TOKEN"
TOKEN_HINT = (f"set {TOKEN} to a personal access token (or a service principal's) with the "
              "scope Build: Read & execute on the project")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("azure-relay",
                       help="start the pipeline run for an Azure DevOps comment service hook",
                       description="Read an Azure DevOps `Pull request commented on` service "
                                   "hook payload and start a run of the pipeline on the "
                                   "repository's default branch with the pull request, the "
                                   "thread, the comment, and the head and target it names; "
                                   "the run's `reviewbot` jobs run the comment's commands "
                                   f"(docs/azure-devops.md). The token is ${TOKEN}.")
    p.add_argument("payload", help="the service hook's JSON body: a file, or - for stdin")
    p.add_argument("--pipeline", type=int, required=True, metavar="ID",
                   help="the pipeline's id (Pipelines > the pipeline: `definitionId=` in its URL)")
    p.add_argument("--branch", metavar="REF",
                   help="the default branch (refs/heads/main) when the payload names none")
    p.add_argument("--prefix", default="/", help="the command prefix (default: /)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bot.ci import azure_pipelines
    from bot.forges.azure import relay
    from bot.forges.azure.api import Settings

    text = sys.stdin.read() if args.payload == "-" else _read(Path(args.payload))
    try:
        payload = json.loads(text)
    except ValueError as exc:
        raise BotError(f"the service hook payload is not JSON ({exc})", Exit.USAGE) from exc
    relayed = relay.request(payload, prefix=args.prefix, branch=args.branch)
    if relayed.body is None:
        print(f"reviewbot: nothing to relay: {relayed.reason}", file=sys.stderr)
        return int(Exit.OK)
    token = credentials.environ().get(TOKEN) or ""
    if not token:
        raise BotError(f"no Azure DevOps token: {TOKEN_HINT}", Exit.USAGE)
    # The repository is not part of a run's request: the pipeline names its own.
    api = azure_pipelines.open_api(Settings(relayed.collection, relayed.project, "-", token))
    run_id = relay.start(api, args.pipeline, relayed.body)
    print(f"reviewbot: started run {run_id} of pipeline {args.pipeline}", file=sys.stderr)
    return int(Exit.OK)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BotError(f"{path}: cannot read the service hook payload ({exc})",
                       Exit.USAGE) from exc
