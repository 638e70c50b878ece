"""Benchmark `reviewbot ast-grep` against the `ast-grep` CLI on the interpreter's standard library.

Both run as command-line programs on the same copy of the tree (site-packages and test data
left out, copied outside any git repository so nothing is ignored), with JSON output, on every
core. Each is run --repeat times; the best wall time counts. Run from the repository root:

    .venv/bin/python bench/structural/bench.py [--repeat 3] [--ast-grep PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot import proc

PATTERNS = {
    "selective": "subprocess.Popen($$$ARGS)",
    "broad": "import $M",
    "medium": "print($A)",
}


def copy_stdlib(dest: Path) -> tuple[int, int]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = size = 0
    for src in stdlib.rglob("*.py"):
        rel = src.relative_to(stdlib)
        if "site-packages" in rel.parts or not src.is_file():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        files += 1
        size += target.stat().st_size
    return files, size


def timed(argv: list[str], cwd: Path) -> tuple[float, bytes]:
    start = time.perf_counter()
    res = proc.run(argv, cwd=cwd, timeout=900)
    elapsed = time.perf_counter() - start
    if res.returncode not in (0, 1):
        raise SystemExit(f"{argv[0]} failed ({res.returncode}): {res.err_tail()}")
    return elapsed, res.stdout


def count(stdout: bytes) -> int:
    text = stdout.decode()
    if text.lstrip().startswith("["):
        return len(json.loads(text))
    return sum(1 for line in text.splitlines() if line.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ast-grep", default=shutil.which("ast-grep")
                        or str(Path(sys.executable).parent / "ast-grep"))
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="sg-bench-") as tmp:
        tree = Path(tmp) / "stdlib"
        files, size = copy_stdlib(tree)
        version = proc.run([args.ast_grep, "--version"]).out.strip()
        print(f"tree: Python {sys.version.split()[0]} stdlib, {files} files, "
              f"{size / 1e6:.1f} MB; {version}")
        print("| pattern | kind | ours (s) | ast-grep (s) | ratio ours/ast-grep | matches ours/theirs |")
        print("|---|---|---|---|---|---|")
        for kind, pattern in PATTERNS.items():
            ours_argv = [sys.executable, "-m", "bot.cli", "ast-grep", "--lang", "python",
                         "--pattern", pattern, "--json", str(tree)]
            theirs_argv = [args.ast_grep, "run", "--lang", "python", "--pattern", pattern,
                           "--json=stream", str(tree)]
            best_ours = best_theirs = float("inf")
            n_ours = n_theirs = 0
            for _ in range(args.repeat):
                t, out = timed(ours_argv, repo)
                best_ours, n_ours = min(best_ours, t), count(out)
                t, out = timed(theirs_argv, repo)
                best_theirs, n_theirs = min(best_theirs, t), count(out)
            print(f"| `{pattern}` | {kind} | {best_ours:.2f} | {best_theirs:.2f} | "
                  f"{best_ours / best_theirs:.2f} | {n_ours}/{n_theirs} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
