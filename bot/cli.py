"""Command line entry point: argparse, one module per command under `bot.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bot.errors import BotError, Exit

# Each module exposes `register(subparsers)`, which adds its parser and sets `func(args) -> int`.
COMMANDS = ("review", "ast_grep", "ast_edit", "ci")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; `only` registers just that command (importing every command's module would
    load PyGithub and tree-sitter for a local review)."""
    parser = argparse.ArgumentParser(
        prog="reviewbot",
        description="Review a change with the repository's own linters; report what it made worse.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        try:
            module = importlib.import_module(f"bot.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"bot.commands.{name}":
                continue  # command not built into this checkout
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    first = argv[0].replace("-", "_") if argv else None
    parser = build_parser(first if first in COMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return int(Exit.USAGE)
    try:
        return int(args.func(args))
    except BotError as exc:
        print(f"reviewbot: {exc.message}", file=sys.stderr)
        return int(exc.code)
    except KeyboardInterrupt:
        print("reviewbot: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
