"""`.reviewbot.yml`: optional settings, validated with messages that say how to fix them.

    fail-level: error          # none | info | warning | error
    timeout: 300               # seconds per tool invocation
    tools:                     # per tool: enabled (default true)
      eslint: {enabled: false}
    rules:                     # structural rules run as the tool "ast-grep" (bot.structural.rules)
      - id: no-print           # inline, in ast-grep's rule shape, plus message/severity/url
        language: python
        rule: {pattern: print($$$A)}
        message: use the logger
        fix: log.info($$$A)
      - lint/rules/no-eval.yml # or a rule file, relative to the repository
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.errors import BotError

FAIL_LEVELS = ("none", "info", "warning", "error")
FILE_NAMES = (".reviewbot.yml", ".reviewbot.yaml")


@dataclass(frozen=True)
class Config:
    fail_level: str = "error"
    timeout: float = 300.0
    disabled: frozenset[str] = field(default_factory=frozenset)
    source: str | None = None
    rules: tuple[Any, ...] = ()  # rule documents (mappings) or rule file paths, unchecked here


def _fail(source: str, what: str) -> BotError:
    return BotError(f"{source}: {what}")


def parse(text: str, source: str) -> Config:
    import yaml  # only when there is a file to read: most repositories have none

    try:
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _fail(source, f"not valid YAML: {exc}") from exc
    if data is None:
        return Config(source=source)
    if not isinstance(data, dict):
        raise _fail(source, "expected a mapping of settings at the top level")
    unknown = set(data) - {"fail-level", "timeout", "tools", "rules"}
    if unknown:
        raise _fail(source, f"unknown setting(s) {', '.join(sorted(map(str, unknown)))}; "
                            "known: fail-level, timeout, tools, rules")
    level = str(data.get("fail-level", "error"))
    if level not in FAIL_LEVELS:
        raise _fail(source, f"fail-level must be one of {', '.join(FAIL_LEVELS)}, not {level!r}")
    timeout = data.get("timeout", 300)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise _fail(source, f"timeout must be a positive number of seconds, not {timeout!r}")
    tools = data.get("tools") or {}
    if not isinstance(tools, dict):
        raise _fail(source, "tools must map tool names to settings, e.g. {eslint: {enabled: false}}")
    disabled = set()
    for name, settings in tools.items():
        if not isinstance(settings, dict) or set(settings) - {"enabled"}:
            raise _fail(source, f"tools.{name}: expected {{enabled: true|false}}")
        if settings.get("enabled") is False:
            disabled.add(str(name))
    rules = data.get("rules") or []
    if not isinstance(rules, list) or not all(isinstance(r, dict | str) for r in rules):
        raise _fail(source, "rules must be a list of rule mappings or rule file paths")
    return Config(level, float(timeout), frozenset(disabled), source, tuple(rules))


def load(repo_root: Path, explicit: Path | None = None) -> Config:
    if explicit is not None:
        try:
            return parse(explicit.read_text("utf-8"), str(explicit))
        except OSError as exc:
            raise BotError(f"cannot read --config {explicit}: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise BotError(f"--config {explicit} is not UTF-8 text") from exc
    for name in FILE_NAMES:
        path = repo_root / name
        if path.is_file():
            try:
                return parse(path.read_text("utf-8"), name)
            except UnicodeDecodeError as exc:
                raise BotError(f"{name} is not UTF-8 text") from exc
    return Config()
