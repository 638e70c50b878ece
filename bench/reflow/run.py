"""A formatting-only change of N files reviewed by this tree and by an earlier one, side by side.

    .venv/bin/python bench/reflow/run.py [--files 1000] [--width 40] [--repeat 3] [--before DIR]

A generated repository of N Python modules (the sample of `tests/test_formatters.py`, each
carrying some twenty old ruff findings); the head is `ruff format --line-length WIDTH` over all of
them and nothing else. For each tree: how many findings the review calls introduced or changed
(every one is a false alarm: the change only reformatted), the wall time of a whole review with
no cache (ruff at both revisions, the classification), and the CPU seconds of the classification
alone (the matcher's cost: CPU time, so that other work on the machine does not count), medians of
the rounds. DIR is another checkout of this repository (for example
`git worktree add /tmp/old <commit>`); it runs with this tree's virtualenv and tools.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))

from tests.test_formatters import PYPROJECT, PYTHON  # noqa: E402

PY = HERE / ".venv" / "bin" / "python"
RUFF = HERE / ".venv" / "bin" / "ruff"
CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from bot.run import pipeline
spent = []
classify = pipeline.classify
def timed(inputs):
    started = time.process_time()
    try:
        return classify(inputs)
    finally:
        spent.append(time.process_time() - started)
pipeline.classify = timed
started = time.perf_counter()
# No cache_dir: nothing is cached, both revisions are linted every round.
result = pipeline.run_review(pipeline.ReviewOptions(repo=Path(sys.argv[2]), base="main", head="HEAD"))
print(json.dumps({"wall": time.perf_counter() - started, "classify": sum(spent),
                  "introduced": result.count("introduced"), "changed": result.count("changed"),
                  "preexisting": result.count("preexisting"), "fixed": result.count("fixed")}))
"""


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


def review(tree: Path, repo: Path) -> dict[str, float]:
    env = {**os.environ, "REVIEWBOT_TOOLS": str(HERE / "tools")}
    done = subprocess.run([str(PY), "-c", CHILD, str(tree), str(repo)], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    data: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--width", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    trees = [("this tree", HERE)] + ([("before", args.before.resolve())] if args.before else [])
    runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
    with tempfile.TemporaryDirectory() as scratch:
        repo = build(Path(scratch), args.files, args.width)
        for _ in range(args.repeat):
            for name, tree in trees:
                runs[name].append(review(tree, repo))
    print(f"{args.files} files reformatted at {args.width} columns, medians of {args.repeat} rounds")
    print("| tree | introduced | changed | preexisting | fixed | review s (wall) | classify s (CPU) |")
    print("|---|---|---|---|---|---|---|")
    for name, _ in trees:
        last = runs[name][-1]
        wall = statistics.median(r["wall"] for r in runs[name])
        cpu = statistics.median(r["classify"] for r in runs[name])
        print(f"| {name} | {last['introduced']:.0f} | {last['changed']:.0f} | {last['preexisting']:.0f} "
              f"| {last['fixed']:.0f} | {wall:.2f} | {cpu:.3f} |")


if __name__ == "__main__":
    main()
