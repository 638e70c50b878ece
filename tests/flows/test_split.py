"""The fork-safe pair for comments and the apply label on GitHub: `reviewbot analyze` on the
event, with a token that may only read (every write answered 403, as GitHub answers it), runs
the pull request's linters and writes the artifact; `reviewbot publish` in a later job with the
write token, in an empty folder, acts on it: the same commits, replies and reactions as one
job, the pull request's code never run there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import cli
from bot.ci import github_actions
from tests.flows.conftest import World, git
from tests.flows.test_comment import summary

READ_ONLY = "ro-token"


def two_jobs(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             event: tuple[str, dict[str, object]]) -> tuple[int, int, list[tuple[str, str]]]:
    """The event's two jobs: (analyze's status, publish's status, analyze's writes)."""
    art = tmp_path / "artifact" / "analysis.json"
    art.parent.mkdir()
    world.fake.reset_calls()
    analysed = analyze_job(world, tmp_path, monkeypatch, event, art)
    analyse_writes = world.writes()
    # The publish job: the write token, no checkout, git to the repository as data.
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setattr(github_actions, "clone_url", lambda env, repository: str(world.origin))
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    published = cli.main(["publish", str(art)])
    assert list(empty.iterdir()) == []
    return analysed, published, analyse_writes


def analyze_job(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                event: tuple[str, dict[str, object]], art: Path) -> int:
    """The first job on `event`, with the read-only token, writing `art`: its status."""
    name, payload = event
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_NAME", name)
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    world.fake.read_only.add(READ_ONLY)
    monkeypatch.setenv("GITHUB_TOKEN", READ_ONLY)
    return cli.main(["analyze", "--repo", str(world.checkout), "--out", str(art)])


def analyse(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            event: tuple[str, dict[str, object]]) -> Path:
    """The first job alone, on `event`, with the read-only token: its artifact."""
    art = tmp_path / "analysis.json"
    assert analyze_job(world, tmp_path, monkeypatch, event, art) == 0
    return art


def publish(world: World, monkeypatch: pytest.MonkeyPatch, art: Path, *flags: str) -> int:
    """The second job: the write token, git to the repository as data."""
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setattr(github_actions, "clone_url", lambda env, repository: str(world.origin))
    return cli.main(["publish", *flags, str(art)])


def comment_event(world: World, user: str, body: str) -> tuple[str, dict[str, object]]:
    """What `World.comment` sends, without running `ci`."""
    captured: dict[str, object] = {}
    world._run = lambda name, payload: captured.update(event=(name, payload)) or 0  # type: ignore[method-assign]
    world.comment(user, body)
    del world._run
    return captured["event"]  # type: ignore[return-value]


def label_event(world: World, user: str) -> tuple[str, dict[str, object]]:
    captured: dict[str, object] = {}
    world._run = lambda name, payload: captured.update(event=(name, payload)) or 0  # type: ignore[method-assign]
    world.label(user)
    del world._run
    return captured["event"]  # type: ignore[return-value]


def test_fix_through_analyze_then_publish_commits_like_one_job(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    analysed, published, analyse_writes = two_jobs(world, tmp_path, monkeypatch,
                                                   comment_event(world, "max", "/fix"))
    assert (analysed, published) == (0, 0)
    assert analyse_writes == []  # the job that ran the linters wrote nothing
    assert world.reactions() == ["eyes", "rocket"]
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head  # one commit on the head
    assert git(world.origin, "show", f"{new}:app.py") == (
        "import sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n    return sys.argv")
    [reply] = world.replies()
    # The analysis reviewed the commit's tree: the new head is reviewed in this run.
    assert new in reply and "The review of the new head follows in this run" in reply
    [run] = [r for r in world.fake.s.check_runs.values() if r["head_sha"] == new]
    assert run["name"] == "reviewbot" and run["conclusion"] == "failure"  # F841 is left


def test_a_commit_whose_tree_is_not_the_analyzed_one_is_not_reviewed(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """publish never takes the analysis's review of the new head on trust: the commit it
    makes from the plan over git objects must have the tree the analysis reviewed."""
    art = analyse(world, tmp_path, monkeypatch, comment_event(world, "max", "/fix"))
    doc = json.loads(art.read_text())
    assert doc["next"]["kind"] == "fix"
    doc["next"]["tree"] = "0" * 40
    art.write_text(json.dumps(doc))
    assert publish(world, monkeypatch, art) == 0
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head  # the commit is made
    [reply] = world.replies()
    assert "the analysis reviewed the tree 000000000000, and the commit's is" in reply
    assert "Comment `/review` or push a commit to have it reviewed." in reply
    assert [r for r in world.fake.s.check_runs.values() if r["head_sha"] == new] == []
    assert world.reactions() == ["eyes", "rocket"]


def test_a_comment_without_permission_is_refused_by_publish(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    analysed, published, _ = two_jobs(world, tmp_path, monkeypatch,
                                      comment_event(world, "tia", "/fix"))
    assert (analysed, published) == (0, 0)
    assert world.reactions() == ["-1"] and world.branch() == world.head
    [reply] = world.replies()
    assert "@tia has triage" in reply


def test_a_head_pushed_after_the_analysis_is_refused(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    art = analyse(world, tmp_path, monkeypatch, comment_event(world, "max", "/fix"))
    pushed = world.push({"other.py": "x = 1\n"}, "2026-01-02T09:30:00Z")  # before the comment
    assert publish(world, monkeypatch, art) == 0
    assert world.branch() == pushed  # nothing committed over the new head
    assert world.reactions() == ["eyes", "confused"]
    [reply] = world.replies()
    assert "since the analysis" in reply


def test_an_artifact_of_another_pull_request_is_refused_with_no_write(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    art = analyse(world, tmp_path, monkeypatch, comment_event(world, "max", "/fix"))
    doc = json.loads(art.read_text())
    doc["number"] = 8
    art.write_text(json.dumps(doc))
    world.fake.reset_calls()
    assert publish(world, monkeypatch, art) == 2
    assert world.writes() == [] and world.branch() == world.head


def test_the_apply_label_through_analyze_then_publish(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert world.review() == 1  # the summary shows the plan of safe fixes the label commits
    assert "`plan " in summary(world)
    analysed, published, analyse_writes = two_jobs(world, tmp_path, monkeypatch,
                                                   label_event(world, "wes"))
    assert (analysed, published) == (0, 0) and analyse_writes == []
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py").startswith("import sys\n")
    assert world.fake.s.labels[7] == []  # removed
    [reply] = world.replies()
    assert "The label `reviewbot:apply` was removed." in reply and new in reply


def test_a_fix_on_a_file_the_change_did_not_touch_is_never_committed(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The artifact is the word of a job that ran the pull request's code: publish keeps of it
    only the files git says the change changed."""
    art = analyse(world, tmp_path, monkeypatch, comment_event(world, "max", "/fix"))
    doc = json.loads(art.read_text())
    # Every finding and change moved onto pyproject.toml, which the pull request did not change.
    text = json.dumps(doc).replace('"app.py"', '"pyproject.toml"')
    art.write_text(text)
    assert publish(world, monkeypatch, art) == 0
    assert world.branch() == world.head  # nothing committed
    [reply] = world.replies()
    assert "Nothing to commit" in reply


