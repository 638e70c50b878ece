"""`reviewbot ast-grep`: structural search with our own engine (bot.structural)."""

from __future__ import annotations

import argparse
import sys
from functools import cache
from pathlib import Path

from bot import codec
from bot.errors import BotError, Exit
from bot.structural import api, rules
from bot.structural.lang import LANGS
from bot.structural.pattern import STRICTNESS
from bot.structural.show import frame, match_json


def add_pattern_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", "-l", help="language of the pattern (default: from file extensions; "
                                        f"known: {', '.join(LANGS)})")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--pattern", "-p", help="code with $X, $$$XS, $_ metavariables")
    what.add_argument("--rule", type=Path, metavar="RULE.yml",
                      help="a rule file in ast-grep's YAML shape (rule: pattern/kind/regex, "
                           "inside/has/follows/precedes, all/any/not; constraints, transform, fix)")
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


def search(args: argparse.Namespace, rewrite: str | None = None, *, staging: bool = False
           ) -> api.SearchResult:
    """The files' results for --pattern (with `rewrite`) or --rule (rewriting with its fix
    when `staging`)."""
    if args.rule is not None:
        if args.selector or args.strictness != "smart" or args.lang:
            raise BotError("--rule carries its own language and patterns: drop --lang, "
                           "--selector and --strictness", Exit.USAGE)
        return api.run_rule(rules.load(args.rule), paths=args.paths,
                            rewrite=staging)
    query = api.Query(args.pattern, args.selector, args.strictness)
    return api.run(query, lang=args.lang, paths=args.paths, rewrite=rewrite)


def run(args: argparse.Namespace) -> int:
    res = search(args)
    for note in res.notes:
        print(f"reviewbot: {note}", file=sys.stderr)
    matches = res.matches
    if args.json:
        sys.stdout.write(codec.json_text([match_json(m) for m in matches], indent=2) + "\n")
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
