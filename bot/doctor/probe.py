"""The facts `reviewbot doctor` reports, gathered from a checkout: markers on disk, tracked
files, each tool's binary through the same resolution a review uses, and `.reviewbot.yml`."""

from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from bot import config as config_mod
from bot import toolpath
from bot.analyzer import Analyzer
from bot.doctor.report import ConfigFacts, ToolFacts
from bot.errors import BotError
from bot.linters.registry import LazyLinter
from bot.linters.runner import LinterAnalyzer, folders
from bot.lsp import servers
from bot.lsp.analyzer import LspAnalyzer, project_root
from bot.structural import TOOL as RULES_TOOL


def _count(files: Sequence[str], suffixes: Collection[str]) -> int:
    return sum(1 for f in files if PurePosixPath(f).suffix.lower() in suffixes)


def linter(analyzer: LinterAnalyzer, root: Path, files: Sequence[str]) -> ToolFacts:
    spec = analyzer.spec
    candidates = tuple(dict.fromkeys((*spec.config_files, *spec.markers)))
    # The root and every project folder above a file the linter takes (a monorepo's).
    places = folders([f for f in files if spec.wants(f)])
    found = tuple(n if place == "." else f"{place}/{n}" for place in places for n in candidates
                  if (root / place / n).is_file())
    # The same decision as `LinterAnalyzer.applies`: `detect` refines what the files say.
    enabled = any(analyzer.configured_in(root / place) for place in places)
    resolution = analyzer.resolve(root)
    exe = resolution.executable
    return ToolFacts(
        spec.name, "linter", found, candidates, (*sorted(spec.extensions), *spec.globs),
        sum(1 for f in files if spec.wants(f)), exe, toolpath.origin(exe, root) if exe else None,
        resolution.version, spec.install_hint, resolution.message,
        declined="" if enabled or not found else f"they do not enable {spec.name}")


def _markers(spec: servers.ServerSpec, root: Path, files: Sequence[str]) -> tuple[str, ...]:
    """The root markers above tracked files of the server's languages, repo-relative."""
    found: dict[str, None] = {}
    # One probe per folder, as `LspAnalyzer.applies` does.
    probes = {str(PurePosixPath(f).parent): f for f in files if spec.language_id(f) is not None}
    for probe in probes.values():
        project = project_root(root, probe, spec)
        if project is None:
            continue
        prefix = project.resolve().relative_to(root.resolve()).as_posix()
        for marker in spec.markers:
            if marker.found(project):
                found[marker.name if prefix == "." else f"{prefix}/{marker.name}"] = None
    return tuple(sorted(found))


def _server_version(spec: servers.ServerSpec, exe: str, root: Path) -> str | None:
    """The version without starting the server: read from what installed it."""
    if spec is servers.GOPLS:
        return toolpath.go_module_version(exe, "golang.org/x/tools/gopls")
    if spec is servers.TYPESCRIPT:
        return toolpath.npm_version(exe, "typescript-language-server")
    if spec is servers.TYPESCRIPT_NATIVE:
        own = servers.typescript_version(root)
        return own[1] if own else None
    if Path(exe).parent == Path(sys.prefix) / "bin":  # a Python package of the bot's own environment
        try:
            return importlib.metadata.version(spec.name)
        except importlib.metadata.PackageNotFoundError:
            return None
    return None


def server(analyzer: LspAnalyzer, root: Path, files: Sequence[str]) -> ToolFacts:
    spec = servers.variant(analyzer.spec, root)
    markers = _markers(spec, root, files)
    declined = ""
    if analyzer.chosen is not None and not analyzer.chosen(root):
        chosen = servers.python_checker(root).name
        declined = f"the repository's Python checker is {chosen} (named in its configuration or " \
                   "dependencies, basedpyright by default)"
    resolution = analyzer.resolve(root)
    exe = resolution.executable
    version = resolution.version or (_server_version(spec, exe, root) if exe else None)
    return ToolFacts(
        analyzer.name, "language server", markers, tuple(m.name for m in spec.markers),
        tuple(sorted(spec.languages)), _count(files, spec.languages), exe,
        toolpath.origin(exe, root) if exe else None, version, spec.install_hint,
        resolution.message, declined=declined)


def other(analyzer: Analyzer, root: Path, files: Sequence[str]) -> ToolFacts:
    """A tool of another kind: only what the Analyzer protocol says."""
    applies = analyzer.applies(root, files)
    resolution = analyzer.resolve(root)
    exe = resolution.executable
    return ToolFacts(analyzer.name, "linter", ("its own detection",) if applies else (), ("a marker",),
                     (), len(files) if applies else 0, exe,
                     toolpath.origin(exe, root) if exe else None, resolution.version,
                     resolution.install_hint, resolution.message)


def tools(analyzers: Mapping[str, Analyzer], root: Path, files: Sequence[str],
          disabled: Collection[str]) -> list[ToolFacts]:
    out = []
    for name, analyzer in sorted(analyzers.items()):
        if isinstance(analyzer, LazyLinter):  # the doctor reports every linter: load them
            analyzer = analyzer.resolved()
        if isinstance(analyzer, LinterAnalyzer):
            facts = linter(analyzer, root, files)
        elif isinstance(analyzer, LspAnalyzer):
            facts = server(analyzer, root, files)
        else:
            facts = other(analyzer, root, files)
        out.append(facts if name not in disabled else _off(facts))
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

    analyzer = RulesAnalyzer.from_settings(entries, read)
    resolution = analyzer.resolve(root)
    return ToolFacts(RULES_TOOL, "rules", (f"{len(entries)} rule(s) in .reviewbot.yml",), ("rules:",),
                     (), sum(1 for f in files if analyzer.applies(root, [f])), resolution.executable,
                     "built in", resolution.version)
