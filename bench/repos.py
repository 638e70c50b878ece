"""The benchmarks' generated git repositories: `main` holds the base, branch `feat` the head on
top of it, checked out, with fixed dates so that every run builds the same commits."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env=env).stdout


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def make_repo(where: Path, base: dict[str, str], head: dict[str, str]) -> list[str]:
    """main = base; branch feat = head on top, checked out; returns the changed paths."""
    where.mkdir(parents=True)
    git(where, "init", "-q", "-b", "main")
    for key, value in (("user.email", "bench@example.invalid"), ("user.name", "bench"),
                       ("commit.gpgsign", "false")):
        git(where, "config", key, value)
    write(where, base)
    git(where, "add", "-A")
    git(where, "commit", "-qm", "base")
    git(where, "checkout", "-qb", "feat")
    write(where, head)
    git(where, "add", "-A")
    git(where, "commit", "-qm", "change")
    return sorted(head)
