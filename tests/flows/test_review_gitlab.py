"""`reviewbot ci` in a GitLab merge request pipeline, end to end: a real origin repository, the
runner's shallow detached checkout of a merged-result commit, real ruff, the fake GitLab."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bot import cli
from tests.conftest import GitRepo
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegitlab import FakeGitLab, Fault

APP = "import sys\n\n\ndef main():\n    return sys.argv\n"
CHECK = 'def check(x, y):\n    if (x is\n            {rhs}):\n        return 1\n    return 0\n'
BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n", "app.py": APP,
        "check.py": CHECK.format(rhs="y")}
# An added `import os` (F401 on an added line), and `is` with a literal (F632), whose fix is on
# the unchanged line `if (x is`, one line lower than at the base: a thread with both lines.
HEAD = {"app.py": "import os\n" + APP, "check.py": "# checks\n" + CHECK.format(rhs='"a"')}
# Another line on top of check.py shifts F632 again, and `import os` is gone (F401 fixed).
PUSH = {"app.py": APP, "check.py": "# checks\n# more\n" + CHECK.format(rhs='"a"')}
SCHEMA = json.loads((Path(__file__).parents[1] / "forges" / "codequality.schema.json").read_text())


@dataclass
class Pipeline:
    origin: GitRepo
    fake: FakeGitLab
    env: dict[str, str]
    tmp: Path
    runs: int = 0

    def merged_result(self) -> str:
        """The merge commit a merged-result pipeline runs on, under refs/pipelines/N."""
        self.runs += 1
        self.origin.git("checkout", "-q", "--detach", "main")
        self.origin.git("merge", "-q", "--no-ff", "-m", "merged result", "feature")
        sha = self.origin.git("rev-parse", "HEAD")
        self.origin.git("update-ref", f"refs/pipelines/{self.runs}", sha)
        self.origin.checkout("feature")
        return sha

    def checkout(self) -> Path:
        """What the runner makes: a depth-1 fetch of the pipeline ref, detached, no branches."""
        sha = self.merged_result()
        clone = self.tmp / f"clone{self.runs}"
        clone.mkdir()
        for args in (["init", "-q"], ["remote", "add", "origin", str(self.origin.path)],
                     ["fetch", "-q", "--depth", "1", "origin",
                      f"+refs/pipelines/{self.runs}:refs/pipelines/{self.runs}"],
                     ["checkout", "-q", "--detach", sha]):
            subprocess.run(["git", *args], cwd=clone, check=True, capture_output=True)
        self.env.update(CI_COMMIT_SHA=sha, CI_PROJECT_DIR=str(clone),
                        CI_MERGE_REQUEST_DIFF_BASE_SHA=self.fake.version["base_commit_sha"],
                        CI_MERGE_REQUEST_SOURCE_BRANCH_SHA=self.fake.version["head_commit_sha"])
        return clone

    def run(self, *extra: str) -> int:
        return self.run_command("ci", *extra)

    def run_command(self, *argv: str) -> int:
        self.fake.calls.clear()
        return cli.main(list(argv))


def merge_request_env(fake: FakeGitLab, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A merge request pipeline's variables on the fake GitLab (none of GitHub's left set)."""
    for name in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return {"GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "merge_request_event",
            "CI_SERVER_URL": fake.root, "CI_API_V4_URL": fake.api_url, "CI_PROJECT_ID": "42",
            "CI_PROJECT_PATH": "group/demo", "CI_MERGE_REQUEST_IID": "3",
            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_JOB_TOKEN": "job-token",
            "REVIEWBOT_GITLAB_TOKEN": "glpat-bot", "CI_JOB_URL": f"{fake.root}/jobs/1"}


@pytest.fixture
def pipeline(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             sleeps: Sleeps) -> Iterator[Pipeline]:
    repo.commit(BASE, "base")
    repo.branch("feature")
    repo.commit(HEAD, "feature")
    with FakeGitLab(repo.path) as fake:
        env = merge_request_env(fake, monkeypatch)
        line = Pipeline(repo, fake, env, tmp_path)
        quick.gitlab(monkeypatch, sleeps, timeout=1.0)
        yield line
        assert fake.errors == []


