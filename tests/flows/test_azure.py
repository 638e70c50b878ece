"""`reviewbot ci` in Azure Pipelines, end to end (`tests/flows/azureworld.py`): the review of
three runs, slash commands through a service hook's run, the fork-safe analyze/publish pair
and the dry run, each against the validating fake Azure DevOps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.render.markdown import parse_marker
from tests.conftest import GitRepo
from tests.flows.azureworld import HUMAN, REX, World, git, make_world

FIXED = {"app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                   "    return sys.argv\n"}  # F401 gone, F841 one line up
PUSHED = "2026-01-02T11:00:00Z"


@pytest.fixture
def world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    yield from make_world(repo, tmp_path, monkeypatch)


def ours(world: World, rule: str) -> list[dict[str, object]]:
    return [t for t in world.fake.ours() if rule in str(t["comments"][0]["content"])]


def test_three_runs_open_push_rerun(world: World) -> None:
    fake = world.fake
    # 1. the first run: one thread per finding on its lines, the summary, the gate's status
    assert world.review() == 1
    assert world.status() == "failed"
    [f401], [f841] = ours(world, "F401"), ours(world, "F841")
    assert f401["threadContext"]["rightFileStart"] == {"line": 1, "offset": 1}
    assert f841["threadContext"]["rightFileStart"]["line"] == 7
    assert f401["threadContext"]["filePath"] == "/app.py"
    # The fix as a suggestion block, which replaces the thread's lines (here: deletes line 1).
    assert "```suggestion\n```" in str(f401["comments"][0]["content"])
    assert f401["threadContext"]["rightFileEnd"] == {"line": 1, "offset": 10}
    assert f401["pullRequestThreadContext"]["iterationContext"]["secondComparingIteration"] == 1
    assert "reviewbot:summary" in world.summary()
    [status] = fake.statuses
    assert status["context"] == {"name": "reviewbot", "genre": "reviewbot"}
    reply = fake.reply(int(f401["id"]), "Right, it goes in the next push.")

    # 2. a push: F401 fixed (its thread answered), F841 one line up
    new = world.push(FIXED, PUSHED)
    before = len(fake.writes())
    assert world.review() == 1
    [f401] = ours(world, "F401")
    assert f401["status"] == "fixed"
    assert f"**Fixed** in `{new[:12]}`" in str(f401["comments"][0]["content"])
    assert reply in f401["comments"]  # the human's reply is kept
    assert len(ours(world, "F841")) == 1  # not posted again at its new line
    assert world.status() == "failed" and f"`{new[:12]}`" in world.summary()
    assert len(fake.writes()) > before

    # 3. the same run again: nothing new is written
    writes = len(fake.writes())
    assert world.review() == 1
    assert len(fake.writes()) == writes
    assert len(fake.summaries()) == 1


def test_the_gate_passes_with_exit_0(world: World) -> None:
    world.push({"app.py": "import sys\n\n\ndef main():\n    return sys.argv\n"}, PUSHED)
    assert world.review() == 0
    assert world.status() == "succeeded"


def test_help_from_a_maintainer_is_answered_in_a_thread(world: World) -> None:
    assert world.command("/help") == 0
    [reply] = world.fake.replies()
    assert "/ignore FINGERPRINT REASON" in reply


def test_ignore_updates_the_summary_and_later_runs(world: World) -> None:
    assert world.review() == 1
    [f841] = ours(world, "F841")
    marker = parse_marker(str(f841["comments"][0]["content"]))
    assert marker is not None
    assert world.command(f"/ignore {marker.fingerprint} kept for the debugger") == 0
    # The unique name is escaped as any text is (no second `@` mention).
    assert "ignored by @alice@\u200bocto.test: kept for the debugger" in world.summary()
    threads = len(world.fake.ours())
    assert world.review() == 1  # F401 still fails the gate
    assert len(world.fake.ours()) == threads
    assert "ignored by" in world.summary()


def test_who_is_no_named_maintainer_changes_nothing(world: World) -> None:
    """A required reviewer who approved is not a maintainer by that: Azure DevOps lets anyone
    add a required reviewer."""
    assert world.review() == 1
    head = world.branch()
    writes = len(world.fake.writes())
    assert world.command("/fix", REX) == 0
    assert world.branch() == head
    [reply] = world.fake.replies()
    assert "run reviewbot commands" in reply
    assert len(world.fake.writes()) == writes + 2  # the relay's run and one reply


def test_the_bots_own_comments_start_nothing(world: World) -> None:
    """The relay starts no run for the pipeline's identity; a run queued for one anyway is
    ignored without a request."""
    from tests.flows.azureworld import BOT

    assert world.command("/fix", BOT) == -1 and world.fake.runs == []
    thread, comment = world.fake.command("/fix", BOT)
    calls = len(world.fake.calls)
    assert world.queued({"REVIEWBOT_PULL_REQUEST": "1", "REVIEWBOT_THREAD": str(thread),
                         "REVIEWBOT_COMMENT": str(comment)}, "refs/heads/main") == 0
    assert world.fake.writes() == [] and len(world.fake.calls) == calls + 2  # read, nothing else


def test_a_comment_without_a_command_line_starts_no_run(world: World) -> None:
    assert world.command("Looks good to me") == -1 and world.fake.runs == []


def test_fix_commits_pushes_and_says_so(world: World) -> None:
    assert world.review() == 1
    assert world.command("/fix") == 0
    new = world.branch()
    assert new != world.head and git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py").startswith("import sys\n")
    assert "alice@octo.test" in git(world.origin, "log", "-1", "--format=%B", new)
    assert new in world.fake.replies()[-1]


def test_a_head_pushed_after_the_comment_refuses(world: World) -> None:
    assert world.review() == 1
    # The comment is older than the push that made the head.
    assert world.command("/fix", at="2026-01-02T09:00:00Z") == 0
    assert world.branch() == world.head
    assert "moved to" in world.fake.replies()[-1]


def test_a_thread_on_another_pull_request_is_refused(world: World) -> None:
    assert world.run("ci", "--repo", str(world.checkout), BUILD_REASON="Manual",
                     BUILD_SOURCEBRANCH="refs/heads/main", REVIEWBOT_PULL_REQUEST="1",
                     REVIEWBOT_THREAD="999", REVIEWBOT_COMMENT="1") == 2


def test_a_command_run_of_another_branch_is_refused(world: World) -> None:
    """Whoever may queue the pipeline may run it on a branch whose YAML names them a
    maintainer: only the default branch's run acts on commands."""
    thread, comment = world.fake.command("/fix")
    assert world.queued({"REVIEWBOT_PULL_REQUEST": "1", "REVIEWBOT_THREAD": str(thread),
                         "REVIEWBOT_COMMENT": str(comment)}, "refs/heads/feature") == 2
    assert world.branch() == world.head and world.fake.replies() == []


