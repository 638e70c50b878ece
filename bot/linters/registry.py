"""The linters the bot knows: a plain dict, name -> Analyzer. Only this module imports them.

Built-in adapters and zero-configuration presets are always here; each also counts as
configured where `.pre-commit-config.yaml` has a hook for it. The linters a repository
declares in `.reviewbot.yml` come from its settings (`declared`).

Each spec's module is imported on first use, not here: a review asks every linter whether it
applies, and a linter none of whose files is in the checkout answers no from the table below,
without its module (most of them, on any one repository). The table repeats each spec's
`config_files` and `markers`; tests/linters/test_registry.py holds it to the specs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from bot.analyzer import Analyzer, Outcome, Resolution, Survey, Target, TreeView
from bot.config import Declared
from bot.linters import precommit
from bot.linters.base import LinterSpec
from bot.linters.runner import LinterAnalyzer, folders


class Entry(NamedTuple):
    """Where a linter's spec lives, and the files without which it cannot apply."""

    load: Callable[[], LinterSpec]  # imports the spec's module
    config_files: tuple[str, ...]  # the spec's own
    # The spec's markers, without the pre-commit file every linter also looks at. Its
    # `detect` is False in a folder holding none of these and none of `config_files`.
    markers: tuple[str, ...] = ()


def _ruff() -> LinterSpec:
    from bot.linters import ruff
    return ruff.SPEC


def _eslint() -> LinterSpec:
    from bot.linters import eslint
    return eslint.SPEC


def _biome() -> LinterSpec:
    from bot.linters import biome
    return biome.SPEC


def _golangci() -> LinterSpec:
    from bot.linters import golangci
    return golangci.SPEC


def _clippy() -> LinterSpec:
    from bot.linters import clippy
    return clippy.SPEC


def _mypy() -> LinterSpec:
    from bot.linters import mypy
    return mypy.SPEC


def _preset(name: str) -> Callable[[], LinterSpec]:
    def load() -> LinterSpec:
        from bot.linters import presets
        return next(s for s in presets.SPECS if s.name == name)
    return load


_PY = ("pyproject.toml",)
_STYLELINT = tuple(f".stylelintrc{s}" for s in ("", ".json", ".yaml", ".yml", ".js", ".cjs",
                                                 ".mjs", ".ts")) + tuple(
    f"stylelint.config.{s}" for s in ("js", "cjs", "mjs", "ts", "cts", "mts"))
_MARKDOWNLINT = tuple(f".markdownlint{s}" for s in (".json", ".jsonc", ".yaml", ".yml", ".cjs",
                                                     ".mjs")) + tuple(
    f".markdownlint-cli2{s}" for s in (".jsonc", ".yaml", ".cjs", ".mjs"))

TABLE: dict[str, Entry] = {
    "ruff": Entry(_ruff, ("ruff.toml", ".ruff.toml", *_PY)),
    "eslint": Entry(_eslint, (
        *(f"eslint.config.{s}" for s in ("js", "mjs", "cjs", "ts", "mts", "cts")),
        *(f".eslintrc{s}" for s in (".js", ".cjs", ".json", ".yml", ".yaml", "")))),
    "biome": Entry(_biome, ("biome.json", "biome.jsonc")),
    "golangci-lint": Entry(_golangci, (
        ".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")),
    "clippy": Entry(_clippy, ("clippy.toml", ".clippy.toml"),
                    ("Cargo.toml",)),
    "mypy": Entry(_mypy, ("mypy.ini", ".mypy.ini", *_PY)),
    "shellcheck": Entry(_preset("shellcheck"), (".shellcheckrc",)),
    "hadolint": Entry(_preset("hadolint"), (".hadolint.yaml", ".hadolint.yml")),
    "stylelint": Entry(_preset("stylelint"), _STYLELINT, ("package.json",)),
    "markdownlint": Entry(_preset("markdownlint"), _MARKDOWNLINT),
    "yamllint": Entry(_preset("yamllint"),
                      (".yamllint", ".yamllint.yaml", ".yamllint.yml")),
    "actionlint": Entry(_preset("actionlint"),
                        (".github/actionlint.yaml", ".github/actionlint.yml")),
}


def _or_precommit(spec: LinterSpec) -> LinterSpec:
    own = spec.detect

    def detect(root: Path) -> bool:
        configured = own(root) if own is not None else any(
            (root / name).is_file() for name in spec.config_files)
        return configured or spec.name in precommit.configured(root)

    return replace(spec, detect=detect, markers=(*spec.markers, precommit.FILE))


def load(name: str) -> LinterSpec:
    """The spec of a built-in linter (its module imported now), as the review uses it."""
    return _or_precommit(TABLE[name].load())


class LazyLinter(Analyzer):
    """A built-in linter whose module is imported only once the review needs more than its
    name and files; `applies` answers no without it where none of those files is present.
    (A plain class: a dataclass's generated methods cost more to create than this saves.)"""

    __slots__ = ("_loaded", "entry_name")

    def __init__(self, entry_name: str) -> None:
        self.entry_name = entry_name
        self._loaded: LinterAnalyzer | None = None

    def __repr__(self) -> str:
        return f"LazyLinter({self.entry_name!r})"

    def resolved(self) -> LinterAnalyzer:
        """The linter itself, its spec's module imported on the first call."""
        if self._loaded is None:
            self._loaded = LinterAnalyzer(load(self.entry_name))
        return self._loaded

    @property
    def name(self) -> str:
        return self.entry_name

    @property
    def config_files(self) -> tuple[str, ...]:
        return TABLE[self.entry_name].config_files

    @property
    def read_only(self) -> bool:
        return self.resolved().read_only

    @property
    def lazy_checkout(self) -> bool:
        return self.resolved().lazy_checkout

    @property
    def file_scoped(self) -> bool:
        return self.resolved().file_scoped

    @property
    def defers_to(self) -> tuple[str, ...]:
        return self.resolved().defers_to

    def shares(self, view: TreeView, paths: Sequence[str]) -> list[tuple[str, ...]]:
        return self.resolved().shares(view, paths)

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        entry = TABLE[self.entry_name]
        files = (*entry.config_files, *entry.markers, precommit.FILE)
        if not any((root / folder / name).is_file()
                   for folder in folders(changed) for name in files):
            return False
        return self.resolved().applies(root, changed)

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        return self.resolved().resolve(root, cache_dir)

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        return self.resolved().collect(target, resolution)

    def collect_pair(self, base: Target, head: Target,
                     resolution: Resolution) -> tuple[Outcome, Outcome] | None:
        return self.resolved().collect_pair(base, head, resolution)

    def survey(self, root: Path, files: Sequence[str], resolution: Resolution) -> Survey:
        """Its spec's (loaded: the doctor reports every linter, not only those with files)."""
        return self.resolved().survey(root, files, resolution)


LINTERS: dict[str, Analyzer] = {name: LazyLinter(name) for name in TABLE}

# Files the base checkout takes from the head, so both revisions use the head's configuration.
CONFIG_FILES: tuple[str, ...] = tuple(dict.fromkeys(f for e in TABLE.values()
                                                    for f in e.config_files))


def declared(tools: Iterable[Declared]) -> Mapping[str, Analyzer]:
    """The linters a repository declares (`Config.declared`), by name."""
    tools = tuple(tools)
    if not tools:  # most repositories declare none: their module is not imported
        return {}
    from bot.linters import declared as declared_mod

    return declared_mod.analyzers(tools)
