"""The bench's projects (projects.toml) and where their git history comes from: a local mirror
(`--mirror DIR`, laid out `<owner>+<name>/repo`) or a clone of the project's URL into the
bench's cache folder, fetched up to the pinned commit."""

from __future__ import annotations

import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("REVIEWBOT_HISTORY_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reviewbot-history")


@dataclass(frozen=True)
class Project:
    name: str
    url: str
    language: str
    tool: str
    head: str
    since: str
    extensions: tuple[str, ...]
    config: tuple[str, ...]
    pairs: int
    node_modules: bool

    @property
    def slug(self) -> str:
        return self.name.replace("/", "+")


def load(path: Path = HERE / "projects.toml") -> tuple[dict[str, dict[str, str]], list[Project]]:
    data = tomllib.loads(path.read_text())
    projects = [Project(p["name"], p["url"], p["language"], p["tool"], p["head"], p["since"],
                        tuple(p["extensions"]), tuple(p["config"]), int(p["pairs"]),
                        bool(p.get("node_modules", False))) for p in data["project"]]
    return data["tools"], projects


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def source(project: Project, mirror: Path | None) -> Path:
    """A git repository holding the pinned commit: the mirror's copy, else a clone in the cache."""
    if mirror is not None:
        repo = mirror / project.slug / "repo"
        if not repo.exists():
            raise SystemExit(f"history: {repo.name} not found for {project.name} under --mirror")
        return repo
    repo = CACHE / "repos" / project.slug
    if not repo.exists():
        repo.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--bare", project.url, str(repo)], check=True)
    has = subprocess.run(["git", "-C", str(repo), "cat-file", "-e", project.head + "^{commit}"],
                         capture_output=True).returncode == 0
    if not has:
        subprocess.run(["git", "-C", str(repo), "fetch", "-q", "origin", project.head], check=True)
    return repo
