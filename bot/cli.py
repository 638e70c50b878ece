"""Command line entry point: argparse, one module per command under `bot.commands`."""

from __future__ import annotations

import sys

try:  # Ctrl-C while the bot itself loads: nothing is started yet, and no traceback
    import argparse
    import importlib
    import os
    import select
    from collections.abc import Sequence
    from typing import NoReturn

    from bot.errors import BotError, Exit
    from bot.safety import cancel, lockdown
except KeyboardInterrupt:
    print("reviewbot: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

# Command name -> the module that implements it. Each module exposes `register(subparsers)`,
# which adds its parser and sets `func(args) -> int`. Modules are imported only when their
# command is built (a local review must not load PyGithub or tree-sitter), and every one of
# them is part of the package: a missing module is an ImportError, never a missing command.
COMMANDS: dict[str, str] = {
    "review": "bot.commands.review",
    "analyze": "bot.commands.analyze",
    "publish": "bot.commands.publish",
    "ci": "bot.commands.ci",
    "ast-grep": "bot.commands.ast_grep",
    "ast-edit": "bot.commands.ast_edit",
    "sweep": "bot.commands.sweep",
    "warm": "bot.commands.warm",
    "doctor": "bot.commands.doctor",
    "bitbucket-relay": "bot.commands.bitbucket_relay",
    "azure-relay": "bot.commands.azure_relay",
}


def version() -> str:
    """The installed package's version (what pip and the image report), not a copy of it."""
    # Imported here: importlib.metadata costs more to import than the rest of the start.
    import importlib.metadata

    try:
        return importlib.metadata.version("reviewbot")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree never installed
        return "unknown (not installed)"


class _Version(argparse.Action):
    """`--version`, reading the package's metadata only when it is asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show the version and exit") -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        sys.stdout.write(f"reviewbot {version()}\n")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """Usage errors on one line that points at --help: the error is what a user needs to see,
    not the whole usage before it (its commands' parsers are of this class too)."""

    def error(self, message: str) -> NoReturn:
        # Lazy: only a usage error needs them.
        import difflib
        import re

        choice = re.search(r"invalid choice: '?([^',)]*)'? (\(choose from (.*)\))$", message)
        if choice:  # a close one instead of the whole list
            known = re.findall(r"[^', ]+", choice[3])
            close = difflib.get_close_matches(choice[1], known, n=1, cutoff=0.6)
            if close:
                message = f"{message[:choice.start(2)]}(did you mean {close[0]!r}?)"
        self.exit(int(Exit.USAGE), f"{self.prog}: {message}; see {self.prog} --help\n")


def build_parser(only: str | None = None, commands: bool = True) -> argparse.ArgumentParser:
    """The parser; `only` (a key of COMMANDS) registers just that command, `commands=False`
    none (`--version` needs no command module)."""
    parser = _Parser(
        prog="reviewbot",
        description="Review a change with the repository's own linters; report what it made worse.",
    )
    parser.add_argument("--version", action=_Version)
    parser.set_defaults(func=None)  # no command given
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in () if not commands else COMMANDS if only is None else (only,):
        importlib.import_module(COMMANDS[name]).register(sub)
    return parser


def _in_utf8_mode() -> None:
    """Start again in Python's UTF-8 mode when the locale's encoding is not UTF-8 (LC_ALL=C):
    git names files in UTF-8, and a file name that the locale cannot spell could otherwise
    not be handed to a tool or opened (each tool failed with an encoding error)."""
    if sys.getfilesystemencoding().lower().replace("-", "") == "utf8":
        return
    from bot import proc

    proc.replace([sys.executable, "-X", "utf8", *sys.orig_argv[1:]])


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the process's own command line: a start, not a call from a test
        _in_utf8_mode()
    argv = list(sys.argv[1:] if argv is None else argv)
    first = argv[0] if argv else None
    try:  # Ctrl-C while the command's modules load: nothing to stop yet, and no traceback
        parser = build_parser(first if first in COMMANDS else None, commands=first != "--version")
    except KeyboardInterrupt:
        print("reviewbot: interrupted", file=sys.stderr)
        return 130
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command's own parser, whose --help lists what it takes
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        (sub.choices.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.func is None:
        parser.print_help(sys.stderr)
        return int(Exit.USAGE)
    try:
        # Before the command runs anything of the repository's: its secrets out of reach of
        # the tools it starts, and the runner's file commands watched (bot.safety.lockdown).
        with cancel.cancellable(), lockdown.engaged():
            return int(args.func(args))
    except BotError as exc:
        print(f"reviewbot: {exc.message}", file=sys.stderr)
        return int(exc.code)
    except KeyboardInterrupt:
        print("reviewbot: interrupted", file=sys.stderr)
        return 130
    except cancel.Terminated:
        print("reviewbot: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError as exc:
        if not _stdout_closed():
            return _internal(exc)  # a pipe to a tool or git: not the reader going away
        print("reviewbot: the output's reader closed it before the end", file=sys.stderr)
        return int(Exit.PIPE)
    except Exception as exc:
        return _internal(exc)


def _stdout_closed() -> bool:
    """Whether our output's reader is gone (the kernel flags a pipe's writing end once its
    reader closed it); if so, stdout points at /dev/null from now on: Python writes what is
    left in its buffer when it exits, and would fail again on the closed pipe."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):
        return False
    poll = select.poll()
    poll.register(fd, 0)  # no events asked for: errors and hang-ups are always reported
    if not any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0)):
        return False
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    return True


def _internal(exc: BaseException) -> int:
    """A bug: one line saying so, then what a report needs."""
    print(f"reviewbot: internal error (a bug, please report it): {type(exc).__name__}: {exc}",
          file=sys.stderr)
    import traceback  # only a bug needs it: not loaded on every start

    traceback.print_exception(exc, file=sys.stderr)
    return int(Exit.INTERNAL)


if __name__ == "__main__":
    sys.exit(main())