def analyze(world: World, out: Path) -> None:
    git(world.checkout, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
    git(world.checkout, "checkout", "-q", "--detach", world.fake.head_sha)
    world.monkeypatch.delenv("SYSTEM_ACCESSTOKEN")  # not mapped into the analyze job
    world.monkeypatch.setenv("SYSTEM_PULLREQUEST_SOURCECOMMITID", world.fake.head_sha)
    calls = len(world.fake.calls)
    assert world.run("analyze", "--repo", str(world.checkout), "--out", str(out)) == 0
    assert len(world.fake.calls) == calls  # the job that ran the linters sent nothing


def test_analyze_then_publish_posts_what_ci_posts(repo: GitRepo, tmp_path: Path,
                                                  world: World,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert world.review() == 1
    shown = [str(t["comments"][0]["content"]) for t in world.fake.ours()]
    summary_ci = world.summary()
    out = world.tmp / "analysis.json"
    for split in make_world(GitRepo(tmp_path / "split"), tmp_path / "split-run", monkeypatch):
        analyze(split, out)
        split.monkeypatch.setenv("SYSTEM_ACCESSTOKEN", "bot-token")
        empty = split.tmp / "publish-here"
        empty.mkdir()
        split.monkeypatch.chdir(empty)
        assert split.run("publish", str(out)) == 1
        assert [str(t["comments"][0]["content"]) for t in split.fake.ours()] == shown
        assert split.summary().split("### Staged")[0] == summary_ci.split("### Staged")[0]
        assert split.status() == "failed"


def test_publish_refuses_the_artifact_of_another_head(world: World) -> None:
    out = world.tmp / "analysis.json"
    analyze(world, out)
    moved = world.push({"other.py": "x = 1\n"}, PUSHED)
    world.monkeypatch.setenv("SYSTEM_ACCESSTOKEN", "bot-token")
    world.fake.calls.clear()
    assert world.run("publish", str(out), SYSTEM_PULLREQUEST_SOURCECOMMITID=moved) == 2
    assert world.fake.calls == []


def test_dry_run_prints_the_requests_and_writes_nothing(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    world.flags = ("--dry-run",)
    capsys.readouterr()
    assert world.review() == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["gate"]["status"] == 1
    sent = [(r["method"], r["path"].rsplit("/", 1)[-1]) for r in printed["requests"]]
    assert ("POST", "threads") in sent and ("POST", "statuses") in sent
    assert world.fake.writes() == [] and world.fake.calls  # it did read


def test_fix_split_in_two_jobs_commits_like_one(world: World) -> None:
    """The command run's two jobs: analyze without the token (it reviews the head the service
    hook named), then publish with it, in an empty folder, git to the repository as data."""
    assert world.review() == 1
    out = world.tmp / "analysis.json"
    world.monkeypatch.delenv("SYSTEM_ACCESSTOKEN")
    calls = len(world.fake.calls)
    assert world.command("/fix", HUMAN, "analyze", "--repo", str(world.checkout),
                         "--out", str(out)) == 0
    # The job that ran the linters sent nothing but the relay's request for the run.
    assert [c.path.rsplit("/", 1)[-1] for c in world.fake.calls[calls:]] == ["runs"]
    world.monkeypatch.setenv("SYSTEM_ACCESSTOKEN", "bot-token")
    empty = world.tmp / "publish-here"
    empty.mkdir()
    world.monkeypatch.chdir(empty)
    world.fake.calls.clear()
    assert world.run("publish", str(out)) == 0
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py").startswith("import sys\n")
    assert new in world.fake.replies()[-1]


def test_ast_edit_then_apply_commits_the_plan_shown(world: World) -> None:
    """The apply trigger on Azure DevOps is `/apply` (a label records nobody who added it)."""
    assert world.command("/ast-edit print($A) => log($A)") == 0
    plan = world.summary().split("`plan ")[1].split("`")[0]
    assert world.command("/apply") == 0
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert "log(sys.argv)" in git(world.origin, "show", f"{new}:app.py")
    message = git(world.origin, "log", "-1", "--format=%B", new)
    assert plan in message and "alice@octo.test" in message
    assert new in world.fake.replies()[-1]


def sweep(world: World) -> int:
    """A scheduled run of the default branch as the checkout has it now."""
    git(world.checkout, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
    git(world.checkout, "checkout", "-q", "--detach", "refs/remotes/origin/main")
    for name in ("SYSTEM_PULLREQUEST_PULLREQUESTID", "SYSTEM_PULLREQUEST_TARGETBRANCH",
                 "SYSTEM_PULLREQUEST_SOURCECOMMITID", "SYSTEM_PULLREQUEST_SOURCEBRANCH"):
        world.monkeypatch.delenv(name, raising=False)
    return world.run("ci", "--repo", str(world.checkout), BUILD_REASON="Schedule",
                     BUILD_SOURCEBRANCH="refs/heads/main",
                     BUILD_SOURCEVERSION=git(world.checkout, "rev-parse", "HEAD"))


def test_a_scheduled_sweep_tracks_regressions_in_a_work_item(world: World) -> None:
    fake = world.fake
    # 1. the baseline: one work item, closed, tagged, its state kept in its description
    assert sweep(world) == 0
    [(number, item)] = fake.work_items.items()
    fields = item["fields"]
    assert fields["System.State"] == "Done" and "reviewbot:regressions" in fields["System.Tags"]
    assert fields["System.Description"].startswith("<pre>&lt;!-- reviewbot:sweep ref=main ")
    # 2. a regression lands on the default branch: the same work item, open, names it
    world.repo.git("checkout", "-q", "main")
    world.repo.commit({"lib.py": "import os\n"}, "a regression")
    world.repo.git("push", "-q", str(world.origin), "main:main")
    assert sweep(world) == 0
    assert list(fake.work_items) == [number]
    fields = fake.work_items[number]["fields"]
    assert fields["System.State"] == "To Do" and "F401" in fields["System.Description"]
    # 3. nothing new on the branch: nothing written
    writes = len(fake.writes())
    assert sweep(world) == 0
    assert len(fake.writes()) == writes


def split_command(world: World, text: str, name: str) -> int:
    """A comment's run in two jobs: analyze without the token, then publish with it, in an
    empty folder that stays empty."""
    out = world.tmp / f"{name}.json"
    world.monkeypatch.delenv("SYSTEM_ACCESSTOKEN", raising=False)
    assert world.command(text, HUMAN, "analyze", "--repo", str(world.checkout),
                         "--out", str(out)) == 0
    world.monkeypatch.setenv("SYSTEM_ACCESSTOKEN", "bot-token")
    empty = world.tmp / f"publish-{name}"
    empty.mkdir()
    world.monkeypatch.chdir(empty)
    code = world.run("publish", str(out))
    assert list(empty.iterdir()) == []
    world.monkeypatch.chdir(world.tmp)
    return code


def test_split_apply_of_a_staged_rewrite_saves_the_state(world: World) -> None:
    """The analyze job cannot read the rewrites `/ast-edit` staged (they are in the summary),
    so it reviewed another plan's commit ahead and publish does not review the new head; it
    still saves the conversation's state: the applied rewrite is no longer staged."""
    assert world.review() == 1
    assert split_command(world, "/ast-edit print($A) => log($A)", "stage") == 0
    assert "Staged with" in world.summary()
    assert split_command(world, "/apply", "apply") == 0
    assert "log(sys.argv)" in git(world.origin, "show", f"{world.branch()}:app.py")
    assert "so the new head is not reviewed here" in world.fake.replies()[-1]
    assert "Staged with" not in world.summary() and "`plan " not in world.summary()


def test_one_step_on_a_comment_without_the_token_says_so_and_stops(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """A misconfigured `reviewbot ci` for a comment: without the token the comment is not read,
    so who wrote it is unknown: one line, the missing token's status, nothing written."""
    world.monkeypatch.delenv("SYSTEM_ACCESSTOKEN")
    capsys.readouterr()
    calls = len(world.fake.calls)
    assert world.command("/fix") == 2
    err = capsys.readouterr().err
    assert "no Azure DevOps token: comment" in err and "ignored" not in err
    # The relay's request for the run, nothing from the run itself.
    assert [c.path.rsplit("/", 1)[-1] for c in world.fake.calls[calls:]] == ["runs"]
    assert world.branch() == world.head
