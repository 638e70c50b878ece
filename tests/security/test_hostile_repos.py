"""Repositories whose linters attack the bot, run as the image runs it: an unprivileged user,
real tools, a real git history. Each hostile file (hostile/) reads every process's /proc
environ, cmdline and mem, the checkout's git configuration, the user's git credentials and the
runner's temporary folder, writes what it found to a loot file, and appends to GITHUB_ENV,
GITHUB_PATH and GITHUB_OUTPUT. The bot holds fake secrets in its environment: none may reach
the loot, the file commands must be as before, and the run must fail with Exit.SECURITY."""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.errors import Exit
from tests.security import unprivileged

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"

pytestmark = pytest.mark.skipif(unprivileged.unavailable() is not None,
                                reason=str(unprivileged.unavailable()))

# Started by the test so that the bot's own source is this tree's, whatever is installed.
BOOT = ("import sys; sys.path.insert(0, {root!r}); from bot.{module} import main; "
        "sys.exit(main())")


def fake_secrets() -> dict[str, str]:
    """What a runner hands a job, in the shapes the hostile code looks for in memory."""
    def token(prefix: str) -> str:
        return prefix + secrets.token_hex(18)
    job = token("glcbt-")
    return {"GITHUB_TOKEN": token("ghs_"), "INPUT_GITHUB-TOKEN": token("ghs_"),
            "ACTIONS_RUNTIME_TOKEN": token("eyJ"), "ACTIONS_ID_TOKEN_REQUEST_TOKEN": token("eyJ"),
            "REVIEWBOT_GITLAB_TOKEN": token("glpat-"), "CI_JOB_TOKEN": job,
            "CI_REPOSITORY_URL": f"https://gitlab-ci-token:{job}@gitlab.example/group/app.git"}


def secret_values(given: dict[str, str]) -> list[str]:
    return [v.split(":", 2)[-1].split("@")[0] if "://" in v else v for v in given.values()]


FILE_COMMANDS = {"GITHUB_ENV": ("set_env_", "EARLIER_STEP=1\n"),
                 "GITHUB_PATH": ("add_path_", "/opt/earlier/bin\n"),
                 "GITHUB_OUTPUT": ("set_output_", ""),
                 "GITHUB_STATE": ("save_state_", ""),
                 "GITHUB_STEP_SUMMARY": ("step_summary_", "")}


@dataclass
class Run:
    sandbox: unprivileged.Sandbox
    repo: Path
    loot: Path
    files: dict[str, Path]
    env: dict[str, str]
    secrets: dict[str, str]


def commit(repo: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                    "user.email=t@example.invalid", "commit", "-qm", message], check=True)


@pytest.fixture
def run() -> Iterator[Run]:
    sandbox = unprivileged.Sandbox()
    loot = sandbox.folder("loot", 0o777) / "found.txt"
    commands = sandbox.folder("runner_temp/_runner_file_commands")
    files = {}
    for name, (prefix, initial) in FILE_COMMANDS.items():
        files[name] = commands / f"{prefix}0d4c1e2f"
        files[name].write_text(initial)
    home = sandbox.folder("home")
    sandbox.give(sandbox.root / "runner_temp")
    sandbox.give(home)
    given = fake_secrets()
    env = {"PATH": unprivileged.path(), "HOME": str(home), "LANG": "C.UTF-8",
           "RUNNER_TEMP": str(sandbox.root / "runner_temp"), "GITHUB_ACTIONS": "true",
           "CARGO_HOME": str(home / ".cargo"), "RUSTUP_HOME": str(unprivileged.rustup_home()),
           "PYTHONDONTWRITEBYTECODE": "1",
           **{name: str(path) for name, path in files.items()}, **given}
    repo = sandbox.folder("repo")
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    try:
        yield Run(sandbox, repo, loot, files, env, given)
    finally:
        sandbox.close()


def hostile(name: str, loot: Path) -> str:
    return (HOSTILE / name).read_text().replace("@LOOT@", str(loot))


