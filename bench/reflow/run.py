"""A formatting-only change reviewed by this tree and by an earlier one, side by side.

    .venv/bin/python bench/reflow/run.py [--files 100] [--width 40] [--repeat 3] [--before DIR]

A generated repository of N Python modules (the sample of `tests/test_formatters.py`, each
carrying some twenty old ruff findings); the head is `ruff format --line-length WIDTH` over all of
them and nothing else. For each tree: how many findings the review calls introduced or changed
(every one is a false alarm: the change only reformatted), the gate, and the median wall time of
`reviewbot review --no-cache` (ruff at both revisions plus the classification; the difference
between the trees is the matcher's cost). DIR is another checkout of this repository (for example
`git worktree add /tmp/old <commit>`); it runs with this tree's virtualenv.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))

from tests.test_formatters import PYPROJECT, PYTHON  # noqa: E402

PY = HERE / ".venv" / "bin" / "python"
RUFF = HERE / ".venv" / "bin" / "ruff"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build(root: Path, files: int, width: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.invalid")
    git(repo, "config", "user.name", "bench")
    (repo / "pyproject.toml").write_text(PYPROJECT)
    for i in range(files):
        (repo / f"mod_{i}.py").write_text(PYTHON.replace("process_records", f"process_records_{i}"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    subprocess.run([str(RUFF), "format", "--line-length", str(width), "."], cwd=repo, check=True,
                   capture_output=True)
    git(repo, "commit", "-q", "-am", "format")
    return repo


def review(tree: Path, repo: Path) -> tuple[float, dict[str, int], int]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    done = subprocess.run([str(PY), "-m", "bot.cli", "review", "--repo", str(repo), "--base", "main",
                           "--format", "json", "--no-cache"], cwd=tree, env=env, capture_output=True,
                          text=True)
    elapsed = time.perf_counter() - started
    data = json.loads(done.stdout)
    counts: dict[str, int] = {}
    for finding in data["findings"]:
        counts[finding["scope"]] = counts.get(finding["scope"], 0) + 1
    counts["fixed"] = len(data.get("fixed", []))
    return elapsed, counts, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--width", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    trees = [("this tree", HERE)] + ([("before", args.before.resolve())] if args.before else [])
    with tempfile.TemporaryDirectory() as scratch:
        repo = build(Path(scratch), args.files, args.width)
        times: dict[str, list[float]] = {name: [] for name, _ in trees}
        seen: dict[str, tuple[dict[str, int], int]] = {}
        for _ in range(args.repeat):
            for name, tree in trees:
                elapsed, counts, code = review(tree, repo)
                times[name].append(elapsed)
                seen[name] = (counts, code)
    print(f"{args.files} files reformatted at {args.width} columns, {args.repeat} rounds")
    print("| tree | introduced | changed | preexisting | fixed | exit | median s |")
    print("|---|---|---|---|---|---|---|")
    for name, _ in trees:
        counts, code = seen[name]
        print(f"| {name} | {counts.get('introduced', 0)} | {counts.get('changed', 0)} | "
              f"{counts.get('preexisting', 0)} | {counts.get('fixed', 0)} | {code} | "
              f"{statistics.median(times[name]):.2f} |")


if __name__ == "__main__":
    main()
