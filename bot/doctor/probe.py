"""The facts `reviewbot doctor` reports, gathered from a checkout: what each tool makes of it
(`Analyzer.survey`, asked of every analyzer alike), its binary through the same resolution a
review uses, and `.reviewbot.yml`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from bot import config as config_mod
from bot import toolpath
from bot.analyzer import Analyzer
from bot.doctor.report import ConfigFacts, ToolFacts
from bot.errors import BotError
from bot.structural import TOOL as RULES_TOOL


def describe(analyzer: Analyzer, root: Path, files: Sequence[str]) -> ToolFacts:
    """One tool as the doctor reports it: what it makes of the checkout (`Analyzer.survey`)
    and where its binary resolves from."""
    resolution = analyzer.resolve(root)
    survey = analyzer.survey(root, files, resolution)
    exe = resolution.executable
    origin = survey.origin or (toolpath.origin(exe, root) if exe else None)
    return ToolFacts(analyzer.name, survey.kind, survey.markers, survey.candidates,
                     survey.suffixes, survey.files, exe, origin, survey.version,
                     survey.install_hint, resolution.message, survey.declined)


def tools(analyzers: Mapping[str, Analyzer], root: Path, files: Sequence[str],
          disabled: Collection[str]) -> list[ToolFacts]:
    out = []
    for name, analyzer in sorted(analyzers.items()):
        found = describe(analyzer, root, files)
        out.append(found if name not in disabled else _off(found))
    return out


def _off(facts: ToolFacts) -> ToolFacts:
    return replace(facts, disabled=True)


def settings(root: Path, known: Collection[str], files: Sequence[str]
             ) -> tuple[ConfigFacts, frozenset[str], ToolFacts | None]:
    """The checkout's `.reviewbot.yml` (as on disk: the file being edited), the tools it
    switches off, and its rules as the tool they run as. A review reads the file from git per
    revision (`config.for_review`)."""
    source = next((n for n in config_mod.FILE_NAMES if (root / n).is_file()), None)
    try:
        cfg = config_mod.load(root, tools=known)
        checked = _rules(cfg.rules, root, files) if cfg.rules else None
    except BotError as exc:
        return ConfigFacts(source, exc.message), frozenset(), None
    rules = f", {len(cfg.rules)} rule(s)" if cfg.rules else ""
    summary = f"fail-level {cfg.fail_level}, tool-errors {cfg.tool_errors}, timeout {cfg.timeout:g}s{rules}"
    if checked is not None and RULES_TOOL in cfg.disabled:
        checked = _off(checked)
    return ConfigFacts(source, None, summary), cfg.disabled, checked


def declared(root: Path, known: Collection[str]) -> Mapping[str, Analyzer]:
    """The linters the checkout's `.reviewbot.yml` declares (none when it is invalid: the
    report says why through `settings`)."""
    from bot.linters.registry import declared as declared_linters

    try:
        return declared_linters(config_mod.load(root, tools=known).declared)
    except BotError:
        return {}


def _rules(entries: Sequence[object], root: Path, files: Sequence[str]) -> ToolFacts:
    """The repository's rules, compiled as a review compiles them (a rule that does not
    compile refuses the review), as the tool their findings carry."""
    # Imported here: tree-sitter and the grammars load only for repositories with rules.
    from bot.structural.analyzer import RulesAnalyzer

    def read(path: str) -> bytes | None:
        target = root / path
        return target.read_bytes() if target.is_file() else None

    return describe(RulesAnalyzer.from_settings(entries, read), root, files)
