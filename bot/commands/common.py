"""Options that several commands share, checked the same way everywhere, and turned into the
flows' typed options (`bot.options`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot import config as config_mod
from bot.options import Checks, Delivery
from bot.publishing.outputs import report_gate, writable_output, write_sarif, writing

__all__ = ["report_gate", "writable_output", "write_sarif", "writing"]


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


def checks(args: argparse.Namespace, *, gate: bool = True) -> Checks:
    """The tool options, and the gate options when the command has them (`gate`)."""
    return Checks(args.config, args.timeout, tuple(args.only) if args.only else None,
                  args.fail_level if gate else None, args.tool_errors if gate else None)


def delivery(args: argparse.Namespace) -> Delivery:
    """The publishing options (`add_delivery_options`)."""
    return Delivery(args.max_comments, args.max_file_comments, args.sarif, args.code_quality)


def add_delivery_options(p: argparse.ArgumentParser) -> None:
    """The publishing options of `ci` and `publish`."""
    p.add_argument("--max-comments", type=_count, default=50, metavar="N",
                   help="inline comments on the PR; the rest go to the summary (default 50)")
    p.add_argument("--max-file-comments", type=_count, default=10, metavar="N",
                   help="file-level comments on the PR (default 10)")
    p.add_argument("--sarif", type=Path, metavar="FILE", help="also write SARIF 2.1.0 here")
    p.add_argument("--code-quality", type=Path, metavar="FILE",
                   help="also write a GitLab Code Quality report here "
                        "(artifacts:reports:codequality)")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value
