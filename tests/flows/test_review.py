"""`reviewbot ci` end to end: a real repository, real ruff, the real pipeline, the fake GitHub."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from tests.ci.test_github_actions import opened_pull_request
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FakeGitHub, Fault
from tests.forges.validate import rest_errors

BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n",
        "app.py": "import sys\n\n\ndef main():\n    return sys.argv\n"}
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    unused = 1\n    return sys.argv\n"}


@contextlib.contextmanager
def open_pr(repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
            sleeps: Sleeps, base_files: dict[str, str], head_files: dict[str, str],
            diff: dict[str, set[int]]) -> Iterator[tuple[Any, FakeGitHub, dict[str, Any]]]:
    """A pull request event for a real repository, and the fake GitHub it talks to."""
    base = repo.commit(base_files, "base")
    repo.branch("feature")
    head = repo.commit(head_files, "feature")
    payload = opened_pull_request(base, head)
    with FakeGitHub(head, diff, base=base) as fake:
        event = tmp_path / "event.json"
        event.write_text(json.dumps(payload))
        env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
               "GITHUB_REPOSITORY": "octo/demo", "GITHUB_TOKEN": "t0ken",
               "GITHUB_API_URL": fake.api_url, "GITHUB_GRAPHQL_URL": fake.graphql_url,
               "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        quick.github(monkeypatch, sleeps)
        yield repo, fake, env
        assert fake.errors == []


@pytest.fixture
def pr(repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
       sleeps: Sleeps) -> Iterator[tuple[Any, FakeGitHub, dict[str, Any]]]:
    with open_pr(repo, tmp_path, monkeypatch, sleeps, BASE, HEAD, {"app.py": set(range(1, 8))}) as opened:
        yield opened


def test_repository_rules_become_suggested_changes(repo, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   sleeps: Sleeps) -> None:
    settings = ("rules:\n  - id: no-print\n    language: python\n    message: use log($A)\n"
                "    rule: {pattern: print($A)}\n    fix: log($A)\n")
    base = {".reviewbot.yml": settings, "app.py": "def main(x):\n    print(x)\n"}
    head = {"app.py": "def main(x):\n    print(x)\n    print(x + 1)\n"}
    with open_pr(repo, tmp_path, monkeypatch, sleeps, base, head, {"app.py": {3}}) as (_, fake, _env):
        assert cli.main(["ci", "--repo", str(repo.path), "--fail-level", "error"]) == 0
        [comment] = fake.bot_comments()
        assert "no-print" in comment["body"] and "use log(x + 1)" in comment["body"]
        assert "```suggestion\n    log(x + 1)\n```" in comment["body"]
        assert comment["line"] == 3  # the preexisting print on line 2 is not commented


def published_once(fake: FakeGitHub) -> dict[str, Any]:
    """A fresh pull request's first publish: one review (F401 with its suggestion, F841), one
    summary and one failing check run on the head, which is returned."""
    bodies = [c["body"] for c in fake.bot_comments()]
    assert any("F401" in b and "```suggestion" in b for b in bodies)
    assert any("F841" in b for b in bodies)
    assert len(fake.s.reviews) == 1 and len(fake.summaries()) == 1
    [run] = fake.s.check_runs.values()
    assert run["conclusion"] == "failure" and run["head_sha"] == fake.s.head
    return dict(run)


def test_ci_publishes_then_changes_nothing(pr, tmp_path: Path,  # type: ignore[no-untyped-def]
                                           capsys: pytest.CaptureFixture[str]) -> None:
    repo, fake, env = pr
    sarif = tmp_path / "out.sarif"
    code = cli.main(["ci", "--repo", str(repo.path), "--fail-level", "info", "--sarif", str(sarif)])
    assert code == 1  # introduced findings at or above info
    run = published_once(fake)
    assert {a["annotation_level"] for a in run["annotations"]} <= {"failure", "warning", "notice"}
    assert "reviewbot" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    doc = json.loads(sarif.read_text())
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"]
    fake.reset_calls()
    assert cli.main(["ci", "--repo", str(repo.path), "--fail-level", "info"]) == 1
    writes = [(c.method, c.path) for c in fake.calls if c.write]
    assert writes == [("POST", "/repos/octo/demo/check-runs")]  # a check run per run, nothing else


def test_dry_run_needs_no_token_and_prints_valid_requests(  # type: ignore[no-untyped-def]
        pr, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    repo, fake, _ = pr
    monkeypatch.delenv("GITHUB_TOKEN")
    code = cli.main(["ci", "--repo", str(repo.path), "--dry-run", "--fail-level", "info"])
    out = capsys.readouterr().out
    doc = json.loads(out[out.index("{\n"):])
    assert code == 1 and doc["gate"]["failed"] is True
    methods = [(r["method"], r["path"]) for r in doc["requests"]]
    assert ("POST", "/repos/octo/demo/pulls/7/reviews") in methods
    assert ("POST", "/repos/octo/demo/issues/7/comments") in methods
    for request in doc["requests"]:
        if request["path"].startswith("/repos"):
            path = request["path"].replace("{check_run_id}", "1")
            body = json.dumps(request["body"]).encode()
            assert rest_errors(request["method"], path, {}, body,
                               {"Content-Type": "application/json"}) == []
    assert fake.calls == []  # nothing was sent


def test_read_only_token_falls_back_to_annotations(  # type: ignore[no-untyped-def]
        pr, capsys: pytest.CaptureFixture[str]) -> None:
    repo, fake, env = pr
    fake.faults += [Fault(r"POST /.*", "403", times=100), Fault(r"PATCH /.*", "403", times=100)]
    code = cli.main(["ci", "--repo", str(repo.path), "--fail-level", "info"])
    out = capsys.readouterr().out
    assert code == 1
    assert "::error file=app.py" in out or "::notice file=app.py" in out or "::warning file=app.py" in out
    assert "pull-requests: write" in out
    assert fake.bot_comments() == [] and "F401" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()


def test_moved_head_is_not_commented(pr, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    repo, fake, _ = pr
    fake.push("f" * 40, fake.s.diff)
    code = cli.main(["ci", "--repo", str(repo.path), "--fail-level", "info"])
    assert code == 1
    assert fake.bot_comments() == [] and fake.summaries() == []
    assert "head moved" in capsys.readouterr().out


def test_bad_input_exit_statuses(pr, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                 tmp_path: Path) -> None:
    repo, fake, env = pr
    monkeypatch.delenv("GITHUB_TOKEN")
    assert cli.main(["ci", "--repo", str(repo.path)]) == 2  # no token
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    assert cli.main(["ci", "--repo", str(repo.path)]) == 0  # nothing to do: one line, exit 0
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    payload = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text())
    payload["pull_request"]["state"] = "closed"
    closed = tmp_path / "closed.json"
    closed.write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(closed))
    assert cli.main(["ci", "--repo", str(repo.path)]) == 0
    payload["pull_request"]["state"] = "open"
    payload["pull_request"]["head"]["sha"] = "e" * 40  # not in the checkout, not fetchable
    closed.write_text(json.dumps(payload))
    assert cli.main(["ci", "--repo", str(repo.path)]) == 2
    assert fake.calls == []


def test_dry_run_has_no_side_effects_and_prints_only_json(  # type: ignore[no-untyped-def]
        pr, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, fake, env = pr
    code = cli.main(["ci", "--repo", str(repo.path), "--dry-run", "--fail-level", "info"])
    doc = json.loads(capsys.readouterr().out)  # the whole of stdout
    assert code == 1 and doc["gate"]["status"] == 1
    assert not Path(env["GITHUB_STEP_SUMMARY"]).exists()
    # With a token at hand it reads the pull request as it is, and writes nothing.
    assert fake.calls and not [c for c in fake.calls if c.write]


def test_closed_pull_request_says_so_on_stderr(  # type: ignore[no-untyped-def]
        pr, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, fake, env = pr
    payload = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text())
    payload["pull_request"]["state"] = "closed"
    closed = tmp_path / "closed.json"
    closed.write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(closed))
    assert cli.main(["ci", "--repo", str(repo.path), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "PR #7 is not open" in captured.err
    assert fake.calls == []


def test_a_linter_broken_by_the_change_fails_the_check(repo, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       sleeps: Sleeps) -> None:
    head = {"pyproject.toml": "[tool.ruff]\nline-length = 100\nno-such-key = 1\n", **HEAD}
    with open_pr(repo, tmp_path, monkeypatch, sleeps, BASE, head, {"app.py": set(range(1, 8))}) as (
            _, fake, env):
        assert cli.main(["ci", "--repo", str(repo.path)]) == 4
        [run] = fake.s.check_runs.values()
        assert run["conclusion"] == "failure"
        assert "not fully checked: ruff failed at the head" in run["output"]["title"]
        [summary] = fake.summaries()
        assert "could not be fully checked" in summary["body"]
        assert "ruff failed at the head" in summary["body"]
        assert "ruff failed at the head" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
