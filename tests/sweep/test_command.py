"""`reviewbot sweep` and `reviewbot ci` on schedule: the command line, its exit statuses, the
job summary, --dry-run, and bad input as one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import cli
from tests.conftest import GitRepo
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.sweep.conftest import APP, CONFIG, UTIL, Sweeper, commit_as


@pytest.fixture
def wired(sweeper: Sweeper, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """The environment of an Actions run against the fake GitHub (no write spacing)."""
    fake = sweeper.fake
    quick.github(monkeypatch, Sleeps(), fake)
    env = {"GITHUB_REPOSITORY": f"{fake.owner}/{fake.repo}", "GITHUB_TOKEN": "t0ken",
           "GITHUB_API_URL": fake.api_url, "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def start(repo: GitRepo) -> str:
    return commit_as(repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP, "util.py": UTIL},
                     "the base")


def test_the_outcome_file_says_what_is_open_and_where(sweeper: Sweeper, wired: dict[str, str],
                                                     tmp_path: Path) -> None:
    repo = sweeper.repo
    start(repo)
    out = tmp_path / "outcome.json"
    argv = ["sweep", "--repo", str(repo.path), "--ref", "main", "--outcome", str(out)]
    assert cli.main(argv) == 0
    number, _ = sweeper.only()
    assert json.loads(out.read_text()) == {"kind": "baseline", "open": 0, "fixed": 0,
                                           "issue": number}
    commit_as(repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    assert cli.main(argv) == 0
    assert json.loads(out.read_text()) == {"kind": "swept", "open": 1, "fixed": 0,
                                           "issue": number}
    assert cli.main([*argv[:-1], str(tmp_path / "no" / "such" / "dir.json")]) == 2


def test_sweep_exits_0_with_regressions_unless_asked(sweeper: Sweeper, wired: dict[str, str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo = sweeper.repo
    start(repo)
    argv = ["sweep", "--repo", str(repo.path), "--ref", "main"]
    assert cli.main(argv) == 0
    assert "baseline recorded" in capsys.readouterr().err
    commit_as(repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    assert cli.main([*argv, "--fail-on-regressions"]) == 1
    assert "1 open regression(s) (1 new, 0 fixed)" in capsys.readouterr().err
    summary = Path(wired["GITHUB_STEP_SUMMARY"]).read_text()
    assert "| 🆕 |" in summary and "F401" in summary and "reviewbot:sweep" not in summary
    assert cli.main(argv) == 0  # quiet: nothing new, exit 0
    assert "nothing written" in capsys.readouterr().err


def test_ci_on_schedule_sweeps_the_branch(sweeper: Sweeper, wired: dict[str, str],
                                          monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    head = start(sweeper.repo)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"schedule": "0 4 * * *"}))
    for key, value in {"GITHUB_EVENT_NAME": "schedule", "GITHUB_EVENT_PATH": str(event),
                       "GITHUB_REF": "refs/heads/main", "GITHUB_SHA": head}.items():
        monkeypatch.setenv(key, value)
    assert cli.main(["ci", "--repo", str(sweeper.repo.path)]) == 0
    number, issue = sweeper.only()
    assert issue["state"] == "closed" and head[:12] in str(issue["body"])
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    monkeypatch.setenv("GITHUB_SHA", sweeper.repo.git("rev-parse", "HEAD"))
    assert cli.main(["ci", "--repo", str(sweeper.repo.path)]) == 0  # exit 0 with a regression
    assert sweeper.fake.s.issues[number]["state"] == "open"


def test_dry_run_needs_no_token_and_sends_nothing(repo: GitRepo, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    for key in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(key, raising=False)
    head = start(repo)
    assert cli.main(["sweep", "--repo", str(repo.path), "--dry-run"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "gate" not in printed  # a sweep has none
    made, closed = printed["requests"]
    assert (made["method"], closed["method"]) == ("POST", "PATCH")
    assert made["path"].endswith("/issues") and closed["path"].endswith("/issues/0")
    assert made["body"]["labels"] == ["reviewbot:regressions"] and head[:12] in made["body"]["body"]
    assert closed["body"]["state"] == "closed"


@pytest.mark.parametrize("argv,env,says", [
    (["--ref", "nope"], {"GITHUB_TOKEN": "t"}, "--ref nope: no such branch"),
    ([], {}, "no GitHub token"),
    ([], {"GITHUB_TOKEN": "t"}, "which GitHub repository?"),
])
def test_bad_input_is_one_line_and_exit_2(repo: GitRepo, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], argv: list[str],
                                          env: dict[str, str], says: str) -> None:
    for key in ("GITHUB_TOKEN", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    start(repo)
    assert cli.main(["sweep", "--repo", str(repo.path), *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_an_unknown_tool_is_exit_2(sweeper: Sweeper, wired: dict[str, str],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    start(sweeper.repo)
    argv = ["sweep", "--repo", str(sweeper.repo.path)]
    assert cli.main(argv) == 0
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    capsys.readouterr()
    assert cli.main([*argv, "--only", "ruf"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'ruff'" in err and err.count("\n") == 1
    assert "Baseline" in str(sweeper.only()[1]["body"])  # nothing written
