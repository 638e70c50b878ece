"""The linters the bot knows: a plain dict, name -> Analyzer. Only this module imports them."""

from __future__ import annotations

from bot.analyzer import Analyzer
from bot.linters import biome, clippy, eslint, golangci, mypy, ruff
from bot.linters.base import LinterSpec
from bot.linters.runner import LinterAnalyzer

SPECS: tuple[LinterSpec, ...] = (ruff.SPEC, eslint.SPEC, biome.SPEC, golangci.SPEC, clippy.SPEC,
                                  mypy.SPEC)

LINTERS: dict[str, Analyzer] = {spec.name: LinterAnalyzer(spec) for spec in SPECS}

# Files the base checkout takes from the head, so both revisions use the head's configuration.
CONFIG_FILES: tuple[str, ...] = tuple(dict.fromkeys(f for s in SPECS for f in s.config_files))
