"""Cost of `reviewbot sweep` beside what it is compared to, as ratios in one run:

- the second sweep versus the first: the same range swept again (a re-run after a lost
  write, with the findings cache warm), and a sweep with no new commit;
- a sweep over 50 commits versus one review of the same range (`run_review`), both with a
  cold cache: the sweep adds blame, the pull request lookups and, for findings on lines the
  range did not touch, the lints at the range's commits (bisected).

    .venv/bin/python bench/sweep/run.py [--files 40] [--commits 50] [--repeat 3]

The forge is an in-memory stand-in: what the API costs is bench/github's business.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.forges.github.commits import PullRef  # noqa: E402
from bot.forges.repository import Issue  # noqa: E402
from bot.run.pipeline import ReviewOptions, run_review  # noqa: E402
from bot.sweep import flow  # noqa: E402

MODULE = '''"""Module {i}."""

import json

LIMIT_{i} = {i}


def load_{i}(path):
    with open(path) as handle:
        return json.load(handle)


def clamp_{i}(value):
    return min(value, LIMIT_{i})
'''


class Issues:
    """One repository's issues in memory (the `Repository` calls a sweep makes)."""

    def __init__(self) -> None:
        self.issues: dict[int, Issue] = {}

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        return next((i for i in self.issues.values() if marker in i.body), None)

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        issue = Issue(len(self.issues) + 1, title, body, tuple(labels))
        self.issues[issue.number] = issue
        return issue

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        old = self.issues[number]
        self.issues[number] = Issue(number, old.title, old.body if body is None else body,
                                    old.labels, old.open if open is None else open)
        return self.issues[number]

    def reply(self, number: int, body: str) -> int:
        return 1

    def __getattr__(self, name: str) -> Callable[..., None]:  # what a sweep never calls
        raise AttributeError(name)


class Pulls:
    def pull_of(self, sha: str) -> PullRef | None:
        return PullRef(int(sha[:4], 16), "someone", True)


def git(repo: Path, *args: str, author: str = "bench") -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": f"{author}@example.invalid",
           "GIT_COMMITTER_NAME": author, "GIT_COMMITTER_EMAIL": f"{author}@example.invalid"}
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def build(root: Path, files: int, commits: int, untouched: bool) -> tuple[Path, str, str]:
    """A base commit, then `commits` commits by five authors, each editing one module; every
    tenth brings an unused import (a changed line). With `untouched`, every tenth puts it
    above the docstring (E402 on the lines below, which did not change) and every 25th
    deletes a constant still used (F821 on an untouched line): found by bisection."""
    repo = root / ("untouched" if untouched else "changed")
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["E", "F"]\n')
    pkg = repo / "pkg"
    pkg.mkdir()
    for i in range(files):
        (pkg / f"mod_{i}.py").write_text(MODULE.format(i=i))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    for n in range(1, commits + 1):
        i = n % files
        path = pkg / f"mod_{i}.py"
        text = path.read_text() + f"\n\ndef step_{n}(x):\n    return x + {n}\n"
        if n % 10 == 0 and untouched:
            text = f"import os  # {n}\n" + text
        elif n % 10 == 0:
            text = text.replace("import json\n", f"import json\nimport os  # {n}\n", 1)
        if n % 25 == 0 and untouched:
            text = text.replace(f"LIMIT_{i} = {i}\n", "")
        path.write_text(text)
        git(repo, "commit", "-q", "-am", f"step {n}", author=f"dev{n % 5}")
    return repo, base, git(repo, "rev-parse", "HEAD")


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def measure(root: Path, files: int, commits: int, repeat: int, untouched: bool) -> str:
    repo, base, head = build(root, files, commits, untouched)
    rows: dict[str, list[float]] = {"review": [], "first": [], "again": [], "quiet": []}
    probes = regressions = 0
    for n in range(repeat):
        cache = root / f"cache-{untouched}-{n}"
        review_opts = ReviewOptions(repo, base=base, head=head, cache_dir=root / f"r-{untouched}-{n}")
        rows["review"].append(timed(lambda: run_review(review_opts))[0])  # noqa: B023
        issues = Issues()
        opts = flow.Options(repo, "main", base, "reviewbot:regressions",
                            ReviewOptions(repo, cache_dir=cache))
        flow.sweep(opts, issues, Pulls())  # the baseline, at `base`
        baseline = issues.issues[1].body
        at_head = replace(opts, head=head)
        seconds, outcome = timed(lambda: flow.sweep(at_head, issues, Pulls()))  # noqa: B023
        rows["first"].append(seconds)
        assert isinstance(outcome, flow.Swept)
        probes, regressions = outcome.probes, len(outcome.open)
        issues.update_issue(1, body=baseline)  # the write was lost: the same range again
        rows["again"].append(timed(lambda: flow.sweep(at_head, issues, Pulls()))[0])  # noqa: B023
        rows["quiet"].append(timed(lambda: flow.sweep(at_head, issues, Pulls()))[0])  # noqa: B023
    med = {k: statistics.median(v) for k, v in rows.items()}
    what = "some on untouched lines" if untouched else "all on changed lines"
    return (f"| {what} | {regressions} | {probes} | {med['review']:.2f}s | {med['first']:.2f}s | "
            f"{med['first'] / med['review']:.1f} | {med['again']:.2f}s | "
            f"{med['again'] / med['first']:.2f} | {med['quiet'] / med['first']:.4f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reviewbot-bench-sweep-"))
    try:
        print(f"{args.commits} commits over {args.files} files, median of {args.repeat}, "
              f"{os.cpu_count()} cores")
        print("| range | regressions | lints at the range's commits | review (cold) | "
              "sweep (cold) | sweep / review | same sweep again (warm) | again / first | "
              "no new commit / first |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for untouched in (False, True):
            print(measure(root, args.files, args.commits, args.repeat, untouched))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
