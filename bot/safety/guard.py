"""No tool may change the user's checkout: a snapshot of `git status` before each tool that
runs in the repository itself, compared afterwards; what changed is put back and the tool fails.

Tracked files are checked out again, files and folders the tool created are removed (never one
that existed before). Nothing is lost: the content of every file overwritten or removed is first
stored as a git blob, named in the message, in case it was the user's own edit made meanwhile.
Tool caches are allowed to appear: removing them would only slow the next run, and they are
ignored files by their nature (ruff and mypy write a `.gitignore` into theirs).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TypeVar

from bot import git, proc
from bot.analyzer import Outcome

T = TypeVar("T")

CACHES = frozenset({".ruff_cache", ".mypy_cache", ".pytest_cache", "__pycache__", ".eslintcache",
                    "target"})  # target: cargo's build output, where clippy must write
# Made by a tool's normal run where the repository has none (cargo writes Cargo.lock before any
# build): removed again, without failing the tool.
REGENERATED = frozenset({"Cargo.lock"})
SHOWN = 10  # paths named in the message


def allowed(path: str) -> bool:
    parts = PurePosixPath(path.rstrip("/")).parts
    return any(p in CACHES for p in parts) or "node_modules/.cache" in path


def _restore(repo: Path, before: dict[str, str], after: dict[str, str]
             ) -> tuple[list[str], list[str], dict[str, str]]:
    """Put back what changed between the snapshots: (the paths put back, the paths that could
    not be, {path: blob} of the contents overwritten or removed)."""
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p)
                     and not (p not in before and allowed(p)))
    tracked = [p for p in changed if p in after and after[p] not in ("??", "!!")]
    created = [p for p in changed if p not in before and p not in tracked]
    lost = [p for p in changed if p not in tracked and p not in created]  # a user's file removed
    files = [p for p in tracked + created if (repo / p).is_file() and not (repo / p).is_symlink()]
    kept = git.store_blobs(repo, files)
    in_head = git.tree_blobs(repo, "HEAD", tracked)
    if in_head:
        git.restore(repo, sorted(in_head))
    for path in created + [p for p in tracked if p not in in_head]:
        target = repo / path.rstrip("/")
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        if path in tracked:
            git.untrack(repo, path)
    return [p for p in changed if p not in lost], lost, kept


def _some(paths: Sequence[str]) -> str:
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return ", ".join(paths[:SHOWN]) + more


def _message(tool: str, touched: list[str], lost: list[str], kept: dict[str, str]) -> str:
    parts = [f"{tool} modified the checkout: {_some(touched)}; restored"] if touched else []
    if kept:
        parts.append("what it wrote is kept, for `git cat-file -p BLOB`: "
                     + _some([f"{path} {blob[:12]}" for path, blob in sorted(kept.items())]))
    if lost:
        parts.append(f"{tool} removed from the checkout: {_some(lost)}; not restorable")
    return "\n".join(parts)


@dataclass
class Watch:
    """The user's checkout `repo` (None: the tools run elsewhere) and its last status snapshot:
    what one step saw after it is what the next starts from, so a review reads the status
    once per step, not twice (each read lists every file of the checkout)."""

    repo: Path | None
    last: dict[str, str] | None = None

    def before(self) -> dict[str, str]:
        assert self.repo is not None
        if self.last is None:
            self.last = git.status_all(self.repo)
        return self.last

    def after(self) -> dict[str, str]:
        assert self.repo is not None
        self.last = git.status_all(self.repo)
        return self.last


def probing(watch: Watch, tool: str, probe: Callable[[], T]) -> tuple[T, str]:
    """Run `probe` (finding a tool and asking its version, which runs it in the checkout);
    when that changed the user's checkout, put it back: (its value, what it changed, or ""
    when nothing). Unwatched, a write there would also hide the same write by the tool's
    real run from `around`, whose status snapshot would already show the file modified."""
    repo = watch.repo
    if repo is None:
        return probe(), ""
    before = watch.before()
    count = proc.started()
    value = probe()
    if proc.started() == count:
        return value, ""  # its version was remembered: nothing of the tool ran
    after = watch.after()
    if after == before:
        return value, ""
    watch.last = None  # put back below: read again before the next step
    touched, lost, kept = _restore(repo, before, after)
    if not lost and all(p not in before and PurePosixPath(p).name in REGENERATED for p in touched):
        return value, ""
    return value, _message(f"{tool} (asked for its version)", touched, lost, kept)


def around(watch: Watch, tool: str, paths: Sequence[str],
           collect: Callable[[], tuple[Outcome, Outcome]]) -> tuple[Outcome, Outcome]:
    """Run `collect` (the tool at base and head); when the head is the user's checkout
    (`watch.repo`; None: it is not), a change to the checkout fails the tool at the head."""
    [pair] = around_all(watch, [(tool, paths)], lambda: [collect()])
    return pair


def around_all(watch: Watch, tools: Sequence[tuple[str, Sequence[str]]],
               collect: Callable[[], list[tuple[Outcome, Outcome]]]) -> list[tuple[Outcome, Outcome]]:
    """`around` for tools run at once (`tools`: each one's name and head paths, in the order
    `collect` answers): a change to the checkout cannot be laid at one tool's door, so it fails
    every one of them at the head, each message naming them all."""
    repo = watch.repo
    if repo is None:
        return collect()
    before = watch.before()
    outcomes = collect()
    after = watch.after()
    if after == before:
        return outcomes
    watch.last = None
    touched, lost, kept = _restore(repo, before, after)
    if not lost and all(p not in before and PurePosixPath(p).name in REGENERATED for p in touched):
        return outcomes  # only caches, or a lock file removed again
    message = _message(_one_of([name for name, _ in tools]), touched, lost, kept)
    return [(base, _failed(head, message, paths))
            for (base, head), (_, paths) in zip(outcomes, tools, strict=True)]


def _one_of(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    return f"one of {', '.join(names[:-1])} and {names[-1]} (run at once)"


def _failed(head: Outcome, message: str, paths: Sequence[str]) -> Outcome:
    return replace(head, status="failed", message="\n".join(filter(None, [head.message, message])),
                   failed_paths=head.failed_paths | frozenset(paths))
