"""Repositories whose linters attack the bot (attack.py), run as the image runs it: an
unprivileged user, real tools (ESLint, mypy, cargo), a real git history. The bot holds fake
secrets in its environment: none may reach the loot, the file commands must be as before, and
the run must fail with Exit.SECURITY. tests/image/ runs the same inside the built image."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.errors import Exit
from tests.conftest import requires
from tests.security import attack, unprivileged

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _unprivileged_user() -> None:
    requires(unprivileged.unavailable())


# Started so that the bot's source is this tree's, whatever is installed.
BOOT = ("import sys; sys.path.insert(0, {root!r}); from bot.{module} import main; "
        "sys.exit(main())")


@dataclass
class Run:
    sandbox: unprivileged.Sandbox
    repo: Path
    loot: Path
    files: dict[str, Path]
    env: dict[str, str]
    secrets: dict[str, str]

    def start(self, module: str, *args: str, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess[str]:
        self.sandbox.give(self.repo)
        argv = [sys.executable, "-I", "-c", BOOT.format(root=str(ROOT), module=module), *args]
        return self.sandbox.run(argv, env or self.env, cwd=self.repo)

    def review(self, tool: str) -> subprocess.CompletedProcess[str]:
        return self.start("cli", "review", "--repo", str(self.repo), "--base", "main",
                          "--only", tool, "--fail-level", "none")

    def defended(self, done: subprocess.CompletedProcess[str], entry: str) -> None:
        attack.assert_defended(self.loot, self.secrets, self.files, done.returncode,
                               done.stderr, entry)


@pytest.fixture
def run() -> Iterator[Run]:
    sandbox = unprivileged.Sandbox()
    loot = sandbox.folder("loot", 0o777) / "found.txt"
    files = attack.runner_files(sandbox.folder("runner_temp") / "_runner_file_commands")
    home = sandbox.folder("home")
    sandbox.give(sandbox.root / "runner_temp")
    sandbox.give(home)
    given = attack.fake_secrets()
    env = {"PATH": unprivileged.path(), "HOME": str(home), "LANG": "C.UTF-8",
           "RUNNER_TEMP": str(sandbox.root / "runner_temp"), "GITHUB_ACTIONS": "true",
           "CARGO_HOME": str(home / ".cargo"), "RUSTUP_HOME": str(unprivileged.rustup_home()),
           "PYTHONDONTWRITEBYTECODE": "1",
           **{name: str(path) for name, path in files.items()}, **given}
    try:
        yield Run(sandbox, sandbox.root / "repo", loot, files, env, given)
    finally:
        sandbox.close()


@pytest.mark.parametrize("tool", ["eslint", "mypy", "clippy"])
def test_the_linters_code_reads_nothing_and_its_writes_are_undone(run: Run, tool: str) -> None:
    """An eslint.config.js, a mypy plugin, a build.rs (run by clippy)."""
    attack.make_repository(run.repo, tool, str(run.loot))
    run.defended(run.review(tool), "bot.cli")


def test_the_action_entry_point_holds_its_token_out_of_reach(run: Run) -> None:
    """The action's own process holds the token input while `reviewbot analyze` runs the pull
    request's ESLint configuration."""
    attack.make_repository(run.repo, "eslint", str(run.loot))
    done = run.start("action", env={**run.env, "INPUT_MODE": "analyze", "INPUT_BASE": "main"})
    run.defended(done, "bot.action")
    outputs = dict(line.split("=", 1)
                   for line in run.files["GITHUB_OUTPUT"].read_text().splitlines())
    assert outputs["gate"] == "error", outputs


def test_a_checkout_that_kept_its_token_is_refused_before_any_tool_runs(run: Run) -> None:
    """actions/checkout's default leaves the token in .git/config, where the pull request's
    linters would read it: nothing runs."""
    attack.make_repository(run.repo, "eslint", str(run.loot))
    header = "AUTHORIZATION: basic " + run.secrets["GITHUB_TOKEN"]
    subprocess.run(["git", "-C", str(run.repo), "config", "http.https://github.com/.extraheader",
                    header], check=True)
    done = run.review("eslint")
    assert done.returncode == Exit.SECURITY, (done.returncode, done.stderr)
    assert "holds a credential (local http.https://github.com/.extraheader)" in done.stderr
    assert run.secrets["GITHUB_TOKEN"] not in done.stderr
    assert not run.loot.exists(), "a tool ran"
    assert run.files["GITHUB_ENV"].read_text() == attack.FILE_COMMANDS["GITHUB_ENV"][1]


def test_a_process_a_linter_leaves_behind_is_killed_with_the_run(run: Run) -> None:
    """It waits for the bot to exit, then writes GITHUB_ENV: it must not live that long."""
    base, _ = attack.REPOSITORIES["eslint"](str(run.loot))
    subprocess.run(["git", "init", "-q", "-b", "main", str(run.repo)], check=True)
    attack.commit(run.repo, base, "base")
    subprocess.run(["git", "-C", str(run.repo), "checkout", "-qb", "feature"], check=True)
    attack.commit(run.repo, {"eslint.config.js": attack.hostile("linger.js", str(run.loot)),
                             "a.js": "var a = 1;\nvar b = 2;\n"}, "a change")
    done = run.review("eslint")
    assert done.returncode == Exit.OK, done.stderr
    daemons = [int(line.split()[1]) for line in run.loot.read_text().splitlines()
               if line.startswith("daemon ") and "waits" in line]
    assert daemons, "the linter left nothing behind"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in daemons):
        time.sleep(0.1)
    time.sleep(0.5)  # time to write, had it lived
    assert "daemon wrote" not in run.loot.read_text()
    assert not [pid for pid in daemons if Path(f"/proc/{pid}").exists()]
    assert run.files["GITHUB_ENV"].read_text() == attack.FILE_COMMANDS["GITHUB_ENV"][1]
