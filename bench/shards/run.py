"""Shards at size: `reviewbot analyze --shard I/N` for N = 1, 2, 4 on the 1,000-file change of
`bench/large`, against the unsharded `analyze`, with the merged review checked identical.

Per N, `--repeat` rounds of:

- **together**: the N shards as local processes started at once on this machine, then the
  merge: wall time from the first start to the merged review;
- **alone**: each shard run by itself, one after the other (what one machine of a CI matrix
  spends on it), and the merge; the model of N machines is the slowest shard alone plus the
  merge (the matrix's jobs start in parallel; the publish job starts when the last ends).

The merge is what `reviewbot publish` does before any forge request: read every part (capped,
schema-checked), check the set and classify the parts together (`bot.run.assemble`), in its own
process. The merged review must equal the unsharded analysis' (every verdict, every fixed
finding, the notes); the bench stops if not. Every analysis is cold: `analyze` keeps no
findings cache, and each shard gets its own empty golangci-lint cache (a fresh machine).

    .venv/bin/python bench/shards/run.py [--shards 1 2 4] [--repeat 3] [--keep DIR]
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
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "large"))

import gen  # noqa: E402

from bench.repos import git  # noqa: E402

TS_DEPS = (Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reviewbot-bench"
           / "ts-deps" / "node_modules")
TOOLS = ("ruff", "eslint", "golangci-lint")
SIZE = 1000
BOT = "import sys\nfrom bot.cli import main\nsys.exit(main(sys.argv[1:]))\n"
# The merge `publish` does before it talks to a forge; prints the merged review's verdicts.
MERGE = """import json, sys
from pathlib import Path
from bot.run.assemble import assemble
from bot.flows.publish import DEFAULT_MAX_BYTES, read
files = [Path(p) for p in sys.argv[1:]]
analysis = assemble([read(p, DEFAULT_MAX_BYTES) for p in files], [str(p) for p in files])
r = analysis.result
print(json.dumps({"findings": sorted(repr(v) for v in r.findings),
                  "fixed": sorted(repr(v) for v in r.fixed), "notes": sorted(r.notes),
                  "tools": sorted((t.name, t.status) for t in r.tools)}))
"""


def env(tmp: Path, name: str) -> dict[str, str]:
    cache = tmp / "golangci" / name
    shutil.rmtree(cache, ignore_errors=True)
    return {**os.environ, "PYTHONPATH": str(ROOT), "GOLANGCI_LINT_CACHE": str(cache)}


def analyze(repo: Path, out: Path, tmp: Path, shard: str | None) -> subprocess.Popen[str]:
    argv = [sys.executable, "-c", BOT, "analyze", "--repo", str(repo), "--base", "main",
            "--head", "HEAD", "--out", str(out), *(a for t in TOOLS for a in ("--only", t)),
            *(["--shard", shard] if shard else [])]
    return subprocess.Popen(argv, cwd=repo, env=env(tmp, out.stem), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(child: subprocess.Popen[str]) -> None:
    _, err = child.communicate()
    assert child.returncode in (0, 1), (child.args, child.returncode, err[-3000:])


def merged(files: Sequence[Path], tmp: Path) -> tuple[float, dict[str, object]]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MERGE, *map(str, files)], env=env(tmp, "merge"),
                          capture_output=True, text=True, cwd=tmp)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr[-3000:]
    return elapsed, json.loads(done.stdout)


def timed_alone(repo: Path, out: Path, tmp: Path, shard: str | None) -> float:
    start = time.perf_counter()
    finish(analyze(repo, out, tmp, shard))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="the bench/large repository here (built if absent)")
    args = parser.parse_args()
    samples: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        samples.setdefault(key, []).append(value)

    with tempfile.TemporaryDirectory(prefix="bench-shards-") as scratch:
        tmp = Path(scratch).resolve()
        repo = args.keep.resolve() if args.keep else tmp / "repo"
        if not (repo / ".git").is_dir():
            gen.build(repo, gen.SIZES, TS_DEPS)
        git(repo, "checkout", "-q", f"change-{SIZE}")
        expected: dict[str, object] | None = None
        for _ in range(args.repeat):
            whole = tmp / "whole.json"
            add("whole", timed_alone(repo, whole, tmp, None))
            seconds, review = merged([whole], tmp)
            if expected is None:
                expected = review
                assert review["findings"], "the change has findings"
            assert review == expected, "the unsharded review differs between rounds"
            for n in args.shards:
                parts = [tmp / f"of{n}" / f"part-{i}.json" for i in range(1, n + 1)]
                parts[0].parent.mkdir(exist_ok=True)
                start = time.perf_counter()
                children = [analyze(repo, p, tmp, f"{i}/{n}") for i, p in enumerate(parts, 1)]
                for child in children:
                    finish(child)
                seconds, review = merged(parts, tmp)
                add(f"together {n}", time.perf_counter() - start)
                assert review == expected, f"{n} shards: the merged review differs"
                alone = [timed_alone(repo, p, tmp, f"{i}/{n}") for i, p in enumerate(parts, 1)]
                seconds, review = merged(parts, tmp)
                assert review == expected, f"{n} shards (alone): the merged review differs"
                add(f"slowest {n}", max(alone))
                add(f"sum {n}", sum(alone))
                add(f"merge {n}", seconds)
        git(repo, "checkout", "-q", "main")

    def m(key: str) -> float:
        return statistics.median(samples[key])

    whole = m("whole")
    load = os.getloadavg()[0]
    print(f"median of {args.repeat} round(s), {os.cpu_count()} cores, load average {load:.1f} at "
          f"the end; the {SIZE}-file change, tools {', '.join(TOOLS)}; unsharded analyze "
          f"{whole:.2f} s; every merged review identical to the unsharded one\n")
    print("| shards | together on this machine (s) | speed-up | slowest shard alone (s) | "
          "merge (s) | model of N machines (s) | speed-up | shards' total work (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.shards:
        model = m(f"slowest {n}") + m(f"merge {n}")
        print(f"| {n} | {m(f'together {n}'):.2f} | {whole / m(f'together {n}'):.2f}x | "
              f"{m(f'slowest {n}'):.2f} | {m(f'merge {n}'):.2f} | {model:.2f} | "
              f"{whole / model:.2f}x | {m(f'sum {n}'):.2f} |")


if __name__ == "__main__":
    main()
