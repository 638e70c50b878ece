"""The repository's own structural rules (`rules:` in `.reviewbot.yml`) as a review tool.

They run in-process on the changed files at both revisions, so their findings get the same
verdicts as any linter's: only what the change introduced is reported, and a rule's `fix`
becomes a suggested change.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from bot.analyzer import Analyzer, Outcome, Resolution, Survey, Target
from bot.errors import BotError, Exit
from bot.model import Edit, Finding, Fix, Severity, ToolStatus
from bot.positions import LineIndex
from bot.structural import TOOL, rules
from bot.structural.api import message_for
from bot.structural.lang import for_path, parse
from bot.structural.rulefix import rewrite_rule
from bot.structural.rulematch import find_rule
from bot.structural.search import to_match

MAX_BYTES = 2_000_000  # larger files are generated or vendored: not reviewed by rules


def _version() -> str:
    try:
        return importlib.metadata.version("reviewbot")
    except importlib.metadata.PackageNotFoundError:
        return "0"


@dataclass(frozen=True)
class RulesAnalyzer(Analyzer):
    configs: tuple[rules.RuleConfig, ...]

    @property
    def name(self) -> str:
        return TOOL

    @property
    def read_only(self) -> bool:
        return True  # reads files, never writes them

    @classmethod
    def from_settings(cls, entries: Sequence[Any], read: Callable[[str], bytes | None]
                      ) -> RulesAnalyzer:
        """Compile `.reviewbot.yml` rules: inline documents, or rule files that `read` returns
        by repository-relative path (from the revision the settings come from)."""
        configs = []
        for index, entry in enumerate(entries):
            if isinstance(entry, str):
                configs.append(_rule_file(entry, read))
                continue
            try:
                configs.append(rules.compile_config(entry))
            except BotError as exc:
                name = entry.get("id") or f"#{index + 1}"
                raise BotError(f".reviewbot.yml rules[{name}]: {exc.message}", Exit.USAGE) from exc
        return cls(tuple(configs))

    @staticmethod
    def files(entries: Sequence[Any]) -> list[str]:
        """The rule files `entries` name, as `from_settings` asks `read` for them (all read at
        once by the caller); an entry that names no repository path is left to it."""
        return [path for e in entries if isinstance(e, str) and (path := _inside(e)) is not None]

    def _rules_for(self, path: str) -> list[rules.RuleConfig]:
        lang = for_path(path)
        return [c for c in self.configs if lang is not None and c.lang.name == lang.name]

    def findings_in(self, path: str, source: bytes) -> list[Finding]:
        """Every rule's findings in one file's bytes (with their fixes); none in a file too
        large to review or not text."""
        if len(source) > MAX_BYTES or b"\0" in source[:8192]:
            return []
        return [f for config in self._rules_for(path) for f in _findings(config, path, source)]

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        return any(self._rules_for(p) for p in changed)

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        return Resolution("reviewbot", _version())

    def survey(self, root: Path, files: Sequence[str], resolution: Resolution) -> Survey:
        """The rules of `.reviewbot.yml`, run by the bot itself, over the files in their
        languages."""
        return Survey("rules", (f"{len(self.configs)} rule(s) in .reviewbot.yml",), ("rules:",),
                      (), sum(1 for f in files if self.applies(root, [f])), resolution.version,
                      origin="built in")

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        root = target.ready()
        findings: list[Finding] = []
        failed: set[str] = set()
        messages: list[str] = []
        for path in target.paths:
            configs = self._rules_for(path)
            if not configs:
                continue
            try:
                source = (root / path).read_bytes()
            except OSError as exc:
                failed.add(path)
                messages.append(f"{path}: {exc.strerror or exc}")
                continue
            findings += self.findings_in(path, source)
        status: ToolStatus = "failed" if failed else "ok"
        return Outcome(TOOL, status, tuple(findings), resolution.version, "\n".join(messages),
                       frozenset(failed))


def _inside(entry: str) -> str | None:
    """The repository path a rule file entry names; None when it names none."""
    path = PurePosixPath(entry)
    if not entry or path.is_absolute() or ".." in path.parts or "\\" in entry or "\0" in entry:
        return None
    return path.as_posix()


def _rule_file(entry: str, read: Callable[[str], bytes | None]) -> rules.RuleConfig:
    where = f".reviewbot.yml rules: {entry}"
    path = _inside(entry)
    if path is None:
        raise BotError(f"{where}: a rule file is a path inside the repository, "
                       "relative to its root, without '..'", Exit.USAGE)
    blob = read(path)
    if blob is None:
        raise BotError(f"{where}: cannot read rule file {entry}: it is not committed at the head",
                       Exit.USAGE)
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BotError(f"{where}: not UTF-8 text", Exit.USAGE) from exc
    config = rules.load_text(text, entry)
    if not config.id:
        raise BotError(f"{where}: the rule has no `id` (a name for its findings)", Exit.USAGE)
    return config


def _findings(config: rules.RuleConfig, path: str, source: bytes) -> list[Finding]:
    tree = parse(config.lang.grammar, source)
    pos = LineIndex.of_bytes(source)
    found = list(find_rule(config, tree, source))
    if not found:
        return []
    fixes: dict[tuple[int, int], Fix] = {}
    if config.fix is not None:
        rewrite = rewrite_rule(config, source, tree)
        if not rewrite.error:  # a fix that breaks the file is not offered
            for e in rewrite.edits:
                edit = Edit(path, pos.span(e.start, e.end), e.new.decode("utf-8", "replace"))
                fixes[(e.match_start, e.match_end)] = Fix(f"{TOOL} rule {config.id}", (edit,))
    out = []
    rule_id = config.id or "rule"
    severity = Severity.parse(config.severity)
    for node, raw in found:
        match = to_match(path, source, pos, raw)
        message = message_for(config.message, match) if config.message else f"matches rule {rule_id}"
        fix = next((f for (s, e), f in fixes.items() if s <= node.start_byte and node.end_byte <= e), None)
        out.append(Finding(TOOL, rule_id, severity, message, path, match.span, config.url, fix))
    return out
