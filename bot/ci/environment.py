"""Which CI this run is in: its `Runner` (`bot.ci.base`). GitLab CI says so with
GITLAB_CI=true, Gitea and Forgejo Actions with GITEA_ACTIONS / FORGEJO_ACTIONS; anything else is
read as GitHub Actions, whose own checks then say what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.ci import gitea_actions, github_actions, gitlab_ci
from bot.ci.base import Runner


def current(env: Mapping[str, str]) -> Runner:
    if gitlab_ci.active(env):
        return gitlab_ci.GitLabCI(env)
    if gitea_actions.active(env):
        return gitea_actions.GiteaActions(env)
    return github_actions.GitHubActions(env)
