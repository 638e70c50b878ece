"""False alarms on formatting-only commits, case by case, for this tree and an earlier one.

    .venv/bin/python bench/reflow/cases.py [--before DIR]

Every case of `tests/test_formatters.py` (the real formatters at narrow and wide widths, on files
carrying findings of the real linters and language servers) is committed once; each tree then
reviews the same repository. A formatting-only commit makes nothing worse, so every finding
called introduced or changed is a false alarm. DIR is another checkout of this repository (for
example `git worktree add /tmp/old <commit>`); it runs with this tree's virtualenv.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))

from tests.conftest import GitRepo  # noqa: E402
from tests.test_formatters import CASES, reformat  # noqa: E402

PY = HERE / ".venv" / "bin" / "python"
CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from bot.run.pipeline import ReviewOptions, run_review
result = run_review(ReviewOptions(repo=Path(sys.argv[2]), base="main", head="HEAD"))
print(json.dumps({"worse": sum(v.scope in ("introduced", "changed") for v in result.findings),
                  "findings": len(result.findings),
                  "tools": sorted({v.finding.tool for v in result.findings})}))
"""


def counts(tree: Path, repo: Path) -> dict[str, object]:
    # Both trees drive the same tools: this tree's install (`scripts/install-tools.sh`).
    env = {**os.environ, "REVIEWBOT_TOOLS": str(HERE / "tools")}
    done = subprocess.run([str(PY), "-c", CHILD, str(tree), str(repo)], capture_output=True,
                          text=True, check=True, cwd=tree, env=env)
    data: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    trees = [("this tree", HERE)] + ([("before", args.before.resolve())] if args.before else [])
    print("| case | tools | findings | " + " | ".join(f"false alarms, {name}" for name, _ in trees) + " |")
    print("|---|---|---|" + "---|" * len(trees))
    totals = [0] * len(trees)
    for case in CASES:
        with tempfile.TemporaryDirectory() as scratch:
            repo = GitRepo(Path(scratch) / "repo")
            repo.commit(case.files, "base")
            repo.branch("feature")
            reformat(repo, case.command)
            seen = [counts(tree, repo.path) for _, tree in trees]
        for i, data in enumerate(seen):
            totals[i] += int(str(data["worse"]))
        found = " / ".join(str(d["findings"]) for d in seen)  # the same number, or a tool failed
        print(f"| {case.id} | {', '.join(map(str, seen[0]['tools']))} "  # type: ignore[call-overload]
              f"| {found} | " + " | ".join(str(d["worse"]) for d in seen) + " |")
    print("| all | | | " + " | ".join(map(str, totals)) + " |")


if __name__ == "__main__":
    main()
