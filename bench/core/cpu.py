"""CPU seconds (user and system, of the review's whole process tree: the bot, git, ruff) and
wall seconds of `reviewbot review --format json` on the change bench/core/run.py builds, for
one or more source trees, alternated round by round.

    .venv/bin/python bench/core/cpu.py [--files 2] [--repeat 21] TREE [TREE ...]

On a machine whose cores other work shares, wall time mostly measures the others; the CPU
time a review spends is what it costs whoever else runs, so two trees compare better by it.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402  (bench/core/run.py: the same repository)


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run and all its descendants."""
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode()[-2000:])
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--files", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reviewbot-cpu-"))
    try:
        repo = bench.build(root, args.files)
        bot = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())",
               "review", "--format", "json", "--base", "main"]
        envs = {}
        for i, tree in enumerate(args.trees):
            envs[i] = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                       "PYTHONPATH": str(tree.resolve()), "PYTHONPYCACHEPREFIX": str(root / f"pyc{i}"),
                       "REVIEWBOT_CACHE_SECRET": os.environ.get("REVIEWBOT_CACHE_SECRET", "bench")}
            _timed([*bot, "--head", "earlier", "--cache-dir", str(root / f"seed{i}")], repo, envs[i])
        rows: dict[tuple[int, str], list[tuple[float, float]]] = {}
        for round_ in range(args.repeat + 1):  # the first round fills the bytecode caches
            for i in envs:
                cold = _timed([*bot, "--no-cache"], repo, envs[i])
                cache = root / f"cache{i}"
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(root / f"seed{i}", cache)
                warm = _timed([*bot, "--cache-dir", str(cache)], repo, envs[i])
                if round_:
                    rows.setdefault((i, "cold"), []).append(cold)
                    rows.setdefault((i, "base cached"), []).append(warm)
        print(f"{args.files} changed files; median of {args.repeat} alternated rounds; "
              f"load {os.getloadavg()[0]:.1f}")
        for (i, kind), values in rows.items():
            wall = statistics.median(w for w, _ in values)
            cpu = statistics.median(c for _, c in values)
            print(f"  {args.trees[i]!s:40s} {kind:12s} wall {wall:.3f} s  CPU {cpu:.3f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
