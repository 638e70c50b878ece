"""The hostile repositories and the verdict on a run against them, shared by the tests that run
the bot on this machine (test_hostile_repos.py) and in the built image (tests/image/).

Each repository's head adds a file the bot's linter runs as code (hostile/): it reads every
process's /proc environ, cmdline and mem, the git configuration, the user's git credentials and
the runner's temporary folder, writes what it found to the loot file, and appends to
GITHUB_ENV, GITHUB_PATH and GITHUB_OUTPUT."""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Mapping
from pathlib import Path

from bot.errors import Exit

HOSTILE = Path(__file__).parent / "hostile"

# The runner's file commands: the name of each file under _runner_file_commands and what an
# earlier step left in it.
FILE_COMMANDS = {"GITHUB_ENV": ("set_env_", "EARLIER_STEP=1\n"),
                 "GITHUB_PATH": ("add_path_", "/opt/earlier/bin\n"),
                 "GITHUB_OUTPUT": ("set_output_", ""),
                 "GITHUB_STATE": ("save_state_", ""),
                 "GITHUB_STEP_SUMMARY": ("step_summary_", "")}


def fake_secrets() -> dict[str, str]:
    """What a runner hands a job, in the shapes the hostile code looks for in memory."""
    def token(prefix: str) -> str:
        return prefix + secrets.token_hex(18)
    job = token("glcbt-")
    return {"GITHUB_TOKEN": token("ghs_"), "INPUT_GITHUB-TOKEN": token("ghs_"),
            "ACTIONS_RUNTIME_TOKEN": token("eyJ"), "ACTIONS_ID_TOKEN_REQUEST_TOKEN": token("eyJ"),
            "REVIEWBOT_GITLAB_TOKEN": token("glpat-"), "CI_JOB_TOKEN": job,
            "CI_REPOSITORY_URL": f"https://gitlab-ci-token:{job}@gitlab.example/group/app.git"}


def runner_files(folder: Path) -> dict[str, Path]:
    """The file commands, as an earlier step left them, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, (prefix, initial) in FILE_COMMANDS.items():
        files[name] = folder / f"{prefix}0d4c1e2f"
        files[name].write_text(initial)
    return files


def commit(repo: Path, files: Mapping[str, str], message: str) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                    "user.email=t@example.invalid", "commit", "-qm", message], check=True)


def hostile(name: str, loot: str) -> str:
    return (HOSTILE / name).read_text().replace("@LOOT@", loot)


# Per tool: the base's files, and the head's with the loot file's path (as the tool sees it).
def _eslint(loot: str) -> tuple[dict[str, str], dict[str, str]]:
    return ({"package.json": '{"name": "app", "private": true}\n',
             "eslint.config.js": "module.exports = [];\n", "a.js": "var a = 1;\n"},
            {"eslint.config.js": hostile("attack.js", loot), "a.js": "var a = 1;\nvar b = 2;\n"})


def _mypy(loot: str) -> tuple[dict[str, str], dict[str, str]]:
    return ({"pyproject.toml": "[tool.mypy]\n", "app.py": "x: int = 1\n"},
            {"pyproject.toml": '[tool.mypy]\nplugins = ["attack_plugin.py"]\n',
             "attack_plugin.py": hostile("attack_plugin.py", loot),
             "app.py": "x: int = 1\ny: int = 2\n"})


def _clippy(loot: str) -> tuple[dict[str, str], dict[str, str]]:
    return ({"Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n',
             "src/lib.rs": "pub fn f() -> i32 {\n    1\n}\n"},
            {"build.rs": hostile("build.rs", loot), "src/lib.rs": "pub fn f() -> i32 {\n    2\n}\n"})


REPOSITORIES = {"eslint": _eslint, "mypy": _mypy, "clippy": _clippy}


def make_repository(repo: Path, tool: str, loot: str) -> None:
    """`repo`: main, then the branch `feature` whose head brings the hostile file."""
    base, head = REPOSITORIES[tool](loot)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    commit(repo, base, "base")
    subprocess.run(["git", "-C", str(repo), "checkout", "-qb", "feature"], check=True)
    commit(repo, head, "a change")


def sections(loot: Path) -> dict[str, str]:
    """The loot as {what was tried: what came back}."""
    text = loot.read_text(encoding="latin1") if loot.exists() else ""
    found: dict[str, str] = {}
    for part in text.split("\n== "):
        what, _, data = part.removeprefix("== ").partition("\n")
        found[what] = found.get(what, "") + data
    return found


def _values(given: Mapping[str, str]) -> dict[str, str]:
    """The secret part of each value (a URL's password)."""
    return {name: value.split("://", 1)[1].split("@")[0].split(":", 1)[1] if "://" in value
            else value for name, value in given.items()}


def assert_defended(loot: Path, given: Mapping[str, str], files: Mapping[str, Path],
                    returncode: int, stderr: str, entry: str) -> None:
    """The hostile code ran, saw the bot's process (`entry` in its cmdline) and was refused its
    environ and mem, read no secret anywhere, its writes were undone and the run failed."""
    found = sections(loot)
    assert "attack ran" in found, f"the hostile code did not run:\n{stderr}"
    bots = [what.split()[1] for what, data in found.items()
            if what.startswith("cmdline ") and entry in data]
    assert bots, f"the hostile code did not see the bot's process ({entry})"
    for pid in bots:
        assert found[f"environ {pid}"].startswith("refused"), found[f"environ {pid}"][:400]
        assert found[f"mem {pid}"].startswith("refused"), found[f"mem {pid}"][:400]
    assert "wrote" in found.get("write GITHUB_ENV", ""), "the hostile code did not write GITHUB_ENV"
    data = loot.read_bytes()
    leaked = [name for name, value in _values(given).items() if value.encode() in data]
    assert leaked == [], f"secrets read by the pull request's code: {leaked}"
    for name in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE"):
        assert files[name].read_text() == FILE_COMMANDS[name][1], name
    assert "gate=pass" not in files["GITHUB_OUTPUT"].read_text()
    assert returncode == Exit.SECURITY, (returncode, stderr)
    assert "security: a process this run started changed the runner's file commands" in stderr
