"""The token for one git process (fetch, push), as every forge's host gives it: an HTTP Basic
header for the server alone, in that process's environment (`GIT_CONFIG_COUNT`), so nothing is
written to the checkout's git config, where the linters run. Each forge names the user its
server takes a token with.
"""

from __future__ import annotations

import base64


def header_env(user: str, token: str, server_url: str) -> dict[str, str]:
    """`token` as `user`'s password for git on `server_url` only; {} without a token."""
    if not token:
        return {}
    server = server_url.rstrip("/")
    basic = base64.b64encode(f"{user}:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}
