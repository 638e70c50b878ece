#!/usr/bin/env python3
"""Prints the requirements of a pyproject.toml, one a line: `dependencies` for the project's
own, any other name for that optional extra (the Dockerfile installs them layer by layer,
before the project's code is there). Standard library only: it runs before anything is
installed. Usage: extras.py PYPROJECT NAME...  Exit status 2: a name the file does not have."""

from __future__ import annotations

import sys
import tomllib


def requirements(project: dict[str, object], name: str) -> list[str]:
    if name == "dependencies":
        found = project.get("dependencies", [])
    else:
        extras = project.get("optional-dependencies", {})
        found = extras.get(name) if isinstance(extras, dict) else None
    if not isinstance(found, list):
        raise KeyError(name)
    own = str(project.get("name", ""))
    # An extra that names the project's own extras ("reviewbot[a,b]") stands for theirs.
    out: list[str] = []
    for req in found:
        if own and req.startswith(own + "["):
            for inner in req[len(own) + 1:].rstrip("]").split(","):
                out += requirements(project, inner.strip())
        else:
            out.append(req)
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: extras.py PYPROJECT NAME...", file=sys.stderr)
        return 2
    with open(argv[0], "rb") as handle:
        project = tomllib.load(handle)["project"]
    lines: list[str] = []
    for name in argv[1:]:
        try:
            lines += requirements(project, name)
        except KeyError:
            print(f"extras.py: {argv[0]} has no optional dependencies {name!r}", file=sys.stderr)
            return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
