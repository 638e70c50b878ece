"""`reviewbot ci` in Bitbucket Pipelines, end to end (`tests/flows/bitbucketworld.py`): the
review of three runs, the Code Insights report and build status, comment commands started by
the relay's custom pipeline, the sweep and the dry run, each against the validating fake
Bitbucket."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.flows.bitbucketworld import BOT, FIXED, HUMAN, World, git, make_world
from tests.forges.loopback import Fault


@pytest.fixture
def world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    yield from make_world(repo, tmp_path, monkeypatch)


def test_three_runs_open_push_rerun(world: World) -> None:
    fake = world.fake
    # 1. opened: one inline comment per finding on the diff; the summary; the gate
    assert world.review() == 1
    assert {c["inline"]["to"] for c in world.ours("")} == {1, 7}
    assert all(c["visible"] for c in world.ours(""))
    assert "reviewbot:summary" in world.summary()
    assert world.status() == "FAILED"
    report = world.report()
    assert report["result"] == "FAILED" and report["report_type"] == "BUG"
    notes = fake.annotations[(fake.head_sha, "reviewbot")]
    assert sorted((a["path"], a["line"]) for a in notes) == [("app.py", 1), ("app.py", 7)]
    [f401] = world.ours("F401")
    reply = fake.reply(f401["id"], "Right, it goes in the next push.")

    # 2. a push: F401 fixed (its comment answered), F841 one line up
    new = world.push(FIXED)
    before = len(fake.writes())
    assert world.review() == 1
    [f401] = world.ours("F401")
    assert f"**Fixed** in `{new[:12]}`" in f401["raw"]
    assert f401["resolution"] is BOT
    assert len(world.ours("F841")) == 1  # not posted again at its new line
    assert reply in fake.comments and not reply["deleted"]  # the human's reply is kept
    assert world.status() == "FAILED" and f"`{new[:12]}`" in world.summary()
    assert [(a["path"], a["line"]) for a in fake.annotations[(new, "reviewbot")]] == [
        ("app.py", 6)]
    assert len(fake.writes()) > before

    # 3. the same pipeline again: nothing new is written
    writes = len(fake.writes())
    assert world.review() == 1
    assert len(fake.writes()) == writes
    # Bitbucket shows no raw HTML: every marker went as a link reference definition
    assert all("<!--" not in c["raw"] for c in fake.bot_comments())


def test_a_finding_that_returns_reopens_its_comment(world: World) -> None:
    assert world.review() == 1
    world.push(FIXED)
    assert world.review() == 1
    [f401] = world.ours("F401")
    assert "resolution" in f401
    world.push({"app.py": "import os\n" + FIXED["app.py"]})
    assert world.review() == 1
    [f401] = world.ours("F401")
    assert "resolution" not in f401 and "**Fixed**" not in f401["raw"]


def test_the_gate_passes_with_exit_0(world: World) -> None:
    world.push({"app.py": "import sys\n\n\ndef main():\n    return sys.argv\n"})
    assert world.review() == 0
    assert world.status() == "SUCCESSFUL" and world.report()["result"] == "PASSED"


def test_a_token_that_cannot_write_leaves_the_findings_in_the_log(
        world: World, capfd: pytest.CaptureFixture[str]) -> None:
    world.fake.faults.append(Fault(r"(POST|PUT) .*", "403", times=100))
    assert world.review() == 1
    assert world.fake.bot_comments() == [] and world.status() == ""
    out, err = capfd.readouterr()
    assert "app.py:1: error: ruff F401" in out + err
    assert "REVIEWBOT_BITBUCKET_TOKEN" in out + err  # how to enable the comments


def test_dry_run_prints_the_writes_and_sends_none(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert world.review("ci", "--dry-run") == 1
    assert world.fake.writes() == []
    printed = json.loads(capsys.readouterr().out)
    paths = [(r["method"], r["path"].removeprefix("/repositories/octo/demo"))
             for r in printed["requests"]]
    assert ("POST", "/pullrequests/1/comments") in paths
    assert ("PUT", f"/commit/{world.head}/reports/reviewbot") in paths
    assert ("POST", f"/commit/{world.head}/statuses/build") in paths


# -- commands ------------------------------------------------------------------------------

def admin_bot(world: World) -> None:
    """The token's account may read the others' permissions (Bitbucket: admin only)."""
    world.fake.permissions[BOT["account_id"]] = "admin"


def test_help_replies(world: World) -> None:
    admin_bot(world)
    assert world.comment("/help") == 0
    [reply] = world.replies()
    assert "/ignore FINGERPRINT REASON" in reply


def test_a_permission_that_cannot_be_read_stops_the_commands(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert world.comment("/fix") == 3  # the token has write, not admin: fail closed
    err = capsys.readouterr().err
    assert "could not be read" in err and "admin" in err
    assert world.replies() == [] and world.branch() == world.head


def test_someone_with_read_only_gets_one_reply(world: World) -> None:
    admin_bot(world)
    world.fake.permissions[HUMAN["account_id"]] = "read"
    assert world.comment("/fix") == 0
    [reply] = world.replies()
    assert "may run reviewbot commands; @alice has read" in reply
    assert world.branch() == world.head


def test_fix_commits_pushes_and_reviews_the_new_head(world: World) -> None:
    admin_bot(world)
    assert world.review() == 1
    assert world.comment("/fix") == 0
    new = world.branch()
    assert new != world.head and git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py").startswith("import sys\n")
    [reply] = world.replies()
    assert new in reply
    assert f"`{new[:12]}`" in world.summary()
    assert world.status() == "FAILED"  # F841 is no safe fix
    assert git(world.checkout, "status", "--porcelain") == ""


def test_a_head_that_moved_since_the_comment_refuses(world: World) -> None:
    admin_bot(world)
    written_at = world.branch()
    moved = world.push({"other.py": "x = 1\n"})
    assert world.comment("/fix", head=written_at) == 0
    [reply] = world.replies()
    assert f"moved to {moved[:12]} after the comment was written" in reply
    assert world.branch() == moved


def test_a_commands_pipeline_on_another_branch_is_refused(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    admin_bot(world)
    cid = world.fake.comment_by(HUMAN, "/fix")
    assert world.run({"BITBUCKET_BRANCH": "feature", "BITBUCKET_COMMIT": world.branch(),
                      "REVIEWBOT_PR_ID": "1", "REVIEWBOT_COMMENT_ID": str(cid),
                      "REVIEWBOT_HEAD": world.branch()}) == 2
    assert "runs on feature, not on main" in capsys.readouterr().err
    assert world.writes() == [] and world.branch() == world.head


def test_a_bots_comment_is_ignored(world: World) -> None:
    admin_bot(world)
    assert world.comment("/fix", BOT) == 0
    assert world.writes() == [] and world.branch() == world.head


def test_a_deleted_comment_does_nothing(world: World) -> None:
    admin_bot(world)
    world.fake.comment_by(HUMAN, "/fix")
    world.fake.comments[-1]["deleted"] = True
    world.cid = world.fake.comments[-1]["id"]
    code = world.run({"BITBUCKET_BRANCH": "main",
                      "BITBUCKET_COMMIT": git(world.origin, "rev-parse", "main"),
                      "REVIEWBOT_PR_ID": "1", "REVIEWBOT_COMMENT_ID": str(world.cid)})
    assert code == 0 and world.writes() == []


def test_ast_edit_then_apply_plan_commits_that_plan_alone(world: World) -> None:
    admin_bot(world)
    assert world.comment("/ast-edit print($A) => log($A)") == 0
    plan = world.summary().split("`plan ")[1].split("`")[0]
    # No labels on Bitbucket: the summary names the comment that commits this plan alone.
    assert f"To commit it as one commit on this branch, comment `/apply {plan}`." in \
        world.summary() and "label" not in world.summary().split("`plan ")[1]
    assert world.comment("/apply 0123456789ab") == 0  # another plan: nothing committed
    assert f"The summary shows plan `{plan}`, not plan `0123456789ab`" in world.replies()[-1]
    assert world.branch() == world.head
    assert world.comment("/apply not-a-plan") == 0
    assert "`not-a-plan` is not a plan's id" in world.replies()[-1]
    assert world.comment(f"/apply {plan}") == 0
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert "log(sys.argv)" in git(world.origin, "show", f"{new}:app.py")
    assert plan in git(world.origin, "log", "-1", "--format=%B", new)


# -- the sweep -----------------------------------------------------------------------------

def sweep_variables(world: World) -> dict[str, str]:
    return {"BITBUCKET_BRANCH": "main",
            "BITBUCKET_COMMIT": git(world.origin, "rev-parse", "main")}


def test_the_sweep_keeps_an_issue_where_the_tracker_is_on(world: World) -> None:
    assert world.run(sweep_variables(world)) == 0
    [issue] = world.fake.issues.values()
    assert "reviewbot" in issue["title"].lower() and "state=" in issue["raw"]
    writes = len(world.fake.writes())
    assert world.run(sweep_variables(world)) == 0  # no new commit: nothing written
    assert len(world.fake.writes()) == writes


def test_the_sweep_writes_a_report_where_there_is_no_tracker(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    world.fake.has_issues = False
    assert world.run(sweep_variables(world)) == 0
    main = git(world.origin, "rev-parse", "main")
    assert (f"octo/demo has no issue tracker: the sweep is kept in the Code Insights report "
            f"reviewbot-sweep on {main[:12]}") in capsys.readouterr().out
    report = world.fake.reports[(main, "reviewbot-sweep")]
    assert "state=" in report["details"] and world.fake.issues == {}
    writes = len(world.fake.writes())
    assert world.run(sweep_variables(world)) == 0  # found again on the branch: quiet
    assert len(world.fake.writes()) == writes


# -- the relay -----------------------------------------------------------------------------

def webhook(world: World, comment: int, body: str) -> dict[str, object]:
    """A `pullrequest:comment_created` payload, in the shape Bitbucket's event payloads give
    (actor, comment, pullrequest, repository)."""
    account = {"type": "user", **HUMAN}
    repo = {"type": "repository", "full_name": "octo/demo", "name": "demo"}
    side = {"branch": {"name": "feature"}, "commit": {"hash": world.branch()[:12]},
            "repository": repo}
    return {"actor": account, "repository": repo,
            "comment": {"id": comment, "content": {"raw": body, "markup": "markdown"},
                        "user": account, "deleted": False},
            "pullrequest": {"id": 1, "title": "A change", "state": "OPEN", "source": side,
                            "destination": {**side, "branch": {"name": "main"}}}}


def test_the_relay_starts_the_custom_pipeline_that_answers_the_comment(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    admin_bot(world)
    cid = world.fake.comment_by(HUMAN, "Thanks!\n/help")
    payload = world.tmp / "hook.json"
    payload.write_text(json.dumps(webhook(world, cid, "Thanks!\n/help")))
    assert world.run({}, "bitbucket-relay", str(payload)) == 0
    [started] = world.fake.pipelines
    target = started["sent"]["target"]
    assert (target["ref_name"], target["selector"]["pattern"]) == ("main", "reviewbot")
    variables = {v["key"]: v["value"] for v in started["sent"]["variables"]}
    assert variables == {"REVIEWBOT_PR_ID": "1", "REVIEWBOT_COMMENT_ID": str(cid),
                         "REVIEWBOT_HEAD": world.branch()[:12], "REVIEWBOT_COMMANDS": "/help"}
    # The pipeline it starts: on the default branch, with the relay's variables.
    assert world.run({"BITBUCKET_BRANCH": "main",
                      "BITBUCKET_COMMIT": git(world.origin, "rev-parse", "main"),
                      **variables}) == 0
    [reply] = world.replies()
    assert "/ignore FINGERPRINT REASON" in reply


def test_the_relay_starts_nothing_for_prose(world: World,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    payload = world.tmp / "hook.json"
    payload.write_text(json.dumps(webhook(world, 5, "Looks good to me")))
    assert world.run({}, "bitbucket-relay", str(payload)) == 0
    assert world.fake.calls == [] and "holds no command line" in capsys.readouterr().err


def test_the_relay_refuses_a_malformed_payload_naming_the_field(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    hook = webhook(world, 5, "/help")
    del hook["pullrequest"]["source"]["commit"]  # type: ignore[index, attr-defined]
    payload = world.tmp / "hook.json"
    payload.write_text(json.dumps(hook))
    assert world.run({}, "bitbucket-relay", str(payload)) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("`pullrequest.source.commit` is missing or not an object")
    assert world.fake.calls == []


def land_on_main(world: World, files: dict[str, str | bytes | None]) -> None:
    """A commit lands on the default branch, and the next pipeline's clone has it."""
    world.repo.git("checkout", "-q", "main")
    world.repo.commit(files, "landed")
    world.repo.git("push", "-q", str(world.origin), "main:main")
    git(world.checkout, "pull", "-q", "--ff-only", "origin", "main")


