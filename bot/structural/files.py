"""Which files a search covers: the repository's files (respecting .gitignore) or the given paths."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot import git
from bot.errors import BotError, Exit
from bot.structural import lang as langs
from bot.structural.lang import Lang

MAX_BYTES = 8 * 1024 * 1024  # larger files are generated or data; parsing them is not useful


@dataclass(frozen=True)
class SourceFile:
    path: str  # as shown to the user: relative to the working directory when inside it
    abspath: str
    lang: Lang


def _git_files(directory: Path) -> list[Path] | None:
    """Tracked and untracked-but-not-ignored files under `directory`; None outside git."""
    listed = git.listed_files(directory)
    # A directory named explicitly is searched even when git ignores it as a whole (a
    # vendored tree, an interpreter's library); .gitignore rules then cannot apply inside.
    if listed is None or git.is_ignored(directory):
        return None
    return [directory / p for p in listed]


def _walk(directory: Path) -> list[Path]:
    out: list[Path] = []
    for base, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        out.extend(Path(base) / n for n in sorted(names))
    return out


def repo_root(cwd: Path) -> Path:
    return git.toplevel_of(cwd) or cwd


def _display(path: Path, cwd: Path) -> str:
    rel = os.path.relpath(path, cwd)
    return Path(rel).as_posix() if not rel.startswith("..") else path.as_posix()


def _lang_of(path: Path, wanted: Lang | None) -> Lang | None:
    if wanted is None:
        return langs.for_path(path)
    return wanted if path.suffix.lower() in wanted.extensions else None


def collect(paths: Sequence[str], cwd: Path, lang: Lang | None) -> list[SourceFile]:
    """Files to search, sorted; directories expand to their non-ignored files of `lang`
    (or of any known language when `lang` is None). Files named explicitly are always kept."""
    roots = [Path(p) for p in paths] or [repo_root(cwd)]
    found: dict[str, SourceFile] = {}
    for root in roots:
        full = root if root.is_absolute() else cwd / root
        if full.is_file():
            chosen = lang or langs.for_path(full)
            if chosen is None:
                raise BotError(f"{root}: cannot tell its language; pass --lang", Exit.USAGE)
            found[str(full)] = SourceFile(_display(full, cwd), str(full), chosen)
            continue
        if not full.is_dir():
            raise BotError(f"{root}: no such file or directory", Exit.USAGE)
        listed = _git_files(full)
        for f in listed if listed is not None else _walk(full):
            chosen = _lang_of(f, lang)
            if chosen is not None and f.is_file():
                found[str(f)] = SourceFile(_display(f, cwd), str(f), chosen)
    return sorted(found.values(), key=lambda s: s.path)
