"""The Docker action's entry point: inputs as GitHub passes them (hyphenated INPUT_* names) to
one reviewbot command per mode, no credential for analyze, and the step's outputs from a real
review (the real CLI, real ruff, the fake GitHub)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from bot import action
from bot.errors import BotError
from tests.ci.test_github_actions import examples, opened_pull_request
from tests.conftest import GitRepo
from tests.forges.fakegithub import FakeGitHub

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"


def inputs(**given: str) -> action.Inputs:
    return action.read_inputs({f"INPUT_{k.replace('_', '-').upper()}": v for k, v in given.items()})


def test_each_mode_maps_to_its_command() -> None:
    assert action.command(inputs(), "s.sarif") == ["ci", "--sarif", "s.sarif"]
    assert action.command(inputs(mode="review", fail_level="warning", config="ci.yml",
                                 max_inline_comments="9", working_directory="app"), "s.sarif") == \
        ["ci", "--repo", ".", "--fail-level", "warning", "--config", "ci.yml",
         "--max-comments", "9", "--sarif", "s.sarif"]
    assert action.command(inputs(mode="analyze", base="develop", artifact="a.json"), "s") == \
        ["analyze", "--base", "develop", "--out", "a.json"]
    assert action.command(inputs(mode="analyze"), "s") == \
        ["analyze", "--out", "reviewbot-analysis.json"]
    assert action.command(inputs(mode="publish", fail_level="error", artifact="a.json"), "s") == \
        ["publish", "--fail-level", "error", "--sarif", "s", "a.json"]
    assert action.command(inputs(mode="sweep", base="main", config="c.yml"), "s", "o.json") == \
        ["sweep", "--ref", "main", "--config", "c.yml", "--outcome", "o.json"]
    assert action.command(inputs(mode="warm"), "s") == ["warm"]
    assert action.command(inputs(mode="warm", base="abc123", config="c.yml",
                                 working_directory="app"), "s") == \
        ["warm", "--repo", ".", "--since", "abc123", "--config", "c.yml"]


def test_hyphenated_and_underscored_names_are_read() -> None:
    env = {"INPUT_MODE": "publish", "INPUT_MAX-INLINE-COMMENTS": "3", "INPUT_FAIL_LEVEL": "info",
           "INPUT_SARIF": "  ", "INPUT_WORKING-DIRECTORY": "sub"}
    got = action.read_inputs(env)
    assert got == action.Inputs("publish", {"max-inline-comments": "3", "fail-level": "info"}, "sub")


@pytest.mark.parametrize(("given", "message"), [
    ({"mode": "deploy"}, "unknown mode 'deploy'"),
    ({"mode": "review", "base": "main"}, "mode review does not use input base"),
    ({"mode": "analyze", "sarif": "x", "fail_level": "error"},
     "mode analyze does not use inputs fail-level, sarif"),
    ({"mode": "sweep", "artifact": "a.json"}, "mode sweep does not use input artifact"),
    ({"mode": "warm", "fail_level": "error"}, "mode warm does not use input fail-level"),
])
def test_a_wrong_input_is_a_usage_error(given: dict[str, str], message: str) -> None:
    with pytest.raises(BotError) as caught:
        action.command(inputs(**given), "s")
    assert message in caught.value.message and caught.value.code == 2


def test_analyze_gets_no_credential_and_the_others_get_the_token_input() -> None:
    env = {"INPUT_GITHUB-TOKEN": "ghs_input", "GITHUB_TOKEN": "ghs_env",
           "ACTIONS_RUNTIME_TOKEN": "rt", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "id", "HOME": "/h"}
    analyze = action.child_env(inputs(mode="analyze"), env)
    assert analyze == {"HOME": "/h"}
    # The cache's secret only verifies what analyze reads (it saves nothing): it goes along.
    sealed = action.child_env(inputs(mode="analyze"), {**env, "REVIEWBOT_CACHE_SECRET": "k"})
    assert sealed == {"HOME": "/h", "REVIEWBOT_CACHE_SECRET": "k"}
    review = action.child_env(inputs(mode="review"), env)
    assert review["GITHUB_TOKEN"] == "ghs_input" and "INPUT_GITHUB-TOKEN" not in review


def test_analyze_of_a_comment_gets_the_job_s_token_to_read_the_pull_request() -> None:
    """An issue_comment names no commit: analyze asks GitHub where the head is, with the
    token the job's `permissions:` make read-only; no other credential."""
    env = {"INPUT_GITHUB-TOKEN": "ghs_input", "ACTIONS_RUNTIME_TOKEN": "rt", "HOME": "/h",
           "GITHUB_EVENT_NAME": "issue_comment"}
    analyze = action.child_env(inputs(mode="analyze"), env)
    assert analyze == {"HOME": "/h", "GITHUB_EVENT_NAME": "issue_comment",
                       "GITHUB_TOKEN": "ghs_input"}


