"""`reviewbot warm`: lint the default branch's head and save the findings cache, so that the
reviews of changes (which only read it, bot.cache) find their merge base's results there.

Keys are per file blob or per package (bot.cache): a merge base older than the warmed commit
still hits for every file the branch has not changed since. Every file the configured linters
apply to is linted, against a base where every file is new (workspace.empty_base); with
`since`, only what changed from that commit to the head, at both. Language servers are left
out: their results are kept per pair of commits, which a warm run cannot know.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from bot import cache
from bot.errors import BotError, Exit
from bot.linters.registry import LINTERS
from bot.options import Checks
from bot.revisions import workspace
from bot.run.pipeline import ReviewOptions, run_review


@dataclass(frozen=True)
class Options:
    repo: Path
    since: str | None
    head: str
    cache_dir: Path
    checks: Checks


def warm(options: Options) -> int:
    """0 when every linter checked what it applies to; 4 when one could not, or when a file
    a linter applies to was not given to it (over the size limit: `result.unchecked`); its
    files then miss the cache and the reviews lint them. The cache is saved either way."""
    if not cache.keys().seals:  # a key that does not read: a BotError naming it
        raise BotError(f"{cache.SECRET_VARIABLE} is not set: entries saved without it could not "
                       "be verified by the reviews that read them (docs/cache.md)")
    base = options.since or workspace.empty_base(options.repo, write=True)
    review = ReviewOptions(repo=options.repo, base=base, head=options.head,
                           config=options.checks.config, only=options.checks.only,
                           timeout=options.checks.timeout, cache_dir=options.cache_dir,
                           analyzers=dict(LINTERS))
    with cache.session(save=True):
        result = run_review(review)
    unchecked = [run for run in result.tools if run.status in ("failed", "timeout", "missing")]
    done = ", ".join(f"{run.name} {run.status}" for run in result.tools) or "no linter applies"
    print(f"reviewbot: warm {result.head[:12]}: {done}; cache {options.cache_dir} saved",
          file=sys.stderr)
    for run in unchecked:
        print(f"reviewbot: {run.name}: {run.message.splitlines()[0] if run.message else run.status}",
              file=sys.stderr)
    for line in result.unchecked:  # "path: why"
        print(f"reviewbot: {line}", file=sys.stderr)
    return int(Exit.UNCHECKED if unchecked or result.unchecked else Exit.OK)
