"""The git credentials for one process on a GitLab server (the merge request itself is
`change.GitLabChange`)."""

from __future__ import annotations

import base64


def push_env(token: str, server_url: str) -> dict[str, str]:
    """The token as an HTTP header for git on this GitLab server only (GitLab takes an access
    token as the password of any user name), in the environment of one process."""
    server = server_url.rstrip("/")
    if not token or not server:
        return {}
    basic = base64.b64encode(f"reviewbot:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}
