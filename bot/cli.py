"""Command line entry point: argparse, one module per command under `bot.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bot.errors import BotError, Exit

# Each module exposes `register(subparsers)`, which adds its parser and sets `func(args) -> int`.
COMMANDS = ("review", "ast_grep", "ast_edit", "ci")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reviewbot",
        description="Review a change with the repository's own linters; report what it made worse.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"bot.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"bot.commands.{name}":
                continue  # command not built into this checkout
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
