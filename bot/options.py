"""The typed options the flows and the local review take: `bot.commands` builds them from the
command line, and no `argparse.Namespace` goes further."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot import cache as findings_cache
from bot.model import GatePolicy
from bot.run.pipeline import ReviewOptions


@dataclass(frozen=True)
class Checks:
    """What to run and how the gate decides: the tool and gate options of a command."""

    config: Path | None = None
    timeout: float | None = None
    only: tuple[str, ...] | None = None
    fail_level: str | None = None
    tool_errors: str | None = None

    def policy(self) -> Callable[[GatePolicy], GatePolicy]:
        """The command line's gate choices, applied on top of the configured policy."""
        fail_level, tool_errors = self.fail_level, self.tool_errors

        def apply(policy: GatePolicy) -> GatePolicy:
            return policy.chosen(fail_level, tool_errors)
        return apply

    def review(self, repo: Path, base: str, head: str) -> ReviewOptions:
        # The cache the warm job saved, read only in a run of a change (bot.cache.session).
        return ReviewOptions(repo=repo, base=base, head=head, config=self.config,
                             timeout=self.timeout, only=self.only, policy=self.policy(),
                             cache_dir=findings_cache.default_dir())


@dataclass(frozen=True)
class Delivery:
    """Where a review goes besides the forge, and how much of it goes inline."""

    max_inline: int = 50
    max_file: int = 10
    sarif: Path | None = None
    code_quality: Path | None = None


@dataclass(frozen=True)
class CiOptions:
    """`reviewbot ci`."""

    repo: Path | None = None
    token: str | None = None
    dry_run: bool = False
    checks: Checks = field(default_factory=Checks)
    delivery: Delivery = field(default_factory=Delivery)
