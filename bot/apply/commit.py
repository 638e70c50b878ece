"""One commit on the PR head made with git plumbing, and its push with a lease.

The commit is built in a private index file (hash-object, read-tree and update-index on a
temporary GIT_INDEX_FILE, write-tree, commit-tree), so the checkout's working tree and index
are never read or written. The push names the old head as the lease: a push someone else made
in the meantime makes ours fail instead of being overwritten.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot import git

_IDENTITY = re.compile(r"\s*([^<>\n]*?)\s*<([^<>\s]+)>\s*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


def parse_identity(text: str) -> Identity | None:
    """`Name <email>`, or None when `text` is not that."""
    found = _IDENTITY.fullmatch(text)
    if found is None or not found.group(1):
        return None
    return Identity(found.group(1), found.group(2))


def one_line(text: str) -> str:
    """A name from an event as one line of a commit message."""
    return _CONTROL.sub(" ", text).strip() or "unknown"


def message(plan_id: str, kind: Literal["apply", "fix"], asked_by: str, sources: tuple[str, ...]) -> str:
    verb = "apply plan" if kind == "apply" else "apply safe fixes, plan"
    body = "".join(f"- {one_line(s)}\n" for s in sources)
    return f"reviewbot: {verb} {plan_id} (asked by {one_line(asked_by)})\n\n{body}"


def make(checkout: Path, parent: str, files: Mapping[str, tuple[str, bytes]], text: str,
         who: Identity) -> str:
    """The sha of a commit whose parent is `parent` and whose tree is `parent`'s with `files`
    ({path: (mode, bytes)}) replaced."""
    entries = {path: (mode, git.hash_blob(checkout, data)) for path, (mode, data) in files.items()}
    with tempfile.TemporaryDirectory(prefix="reviewbot-apply-") as scratch:
        tree = git.tree_with(checkout, parent, entries, Path(scratch) / "index")
    return git.commit_tree(checkout, tree, parent, text, who.name, who.email)


@dataclass(frozen=True)
class Pushed:
    status: Literal["pushed", "moved", "failed"]
    detail: str = ""  # git's words when it did not push, credentials masked


def _mask(text: str, env: Mapping[str, str]) -> str:
    for value in env.values():
        if len(value) >= 4:
            text = text.replace(value, "***")
    return text


def push(checkout: Path, remote: str, branch: str, commit: str, old: str,
         env: Mapping[str, str]) -> Pushed:
    """Push `commit` to `branch` on `remote` if the branch is still at `old`."""
    result = git.push_with_lease(checkout, remote, commit, branch, old, env)
    report = [line.split("\t") for line in result.out.splitlines() if "\t" in line]
    ours = [fields for fields in report if fields[1].endswith(f":refs/heads/{branch}")]
    # "=": the branch holds this very commit already (a run cut short after its push, run
    # again within the same second, makes the same commit): what was asked is done.
    if result.returncode == 0 and ours and ours[0][0] in (" ", "*", "+", "="):
        return Pushed("pushed")
    summary = ours[0][2] if ours and len(ours[0]) > 2 else ""
    words = _mask(summary or result.err_tail(5) or result.out.strip(), env)
    # A hook's own words ("remote: ...") say why it declined; git's summary does not.
    said = [line[len("remote:"):].strip() for line in result.stderr.decode("utf-8", "replace")
            .splitlines() if line.startswith("remote:") and line[len("remote:"):].strip()]
    if summary and said:
        words = f"{words}: {_mask('; '.join(said[-3:]), env)}"
    if "stale info" in summary or "fetch first" in summary:
        return Pushed("moved", words)
    return Pushed("failed", words)
