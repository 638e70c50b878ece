"""Shared test helpers: real temporary git repositories, and the calls a test watches a function
make (`calls_of`)."""

from __future__ import annotations

import functools
import inspect
import os
import secrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS_BIN = ROOT / "tools" / "node_modules" / ".bin"


class GitRepo:
    """A throwaway repository with a `main` branch; files are written as given (bytes or str)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "test@example.invalid")
        self.git("config", "user.name", "Test")
        self.git("config", "commit.gpgsign", "false")
        self.git("config", "core.autocrlf", "false")

    def git(self, *args: str) -> str:
        env = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
               "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True,
                              text=True, env=env).stdout.strip()

    def write(self, files: dict[str, str | bytes | None]) -> None:
        for name, content in files.items():
            target = self.path / name
            if content is None:
                if target.exists() or target.is_symlink():
                    target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_bytes(content.encode("utf-8"))

    def commit(self, files: dict[str, str | bytes | None] | None = None, message: str = "change") -> str:
        if files:
            self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str, start: str = "main") -> None:
        self.git("checkout", "-q", "-b", name, start)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)

    def mv(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never share the user's findings cache (the CLI turns it on by default). Each has a
    secret of its own, as a set-up that keeps results between runs has (bot.cache); the tests of
    a run without one remove it."""
    monkeypatch.setenv("REVIEWBOT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("REVIEWBOT_CACHE_SECRET", secrets.token_hex(16))


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[GitRepo]:
    yield GitRepo(tmp_path / "repo")


def requires(reason: str | None) -> None:
    """Go on when `reason` is None; else skip the test (`reason`: what this machine lacks), but
    fail it in CI (CI=true): the project's CI must run every test, and a skip only counts."""
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}, and CI must run this test (CI=true): give the job what it "
                    "lacks (.github/workflows/ci.yml runs the tests as root)", pytrace=False)
    pytest.skip(reason)


def requires_root(why: str) -> None:
    """`requires`, for a test that needs root (`why`: what it does with it)."""
    requires(None if os.geteuid() == 0 else f"{why} needs root")


def require_tool(name: str) -> Path:
    """The path of a tool the install script provides; fail loudly (not skip) when absent."""
    for directory in (TOOLS_BIN, ROOT / "tools" / "bin", ROOT / ".venv" / "bin"):
        if (directory / name).exists():
            return directory / name
    from shutil import which
    found = which(name)
    if found:
        return Path(found)
    pytest.fail(f"{name} is not installed: run scripts/setup")


@dataclass(frozen=True)
class Call:
    """One call a test watched (`calls_of`): the arguments the function received, a method's
    `self` or a classmethod's `cls` first when it was watched through its class."""

    args: tuple[object, ...]
    kwargs: dict[str, object]


def calls_of(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[Call]:
    """Record every call of `owner.name` and let it run as before: a module's function, a class's
    method, classmethod or staticmethod (`RulesAnalyzer.from_settings`), or one object's method.
    The list grows as the code calls; monkeypatch puts the real function back after the test."""
    found = inspect.getattr_static(owner, name)
    if isinstance(owner, type) and isinstance(found, (classmethod, staticmethod)):
        real, kind = found.__func__, type(found)
    elif isinstance(owner, type):
        real, kind = found, None  # a method: set on the class, the wrapper is bound as it was
    else:
        real, kind = getattr(owner, name), None
    recorded: list[Call] = []

    @functools.wraps(real)
    def recording(*args: Any, **kwargs: Any) -> Any:
        recorded.append(Call(args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording if kind is None else kind(recording))
    return recorded
