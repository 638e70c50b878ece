"""The fork-safe pair end to end: `analyze` in the pull request's checkout with no token, then
`publish` in an empty folder against the validating fake GitHub, as `workflow_run` runs it."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import github_actions
from bot.conversation.state import Conversation, Ignored, Staged, read, section
from bot.run import artifact
from tests.ci.test_github_actions import examples
from tests.flows.test_review import BASE, HEAD, open_pr, published_once
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FakeGitHub

DIFF = {"app.py": set(range(1, 8))}


@pytest.fixture
def split(repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
          sleeps: Sleeps) -> Iterator[tuple[Any, FakeGitHub, dict[str, str], Path]]:
    """An open pull request, its analysis (written by `analyze`), and publish's forge."""
    with open_pr(repo, tmp_path, monkeypatch, sleeps, BASE, HEAD, DIFF) as (repo, fake, env):
        quick.github(monkeypatch, sleeps, fake)
        out = tmp_path / "analysis.json"
        analyze(repo, out, monkeypatch, fake)
        yield repo, fake, env, out


def analyze(repo: Any, out: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeGitHub) -> None:
    """The unprivileged half: no token anywhere in its environment, and no request sent."""
    with monkeypatch.context() as m:
        m.delenv("GITHUB_TOKEN")
        before = len(fake.calls)
        assert cli.main(["analyze", "--repo", str(repo.path), "--out", str(out)]) == 0
        assert len(fake.calls) == before


def workflow_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, head: str) -> None:
    """The privileged half's environment: a workflow_run event naming the analysed head."""
    payload = copy.deepcopy(examples()["workflow_run"][0])
    payload["workflow_run"].update(head_sha=head, pull_requests=[])  # empty for forks
    event = tmp_path / "workflow_run.json"
    event.write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "workflow_run")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))


