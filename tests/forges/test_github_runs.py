"""The same pull request reviewed three times against the validating fake GitHub."""

from __future__ import annotations

from collections.abc import Callable

from bot.forges.github.change import GitHubChange
from bot.model import ReviewResult, Severity
from bot.publishing.gate import Gate
from bot.publishing.policy import Policy
from bot.publishing.sync import Synced
from tests.forges.builders import change, finding, result, texts, verdict
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FakeGitHub
from tests.publishing.shortcut import review

V1 = "import os\n\ndef f():\n    x = 1\n    y = 2\n    return 0\n\ndef g():\n    z = 3\n    return 1\n"
# Two lines pushed on top, `x` removed (fixed), `w` added (new).
V2 = ("# one\n# two\nimport os\n\ndef f():\n    y = 2\n    return 0\n\ndef g():\n    z = 3\n"
      "    return 1\n    w = 4\n")


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def build(head: str, text: str, with_x: bool) -> ReviewResult:
    found = []
    if with_x:
        n = line_of(text, "x = 1")
        found.append(verdict(finding("a.py", n, fix=((n, 1, n + 1, 1, ""),)), "fp-x"))
    found.append(verdict(finding("a.py", line_of(text, "y = 2")), "fp-y"))
    found.append(verdict(finding("a.py", line_of(text, "z = 3"), message="z unused (now)"),
                         "fp-z", scope="changed"))
    if "w = 4" in text:
        found.append(verdict(finding("a.py", line_of(text, "w = 4")), "fp-w"))
    found.append(verdict(finding("a.py", line_of(text, "import os"), rule="F401",
                                 message="`os` imported but unused"), "fp-os", where="elsewhere"))
    found.append(verdict(finding("a.py", line_of(text, "return 1"), rule="E999",
                                 message="old problem"), "fp-pre", scope="preexisting"))
    return result(head, found, [change("a.py", range(1, len(text.splitlines()) + 1))])


def run(forge: GitHubChange, res: ReviewResult, repo_path: object, sleeps: Sleeps) -> Synced:
    return review(forge, res, texts(repo_path, res.head, ["a.py"]),  # type: ignore[arg-type]
                  Policy(), Gate(blocking=1, fail_level="error"), settle=0, sleep=sleeps)


def by_fp(fake: FakeGitHub) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    for c in fake.bot_comments():
        body = str(c["body"])
        key = body.split("reviewbot:fp=")[1].split(" ")[0]
        out.setdefault(key, []).append(c)
    return out


def test_three_runs_never_post_twice(repo, fake: FakeGitHub,  # type: ignore[no-untyped-def]
                                     forge_for: Callable[[], GitHubChange], sleeps: Sleeps) -> None:
    repo.commit({"a.py": "import os\n"}, "base")
    head1 = repo.commit({"a.py": V1}, "v1")
    fake.push(head1, {"a.py": set(range(1, 11))})

    first = run(forge_for(), build(head1, V1, with_x=True), repo.path, sleeps)
    assert first.status == "published"
    comments = by_fp(fake)
    assert sorted(comments) == ["fp-x", "fp-y", "fp-z"]  # elsewhere/preexisting: summary only
    assert len(fake.s.reviews) == 1  # one review holding every inline comment
    x_comment = comments["fp-x"][0]
    assert "```suggestion\n```" in str(x_comment["body"])  # the fix deletes the line
    assert "█" in str(x_comment["body"])
    [summary] = fake.summaries()
    assert "fp-os" not in summary["body"] and "`os` imported but unused" in summary["body"]
    assert "<details>" in summary["body"] and "old problem" in summary["body"]
    human = fake.reply(int(comments["fp-x"][0]["id"]), "why is this wrong?")  # type: ignore[call-overload]

    head2 = repo.commit({"a.py": V2}, "v2")
    fake.push(head2, {"a.py": set(range(1, 13))})
    fake.reset_calls()
    second = run(forge_for(), build(head2, V2, with_x=False), repo.path, sleeps)
    assert second.status == "published"
    comments = by_fp(fake)
    assert {k: len(v) for k, v in comments.items()} == {"fp-x": 1, "fp-y": 1, "fp-z": 1, "fp-w": 1}
    x_root = int(comments["fp-x"][0]["id"])  # type: ignore[call-overload]
    assert fake.s.threads[x_root]["resolved"] is True  # fixed: resolved, not deleted
    assert human in fake.s.comments  # the human's reply is still there
    assert comments["fp-z"][0].get("edits", 0) == 0  # moved but unchanged: left alone
    assert comments["fp-y"][0].get("edits", 0) == 1  # its code frame changed: edited
    assert [s["id"] for s in fake.summaries()] == [summary["id"]]
    assert fake.summaries()[0].get("edits") == 1
    assert len(fake.s.reviews) == 2

    fake.reset_calls()
    third = run(forge_for(), build(head2, V2, with_x=False), repo.path, sleeps)
    assert third.status == "published"
    assert fake.count(write=True) == 0  # nothing changed: nothing written
    assert {k: len(v) for k, v in by_fp(fake).items()} == {"fp-x": 1, "fp-y": 1, "fp-z": 1, "fp-w": 1}
    assert len(fake.summaries()) == 1


