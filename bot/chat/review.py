"""`pull_request` opened / synchronize / …: the review, published with the conversation (ignored
findings left out, the staged plan shown). A dry run, or a closed pull request, is the plain
review: neither reads the summary comment.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from bot.chat import publishing
from bot.chat.session import checkout_of, connect, settings
from bot.commands import common, pull_request
from bot.model import Trigger


def review(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    if args.dry_run or not trigger.open:
        return pull_request.review(args, trigger, env)
    assert trigger.number is not None and trigger.base_sha
    common.writable_output(args.sarif, "--sarif")
    checkout = checkout_of(args, env)
    pull_request.ensure_commits(checkout, (trigger.base_sha,))
    # The apply label's name and the command prefix as the target branch says.
    session = connect(args, trigger, env, checkout, settings(checkout, trigger.base_sha))
    result = pull_request.review_pull_request(checkout, trigger, args)
    state = session.read_state()
    return int(publishing.publish(session.forge, checkout, result, state, session.cfg, args, env,
                                  trigger.number).gate.exit)
