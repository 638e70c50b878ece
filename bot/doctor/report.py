"""`reviewbot doctor`'s report, from facts already gathered (`bot.doctor.probe`): which tool
applies and why, what runs it, and what stops the review from checking a change. Pure.

The bottom line follows the gate (bot.publishing.gate): a linter that applies but cannot run makes every
review here "could not be fully checked", so it is a problem. A language server that cannot
start is left out of a review (`LspAnalyzer.applies` requires its binary), so it is reported
with its install command but does not fail the doctor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from bot.analyzer import ToolKind

# ready: applies and runs; missing: applies, cannot run, the gate would say so; unavailable:
# applies, cannot start, the review leaves it out; unused: does not apply; off: switched off.
State = Literal["ready", "missing", "unavailable", "unused", "off"]


@dataclass(frozen=True)
class ToolFacts:
    """What the probe found about one tool in one repository."""

    name: str
    kind: ToolKind
    markers: tuple[str, ...]  # the repo-relative files that enable it, found
    candidates: tuple[str, ...]  # the files that could have (for "none of ...")
    suffixes: tuple[str, ...]  # the file kinds it checks
    files: int  # tracked files of those kinds
    executable: str | None
    origin: str | None = None  # repository | PATH | bundled (bot.toolpath.labelled_dirs)
    version: str | None = None
    install_hint: str = ""
    message: str = ""  # why it cannot run
    declined: str = ""  # why the markers found do not enable it after all
    disabled: bool = False  # switched off in .reviewbot.yml


@dataclass(frozen=True)
class ConfigFacts:
    """The repository's `.reviewbot.yml` as `bot.config` read it."""

    source: str | None  # the file read; None when the repository has none
    error: str | None = None  # the loader's message, when it refused the file
    summary: str = ""  # the settings that matter here, one line


@dataclass(frozen=True)
class ToolCheck:
    facts: ToolFacts
    state: State
    why: str  # why it applies or not, one line


@dataclass(frozen=True)
class Report:
    version: str
    repo: str
    config: ConfigFacts
    tools: tuple[ToolCheck, ...]

    @property
    def problems(self) -> tuple[str, ...]:
        """What would make a review here refuse to run or fail as unchecked, one line each."""
        out = [f"{self.config.error}"] if self.config.error else []
        out += [f"{t.facts.name} applies but cannot run: {t.facts.message}"
                for t in self.tools if t.state == "missing"]
        return tuple(out)

    @property
    def exit(self) -> int:
        return 1 if self.problems else 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _kinds(facts: ToolFacts) -> str:
    return "/".join(facts.suffixes)


def judge(facts: ToolFacts) -> ToolCheck:
    """The state of one tool and the reason, from its facts."""
    if facts.disabled:
        return ToolCheck(facts, "off", f"by .reviewbot.yml (tools: {{{facts.name}: {{enabled: false}}}})")
    if not facts.markers:
        return ToolCheck(facts, "unused", f"none of {', '.join(facts.candidates)} found")
    found = ", ".join(facts.markers)
    if facts.declined:
        return ToolCheck(facts, "unused", f"{found} found, but {facts.declined}")
    unit = f"{_kinds(facts)} file" if facts.suffixes else "file"
    tail = "" if facts.suffixes else " in their languages"  # rules: each names its own
    if not facts.files:
        return ToolCheck(facts, "unused", f"{found} found, but no {unit}{tail} is tracked")
    why = f"{found}; {_plural(facts.files, unit)}{tail}"
    if facts.executable is not None:
        return ToolCheck(facts, "ready", why)
    return ToolCheck(facts, "missing" if facts.kind == "linter" else "unavailable", why)


def build(version: str, repo: str, config: ConfigFacts, tools: list[ToolFacts]) -> Report:
    return Report(version, repo, config, tuple(judge(t) for t in sorted(tools, key=lambda t: t.name)))


_HEADS: dict[State, str] = {"ready": "ready", "missing": "CANNOT RUN", "off": "switched off",
                            "unavailable": "cannot start (left out of reviews)",
                            "unused": "does not apply"}


def _binary(facts: ToolFacts) -> str:
    if facts.executable is None:
        return facts.message
    where = f" ({facts.origin})" if facts.origin else ""
    version = f", version {facts.version}" if facts.version else ""
    return f"{facts.executable}{where}{version}"


def to_text(report: Report) -> str:
    lines = [f"reviewbot {report.version} doctor: {report.repo}"]
    cfg = report.config
    if cfg.error:
        lines.append(f"settings: INVALID: {cfg.error}")
    elif cfg.source:
        lines.append(f"settings: {cfg.source}: valid ({cfg.summary})")
    else:
        lines.append(f"settings: no .reviewbot.yml, the defaults ({cfg.summary})")
    for check in report.tools:
        facts = check.facts
        if check.state in ("unused", "off"):  # one line: nothing to do about it
            lines += ["", f"{facts.name} ({facts.kind}): {_HEADS[check.state]}: {check.why}"]
        else:
            lines += ["", f"{facts.name} ({facts.kind}): {_HEADS[check.state]}",
                      f"  applies: {check.why}"]
        if facts.executable is not None or check.state in ("missing", "unavailable"):
            lines.append(f"  binary: {_binary(facts)}")
        if facts.executable is None and check.state in ("missing", "unavailable") \
                and facts.install_hint:
            lines.append(f"  install it with: {facts.install_hint}")
    lines.append("")
    if report.problems:
        lines.append(f"reviewbot doctor: {_plural(len(report.problems), 'problem')}:")
        lines += [f"  - {p}" for p in report.problems]
    else:
        lines.append("reviewbot doctor: every tool that applies can run")
    return "\n".join(lines) + "\n"


def to_dict(report: Report) -> dict[str, Any]:
    cfg = report.config
    return {
        "version": report.version,
        "repo": report.repo,
        "config": {"source": cfg.source, "valid": cfg.error is None, "error": cfg.error},
        "tools": [{
            "name": c.facts.name, "kind": c.facts.kind, "state": c.state,
            "applies": c.state in ("ready", "missing", "unavailable"), "why": c.why,
            "markers": list(c.facts.markers), "executable": c.facts.executable,
            "origin": c.facts.origin, "version": c.facts.version,
            "install": c.facts.install_hint if c.facts.executable is None else None,
            "message": c.facts.message or None,
        } for c in report.tools],
        "problems": list(report.problems),
        "exit": report.exit,
    }