def _environ(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in pipeline.env.items():
        monkeypatch.setenv(key, value)


def _lines(thread: dict[str, Any]) -> tuple[Any, Any]:
    pos = thread["notes"][0]["position"]
    return pos.get("old_line"), pos.get("new_line")


def test_open_push_and_retry(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch,
                             tmp_path: Path) -> None:
    fake = pipeline.fake
    clone = pipeline.checkout()
    assert (clone / ".git" / "shallow").exists()
    _environ(pipeline, monkeypatch)
    report = tmp_path / "gl-code-quality.json"
    assert pipeline.run("--code-quality", str(report)) == 1  # F401 and F841 are errors

    threads = sorted(fake.threads(), key=lambda t: t["notes"][0]["position"]["new_path"])
    assert [_lines(t) for t in threads] == [(None, 1), (2, 3)]
    assert [t["notes"][0]["position"]["old_path"] for t in threads] == ["app.py", "check.py"]
    assert "F401" in threads[0]["notes"][0]["body"] and "F632" in threads[1]["notes"][0]["body"]
    # the fix of `is` is on the commented line: a one-line GitLab suggestion
    assert "```suggestion:-0+0\n    if (x ==\n```" in threads[1]["notes"][0]["body"]
    [summary] = fake.summaries()
    assert [s["status"] for s in fake.statuses] == ["failed"]
    assert fake.statuses[0]["sha"] == fake.version["head_commit_sha"]  # not the merge commit
    assert len(fake.writes()) == 2 + 1 + 1  # two threads, the summary, the commit status
    first = json.loads(report.read_bytes())
    jsonschema.validate(first, SCHEMA)
    assert {i["check_name"] for i in first} == {"ruff/F401", "ruff/F632"}

    # A push: lines shift by two, `import os` is gone; someone answered its thread.
    fake.reply(threads[0]["id"], "/close is what I would do, but fine")
    pipeline.origin.commit(PUSH, "fix")
    fake.push()
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    assert pipeline.run("--code-quality", str(report)) == 1
    fixed, kept = threads
    assert fixed["notes"][0]["resolved"] and len(fixed["notes"]) == 2  # resolved, reply kept
    assert fixed in fake.discussions and not kept["notes"][0]["resolved"]
    assert len(fake.threads()) == 2  # the moved finding keeps its thread
    writes = fake.writes()
    assert [(c.method, c.path.rsplit("/", 2)[-2]) for c in writes] == [
        ("PUT", "discussions"), ("PUT", "notes"), ("POST", "statuses")]
    second = json.loads(report.read_bytes())
    jsonschema.validate(second, SCHEMA)
    [moved] = second
    assert moved["location"]["lines"]["begin"] == 4
    assert moved["fingerprint"] == next(i for i in first if i["check_name"] == "ruff/F632")["fingerprint"]

    # The same job again: nothing new, the summary and the status say the same: no write.
    assert pipeline.run() == 1
    assert fake.writes() == []
    assert fake.summaries() == [summary] and len(fake.threads()) == 2
    assert [s["status"] for s in fake.statuses] == ["failed", "failed"]


def test_no_token_or_the_job_token_is_exit_2(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    monkeypatch.delenv("REVIEWBOT_GITLAB_TOKEN")
    assert pipeline.run() == 2
    monkeypatch.setenv("GITLAB_TOKEN", "job-token")  # CI_JOB_TOKEN's value
    assert pipeline.run() == 2
    assert "CI_JOB_TOKEN" in capsys.readouterr().err
    monkeypatch.delenv("GITLAB_TOKEN")
    assert pipeline.run("--dry-run") == 2  # a dry run reads the merge request with the token
    assert "REVIEWBOT_GITLAB_TOKEN" in capsys.readouterr().err
    assert pipeline.fake.calls == []


def _dry_run(pipeline: Pipeline, capsys: pytest.CaptureFixture[str]) -> Any:
    capsys.readouterr()
    assert pipeline.run("--dry-run") == 1
    out = json.loads(capsys.readouterr().out)  # stdout is the JSON alone
    assert pipeline.fake.writes() == []
    assert out["gate"]["status"] == 1 and out["gate"]["failed"]
    return out["requests"]


def _sent(pipeline: Pipeline) -> list[dict[str, Any]]:
    """The writes the fake received, as a dry run names them (query and body in one)."""
    return [{"method": c.method, "path": c.path, "params": c.params}
            for c in pipeline.fake.writes()]


def _predicted(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"method": r["method"], "path": r["path"],
             "params": {**r.get("query", {}), **r.get("body", {})}} for r in requests]


def test_dry_run_prints_the_writes_the_review_then_sends(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake = pipeline.fake
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    first = _dry_run(pipeline, capsys)
    assert fake.discussions == [] and fake.statuses == []
    assert [(r["method"], r["path"].rsplit("/", 1)[-1]) for r in first] == [
        ("POST", "discussions"), ("POST", "discussions"), ("POST", "notes"),
        ("POST", fake.version["head_commit_sha"])]
    positions = sorted((r["body"]["position"] for r in first[:2]), key=lambda p: p["new_path"])
    assert [(p["new_path"], p.get("old_line"), p["new_line"]) for p in positions] == [
        ("app.py", None, 1), ("check.py", 2, 3)]
    assert all(p["head_sha"] == fake.version["head_commit_sha"] for p in positions)
    assert first[3]["body"]["state"] == "failed"
    assert pipeline.run() == 1
    assert _sent(pipeline) == _predicted(first)  # what the dry run said, exactly

    # A push fixes `import os` (its thread is resolved) and moves F632: edits, no new thread.
    pipeline.origin.commit(PUSH, "fix")
    fake.push()
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    second = _dry_run(pipeline, capsys)
    assert ("PUT", {"resolved": "true"}) in [(r["method"], r.get("query")) for r in second]
    assert not [r for r in second if r["path"].endswith("/discussions")]  # no new thread
    assert pipeline.run() == 1
    assert _sent(pipeline) == _predicted(second)
    assert _dry_run(pipeline, capsys) == []  # nothing left to write


def test_the_review_reads_the_discussions_once(pipeline: Pipeline,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    for _ in range(2):  # a first run, and one that finds its threads and summary in place
        assert pipeline.run() == 1
        reads = [c.path for c in pipeline.fake.calls
                 if c.method == "GET" and c.path.endswith("/discussions")]
        assert reads == ["/projects/42/merge_requests/3/discussions"]


def test_other_pipelines_exit_0_with_one_line(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _environ(pipeline, monkeypatch)
    monkeypatch.setenv("CI_PIPELINE_SOURCE", "push")
    assert pipeline.run() == 0
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "merge_request_event" in line and pipeline.fake.calls == []


def test_faults_leave_one_note_each(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch,
                                    sleeps: Sleeps) -> None:
    fake = pipeline.fake
    fake.faults += [Fault("POST /discussions$", "502-after"), Fault("POST /notes$", "429"),
                    Fault("GET /versions$", "timeout"), Fault("POST /statuses/", "502")]
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    assert pipeline.run() == 1
    assert len(fake.threads()) == 2 and len(fake.summaries()) == 1
    assert [s["status"] for s in fake.statuses] == ["failed"]
    assert 7.0 in sleeps  # Retry-After
    assert all(f.hit == 1 for f in fake.faults)


def test_a_quick_action_in_a_message_runs_nothing(repo: GitRepo, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  pipeline: Pipeline) -> None:
    rules = ("rules:\n  - id: no-print\n    language: python\n"
             "    message: \"use log($A)\\n/close\\n/label ~wontfix\"\n"
             "    rule: {pattern: print($A)}\n")
    pipeline.origin.commit({".reviewbot.yml": rules, "app.py": APP + "print(1)\n"}, "print")
    pipeline.fake.push()
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    pipeline.run()
    bodies = [n["body"] for d in pipeline.fake.discussions for n in d["notes"]]
    assert any("&#47;close" in b for b in bodies)  # the message did reach a note, defused
    # and the fake found no line GitLab would run (its errors are asserted empty)


def test_a_token_that_cannot_write_leaves_the_findings_in_the_job_log(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pipeline.fake.faults += [Fault("POST /discussions$", "403", times=9),
                             Fault("POST /statuses/", "403")]
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    assert pipeline.run() == 1  # the gate still decides
    out = capsys.readouterr().out
    assert "could not write to this merge request" in out and "REVIEWBOT_GITLAB_TOKEN" in out
    assert "app.py:1: error: ruff F401" in out and "::" not in out
    assert pipeline.fake.discussions == []


def test_a_line_gitlab_refuses_is_posted_on_the_file(pipeline: Pipeline,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    fake = pipeline.fake
    fake.faults.append(Fault("POST /discussions$", "line_code"))
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    assert pipeline.run() == 1
    kinds = sorted(t["notes"][0]["position"]["position_type"] for t in fake.threads())
    assert kinds == ["file", "text"]
    [moved] = [t["notes"][0] for t in fake.threads() if t["notes"][0]["position"]["position_type"] == "file"]
    assert "the forge refused line" in moved["body"] and "line_code" in moved["body"]


def _analyze_job(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The `analyze` job: no token in its environment, no request sent; its artifact."""
    out = tmp_path / "reviewbot-analysis.json"
    with monkeypatch.context() as job:
        job.delenv("REVIEWBOT_GITLAB_TOKEN")
        pipeline.fake.calls.clear()
        assert cli.main(["analyze", "--out", str(out)]) == 0
        assert pipeline.fake.calls == []  # analyze talks to no forge
    return out


def _split(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
           *extra: str) -> tuple[int, Path]:
    """The `analyze` job (no token in its environment), then the `publish` job in an empty
    folder (GIT_STRATEGY: none): the publish job's status and the artifact."""
    out = _analyze_job(pipeline, monkeypatch, tmp_path)
    empty = tmp_path / "publish-job"
    empty.mkdir(exist_ok=True)
    with monkeypatch.context() as job:
        job.chdir(empty)
        job.setenv("CI_PROJECT_DIR", str(empty))
        status = pipeline.run_command("publish", str(out), *extra)
    assert list(empty.iterdir()) == []
    return status, out


def _threads(fake: FakeGitLab) -> list[tuple[Any, str]]:
    return sorted((json.dumps(t["notes"][0]["position"], sort_keys=True), t["notes"][0]["body"])
                  for t in fake.threads())


def test_analyze_then_publish_posts_what_one_review_job_posts(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = pipeline.fake
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    status, out = _split(pipeline, monkeypatch, tmp_path)
    assert status == 1  # F401 and F841 are errors
    analysis = json.loads(out.read_text())
    assert (analysis["repository"], analysis["number"], analysis["head_sha"]) == (
        "group/demo", 3, fake.version["head_commit_sha"])  # the MR head, not the merged result
    split = _threads(fake)
    assert len(split) == 2 and len(fake.summaries()) == 1
    assert [s["status"] for s in fake.statuses] == ["failed"]
    reads = [c.path for c in fake.calls if c.method == "GET" and c.path.endswith("/discussions")]
    assert len(reads) == 1
    # The same again publishes nothing new: the threads are found in place.
    assert _split(pipeline, monkeypatch, tmp_path)[0] == 1
    assert fake.writes() == [] and len(fake.threads()) == 2

    fake.discussions.clear()
    assert pipeline.run() == 1  # one `reviewbot ci` job instead
    assert _threads(fake) == split


def test_publish_dry_run_prints_the_writes_publish_then_sends(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake = pipeline.fake
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    capsys.readouterr()
    status, _ = _split(pipeline, monkeypatch, tmp_path, "--dry-run")
    assert status == 1 and fake.writes() == [] and fake.calls  # it read, and wrote nothing
    predicted = json.loads(capsys.readouterr().out)["requests"]  # stdout is the JSON alone
    assert [r["path"].rsplit("/", 1)[-1] for r in predicted] == [
        "discussions", "discussions", "notes", fake.version["head_commit_sha"]]
    assert _split(pipeline, monkeypatch, tmp_path)[0] == 1
    assert _sent(pipeline) == _predicted(predicted)


def test_the_published_policy_is_the_default_branch_s(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = pipeline.fake
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    out = _analyze_job(pipeline, monkeypatch, tmp_path)
    # The job that ran the merge request's code says the gate is off: its word does not count.
    tampered = json.loads(out.read_text())
    tampered["result"]["policy"] = {"fail_level": "none", "tool_errors": "warn"}
    out.write_text(json.dumps(tampered))
    assert pipeline.run_command("publish", str(out)) == 1
    raws = [c for c in fake.calls if c.path.endswith("/raw")]  # from the default branch
    assert raws and all(c.params.get("ref") == "main" for c in raws)
    # The default branch's own settings do count.
    fake.discussions.clear()
    pipeline.origin.checkout("main")
    pipeline.origin.commit({".reviewbot.yml": "fail-level: none\n"}, "no gate")
    pipeline.origin.checkout("feature")
    assert pipeline.run_command("publish", str(out)) == 0


@pytest.mark.parametrize("field, value", [("number", 4), ("repository", "group/other"),
                                          ("head", "1" * 40)])
def test_an_artifact_of_another_pipeline_is_refused(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], field: str, value: Any) -> None:
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    out = _analyze_job(pipeline, monkeypatch, tmp_path)
    if field == "head":  # the artifact of an earlier pipeline of this merge request
        monkeypatch.setenv("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", value)
    else:
        tampered = json.loads(out.read_text())
        tampered[field] = value
        out.write_text(json.dumps(tampered))
    capsys.readouterr()
    assert pipeline.run_command("publish", str(out)) == 2
    assert "this pipeline" in capsys.readouterr().err
    assert pipeline.fake.writes() == [] and pipeline.fake.discussions == []


def test_analyze_warns_when_the_token_is_in_its_job(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    out = tmp_path / "reviewbot-analysis.json"
    assert cli.main(["analyze", "--out", str(out)]) == 0
    assert "REVIEWBOT_GITLAB_TOKEN is set in this job" in capsys.readouterr().err
    monkeypatch.delenv("REVIEWBOT_GITLAB_TOKEN")
    assert cli.main(["analyze", "--out", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert pipeline.fake.calls == []


def test_a_tampered_artifact_is_refused(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    out = _analyze_job(pipeline, monkeypatch, tmp_path)
    out.write_text(out.read_text().replace('"app.py"', '"../app.py"'))
    capsys.readouterr()
    assert pipeline.run_command("publish", str(out)) == 2
    assert "invalid analysis artifact" in capsys.readouterr().err
    assert pipeline.fake.calls == []  # refused before any request