@pytest.mark.parametrize("tracker", [True, False])
def test_a_regression_that_lands_is_tracked_then_closed(world: World, tracker: bool) -> None:
    world.fake.has_issues = tracker
    assert world.run(sweep_variables(world)) == 0  # the baseline
    land_on_main(world, {"app.py": "import os\n" + str(world.fake._git("show", "main:app.py"))})
    main = git(world.origin, "rev-parse", "main")
    world.fake.merged_in[main] = [(9, HUMAN, "DECLINED"), (5, HUMAN, "MERGED")]
    assert world.run(sweep_variables(world)) == 0
    if tracker:
        [issue] = world.fake.issues.values()
        assert issue["state"] == "open" and "F401" in issue["raw"]
        assert "#5" in issue["raw"] and "#9" not in issue["raw"]  # the merged pull request
    else:
        report = world.fake.reports[(main, "reviewbot-sweep")]
        assert report["result"] == "FAILED" and "state=" in report["details"]
    land_on_main(world, {"app.py": str(world.fake._git("show", f"{main}~1:app.py"))})
    assert world.run(sweep_variables(world)) == 0
    if tracker:
        [issue] = world.fake.issues.values()
        assert issue["state"] == "resolved"
        [closing] = world.fake.issue_comments  # the note on the issue, not on a pull request
        assert closing["user"] is BOT and closing["issue"] == 1
    else:
        now = git(world.origin, "rev-parse", "main")
        assert world.fake.reports[(now, "reviewbot-sweep")]["result"] == "PASSED"
        assert world.fake.issue_comments == []
    assert world.fake.comments == []  # nothing written on any pull request


