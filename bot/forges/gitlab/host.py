"""The git credentials for one process on a GitLab server (the merge request itself is
`change.GitLabChange`)."""

from __future__ import annotations

from bot.forges.gitauth import header_env


def push_env(token: str, server_url: str) -> dict[str, str]:
    """The token as an HTTP header for git on this GitLab server only (GitLab takes an access
    token as the password of any user name), in the environment of one process."""
    if not server_url.rstrip("/"):
        return {}
    return header_env("reviewbot", token, server_url)
