"""`reviewbot ci` in Gitea and Forgejo Actions, end to end (`tests/flows/giteaworld.py`): the
review of three runs, slash commands, the apply label, the scheduled sweep, the fork-safe
analyze/publish pair and the dry run, each against the validating fake Gitea."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.render.markdown import parse_marker
from tests.conftest import GitRepo
from tests.flows.giteaworld import LABEL, World, git, make_world

FIXED = {"app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                   "    return sys.argv\n"}  # F401 gone, F841 one line up
PUSHED = "2026-01-02T11:00:00Z"


@pytest.fixture
def world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    yield from make_world(repo, tmp_path, monkeypatch)


def ours(world: World, rule: str) -> list[dict[str, object]]:
    return [c for c in world.fake.bot_comments() if rule in str(c["body"])]


def fingerprint(world: World, rule: str) -> str:
    [comment] = ours(world, rule)
    marker = parse_marker(str(comment["body"]))
    assert marker is not None
    return marker.fingerprint


@pytest.mark.parametrize("version, forgejo", [("1.22.6", False), ("1.26.0", False),
                                              ("11.0.1+gitea-1.22.0", True)])
def test_three_runs_open_push_rerun(repo: GitRepo, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, version: str,
                                    forgejo: bool) -> None:
    for world in make_world(repo, tmp_path, monkeypatch, version=version, forgejo=forgejo):
        fake = world.fake
        # 1. opened: one review, its comments on the diff; the summary; the gate as a status
        assert world.review("opened") == 1
        assert world.status() == "failure"
        assert len(fake.reviews) == 1 and fake.invisible() == []
        assert {c["position"] for c in fake.bot_comments()} == {1, 7}
        assert "reviewbot:summary" in world.summary()
        assert [w for w in world.writes() if w[0] == "POST"] == [
            ("POST", "/pulls/1/reviews"), ("POST", "/issues/1/comments"),
            ("POST", f"/statuses/{world.head}")]
        [f401] = ours(world, "F401")
        reply = fake.reply(int(str(f401["id"])), "Right, it goes in the next push.")

        # 2. synchronized: F401 fixed (its thread answered), F841 one line up
        new = world.push(FIXED, PUSHED)
        before = len(fake.writes())
        assert world.review("synchronized") == 1
        [f401] = ours(world, "F401")
        if version.startswith("1.26"):
            assert f401.get("resolver", {}).get("login") == "reviewbot"  # type: ignore[attr-defined]
        else:
            assert f"**Fixed** in `{new[:12]}`" in str(f401["body"])
        assert len(ours(world, "F841")) == 1  # not posted again at its new line
        assert reply in fake.comments  # the human's reply is kept
        assert world.status() == "failure" and f"`{new[:12]}`" in world.summary()
        assert len(fake.reviews) == 1  # nothing new to comment inline
        assert len(fake.writes()) > before

        # 3. the same event again: nothing new is written
        writes = len(fake.writes())
        assert world.review("synchronized") == 1
        assert len(fake.writes()) == writes
        if forgejo:
            assert fake.version.startswith("11.")


def test_the_gate_passes_with_exit_0(world: World) -> None:
    world.push({"app.py": "import sys\n\n\ndef main():\n    return sys.argv\n"}, PUSHED)
    assert world.review("synchronized") == 0
    assert world.status() == "success"


def test_help_is_eyes_a_reply_and_rocket(world: World) -> None:
    assert world.comment("alice", "/help") == 0
    [reply] = world.replies()
    assert "/ignore FINGERPRINT REASON" in reply
    assert world.reactions() == ["eyes", "rocket"]
    note = f"/issues/comments/{world.cid}/reactions"
    assert world.writes() == [("POST", note), ("POST", "/issues/1/comments"), ("POST", note)]


def test_ignore_updates_the_summary_and_later_runs(world: World) -> None:
    assert world.review() == 1
    fp = fingerprint(world, "F841")
    assert world.comment("alice", f"/ignore {fp} kept for the debugger") == 0
    assert world.reactions() == ["eyes", "rocket"]
    assert f"`{fp}` — ignored by @alice: kept for the debugger" in world.summary()
    assert "Ignored `ruff` `F841`" in world.replies()[-1]
    comments = len(world.fake.bot_comments())
    assert world.review("synchronized") == 1  # F401 still fails the gate
    assert len(world.fake.bot_comments()) == comments
    assert "ignored by @alice" in world.summary()


def test_fix_commits_pushes_and_reviews_the_new_head(world: World) -> None:
    assert world.review() == 1
    assert world.comment("alice", "/fix") == 0
    assert world.reactions() == ["eyes", "rocket"]
    new = world.branch()
    assert new != world.head and git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py").startswith("import sys\n")
    assert "alice" in git(world.origin, "log", "-1", "--format=%B", new)
    assert git(world.origin, "log", "-1", "--format=%an <%ae>", new) == (
        "Gitea Actions <teabot@gitea.io>")
    [reply] = world.replies()
    assert new in reply and "starts no new workflow run" in reply
    assert world.fake.head_sha == new
    assert f"`{new[:12]}`" in world.summary()  # the new head, reviewed in the same run
    assert world.status() == "failure"  # F841 is no safe fix
    # the checkout's branch and working tree are untouched, and hold no credential
    assert git(world.checkout, "rev-parse", "HEAD") == git(world.origin, "rev-parse", "main")
    assert git(world.checkout, "status", "--porcelain") == ""


@pytest.mark.parametrize("who", ["rex", "nobody"])
def test_someone_without_write_gets_thumbsdown_and_one_reply(world: World, who: str) -> None:
    if who == "nobody":
        world.fake.users["nobody"] = {"id": 90, "login": "nobody", "full_name": "N",
                                      "email": "n@gitea.test"}
    assert world.comment(who, "/fix\n/review") == 0
    assert world.reactions() == ["-1"]
    [reply] = world.replies()
    assert f"role on octo/demo may run reviewbot commands; @{who}" in reply
    assert len(world.writes()) == 2 and world.branch() == world.head


def test_a_bots_comment_is_ignored_without_a_request(world: World) -> None:
    world.fake.users["gitea-actions"]["id"] = -2
    assert world.comment("gitea-actions", "/fix") == 0
    assert world.fake.calls == []
    assert world.comment("reviewbot", "/fix") == 0  # the token's own account
    assert world.writes() == [] and world.branch() == world.head


def test_a_head_that_moved_since_the_comment_refuses(world: World) -> None:
    moved = world.push({"other.py": "x = 1\n"}, "2026-01-02T10:05:00Z")
    assert world.comment("alice", "/fix", written="2026-01-02T10:01:00Z") == 0
    [reply] = world.replies()
    assert f"moved to {moved[:12]} after the comment was written" in reply
    assert world.branch() == moved and world.reactions() == ["eyes", "confused"]


def shown_plan(world: World) -> str:
    return world.summary().split("`plan ")[1].split("`")[0]


def test_the_apply_label_commits_the_plan_shown(world: World) -> None:
    assert world.comment("alice", "/ast-edit print($A) => log($A)") == 0
    plan = shown_plan(world)
    # Gitea names no label: the event carries the labels the pull request has now.
    assert world.label("alice", "bug", LABEL) == 0
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert "log(sys.argv)" in git(world.origin, "show", f"{new}:app.py")
    message = git(world.origin, "log", "-1", "--format=%B", new)
    assert plan in message and "alice" in message
    assert world.fake.issues[1]["labels"] == {3}  # the apply label removed, `bug` kept
    assert ("DELETE", "/issues/1/labels/1") in world.writes()
    reply = world.replies()[-1]
    assert f"The label `{LABEL}` was removed." in reply and new in reply
    assert f"`{new[:12]}`" in world.summary()


def test_a_second_event_still_carrying_the_apply_label_does_nothing(world: World) -> None:
    """alice adds the apply label, then `bug`: two runs whose payloads both carry the apply
    label. The first commits and removes it; the second finds it removed since (Gitea's
    timeline) and writes nothing."""
    assert world.comment("alice", "/ast-edit print($A) => log($A)") == 0
    labelled_at = world.fake.head_sha
    world.fake.relabel("alice", LABEL)
    world.fake.relabel("alice", LABEL, "bug")
    assert world.label_event("alice", LABEL, head=labelled_at) == 0
    new = world.branch()
    assert new != labelled_at and world.fake.issues[1]["labels"] == {3}
    replies, writes = len(world.replies()), len(world.fake.writes())
    assert world.label_event("alice", LABEL, "bug", head=labelled_at) == 0
    assert world.branch() == new  # one commit
    assert len(world.replies()) == replies and len(world.fake.writes()) == writes


@pytest.mark.parametrize("adder", ["gitea-actions", "ada"])
def test_a_label_change_by_someone_else_leaves_an_apply_label_from_before(
        world: World, adder: str) -> None:
    """Gitea's label event names no label and is sent for a removal too: the apply label
    already on the pull request (added by a workflow, or by someone whose own run is still to
    come) is not acted on when alice removes `bug`."""
    assert world.comment("alice", "/ast-edit print($A) => log($A)") == 0
    world.fake.relabel("alice", "bug")
    world.fake.relabel(adder, LABEL, "bug")
    writes = len(world.fake.writes())
    assert world.label("alice", LABEL) == 0  # `bug` removed
    assert world.branch() == world.head
    assert len(world.fake.writes()) == writes
    assert world.fake.issues[1]["labels"] == {1}  # left for its own adder's run
    if adder == "ada":
        assert world.label_event("ada", LABEL, "bug") == 0  # ada's own run acts on it
        assert world.branch() != world.head


def test_other_labels_and_bots_send_nothing(world: World) -> None:
    assert world.label("alice", "bug") == 0
    assert world.label("gitea-actions", LABEL) == 0
    assert world.fake.calls == []


def test_a_label_by_someone_without_write_is_removed_with_one_reply(world: World) -> None:
    assert world.label("rex", LABEL) == 0
    assert world.writes() == [("DELETE", "/issues/1/labels/1"), ("POST", "/issues/1/comments")]
    [reply] = world.replies()
    assert f"have the label `{LABEL}` acted on; @rex has read" in reply
    assert world.branch() == world.head


def sweep_run(world: World, runs: list[int]) -> int:
    """A scheduled run: the runner's fresh checkout of main, then `reviewbot ci`."""
    world.repo.git("push", "-q", "-f", str(world.origin), "main:main")
    runs.append(len(runs) + 1)
    checkout = world.tmp / f"sweep{len(runs)}"
    git(world.tmp, "clone", "-q", "--branch", "main", str(world.origin), str(checkout))
    head = world.repo.git("rev-parse", "main")
    for key, value in {"GITHUB_WORKSPACE": str(checkout), "GITHUB_REF": "refs/heads/main",
                       "GITHUB_SHA": head}.items():
        world.monkeypatch.setenv(key, value)
    world.fake.calls.clear()
    return world.run("schedule", {}, "ci")


