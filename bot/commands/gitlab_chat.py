"""GitLab webhook pipelines (`CI_PIPELINE_SOURCE=trigger`): slash commands in a note on a
merge request, and the apply label added to one, through the same flows as on GitHub
(`bot.chat.flow`, `bot.commands.label`) on GitLab's side of the seam (`bot.chat.gitlab_host`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from bot.chat import flow
from bot.chat.gitlab_host import GITLAB
from bot.commands import label as label_flow
from bot.model import Trigger


def comment(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    return flow.comment(args, trigger, env, GITLAB)


def label(args: argparse.Namespace, trigger: Trigger, env: Mapping[str, str]) -> int:
    return label_flow.label(args, trigger, env, GITLAB)