def entrypoint(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The entry point as action.yml declares it, with the project's own Python and tools."""
    runs = yaml.safe_load((ROOT / "action.yml").read_text())["runs"]
    path = f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run([runs["entrypoint"], *runs["args"]], env={**os.environ, "PATH": path, **env},
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def read_outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_analyze_writes_the_artifact_and_the_outputs(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"pyproject.toml": "[tool.ruff]\n", "app.py": "import sys\n\nprint(sys.argv)\n"})
    repo.branch("feature")
    repo.commit({"app.py": "import os\nimport sys\n\nprint(sys.argv)\n"})
    out = tmp_path / "github_output"
    done = entrypoint({"INPUT_MODE": "analyze", "INPUT_BASE": "main", "INPUT_GITHUB-TOKEN": "ghs_x",
                       "INPUT_ARTIFACT": "analysis.json", "INPUT_WORKING-DIRECTORY": "repo",
                       "GITHUB_OUTPUT": str(out)}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (repo.path / "analysis.json").is_file()
    assert read_outputs(out) == {"introduced": "1", "changed": "0", "preexisting": "0",
                                 "fixed": "0", "gate": "fail", "sarif-file": ""}


def test_a_review_publishes_and_writes_the_outputs(repo: GitRepo, tmp_path: Path) -> None:
    base = repo.commit({"pyproject.toml": "[tool.ruff]\n",
                        "app.py": "import sys\n\n\ndef f():\n    x = 1\n    return sys.argv\n"})
    repo.branch("feature")
    head = repo.commit({"app.py": "import os\nimport sys\n\n\ndef f():\n    return sys.argv\n"})
    payload = opened_pull_request(base, head)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    out = tmp_path / "github_output"
    with FakeGitHub(head, {"app.py": {1, 2, 3, 4, 5, 6}}) as fake:
        done = entrypoint({
            "INPUT_GITHUB-TOKEN": "ghs_input", "INPUT_MODE": "review", "INPUT_FAIL-LEVEL": "info",
            "INPUT_SARIF": "out.sarif", "INPUT_WORKING-DIRECTORY": "repo",
            "INPUT_MAX-INLINE-COMMENTS": "", "INPUT_BASE": "", "INPUT_CONFIG": "", "INPUT_ARTIFACT": "",
            "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "octo/demo", "GITHUB_API_URL": fake.api_url,
            "GITHUB_GRAPHQL_URL": fake.graphql_url, "GITHUB_OUTPUT": str(out),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}, tmp_path)
        assert fake.errors == []
        assert any("F401" in c["body"] for c in fake.bot_comments())
    assert done.returncode == 1, done.stderr  # the unused import fails an info gate
    assert read_outputs(out) == {"introduced": "1", "changed": "0", "preexisting": "0",
                                 "fixed": "1", "gate": "fail", "sarif-file": "repo/out.sarif"}
    assert json.loads((repo.path / "out.sarif").read_text())["version"] == "2.1.0"


def test_a_sweep_writes_the_open_regressions_and_the_tracking_issue(repo: GitRepo,
                                                                   tmp_path: Path) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F"]\n', "app.py": "x = 1\n"})
    out = tmp_path / "github_output"
    with FakeGitHub("0" * 40, {}) as fake:
        env = {"INPUT_GITHUB-TOKEN": "ghs_input", "INPUT_MODE": "sweep", "INPUT_BASE": "main",
               "INPUT_WORKING-DIRECTORY": "repo", "GITHUB_REPOSITORY": "octo/demo",
               "GITHUB_API_URL": fake.api_url, "GITHUB_GRAPHQL_URL": fake.graphql_url,
               "GITHUB_OUTPUT": str(out), "REVIEWBOT_CACHE_DIR": str(tmp_path / "cache")}
        assert entrypoint(env, tmp_path).returncode == 0  # the first sweep: a baseline
        [number] = fake.s.issues
        repo.commit({"app.py": "import os\nx = 1\n"})
        out.unlink()
        done = entrypoint(env, tmp_path)
        assert fake.errors == []
    assert done.returncode == 0, done.stderr
    assert read_outputs(out) == {"introduced": "", "changed": "", "preexisting": "", "fixed": "",
                                 "gate": "pass", "sarif-file": "", "regressions": "1",
                                 "tracking-issue": str(number)}


def test_an_event_with_nothing_to_review_is_skipped(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"app.py": "x = 1\n"})
    event = tmp_path / "event.json"
    event.write_text(json.dumps(examples()["push"][0]))
    out = tmp_path / "github_output"
    done = entrypoint({"INPUT_GITHUB-TOKEN": "t", "GITHUB_EVENT_NAME": "push",
                       "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "octo/demo",
                       "GITHUB_WORKSPACE": str(repo.path), "GITHUB_OUTPUT": str(out)}, repo.path)
    assert done.returncode == 0, done.stderr
    assert read_outputs(out)["gate"] == "skipped" and read_outputs(out)["introduced"] == ""


def test_a_wrong_input_stops_the_step_before_anything_runs(tmp_path: Path) -> None:
    done = entrypoint({"INPUT_MODE": "sweep", "INPUT_SARIF": "x.sarif"}, tmp_path)
    assert done.returncode == 2 and "mode sweep does not use input sarif" in done.stderr
    assert "Traceback" not in done.stderr


def test_publish_label_hands_publish_the_label_flag_and_nothing_else() -> None:
    assert action.command(inputs(mode="publish-label"), "s") == [
        "publish", "--label", action.DEFAULT_ARTIFACT]
    with pytest.raises(BotError):
        action.command(inputs(mode="publish-label", **{"fail-level": "info"}), "s")
