"""The local review (`reviewbot review`): the change between the merge base and the head, linted
at both revisions, printed on stdout; the exit status is the gate. No forge, no token.

`bot.fixes` (`fix`, `working_tree`) and the text and rdjson renderers are imported where they
are used: a JSON review loads none of them (tests/run/test_pipeline_speed.py holds it to that).
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from bot import cache as findings_cache
from bot import config, git
from bot.errors import BotError
from bot.model import ReviewResult
from bot.options import Checks
from bot.publishing import report
from bot.publishing.gate import decide
from bot.publishing.outputs import report_gate, writable_output, write_sarif
from bot.render import progress
from bot.revisions import workspace
from bot.run.pipeline import ReviewOptions, begin, run_review

Format = Literal["text", "json", "rdjson"]


@dataclass(frozen=True)
class Fixing:
    """`--fix`: apply the introduced and changed findings' fixes, then review again."""

    unsafe: bool = False  # unsafe fixes too
    force: bool = False  # the working tree as it is, uncommitted changes included


@dataclass(frozen=True)
class LocalOptions:
    """A local review's request: the revisions, the working tree, what to check."""

    repo: Path
    base: str | None = None  # None: the remote's default branch, else main, else master
    head: str = "HEAD"
    working_tree: bool = False  # the tracked files as they are on disk
    checks: Checks = field(default_factory=Checks)
    format: Format = "text"
    show_preexisting: bool = False
    quiet: bool = False  # no progress lines (they are printed only to a terminal anyway)
    cache_dir: Path | None = None  # None: no findings cache
    sarif: Path | None = None
    fix: Fixing | None = None


def review(options: LocalOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Review, print, and return the gate's exit status."""
    out, err = out or sys.stdout, err or sys.stderr
    writable_output(options.sarif, "--sarif")
    opts = _review_options(options, _head(options), err)
    # The developer's own code: the review saves what it computes (bot.cache.session).
    with findings_cache.session(save=True):
        begun = begin(opts)  # the revisions and the settings, read once
        result = run_review(opts, begun)
        if options.fix is not None:
            result = _fixed(options.fix, opts, begun.settings, result, err)
    gate = decide(result)
    write_sarif(options.sarif, result)
    out.write(render(result, options))
    report_gate(gate)
    return int(gate.exit)


def _head(options: LocalOptions) -> str:
    """The revision to review: the head, or a snapshot of the working tree."""
    fixing_disk = options.fix is not None and options.fix.force
    if not (options.working_tree or fixing_disk) or options.head != "HEAD":
        if options.working_tree:
            raise BotError("--working-tree reviews the files on disk: it cannot be given with --head")
        return options.head
    from bot import fixes

    top = git.toplevel(options.repo)
    if options.working_tree:
        # The settings being edited on disk, tracked or not: an invalid file is refused with
        # its line, not passed over (an untracked one is not part of the snapshot).
        config.load(top, options.checks.config)
    # A commit of the tracked files that moves nothing; HEAD itself when nothing changed.
    return fixes.snapshot(top) or options.head


def _review_options(options: LocalOptions, head: str, err: TextIO) -> ReviewOptions:
    checks = options.checks
    # Progress is for a person watching: a log (stderr not a terminal) stays as it was.
    tell = None if options.quiet or not err.isatty() else progress.printer(err)
    return ReviewOptions(repo=options.repo, base=options.base, head=head, config=checks.config,
                         only=checks.only, timeout=checks.timeout, cache_dir=options.cache_dir,
                         policy=checks.policy(), progress=tell)


def _fixed(fixing: Fixing, opts: ReviewOptions, settings: config.Reviewed, result: ReviewResult,
           err: TextIO) -> ReviewResult:
    """The review after the fixes: the same review, with the same settings, of a snapshot
    holding them (the fixes leave the settings as they were)."""
    from bot import fixes

    def relint(head: str) -> ReviewResult:
        again = dataclasses.replace(opts, head=head)
        return run_review(again, begin(again, settings))

    fixed = fixes.fix_and_relint(opts.repo, result, relint, unsafe=fixing.unsafe,
                                 force=fixing.force)
    err.write(fixes.render(fixed))
    return fixed.remaining or result


def render(result: ReviewResult, options: LocalOptions) -> str:
    """The review as `options.format` says: JSON, reviewdog's rdjson, or text with code frames."""
    if options.format == "json":
        return report.to_json(result)
    texts = workspace.texts(git.toplevel(options.repo), result.head,
                            [v.finding.path for v in result.findings])
    if options.format == "rdjson":
        from bot.render import rdjson

        return rdjson.to_json(result, lambda path: texts.get(path, []), options.show_preexisting)
    from bot.render import text

    return text.render(result, lambda path: texts.get(path, []), options.show_preexisting)
