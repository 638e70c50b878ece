"""Wall time of `reviewbot review --format json` on a change of N Python files, side by side
with a plain `ruff check` of the head's changed files (what a diff-filtering bot pays).

    .venv/bin/python bench/core/run.py [--files 200] [--repeat 5]
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
from pathlib import Path

BIN = Path(sys.executable).parent

MODULE = '''"""Module {i}."""

import os
import json


def load_{i}(path):
    with open(path) as handle:
        data = json.load(handle)
    if data == None:
        return {{}}
    return data


def total_{i}(items):
    result = 0
    for item in items:
        result += item["count"]
    return result


def describe_{i}(items):
    lines = []
    for item in items:
        lines.append(str(item))
    return "\\n".join(lines)
'''


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build(root: Path, files: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "bench")
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["E", "F", "W"]\n')
    pkg = repo / "pkg"
    pkg.mkdir()
    for i in range(files):
        (pkg / f"mod_{i}.py").write_text(MODULE.format(i=i))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    for i in range(files):  # a realistic edit: a new helper, a shifted block, one new finding
        text = MODULE.format(i=i).replace(
            "def total_", f"def helper_{i}(x):\n    unused_{i} = x * 2\n    return x\n\n\ndef total_")
        (pkg / f"mod_{i}.py").write_text(text)
    git(repo, "commit", "-q", "-am", "change")
    return repo


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise SystemExit(f"{argv[0]} failed: {result.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reviewbot-bench-"))
    try:
        repo = build(root, args.files)
        changed = [f"pkg/mod_{i}.py" for i in range(args.files)]
        ruff = [str(BIN / "ruff"), "check", "--output-format=json", "--no-cache", *changed]
        bot = [str(BIN / "reviewbot"), "review", "--base", "main", "--format", "json"]
        env_note = f"{os.cpu_count()} cores"
        plain, review = [], []
        timed(ruff, repo)
        timed(bot, repo)  # warm the OS caches for both
        for _ in range(args.repeat):
            plain.append(timed(ruff, repo))
            review.append(timed(bot, repo))
        p, r = statistics.median(plain), statistics.median(review)
        print(f"{args.files} changed files, median of {args.repeat} runs, {env_note}")
        print(f"  ruff check (changed files, head only): {p:.3f}s")
        print(f"  reviewbot review --format json:        {r:.3f}s")
        print(f"  ratio reviewbot / plain ruff:           {r / p:.1f}x")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
