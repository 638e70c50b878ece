"""`reviewbot ast-grep`: structural search with our own engine (bot.structural)."""

from __future__ import annotations

import argparse
import json
import sys
from functools import cache
from pathlib import Path

from bot.errors import Exit
from bot.structural import api
from bot.structural.lang import LANGS
from bot.structural.pattern import STRICTNESS
from bot.structural.show import frame, match_json


def add_pattern_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", "-l", help="language of the pattern (default: from file extensions; "
                                        f"known: {', '.join(LANGS)})")
    p.add_argument("--pattern", "-p", required=True, help="code with $X, $$$XS, $_ metavariables")
    p.add_argument("--selector", help="node kind to match inside --pattern (pattern is context)")
    p.add_argument("--strictness", choices=STRICTNESS, default="smart",
                   help="what may differ between pattern and code (default: smart)")
    p.add_argument("paths", nargs="*", help="files or directories (default: the repository, "
                                           "respecting .gitignore)")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ast-grep", help="find code by structure",
                       description="Find every match of a code pattern; prints code frames, "
                                   "or JSON with ranges and metavariable bindings.")
    add_pattern_args(p)
    p.add_argument("--json", action="store_true", help="print a JSON array of matches")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    query = api.Query(args.pattern, args.selector, args.strictness)
    res = api.run(query, lang=args.lang, paths=args.paths)
    for note in res.notes:
        print(f"reviewbot: {note}", file=sys.stderr)
    matches = res.matches
    if args.json:
        json.dump([match_json(m) for m in matches], sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return int(Exit.OK)

    where = {r.file.path: r.file.abspath for r in res.results}

    @cache
    def lines(path: str) -> list[str]:
        return Path(where[path]).read_text(encoding="utf-8", errors="replace").splitlines()

    for m in matches:
        print(frame(m, lines(m.path)))
        print()
    files = len({m.path for m in matches})
    print(f"{len(matches)} match(es) in {files} file(s); {res.files_searched} file(s) searched")
    return int(Exit.OK)
