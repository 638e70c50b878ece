"""Which CI this run is in: its `Runner` (`bot.ci.base`). GitLab CI says so with
GITLAB_CI=true, Gitea and Forgejo Actions with GITEA_ACTIONS / FORGEJO_ACTIONS, Bitbucket
Pipelines with BITBUCKET_BUILD_NUMBER; anything else is read as GitHub Actions, whose own checks
then say what is missing. `require` says, once for all, that a run is in none of them
(`reviewbot ci` needs one).
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.ci import azure_pipelines, bitbucket_pipelines, gitea_actions, github_actions, gitlab_ci
from bot.ci.base import Runner
from bot.errors import BotError, Exit

NOT_IN_CI = (
    "not in a CI job: `reviewbot ci` reads what the runner sets (GitHub Actions: "
    "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH; GitLab CI: GITLAB_CI and CI_MERGE_REQUEST_IID; "
    "Gitea or Forgejo Actions: GITEA_ACTIONS or FORGEJO_ACTIONS, with GITHUB_EVENT_NAME; "
    "Bitbucket Pipelines: BITBUCKET_BUILD_NUMBER; Azure Pipelines: TF_BUILD); "
    "to review a change on this machine, run `reviewbot review`")


def current(env: Mapping[str, str]) -> Runner:
    if gitlab_ci.active(env):
        return gitlab_ci.GitLabCI(env)
    if gitea_actions.active(env):
        return gitea_actions.GiteaActions(env)
    if bitbucket_pipelines.active(env):
        return bitbucket_pipelines.BitbucketPipelines(env)
    if azure_pipelines.active(env):
        return azure_pipelines.AzurePipelines(env)
    return github_actions.GitHubActions(env)


def require(env: Mapping[str, str]) -> Runner:
    """The CI this run is in; BotError (usage) naming what each CI sets when it is in none."""
    if not (gitlab_ci.active(env) or gitea_actions.active(env)
            or bitbucket_pipelines.active(env) or azure_pipelines.active(env)
            or env.get("GITHUB_ACTIONS")
            or env.get("GITHUB_EVENT_NAME")):
        raise BotError(NOT_IN_CI, Exit.USAGE)
    return current(env)