def start(r: Run, module: str, *args: str, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    r.sandbox.give(r.repo)
    argv = [sys.executable, "-I", "-c", BOOT.format(root=str(ROOT), module=module), *args]
    return r.sandbox.run(argv, env or r.env, cwd=r.repo)


def sections(loot: Path) -> dict[str, str]:
    """The loot as {what was tried: what came back}."""
    text = loot.read_text(encoding="latin1") if loot.exists() else ""
    found: dict[str, str] = {}
    for part in text.split("\n== ")[0:]:
        what, _, data = part.removeprefix("== ").partition("\n")
        found[what] = found.get(what, "") + data
    return found


def assert_defended(r: Run, done: subprocess.CompletedProcess[str], entry: str) -> None:
    found = sections(r.loot)
    assert "attack ran" in found, f"the hostile code did not run:\n{done.stderr}"
    # It saw the bot's process (cmdline stays readable) and was refused the rest.
    bots = [what.split()[1] for what, data in found.items()
            if what.startswith("cmdline ") and entry in data]
    assert bots, f"the hostile code did not see the bot's process ({entry})"
    for pid in bots:
        assert found[f"environ {pid}"].startswith("refused"), found[f"environ {pid}"][:400]
        assert found[f"mem {pid}"].startswith("refused"), found[f"mem {pid}"][:400]
    assert any(what.startswith("write GITHUB_ENV") and "wrote" in data
               for what, data in found.items()), "the hostile code did not write GITHUB_ENV"
    loot = r.loot.read_bytes()
    leaked = [name for name, value in r.secrets.items()
              if any(v.encode() in loot for v in secret_values({name: value}))]
    assert leaked == [], f"secrets read by the pull request's code: {leaked}"
    for name, (_, initial) in FILE_COMMANDS.items():
        assert r.files[name].read_text() == initial or name in ("GITHUB_OUTPUT",
                                                                  "GITHUB_STEP_SUMMARY"), name
    assert r.files["GITHUB_ENV"].read_text() == "EARLIER_STEP=1\n"
    assert r.files["GITHUB_PATH"].read_text() == "/opt/earlier/bin\n"
    assert "gate=pass" not in r.files["GITHUB_OUTPUT"].read_text()
    assert done.returncode == Exit.SECURITY, (done.returncode, done.stderr)
    assert "security: a process this run started changed the runner's file commands" \
        in done.stderr, done.stderr


def review(r: Run, tool: str) -> subprocess.CompletedProcess[str]:
    return start(r, "cli", "review", "--repo", str(r.repo), "--base", "main", "--only", tool,
                 "--fail-level", "none")


def test_an_eslint_config_reads_nothing_and_its_writes_are_undone(run: Run) -> None:
    commit(run.repo, {"package.json": '{"name": "app", "private": true}\n',
                      "eslint.config.js": "module.exports = [];\n", "a.js": "var a = 1;\n"}, "base")
    subprocess.run(["git", "-C", str(run.repo), "checkout", "-qb", "feature"], check=True)
    commit(run.repo, {"eslint.config.js": hostile("attack.js", run.loot),
                      "a.js": "var a = 1;\nvar b = 2;\n"}, "a change")
    done = review(run, "eslint")
    assert_defended(run, done, "bot.cli")


def test_a_mypy_plugin_reads_nothing_and_its_writes_are_undone(run: Run) -> None:
    commit(run.repo, {"pyproject.toml": "[tool.mypy]\n", "app.py": "x: int = 1\n"}, "base")
    subprocess.run(["git", "-C", str(run.repo), "checkout", "-qb", "feature"], check=True)
    commit(run.repo, {"pyproject.toml": '[tool.mypy]\nplugins = ["attack_plugin.py"]\n',
                      "attack_plugin.py": hostile("attack_plugin.py", run.loot),
                      "app.py": "x: int = 1\ny: int = 2\n"}, "a change")
    done = review(run, "mypy")
    assert_defended(run, done, "bot.cli")


def test_a_build_script_reads_nothing_and_its_writes_are_undone(run: Run) -> None:
    commit(run.repo, {"Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
                      "src/lib.rs": "pub fn f() -> i32 {\n    1\n}\n"}, "base")
    subprocess.run(["git", "-C", str(run.repo), "checkout", "-qb", "feature"], check=True)
    commit(run.repo, {"build.rs": hostile("build.rs", run.loot),
                      "src/lib.rs": "pub fn f() -> i32 {\n    2\n}\n"}, "a change")
    done = review(run, "clippy")
    assert_defended(run, done, "bot.cli")


def test_the_action_entry_point_holds_its_token_out_of_reach(run: Run) -> None:
    """The action's own process holds the token input while `reviewbot analyze` runs the pull
    request's ESLint configuration."""
    commit(run.repo, {"package.json": '{"name": "app", "private": true}\n',
                      "eslint.config.js": "module.exports = [];\n", "a.js": "var a = 1;\n"}, "base")
    subprocess.run(["git", "-C", str(run.repo), "checkout", "-qb", "feature"], check=True)
    commit(run.repo, {"eslint.config.js": hostile("attack.js", run.loot),
                      "a.js": "var a = 1;\nvar b = 2;\n"}, "a change")
    env = {**run.env, "INPUT_MODE": "analyze", "INPUT_BASE": "main"}
    done = start(run, "action", env=env)
    assert_defended(run, done, "bot.action")
    outputs = dict(line.split("=", 1) for line in run.files["GITHUB_OUTPUT"].read_text().splitlines())
    assert outputs["gate"] == "error", outputs


def test_a_checkout_that_kept_its_token_is_refused_before_any_tool_runs(run: Run) -> None:
    """actions/checkout's default leaves the token in .git/config, where the pull request's
    linters would read it: nothing runs."""
    commit(run.repo, {"package.json": '{"name": "app", "private": true}\n',
                      "eslint.config.js": "module.exports = [];\n", "a.js": "var a = 1;\n"}, "base")
    subprocess.run(["git", "-C", str(run.repo), "checkout", "-qb", "feature"], check=True)
    commit(run.repo, {"eslint.config.js": hostile("attack.js", run.loot),
                      "a.js": "var a = 1;\nvar b = 2;\n"}, "a change")
    header = "AUTHORIZATION: basic " + run.secrets["GITHUB_TOKEN"]
    subprocess.run(["git", "-C", str(run.repo), "config", "http.https://github.com/.extraheader",
                    header], check=True)
    done = review(run, "eslint")
    assert done.returncode == Exit.SECURITY, (done.returncode, done.stderr)
    assert "holds a credential (local http.https://github.com/.extraheader)" in done.stderr
    assert run.secrets["GITHUB_TOKEN"] not in done.stderr
    assert not run.loot.exists(), "a tool ran"
    assert run.files["GITHUB_ENV"].read_text() == "EARLIER_STEP=1\n"