def test_a_scheduled_sweep_tracks_regressions_in_an_issue(world: World) -> None:
    from tests.sweep.conftest import APP, CONFIG, commit_as
    world.repo.git("checkout", "-q", "main")
    commit_as(world.repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP}, "base")
    runs: list[int] = []
    fake = world.fake
    assert sweep_run(world, runs) == 0
    [issue] = [i for n, i in fake.issues.items() if n != fake.number]
    assert issue["state"] == "closed" and issue["labels"] == {2}
    assert "Baseline recorded at" in issue["body"]
    assert world.writes() == [("POST", "/issues"), ("PATCH", f"/issues/{issue['number']}")]

    # bob's pull request #5 brings an unused import
    sha = commit_as(world.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    fake.users["bob"] = {"id": 70, "login": "bob", "full_name": "Bob", "email": "b@gitea.test"}
    fake.merged_by[sha] = fake.merged_pull(5, "bob")
    assert sweep_run(world, runs) == 0
    text = str(issue["body"])
    assert issue["state"] == "open" and "F401" in text and sha[:12] in text
    assert "| #5 | bob (pull request by" in text
    assert world.writes() == [("PATCH", f"/issues/{issue['number']}")]

    assert sweep_run(world, runs) == 0  # nothing new: nothing written
    assert world.writes() == []


def analyze(world: World, out: Path, action: str = "opened") -> None:
    """The unprivileged job: no token in its environment, and no request sent."""
    with world.monkeypatch.context() as m:
        m.delenv("GITEA_TOKEN")
        before = len(world.fake.calls)
        assert world.run("pull_request", world.pull_request(action), "analyze", "--repo",
                         str(world.checkout), "--out", str(out)) == 0
        assert len(world.fake.calls) == before


@pytest.mark.parametrize("action", ["opened", "synchronized"])
def test_analyze_then_publish_posts_what_ci_posts(repo: GitRepo, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  action: str) -> None:
    out = tmp_path / "analysis.json"
    for world in make_world(repo, tmp_path / "ci", monkeypatch):
        assert world.review(action) == 1
        by_ci = sorted(str(c["body"]) for c in world.fake.bot_comments())
        summary_ci, status_ci = world.summary(), world.status()
    for world in make_world(GitRepo(tmp_path / "split"), tmp_path / "split-run", monkeypatch):
        analyze(world, out, action)
        assert json.loads(out.read_text())["head_sha"] == world.head
        world.monkeypatch.delenv("GITEA_TOKEN")
        world.monkeypatch.setenv("REVIEWBOT_GITEA_TOKEN", "bot-token")  # the publish job's
        empty = tmp_path / "publish-here"
        empty.mkdir()
        world.monkeypatch.chdir(empty)
        assert world.run("pull_request", world.pull_request(action), "publish", str(out)) == 1
        assert sorted(str(c["body"]) for c in world.fake.bot_comments()) == by_ci
        assert world.status() == status_ci == "failure"
        assert summary_ci.split("### Staged")[0].strip() == world.summary().split("### Staged")[0].strip()


def test_publish_refuses_the_artifact_of_another_head(world: World) -> None:
    out = world.tmp / "analysis.json"
    analyze(world, out)
    moved = world.push({"other.py": "x = 1\n"}, PUSHED)
    world.monkeypatch.setenv("REVIEWBOT_GITEA_TOKEN", "bot-token")
    world.fake.calls.clear()
    assert world.run("pull_request", world.pull_request("synchronized", head=moved), "publish",
                     str(out)) == 2
    assert world.fake.calls == []


def test_dry_run_prints_the_requests_and_writes_nothing(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    world.flags = ("--dry-run",)
    capsys.readouterr()
    assert world.review() == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["gate"]["status"] == 1
    sent = [(r["method"], r["path"]) for r in printed["requests"]]
    assert ("POST", "/repos/octo/demo/pulls/1/reviews") in sent
    assert ("POST", f"/repos/octo/demo/statuses/{world.head}") in sent
    assert world.fake.writes() == [] and world.fake.calls  # it did read


def test_on_forgejo_fix_commits_as_forgejo_actions(repo: GitRepo, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for world in make_world(repo, tmp_path, monkeypatch, version="11.0.1+gitea-1.22.0",
                            forgejo=True):
        assert world.comment("alice", "/fix") == 0
        new = world.branch()
        assert git(world.origin, "log", "-1", "--format=%an <%ae>", new) == (
            "Forgejo Actions <noreply@forgejo.org>")
        assert world.reactions() == ["eyes", "rocket"] and world.fake.head_sha == new


def test_fix_split_in_two_jobs_commits_like_one(world: World) -> None:
    """The comment's two jobs: analyze with the workflow's token (it only reads), then publish
    with the publish job's own secret, in an empty folder, git to the repository as data."""
    from bot.ci import gitea_actions
    from tests.flows.giteaworld import REPOSITORY, WRITTEN, event

    world.cid = world.fake.comment_by("alice", "/fix", WRITTEN)
    payload = copy.deepcopy(event("issue_comment_created"))
    payload["issue"].update(number=world.fake.number, state="open")
    payload["repository"]["full_name"] = REPOSITORY
    payload["comment"].update(id=world.cid, body="/fix", created_at=WRITTEN)
    payload["comment"]["user"].update(login="alice", username="alice")
    payload["sender"].update(login="alice", username="alice")
    out = world.tmp / "analysis.json"
    before = len(world.fake.writes())
    assert world.run("issue_comment", payload, "analyze", "--repo", str(world.checkout),
                     "--out", str(out)) == 0
    assert len(world.fake.writes()) == before  # the job that ran the linters wrote nothing
    world.monkeypatch.delenv("GITEA_TOKEN")
    world.monkeypatch.setenv("REVIEWBOT_GITEA_TOKEN", "bot-token")
    world.monkeypatch.setattr(gitea_actions, "clone_url", lambda env, name: str(world.origin))
    empty = world.tmp / "publish-here"
    empty.mkdir()
    world.monkeypatch.chdir(empty)
    assert world.run("issue_comment", payload, "publish", str(out)) == 0
    assert world.reactions() == ["eyes", "rocket"]
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py").startswith("import sys\n")
    [reply] = world.replies()
    # The analysis reviewed the commit's tree: the new head has its review and status.
    assert new in reply and "The review of the new head follows in this run" in reply
    assert world.fake.head_sha == new and world.status() == "failure"  # F841 is left