def push_the_fix(split: tuple[Any, FakeGitHub, dict[str, str], Path], tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A push that fixes the unused variable, analysed, then the workflow_run that follows."""
    repo, fake, env, out = split
    head2 = repo.commit({"app.py": "import os\nimport sys\n\n\ndef main():\n    return sys.argv\n"})
    fake.push(head2, {"app.py": set(range(1, 7))})
    payload = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text())
    payload["pull_request"]["head"]["sha"] = head2
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps(payload))
    with monkeypatch.context() as m:
        m.setenv("GITHUB_EVENT_NAME", "pull_request")
        m.setenv("GITHUB_EVENT_PATH", env["GITHUB_EVENT_PATH"])
        analyze(repo, out, monkeypatch, fake)
    workflow_run(tmp_path, monkeypatch, head2)


def in_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = tmp_path / "publish-here"
    empty.mkdir()
    monkeypatch.chdir(empty)
    return empty


def test_three_runs_in_split_mode(split, tmp_path: Path,  # type: ignore[no-untyped-def]
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _, fake, _, out = split
    doc = json.loads(out.read_text())
    assert doc["kind"] == "reviewbot-analysis" and doc["number"] == 7
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    empty = in_empty_folder(tmp_path, monkeypatch)
    sarif = empty / "out.sarif"

    # 1: a fresh pull request gets one review, the summary and a check run.
    assert cli.main(["publish", str(out), "--fail-level", "info", "--sarif", str(sarif)]) == 1
    assert sorted(p.name for p in empty.iterdir()) == ["out.sarif"]
    published_once(fake)

    # 2: the same analysis again changes nothing but a new check run.
    fake.reset_calls()
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1
    assert [(c.method, c.path) for c in fake.calls if c.write] == [
        ("POST", "/repos/octo/demo/check-runs")]

    # 3: a push that fixes the unused variable: its thread is resolved, nothing is re-posted.
    push_the_fix(split, tmp_path, monkeypatch)
    fake.reset_calls()
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1
    f841 = next(c for c in fake.bot_comments() if "F841" in c["body"])
    assert fake.s.threads[f841["id"]]["resolved"] is True  # fixed: resolved, not deleted
    assert len(fake.s.reviews) == 1  # the F401 comment was already there


def _writes(fake: FakeGitHub) -> list[tuple[str, str, Any]]:
    """The writes the fake received, as a dry run names them (a new check run's id unknown)."""
    out = []
    for call in (c for c in fake.calls if c.write):
        path = "/graphql" if call.graphql else call.path
        body = {"query": call.body["query"], "variables": call.body["variables"]} if call.graphql \
            else call.body
        out.append((call.method, path, body))
    return out


def _dry_run(out: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> Any:
    fake.reset_calls()
    capsys.readouterr()
    assert cli.main(["publish", str(out), "--fail-level", "info", "--dry-run"]) == 1
    doc = json.loads(capsys.readouterr().out)  # the whole of stdout
    assert doc["gate"]["status"] == 1 and fake.calls and _writes(fake) == []  # reads only
    return [(r["method"], r["path"], r["body"]) for r in doc["requests"]]


def test_dry_run_prints_the_writes_publish_then_sends(split, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    _, fake, _, out = split
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    empty = in_empty_folder(tmp_path, monkeypatch)
    first = _dry_run(out, fake, capsys)
    assert [(m, p) for m, p, _ in first] == [
        ("POST", "/repos/octo/demo/pulls/7/reviews"), ("POST", "/repos/octo/demo/issues/7/comments"),
        ("POST", "/repos/octo/demo/check-runs")]
    assert list(empty.iterdir()) == [] and fake.bot_comments() == []
    fake.reset_calls()
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1
    assert [(m, p) for m, p, _ in _writes(fake)] == [(m, p) for m, p, _ in first]
    assert [b for _, p, b in _writes(fake) if "check-runs" not in p] == [
        b for _, p, b in first if "check-runs" not in p]  # a check run's marker is new each run

    # A push that fixes the unused variable: the dry run reads the threads and the summary.
    push_the_fix(split, tmp_path, monkeypatch)
    second = _dry_run(out, fake, capsys)
    summary_id = fake.summaries()[0]["id"]
    assert [p for _, p, _ in second] == ["/graphql", f"/repos/octo/demo/issues/comments/{summary_id}",
                                         "/repos/octo/demo/check-runs"]
    fake.reset_calls()
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1
    sent = _writes(fake)
    assert [(m, p) for m, p, _ in sent] == [(m, p) for m, p, _ in second]
    assert sent[:2] == second[:2]


def test_publish_posts_exactly_what_ci_posts(repo, tmp_path: Path,  # type: ignore[no-untyped-def]
                                             monkeypatch: pytest.MonkeyPatch,
                                             sleeps: Sleeps) -> None:
    with open_pr(repo, tmp_path, monkeypatch, sleeps, BASE, HEAD, DIFF) as (repo, fake, _env):
        assert cli.main(["ci", "--repo", str(repo.path), "--fail-level", "info"]) == 1
        by_ci = sorted(c["body"] for c in fake.bot_comments())
        summary_ci = fake.summaries()[0]["body"]
        out = tmp_path / "analysis.json"
        analyze(repo, out, monkeypatch, fake)
    with FakeGitHub(fake.s.head, DIFF, base=fake.base) as other:
        quick.github(monkeypatch, sleeps, other)
        monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
        monkeypatch.setattr(github_actions, "clone_url", lambda env, repository: str(repo.path))
        workflow_run(tmp_path, monkeypatch, fake.s.head)
        in_empty_folder(tmp_path, monkeypatch)
        assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1
        assert sorted(c["body"] for c in other.bot_comments()) == by_ci
        # The same page, the staged plan included: publish computes it from git objects.
        assert "### Staged changes" in summary_ci
        assert other.summaries()[0]["body"] == summary_ci
        assert other.errors == []


def test_a_plan_publish_cannot_check_is_not_offered(  # type: ignore[no-untyped-def]
        split, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, fake, _, out = split
    monkeypatch.setattr(github_actions, "clone_url",
                        lambda env, repository: str(tmp_path / "no-such-repository"))
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1  # the review is posted
    [summary] = fake.summaries()
    assert "The staged plan could not be checked here" in summary["body"]
    assert "`plan " not in summary["body"] and read(summary["body"]).shown is None


def test_a_line_outside_the_pull_requests_diff_goes_to_the_summary(  # type: ignore[no-untyped-def]
        split, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, fake, _, out = split
    fake.push(fake.s.head, {"app.py": {1, 2}})  # GitHub shows fewer lines than the local diff
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1
    inline = {c["line"]: c["body"] for c in fake.bot_comments() if c.get("line")}
    assert set(inline) == {1} and "F401" in inline[1]
    # Line 6 is in the local diff but not in GitHub's: a comment on the file, as ci places a
    # finding outside the diff, never a line GitHub would refuse.
    [on_file] = [c for c in fake.bot_comments() if not c.get("line")]
    assert "F841" in on_file["body"] and on_file["subject_type"] == "file"
    assert fake.errors == [] and not any(c.status == 422 for c in fake.calls)


def test_a_head_that_moved_posts_nothing_inline(  # type: ignore[no-untyped-def]
        split, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, fake, _, out = split
    analysed = fake.s.head
    fake.push("f" * 40, fake.s.diff)
    workflow_run(tmp_path, monkeypatch, analysed)
    in_empty_folder(tmp_path, monkeypatch)
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 0
    assert fake.bot_comments() == [] and fake.summaries() == []
    assert "head moved" in capsys.readouterr().out


def review_part(summary: str) -> str:
    """A summary page without the conversation's section (the staged plan, its marker)."""
    return summary.split("\n\n### Staged changes")[0].split("\n\n<!-- reviewbot:state")[0]


def test_the_conversation_on_the_summary_survives_a_publish(  # type: ignore[no-untyped-def]
        split, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, fake, _, out = split
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1
    [summary] = fake.summaries()
    f841 = next(v for v in artifact.load(out.read_bytes()).result.findings if v.finding.rule == "F841")
    ignored = Conversation(ignored=(Ignored(f841.fingerprint, "ada", "a test fixture"),),
                           staged=(Staged("print($A)", "log($A)", None, "wes"),))
    summary["body"] += "\n\n" + section(ignored)  # as a command run left it
    assert cli.main(["publish", str(out), "--fail-level", "info"]) == 1  # F401 still fails
    [summary] = fake.summaries()
    assert read(summary["body"]).ignored == ignored.ignored
    assert read(summary["body"]).staged == ignored.staged
    assert "ignored by @ada: a test fixture" in summary["body"]
    f841_comment = next(c for c in fake.bot_comments() if "F841" in c["body"])
    assert fake.s.threads[f841_comment["id"]]["resolved"] is True  # ignored: no longer open


def tampered(out: Path, change: Any) -> bytes:
    doc = json.loads(out.read_text())
    change(doc)
    return json.dumps(doc).encode()


@pytest.mark.parametrize(("change", "says"), [
    (lambda d: d["result"]["findings"][0].update(path="../victim.py"), "../victim.py"),
    (lambda d: d["result"]["findings"][0].update(path="/etc/passwd"), "/etc/passwd"),
    (lambda d: d.update(kind="something-else"), "kind"),
    (lambda d: d.update(version=2), "version"),
    (lambda d: d.update(head_sha="HEAD"), "head_sha"),
])
def test_tampered_artifacts_are_refused(split, tmp_path: Path,  # type: ignore[no-untyped-def]
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str],
                                        change: Any, says: str) -> None:
    _, fake, _, out = split
    bad = tmp_path / "bad.json"
    bad.write_bytes(tampered(out, change))
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    fake.reset_calls()
    capsys.readouterr()
    assert cli.main(["publish", str(bad)]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and err.count("\n") == 1
    assert fake.calls == []


def test_bad_files_are_refused_before_any_request(split, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _, fake, _, out = split
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    fake.reset_calls()
    not_json = tmp_path / "not.json"
    not_json.write_text("{nope")
    capsys.readouterr()
    assert cli.main(["publish", str(not_json)]) == 2
    assert "JSON" in capsys.readouterr().err
    size = out.stat().st_size
    assert cli.main(["publish", str(out), "--max-bytes", str(size - 1)]) == 2
    assert f"{size} bytes, over the cap of {size - 1}" in capsys.readouterr().err
    assert cli.main(["publish", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    workflow_run(tmp_path, monkeypatch, "e" * 40)  # the artifact is not of the triggering run
    assert cli.main(["publish", str(out)]) == 2
    assert "the workflow run that triggered this one analysed eeeeeeeeeeee" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/else")
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    assert cli.main(["publish", str(out)]) == 2
    assert "publishes to someone/else" in capsys.readouterr().err
    assert fake.calls == []


def test_shards_publish_as_one_review(split, tmp_path: Path,  # type: ignore[no-untyped-def]
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _, fake, _, out = split
    whole = artifact.load(out.read_bytes())
    halves = []
    for index, rules in enumerate(({"F401"}, {"F841"})):
        part = replace(whole.result, findings=tuple(v for v in whole.result.findings
                                                    if v.finding.rule in rules))
        path = tmp_path / f"part{index}.json"
        path.write_bytes(artifact.dump(replace(whole, result=part)))
        halves.append(str(path))
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)
    assert cli.main(["publish", *halves, "--fail-level", "info"]) == 1
    rules = sorted(b for c in fake.bot_comments() for b in ("F401", "F841") if b in c["body"])
    assert rules == ["F401", "F841"] and len(fake.s.reviews) == 1


def test_the_gate_policy_is_the_default_branchs_not_the_artifacts(  # type: ignore[no-untyped-def]
        split, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, fake, _, out = split
    lenient = tmp_path / "lenient.json"  # what a pull request's own job could write
    lenient.write_bytes(tampered(out, lambda d: d["result"].update(
        policy={"fail_level": "none", "tool_errors": "warn"})))
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)
    assert cli.main(["publish", str(lenient)]) == 1  # the defaults: errors fail
    fake.s.files[("main", ".reviewbot.yml")] = "fail-level: none\n"
    assert cli.main(["publish", str(lenient)]) == 0  # the repository's own word
    fake.s.files[("main", ".reviewbot.yml")] = "fail-level: bogus\n"
    assert cli.main(["publish", str(lenient)]) == 2
