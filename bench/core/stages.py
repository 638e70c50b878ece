"""Where the time of one `reviewbot review --format json` goes, stage by stage, on the change
bench/core/run.py builds: each stage's wall time (median of N runs, each in a fresh
interpreter with bytecode caches) and the git and tool processes it starts.

    .venv/bin/python bench/core/stages.py [--files 200] [--repeat 5] [--cache] [--source DIR]

The stages are found by wrapping the pipeline's own functions in the measured interpreter;
nothing here changes what they do.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402  (bench/core/run.py: the same repository)

PROBE = r'''
import json, sys, time
started = time.perf_counter()
import bot.cli
from bot.commands import review
imported = time.perf_counter()
from bot.run import pipeline
from bot import proc
from bot.revisions import workspace
from bot.publishing import report

stages: dict[str, float] = {}
counts: dict[str, int] = {}

def timed(name, function):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            stages[name] = stages.get(name, 0.0) + time.perf_counter() - start
    return wrapper

def counted(function):
    def wrapper(argv, *args, **kwargs):
        name = argv[0].rsplit("/", 1)[-1]
        counts[name] = counts.get(name, 0) + 1
        return function(argv, *args, **kwargs)
    return wrapper

proc.run = counted(proc.run)
workspace.resolve = timed("revisions (rev-parse, merge-base)", workspace.resolve)
pipeline.config_mod.for_review = timed("settings (.reviewbot.yml at both)",
                                       pipeline.config_mod.for_review)
workspace.read_changes = timed("changes (diff, blobs, line maps)", workspace.read_changes)
workspace.Checkouts.__init__ = timed("checkouts: set up", workspace.Checkouts.__init__)
workspace.Checkouts.base = timed("checkouts: the base (inside tools)", workspace.Checkouts.base)
if hasattr(workspace.Checkouts, "files_base"):  # an older tree (--source) has only the above
    workspace.Checkouts.files_base = timed("checkouts: the changed files' base (inside tools)",
                                           workspace.Checkouts.files_base)
workspace.Checkouts.close = timed("checkouts: removed", workspace.Checkouts.close)
pipeline._collect = timed("tools: both revisions (ruff x2, parse)", pipeline._collect)
pipeline.guard.around = timed("tools + guard of the checkout", pipeline.guard.around)
pipeline.classify = timed("classify", pipeline.classify)
report.to_json = timed("JSON", report.to_json)
review.run_review = pipeline.run_review = timed("run_review (all of the above)",
                                                pipeline.run_review)
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    bot.cli.main(["review", "--base", "main", "--format", "json", *sys.argv[1:]])
ended = time.perf_counter()
stages["imports"] = imported - started
stages["total in the interpreter"] = ended - started
print(json.dumps({"stages": stages, "counts": counts}))
'''


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cache", action="store_true",
                        help="with a findings cache holding the base's files (else --no-cache)")
    parser.add_argument("--source", type=Path, default=bench.ROOT,
                        help="the source tree whose bot is measured (default: this one), e.g. "
                             "an older commit's worktree")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reviewbot-stages-"))
    try:
        repo = bench.build(root, args.files)
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "PYTHONPATH": str(args.source.resolve()), "PYTHONPYCACHEPREFIX": str(root / "pyc"),
               # The findings cache is read only where its entries verify (bot.cache).
               "REVIEWBOT_CACHE_SECRET": os.environ.get("REVIEWBOT_CACHE_SECRET", "bench")}
        seed, cache = root / "seed", root / "cache"
        subprocess.run([sys.executable, "-m", "bot.cli", "review", "--base", "main", "--head",
                        "earlier", "--format", "json", "--cache-dir", str(seed)],
                       cwd=repo, env=env, capture_output=True, check=False)
        rows = []
        for _ in range(args.repeat + 1):  # the first run fills the bytecode caches
            extra = ["--no-cache"]
            if args.cache:
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(seed, cache)
                extra = ["--cache-dir", str(cache)]
            out = subprocess.run([sys.executable, "-c", PROBE, *extra], cwd=repo, env=env,
                                 capture_output=True, text=True)
            if out.returncode not in (0, 1) or not out.stdout.strip():
                raise SystemExit(out.stderr[-2000:])
            rows.append(json.loads(out.stdout.splitlines()[-1]))
        rows = rows[1:]
        total = statistics.median(r["stages"]["total in the interpreter"] for r in rows)
        print(f"{args.files} changed files, {'base in the cache' if args.cache else '--no-cache'}, "
              f"median of {args.repeat}; load {os.getloadavg()[0]:.2f}")
        for name in rows[0]["stages"]:
            seconds = statistics.median(r["stages"].get(name, 0.0) for r in rows)
            print(f"  {seconds * 1000:7.1f} ms  {seconds / total:5.0%}  {name}")
        print("  processes: " + ", ".join(f"{n} x{c}" for n, c in sorted(rows[0]["counts"].items())))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
