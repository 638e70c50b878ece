"""What `reviewbot publish` pays to read an analysis artifact, against parsing its JSON alone.

    .venv/bin/python bench/github/read_artifact.py [--files 1000] [--repeat 5] [--source DIR]

The artifact is what `reviewbot analyze` writes for bench/core's generated change (three
findings per file). Each round times, in this interpreter, `json.loads` of its bytes (the
peer: no reader can do less), `artifact.load` (every check, the schema only where the document
is not what `dump` writes), and the schema alone, as the reader ran it on every artifact before.
`--source` measures another tree's `bot` (a `git archive` of an older commit) in the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "core"))

import run as core  # noqa: E402  (bench/core/run.py: the generated change)

PROBE = """
import json, statistics, sys, time
from bot.run import artifact
data = open(sys.argv[1], "rb").read()
repeat = int(sys.argv[2])
def median(action):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)
raw = json.loads(data)
print(json.dumps({"parse": median(lambda: json.loads(data)), "load": median(lambda: artifact.load(data)),
                  "schema": median(lambda: artifact._check_schema(raw))}))
"""


def measure(source: Path, artifact: Path, repeat: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(source)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", PROBE, str(artifact), str(repeat)], cwd=source,
                         env=env, check=True, capture_output=True, text=True).stdout
    figures: dict[str, float] = json.loads(out)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--source", type=Path, help="also measure this tree's bot")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reviewbot-bench-artifact-") as tmp:
        repo = core.build(Path(tmp), args.files)
        artifact = Path(tmp) / "analysis.json"
        subprocess.run([sys.executable, "-m", "bot.cli", "analyze", "--repo", str(repo),
                        "--base", "main", "--out", str(artifact)], cwd=ROOT, check=True,
                       capture_output=True)
        size = artifact.stat().st_size / 1e6
        print(f"artifact of {args.files} files: {size:.1f} MB; median of {args.repeat}")
        trees = [("this tree", ROOT)] + ([("--source", args.source.resolve())] if args.source else [])
        for label, source in trees:
            f = measure(source, artifact, args.repeat)
            print(f"  {label}: json.loads {f['parse']:.2f} s, artifact.load {f['load']:.2f} s "
                  f"({f['load'] / f['parse']:.1f}x the parse, {f['load'] / size:.2f} s/MB), "
                  f"the schema alone {f['schema']:.2f} s")


if __name__ == "__main__":
    main()
