"""The rewrite offers of `.reviewbot.yml` rules through the fork-safe pair: the review and
summary `reviewbot publish` posts from `reviewbot analyze`'s artifact are the ones `reviewbot
ci` posts for the same change, the staged plan included; publish re-derives every rule's fix
from the head's git objects and offers nothing it could not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import github_actions
from bot.conversation.state import MARKER, Conversation, Ignored, section
from bot.run import artifact
from tests.conftest import GitRepo
from tests.flows.test_publish import analyze, in_empty_folder, workflow_run
from tests.flows.test_review import open_pr
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FakeGitHub

RULES = ("rules:\n  - id: no-print\n    language: python\n    message: use log($A)\n"
         "    rule: {pattern: print($A)}\n    fix: log($A)\n")
BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n", ".reviewbot.yml": RULES,
        "app.py": "def main(x):\n    print(x)\n"}
HEAD = {"app.py": "import os\n\n\ndef main(x):\n    print(x)\n    print(x + 1)\n"}
DIFF = {"app.py": {1, 6}}


def one_job(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps,
            out: Path) -> tuple[list[str], str, str]:
    """`ci` on the change, then `analyze` of the same change: (comments, summary, head)."""
    with open_pr(repo, tmp_path, monkeypatch, sleeps, BASE, HEAD, DIFF) as (_, fake, _env):
        assert cli.main(["ci", "--repo", str(repo.path)]) == 1  # F401 fails the gate
        bodies = sorted(c["body"] for c in fake.bot_comments())
        [summary] = fake.summaries()
        analyze(repo, out, monkeypatch, fake)
        return bodies, summary["body"], fake.s.head


def publish_job(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                sleeps: Sleeps, head: str, art: Path) -> FakeGitHub:
    """`publish` of `art` on a fresh pull request, git to the repository as data."""
    fake = FakeGitHub(head, DIFF, base=repo.git("merge-base", "main", head).strip())
    fake.__enter__()
    quick.github(monkeypatch, sleeps, fake)
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setattr(github_actions, "clone_url", lambda env, repository: str(repo.path))
    workflow_run(tmp_path, monkeypatch, head)
    empty = in_empty_folder(tmp_path, monkeypatch)
    assert cli.main(["publish", str(art)]) == 1
    assert list(empty.iterdir()) == []
    return fake


@pytest.fixture
def offered(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            sleeps: Sleeps) -> tuple[list[str], str, str, Path]:
    art = tmp_path / "analysis.json"
    return (*one_job(repo, tmp_path, monkeypatch, sleeps, art), art)


def test_publish_offers_the_rules_rewrites_as_one_job_does(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps,
        offered: tuple[list[str], str, str, Path]) -> None:
    bodies, summary, head, art = offered
    assert "`plan " in summary and "ast-grep rule no-print: 1 edit" in summary
    assert "`reviewbot:apply`" in summary and "`/apply`" in summary
    fake = publish_job(repo, tmp_path, monkeypatch, sleeps, head, art)
    try:
        assert sorted(c["body"] for c in fake.bot_comments()) == bodies
        [published] = fake.summaries()
        assert published["body"] == summary
        assert fake.errors == []
    finally:
        fake.__exit__(None, None, None)


def tampered_fix(art: Path, new_text: str) -> None:
    doc: dict[str, Any] = json.loads(art.read_text())
    for verdict in doc["result"]["findings"]:
        if verdict["tool"] == "ast-grep" and verdict["fix"]:
            verdict["fix"]["edits"][0]["new_text"] = new_text
    art.write_text(json.dumps(doc))


def test_a_rule_fix_the_head_s_rule_does_not_give_is_never_offered(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps,
        offered: tuple[list[str], str, str, Path]) -> None:
    """The artifact is the word of a job that ran the pull request's code: a fix it names is
    offered only when the head's own rule, run here over git objects, gives the same edit."""
    _, _, head, art = offered
    tampered_fix(art, "__import__('os').system('id')")
    fake = publish_job(repo, tmp_path, monkeypatch, sleeps, head, art)
    try:
        [published] = fake.summaries()
        body = published["body"]
        assert "system" not in body and "system" not in json.dumps(fake.bot_comments())
        assert "ast-grep rule no-print" not in body.split("### Staged")[1]
        assert "not what the rule no-print gives at the head" in body
    finally:
        fake.__exit__(None, None, None)


def test_the_plan_is_cut_to_the_change_the_forge_names_not_to_the_artifact_s(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps) -> None:
    """An analysis that claims an older base (its job ran the pull request's code) would make
    a file the change never touched look changed: the plan covers what git says changed
    between the forge's base and the head, whatever base the artifact names."""
    older = repo.commit(BASE, "before other.py")
    art = tmp_path / "analysis.json"
    other = {"other.py": "def f(y):\n    print(y)\n"}
    with open_pr(repo, tmp_path, monkeypatch, sleeps, other, HEAD, DIFF) as (_, fake, env):
        event = Path(env["GITHUB_EVENT_PATH"])
        payload = json.loads(event.read_text())
        payload["pull_request"]["base"]["sha"] = older  # what the analyzing job claims
        event.write_text(json.dumps(payload))
        analyze(repo, art, monkeypatch, fake)
        head = fake.s.head
    assert json.loads(art.read_text())["base_sha"] == older
    fake = publish_job(repo, tmp_path, monkeypatch, sleeps, head, art)
    try:
        [published] = fake.summaries()
        assert "- `app.py`: 2" in published["body"]  # the change's own fixes are offered
        assert "- `other.py`" not in published["body"]
    finally:
        fake.__exit__(None, None, None)


def test_an_ignored_finding_s_fix_gives_no_false_not_offered_note(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps,
        offered: tuple[list[str], str, str, Path]) -> None:
    """The analysis's plan is of every fix (it cannot read the conversation): publish checks
    it against the plan of the same findings, and only then leaves the ignored ones out."""
    _, _, head, art = offered
    fixes = [v for v in artifact.load(art.read_bytes()).result.findings
             if v.finding.tool == "ast-grep" and v.finding.fix]
    fake = publish_job(repo, tmp_path, monkeypatch, sleeps, head, art)
    try:
        [summary] = fake.summaries()
        assert "Not offered" not in summary["body"]
        ignored = Conversation(ignored=tuple(Ignored(v.fingerprint, "ada", "on purpose")
                                             for v in fixes))
        summary["body"] = MARKER.sub(lambda _: section(ignored), summary["body"])  # /ignore's
        assert cli.main(["publish", str(art)]) == 1  # F401 still fails the gate
        [summary] = fake.summaries()
        assert "ignored by @ada: on purpose" in summary["body"]
        assert "ast-grep rule no-print" not in summary["body"]  # left out of the plan
        assert "Not offered" not in summary["body"] and "the analysis offered plan" not in \
            summary["body"]
        assert fake.errors == []
    finally:
        fake.__exit__(None, None, None)
