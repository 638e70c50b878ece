"""Options and outputs that several commands share, checked the same way everywhere."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from bot import atomic
from bot import config as config_mod
from bot.errors import BotError
from bot.gate import Gate, lines, override
from bot.model import GatePolicy, ReviewResult


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def add_gate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fail-level", choices=config_mod.FAIL_LEVELS,
                   help="lowest severity that fails the gate (default: the merge base's "
                        ".reviewbot.yml, else error)")
    p.add_argument("--tool-errors", choices=config_mod.TOOL_ERRORS,
                   help="a configured tool that could not check the change: fail the gate "
                        "(exit 4) or only warn (default: the merge base's .reviewbot.yml, else fail)")


def add_tool_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", type=Path,
                   help="settings file (default: .reviewbot.yml, read at the merge base and head)")
    p.add_argument("--only", action="append", metavar="TOOL", help="run only this tool (repeatable)")
    p.add_argument("--timeout", type=positive_seconds, help="seconds per tool invocation")


def policy_override(args: argparse.Namespace) -> Callable[[GatePolicy], GatePolicy]:
    """The command line's gate choices, applied on top of the configured policy."""
    fail_level, tool_errors = args.fail_level, args.tool_errors

    def apply(policy: GatePolicy) -> GatePolicy:
        return override(policy, fail_level, tool_errors)
    return apply


def writable_output(path: Path | None, flag: str) -> None:
    """Refuse an output file that cannot be written before any work is done."""
    if path is None:
        return
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise BotError(f"{flag} {path}: is a folder; name a file")
    if not folder.is_dir():
        raise BotError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BotError(f"{flag} {path}: the folder {folder} is not writable")


@contextlib.contextmanager
def writing(path: Path, flag: str) -> Iterator[None]:
    """An output file written inside: a write that fails (after `writable_output` let it
    through: a full disk, a folder removed meanwhile) is a usage error naming the option."""
    try:
        yield
    except OSError as exc:
        raise BotError(f"{flag} {path}: cannot write: {exc.strerror or exc}") from exc


def write_sarif(path: Path | None, result: ReviewResult) -> None:
    if path is None:
        return
    from bot.render import sarif  # only when asked for: a review without --sarif skips it

    with writing(path, "--sarif"):
        atomic.write(path, (json.dumps(sarif.to_sarif(result), indent=2) + "\n").encode())


def write_code_quality(path: Path | None, result: ReviewResult) -> None:
    if path is None:
        return
    from bot.render import codequality

    with writing(path, "--code-quality"):
        atomic.write(path, codequality.dumps(result))


def report_gate(gate: Gate) -> None:
    """Say on stderr why the change was not fully checked (stdout may be JSON)."""
    for line in lines(gate):
        print(f"reviewbot: {line}", file=sys.stderr)
