"""Choose the bench's commit pairs (parent, commit) and write them to pairs.json.

A pair is a non-merge commit on the pinned head's first-parent history, after the project's
`since` date, that changes at least one file the linter checks, changes none of the linter's
configuration files (the exact-match oracle lints each side with its own configuration, the bot
with the head's: a configuration change would be a disagreement by construction), and is small
(at most MAX_FILES checked files and MAX_LINES changed lines in them). The newest `pairs` of
them are kept. The output is deterministic for a given projects.toml.

    .venv/bin/python bench/history/select_pairs.py [--mirror DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from projects import HERE, Project, git, load, source

MAX_FILES = 10
MAX_LINES = 300


def candidates(project: Project, repo: Path) -> list[dict[str, object]]:
    log = git(repo, "log", "--first-parent", "--no-merges", "--format=%H %P",
              f"--since={project.since}", project.head)
    chosen: list[dict[str, object]] = []
    for row in log.splitlines():
        commit, *parents = row.split()
        if len(parents) != 1:
            continue
        numstat = git(repo, "diff", "--numstat", "-M50%", parents[0], commit)
        files, lines, config = [], 0, False
        for entry in numstat.splitlines():
            added, deleted, name = entry.split("\t", 2)
            path = name.split(" => ")[-1].rstrip("}").replace("{", "")
            if Path(path).name in project.config:
                config = True
            if path.endswith(project.extensions) and added != "-":
                files.append(path)
                lines += int(added) + int(deleted)
        if config or not files or len(files) > MAX_FILES or lines > MAX_LINES:
            continue
        chosen.append({"project": project.name, "language": project.language,
                       "base": parents[0], "head": commit, "files": sorted(files),
                       "lines": lines})
        if len(chosen) == project.pairs:
            break
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, help="local mirrors, <owner>+<name>/repo")
    parser.add_argument("--out", type=Path, default=HERE / "pairs.json")
    args = parser.parse_args(argv)
    _, projects = load()
    pairs: list[dict[str, object]] = []
    for project in projects:
        found = candidates(project, source(project, args.mirror))
        print(f"{project.name}: {len(found)} pairs", file=sys.stderr)
        pairs.extend(found)
    args.out.write_text(json.dumps(pairs, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