def test_regressed_finding_reopens_only_threads_we_resolved(  # type: ignore[no-untyped-def]
        repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange], sleeps: Sleeps) -> None:
    repo.commit({"a.py": "import os\n"}, "base")
    head = repo.commit({"a.py": V1}, "v1")
    fake.push(head, {"a.py": set(range(1, 11))})
    res = build(head, V1, with_x=True)
    run(forge_for(), res, repo.path, sleeps)
    ids = {k: int(v[0]["id"]) for k, v in by_fp(fake).items()}  # type: ignore[call-overload]
    fake.resolve_by(ids["fp-y"], "alice")  # a human decided to leave it
    fake.resolve_by(ids["fp-x"], "github-actions")  # we resolved it as fixed; it came back
    run(forge_for(), res, repo.path, sleeps)
    assert fake.s.threads[ids["fp-x"]]["resolved"] is False
    assert fake.s.threads[ids["fp-y"]]["resolved"] is True


def test_check_run_annotations_go_in_batches_of_50(fake: FakeGitHub,
                                                   forge_for: Callable[[], GitHubChange]) -> None:
    from bot.forges.base import Annotation, StatusReport
    notes = tuple(Annotation("a.py", n, n, Severity.WARNING, "ruff F841", f"m{n}") for n in range(1, 121))
    assert forge_for().check(StatusReport("reviewbot", fake.s.head, "failure", "t", "s", notes))
    [run] = fake.s.check_runs.values()
    assert len(run["annotations"]) == 120 and run["conclusion"] == "failure"
    assert [(c.method, c.path.rsplit("/", 1)[-1]) for c in fake.calls] == [
        ("POST", "check-runs"), ("PATCH", str(run["id"])), ("PATCH", str(run["id"]))]


def test_a_users_look_alike_summary_is_not_taken_for_ours(  # type: ignore[no-untyped-def]
        repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange], sleeps: Sleeps) -> None:
    repo.commit({"a.py": "import os\n"}, "base")
    head = repo.commit({"a.py": V1}, "v1")
    fake.push(head, {"a.py": set(range(1, 11))})
    spoof = fake.comment_by("mallory", "<!-- reviewbot:summary -->\nall good, nothing to see")
    first = run(forge_for(), build(head, V1, with_x=True), repo.path, sleeps)
    assert first.status == "published"  # the look-alike is not edited (GitHub would refuse: 403)
    assert fake.s.issue_comments[spoof]["body"].endswith("nothing to see")
    ours = [c for c in fake.summaries() if c["id"] != spoof]
    assert len(ours) == 1 and ours[0]["user"]["type"] == "Bot"
    run(forge_for(), build(head, V1, with_x=True), repo.path, sleeps)
    assert len([c for c in fake.summaries() if c["id"] != spoof]) == 1  # edited in place
