"""The base a review makes, side by side on the generated 20,000-file repository: the whole
tree (a worktree, its files linked from the head where both revisions share them: what a
package- or project-scoped tool gets on a cache miss) against the changed files' folders
(bot/revisions/partial.py: what a tool that reads one file at a time gets), per change, alternated
round by round, each made and removed through `bot.revisions.workspace.Checkouts` as a review does.

    .venv/bin/python bench/large/run.py --keep /tmp/large/repo ...   # builds the repository
    git clone -q /tmp/large/repo /tmp/large/clone     # this bench checks branches out in it
    .venv/bin/python bench/large/base_tree.py /tmp/large/clone [--changes 2 250 1000] [--repeat 5]

A change of 2 is the first two files of `change-250`, committed on a branch of its own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot import git  # noqa: E402
from bot.linters.registry import CONFIG_FILES  # noqa: E402
from bot.revisions import workspace  # noqa: E402


def _entries(folder: Path) -> int:
    """What was made under `folder`: files, links and folders, not following links."""
    return sum(len(dirs) + len(files) for _, dirs, files in os.walk(folder))


def _small_change(repo: Path) -> str:
    """A branch `change-2`: two files of `change-250`, as that change edits them."""
    if git.rev_parse(repo, "change-2") is None:
        paths = sorted(git.git(repo, "diff", "--name-only", "main", "change-250").out.split())[:2]
        git.git(repo, "checkout", "-q", "-B", "change-2", "main")
        git.git(repo, "checkout", "-q", "change-250", "--", *paths)
        git.git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                "commit", "-q", "-m", "two files of change-250")
    return "change-2"


def _one(repo: Path, branch: str, whole: bool) -> tuple[float, int]:
    git.git(repo, "checkout", "-q", branch)
    rev = workspace.resolve(repo, "main", "HEAD")
    changed = sorted({p for p in git.git(repo, "diff", "--name-only", "main", branch).out.split()})
    config = [*CONFIG_FILES, *(f"{d}/{n}" for d in {str(Path(p).parent) for p in changed}
                               if d != "." for n in CONFIG_FILES if "/" not in n)]
    with workspace.checkouts(rev, config, changed) as trees:
        trees.read_only = True  # every tool of the bench's review is: the base is linked
        assert trees.dependencies is not None  # listed before the clock starts
        started = time.perf_counter()
        root = trees.base() if whole else trees.files_base()
        seconds = time.perf_counter() - started
        made = _entries(root)
    return seconds, made


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", type=Path)
    parser.add_argument("--changes", type=int, nargs="+", default=[2, 250, 1000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    repo = args.repo.resolve()
    for name in ("main", *(f"change-{n}" for n in {250, *args.changes} if n != 2)):
        if git.rev_parse(repo, name) is None:  # a clone has its origin's branches only there
            git.git(repo, "branch", "-q", name, f"origin/{name}")
    branches = {n: _small_change(repo) if n == 2 else f"change-{n}" for n in args.changes}
    rows: dict[tuple[int, bool], list[tuple[float, int]]] = {}
    try:
        for _ in range(args.repeat):
            for n, branch in branches.items():
                for whole in (True, False):
                    rows.setdefault((n, whole), []).append(_one(repo, branch, whole))
    finally:
        subprocess.run(["git", "-C", str(repo), "checkout", "-q", "main"], check=False)
    print(f"median of {args.repeat} alternated rounds, load {os.getloadavg()[0]:.1f}\n")
    print("| change | whole base (s) | entries | changed files' base (s) | entries | ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in args.changes:
        full = statistics.median(s for s, _ in rows[(n, True)])
        small = statistics.median(s for s, _ in rows[(n, False)])
        print(f"| {n} | {full:.3f} | {rows[(n, True)][0][1]} | {small:.3f} | "
              f"{rows[(n, False)][0][1]} | {small / full:.2f}x |")


if __name__ == "__main__":
    main()