def test_a_sweeps_dry_run_writes_nothing(world: World) -> None:
    assert world.run(sweep_variables(world), "ci", "--dry-run") == 0
    assert world.fake.writes() == [] and world.fake.issues == {}
    assert any(c.path.endswith("/issues") for c in world.fake.calls)  # it did read


def test_a_tags_pipeline_needs_nothing(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert world.run({"BITBUCKET_TAG": "v1.0",
                      "BITBUCKET_COMMIT": git(world.origin, "rev-parse", "main")}) == 0
    err = capsys.readouterr().err.strip()
    assert err.startswith("reviewbot: nothing to do: a tag's pipeline") and "\n" not in err
    assert world.fake.calls == []


def test_a_comments_pipeline_refuses_a_dry_run(world: World,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    admin_bot(world)
    cid = world.fake.comment_by(HUMAN, "/fix")
    assert world.run({"BITBUCKET_BRANCH": "main",
                      "BITBUCKET_COMMIT": git(world.origin, "rev-parse", "main"),
                      "REVIEWBOT_PR_ID": "1", "REVIEWBOT_COMMENT_ID": str(cid),
                      "REVIEWBOT_HEAD": world.branch()}, "ci", "--dry-run") == 2
    assert "--dry-run works for reviews and sweeps" in capsys.readouterr().err
    assert world.fake.writes() == [] and world.branch() == world.head


def test_one_step_on_a_comment_without_the_token_says_so_and_stops(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """A misconfigured `reviewbot ci` for a comment: without the token the comment is not read,
    so who wrote it is unknown: one line, the missing token's status, nothing sent."""
    world.monkeypatch.delenv("REVIEWBOT_BITBUCKET_TOKEN")
    capsys.readouterr()
    assert world.comment("/fix") == 2
    err = capsys.readouterr().err
    [said] = [line for line in err.splitlines() if "token" in line]
    assert "no Bitbucket token: comment" in said and "ignored" not in err
    assert world.fake.calls == [] and world.branch() == world.head