def split_comment(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user: str,
                  body: str) -> tuple[int, int, list[tuple[str, str]]]:
    folder = tmp_path / f"turn-{len(list(tmp_path.glob('turn-*')))}"
    folder.mkdir()
    out = two_jobs(world, folder, monkeypatch, comment_event(world, user, body))
    monkeypatch.chdir(tmp_path)
    return out


def test_every_command_through_the_split_answers_as_one_job(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.flows.test_comment import _fingerprint

    assert split_comment(world, tmp_path, monkeypatch, "wes", "/help")[:2] == (0, 0)
    assert "`/ast-edit PATTERN => REWRITE [--lang L]`" in world.replies()[-1]
    assert world.reactions() == ["eyes", "rocket"]

    analysed, published, writes = split_comment(world, tmp_path, monkeypatch, "wes", "/review")
    assert (analysed, published, writes) == (0, 0, [])
    text = summary(world)
    assert "`plan " in text and "ruff F401 (safe): 1 edit" in text
    bodies = [c["body"] for c in world.fake.bot_comments()]
    assert any("F401" in b for b in bodies) and any("F841" in b for b in bodies)

    split_comment(world, tmp_path, monkeypatch, "wes", "/ast-grep print($A) --lang python")
    assert "1 match in 1 file" in world.replies()[-1]

    fingerprint = _fingerprint(world, "F841")
    split_comment(world, tmp_path, monkeypatch, "wes", f"/ignore {fingerprint} for the debugger")
    assert "Ignored `ruff` `F841` at `app.py:7`" in world.replies()[-1]
    assert "ignored by @wes: for the debugger" in summary(world)

    split_comment(world, tmp_path, monkeypatch, "wes", "/ast-edit print($A) => log($A)")
    staged = world.replies()[-1]
    assert "Staged 1 edit; nothing is committed yet." in staged
    plan = staged.split("`plan ")[1].split("`")[0]
    assert world.branch() == world.head

    split_comment(world, tmp_path, monkeypatch, "ada", "/apply")
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert "log(sys.argv)" in git(world.origin, "show", f"{new}:app.py")
    assert plan in git(world.origin, "log", "-1", "--format=%B", new)
    assert world.reactions() == ["eyes", "rocket"]


def label_on_workflow_run(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          user: str, *, bot: bool = False) -> tuple[int, int]:
    """A fork's label: the analyze job on `labeled` (read-only token), then the publish job of
    another workflow on `workflow_run`, which did not see the label's event."""
    from tests.flows.test_publish import workflow_run

    world.fake.labeled("reviewbot:apply", user, bot=bot)
    name, payload = label_event(world, user)
    world.fake.s.labels[world.fake.number] = ["reviewbot:apply"]  # once, as GitHub keeps it
    art = tmp_path / "analysis.json"
    analysed = analyze_job(world, tmp_path, monkeypatch, (name, payload), art)
    workflow_run(tmp_path, monkeypatch, world.fake.s.head)
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setattr(github_actions, "clone_url", lambda env, repository: str(world.origin))
    return analysed, cli.main(["publish", "--label", str(art)])


def test_a_fork_s_label_published_on_workflow_run_asks_github_who_added_it(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert world.review() == 1  # the plan shown
    assert label_on_workflow_run(world, tmp_path, monkeypatch, "wes") == (0, 0)
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert "wes" in git(world.origin, "log", "-1", "--format=%B", new)
    assert world.fake.s.labels[7] == []
    [reply] = world.replies()
    assert "The label `reviewbot:apply` was removed." in reply and new in reply


def test_a_label_added_by_someone_without_permission_is_removed_on_workflow_run(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert world.review() == 1
    assert label_on_workflow_run(world, tmp_path, monkeypatch, "tia") == (0, 0)
    assert world.branch() == world.head and world.fake.s.labels[7] == []
    [reply] = world.replies()
    assert "@tia has triage" in reply


def test_no_label_on_the_pull_request_now_means_nothing_on_workflow_run(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.flows.test_publish import workflow_run

    assert world.review() == 1
    art = tmp_path / "analysis.json"
    name, payload = label_event(world, "wes")
    path = tmp_path / "labeled.json"
    path.write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_NAME", name)
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    assert cli.main(["analyze", "--repo", str(world.checkout), "--out", str(art)]) == 0
    world.fake.s.labels[7] = []  # removed before the publish job ran
    workflow_run(tmp_path, monkeypatch, world.fake.s.head)
    world.fake.reset_calls()
    assert cli.main(["publish", "--label", str(art)]) == 0
    assert world.writes() == [] and world.branch() == world.head
