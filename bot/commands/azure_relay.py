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
import sys

from bot.commands import relay as relay_command
from bot.errors import Exit
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
    relay_command.add_payload(p, "service hook")
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

    relayed = relay.request(relay_command.payload(args.payload, "service hook"),
                            prefix=args.prefix, branch=args.branch)
    if relayed.body is None:
        return relay_command.nothing(relayed.reason)
    token = relay_command.token(credentials.environ(), TOKEN, "Azure DevOps", TOKEN_HINT)
    # The repository is not part of a run's request: the pipeline names its own.
    api = azure_pipelines.open_api(Settings(relayed.collection, relayed.project, "-", token))
    run_id = relay.start(api, args.pipeline, relayed.body)
    print(f"reviewbot: started run {run_id} of pipeline {args.pipeline}", file=sys.stderr)
    return int(Exit.OK)

