"""`reviewbot doctor`: for each linter and language server, whether it applies to the
repository and why, the binary it resolves to and from where, its version, and how to install
it when it cannot run. Exit 1 when a review here could not fully check a change."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bot import git
from bot.cli import version
from bot.doctor import probe, report
from bot.run.pipeline import registry, tool_names


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("doctor", help="say which tools apply here, what runs them, what is missing",
                       description="For each linter and language server: whether it applies to "
                                   "the repository and why, the binary and its version, and the "
                                   "command that installs it when it cannot run. Exit 1 when a "
                                   "tool that applies cannot run or .reviewbot.yml is invalid.")
    p.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current dir)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = git.toplevel(args.repo)
    analyzers = registry()
    files = git.ls_files(root)
    cfg, disabled, rules = probe.settings(root, tool_names(analyzers), files)
    analyzers |= probe.declared(root, tool_names(analyzers))
    facts = probe.tools(analyzers, root, files, disabled) + ([rules] if rules else [])
    result = report.build(version(), str(root), cfg, facts)
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_dict(result), indent=2) + "\n")
    else:
        sys.stdout.write(report.to_text(result))
    return result.exit
