"""Commands and the apply label on GitLab, end to end: `reviewbot ci` in a webhook's trigger
pipeline (CI_PIPELINE_SOURCE=trigger, the payload in the file TRIGGER_PAYLOAD), a shallow
checkout of the default branch, a real bare `origin` holding refs/merge-requests/3/head that the
bot pushes to with git, real ruff, the real apply engine, and the fake GitLab checking every
request against GitLab's documented parameters. Writes are counted per run."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import gitlab_ci
from tests.ci import gitlab_hooks
from tests.conftest import GitRepo
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegitlab import BOT, FakeGitLab, Fault

BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n",
        "app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    return sys.argv\n"}
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                  "    return sys.argv\n"}
LABEL = "reviewbot:apply"


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True,
                          text=True).stdout.strip()


@dataclass
class Project:
    repo: GitRepo  # a contributor's clone
    origin: Path  # the bare repository GitLab serves
    checkout: Path  # the trigger pipeline's checkout: the default branch, depth 1
    fake: FakeGitLab
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    head: str
    users: dict[str, dict[str, Any]]
    flags: tuple[str, ...] = ()  # more arguments for `reviewbot ci`

    def _run(self, payload: dict[str, Any]) -> int:
        path = self.tmp / "trigger-payload.json"
        path.write_text(json.dumps(payload))
        self.monkeypatch.setenv("TRIGGER_PAYLOAD", str(path))
        self.fake.calls.clear()
        return cli.main(["ci", *self.flags])

    def note(self, who: str, body: str, *, head: str | None = None) -> int:
        user = self.users.get(who, BOT)
        note = self.fake.note_by(user, body)
        self.note_id = int(note["id"])
        return self._run(gitlab_hooks.note_on_merge_request(
            user, self.note_id, body, head or self.fake.version["head_commit_sha"]))

    def label(self, who: str, added: str = LABEL, *, previous: tuple[str, ...] = ("bug",),
              head: str | None = None) -> int:
        user = self.users.get(who, BOT)
        self.fake.labels = [*previous, added]
        return self._run(gitlab_hooks.merge_request_update(
            user, list(previous), [*previous, added], head or self.fake.version["head_commit_sha"]))

    def branch(self) -> str:
        return git(self.origin, "rev-parse", "refs/heads/feature")

    def push(self, files: dict[str, str | bytes | None]) -> str:
        """Someone else pushes to the source branch."""
        self.repo.git("fetch", "-q", str(self.origin), "feature")
        self.repo.git("checkout", "-q", "-B", "feature", "FETCH_HEAD")
        sha = self.repo.commit(files, "another push")
        self.repo.git("push", "-q", str(self.origin), "feature:feature")
        return sha

    def writes(self) -> list[tuple[str, str]]:
        return [(c.method, c.path.removeprefix("/projects/42")) for c in self.fake.writes()]

    def replies(self) -> list[str]:
        return [str(n["body"]) for n in self.fake.bot_notes()]

    def awards(self) -> list[str]:
        return self.fake.award_names(self.note_id)

    def summary(self) -> str:
        [found] = self.fake.summaries()
        return str(found["body"])


@pytest.fixture
def project(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    yield from make_project(repo, tmp_path, monkeypatch, BASE, HEAD)


def make_project(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 base_files: dict[str, str], head_files: dict[str, str]) -> Iterator[Project]:
    sleeps = Sleeps()
    repo.commit(dict(base_files), "base")
    repo.branch("feature")
    head = repo.commit(dict(head_files), "feature")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(origin))
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "main", f"file://{origin}",
        str(checkout))
    with FakeGitLab(origin, follow=True) as fake:
        users = {"owen": fake.user("owen", "owner"), "mia": fake.user("mia", "maintainer"),
                 "dev": fake.user("dev", "developer"), "rep": fake.user("rep", "reporter"),
                 "gus": fake.user("gus", "guest"), "out": fake.user("out"),
                 "deploy": fake.user("deploy_bot", "developer", bot=True)}
        env = {"GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "trigger", "CI_SERVER_URL": fake.root,
               "CI_API_V4_URL": fake.api_url, "CI_PROJECT_ID": "42",
               "CI_PROJECT_PATH": "group/demo", "CI_PROJECT_DIR": str(checkout),
               "CI_COMMIT_SHA": git(checkout, "rev-parse", "HEAD"), "CI_COMMIT_BRANCH": "main",
               "CI_JOB_TOKEN": "job-token", "REVIEWBOT_GITLAB_TOKEN": "glpat-bot",
               # the trigger token's owner: never who acted
               "GITLAB_USER_LOGIN": "owen", "GITLAB_USER_ID": str(users["owen"]["id"])}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        for name in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        quick.gitlab(monkeypatch, sleeps)
        yield Project(repo, origin, checkout, fake, tmp_path, monkeypatch, head, users)
        assert fake.errors == []
        assert "extraheader" not in (checkout / ".git" / "config").read_text()


def test_a_command_is_eyes_a_reply_and_rocket(project: Project) -> None:
    assert project.note("dev", "/help") == 0
    [reply] = project.replies()
    assert "`/ast-edit PATTERN => REWRITE [--lang L]`" in reply
    assert project.awards() == ["eyes", "rocket"]
    note = f"/merge_requests/3/notes/{project.note_id}/award_emoji"
    assert project.writes() == [("POST", note), ("POST", "/merge_requests/3/notes"),
                                ("POST", note)]


@pytest.mark.parametrize("who, role", [("rep", "Reporter"), ("gus", "Guest"),
                                       ("out", "no role")])
def test_someone_not_allowed_gets_thumbsdown_and_one_reply(project: Project, who: str,
                                                           role: str) -> None:
    assert project.note(who, "/fix\n/review") == 0
    assert project.awards() == ["thumbsdown"]
    [reply] = project.replies()
    assert "Owner, Maintainer or Developer role on group/demo" in reply
    assert f"@{who} has {role}" in reply
    assert len(project.writes()) == 2 and project.branch() == project.head


def test_the_bot_and_bot_users_are_ignored_without_a_write(project: Project) -> None:
    # The bot's own account (its id is GET /user's), as if one of its notes held a command.
    assert project._run(gitlab_hooks.note_on_merge_request(BOT, 1, "/fix", project.head)) == 0
    assert project.writes() == []
    assert project.note("deploy", "/fix") == 0  # GET /users/:id says bot: true
    assert project.writes() == []
    assert project.note("dev", "just a comment, /fix is not at a line start") == 0
    assert project.fake.calls == []  # no command: not one request


def test_fix_pushes_to_the_source_branch_and_reviews_the_new_head(project: Project) -> None:
    assert project.note("mia", "/fix") == 0
    assert project.awards() == ["eyes", "rocket"]
    new = project.branch()
    assert new != project.head and git(project.origin, "rev-parse", f"{new}^") == project.head
    assert git(project.origin, "show", f"{new}:app.py").startswith("import sys\n")
    assert "mia" in git(project.origin, "log", "-1", "--format=%B", new)
    assert git(project.origin, "log", "-1", "--format=%an <%ae>", new) == (
        "reviewbot <reviewbot@noreply.127.0.0.1>")  # not GitHub's bot: `apply: author` unset
    [reply] = project.replies()
    assert new in reply and "merge request pipeline" in reply
    assert f"Compared `{new[:12]}`" in project.summary()  # the new head, in the same run
    assert project.fake.version["head_commit_sha"] == new
    # the checkout's branch and working tree are untouched
    assert git(project.checkout, "rev-parse", "HEAD") == git(project.origin, "rev-parse", "main")
    assert git(project.checkout, "status", "--porcelain") == ""


def test_a_head_that_moved_since_the_note_commits_nothing(project: Project) -> None:
    written_at = project.head
    moved = project.push({"other.py": "x = 1\n"})
    assert project.note("dev", "/fix", head=written_at) == 0
    [reply] = project.replies()
    assert f"moved to {moved[:12]} after the comment was written at {written_at[:12]}" in reply
    assert project.branch() == moved and project.awards() == ["eyes", "confused"]


def test_the_apply_label_commits_the_plan_shown(project: Project) -> None:
    assert project.note("dev", "/ast-edit print($A) => log($A)") == 0
    plan = project.summary().split("`plan ")[1].split("`")[0]
    assert project.label("dev") == 0
    new = project.branch()
    assert git(project.origin, "rev-parse", f"{new}^") == project.head
    assert "log(sys.argv)" in git(project.origin, "show", f"{new}:app.py")
    assert plan in git(project.origin, "log", "-1", "--format=%B", new)
    assert project.fake.labels == ["bug"]  # the apply label removed, the others kept
    assert ("PUT", "/merge_requests/3") in project.writes()
    reply = project.replies()[-1]
    assert f"The label `{LABEL}` was removed." in reply and new in reply
    assert f"Compared `{new[:12]}`" in project.summary()


def test_a_label_by_someone_not_allowed_is_removed_with_one_note(project: Project) -> None:
    assert project.label("rep") == 0
    assert project.writes() == [("PUT", "/merge_requests/3"), ("POST", "/merge_requests/3/notes")]
    assert project.fake.labels == ["bug"]
    [reply] = project.replies()
    assert f"may have the label `{LABEL}` acted on" in reply and "@rep has Reporter" in reply
    assert project.branch() == project.head


def test_other_labels_and_the_bots_own_label_removal_send_nothing(project: Project) -> None:
    assert project.label("dev", "ui") == 0
    assert project._run(gitlab_hooks.merge_request_update(
        BOT, [LABEL], [], project.head)) == 0  # the bot removed the label: no label added
    assert project.fake.calls == []
    assert project.label("deploy") == 0  # a bot user adding the apply label: read, not acted on
    assert project.writes() == [] and project.fake.labels == ["bug", LABEL]


def test_a_fork_without_allow_collaboration_gets_a_patch_not_a_push(project: Project) -> None:
    project.fake.source_project = {"id": 99, "path_with_namespace": "alice/demo",
                                   "http_url_to_repo": str(project.tmp / "fork.git")}
    assert project.note("mia", "/fix") == 0
    [reply] = project.replies()
    assert "cannot be pushed to" in reply and "git am" in reply
    assert project.branch() == project.head


def test_a_trigger_pipeline_without_a_payload_exits_0(project: Project,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    project.monkeypatch.delenv("TRIGGER_PAYLOAD", raising=False)
    assert cli.main(["ci"]) == 0
    assert "TRIGGER_PAYLOAD" in capsys.readouterr().err and project.fake.calls == []


def test_faults_leave_one_award_and_one_reply_each(project: Project) -> None:
    project.fake.faults += [Fault("POST /award_emoji$", "502-after"),
                            Fault("POST /merge_requests/3/notes$", "429"),
                            Fault("GET /members/all/", "timeout")]
    assert project.note("dev", "/help") == 0
    assert project.awards() == ["eyes", "rocket"] and len(project.replies()) == 1
    assert all(f.hit == 1 for f in project.fake.faults)


def test_commands_permission_maintain_asks_for_maintainer(project: Project) -> None:
    project.repo.checkout("main")
    project.repo.commit({".reviewbot.yml": "commands:\n  permission: maintain\n"}, "settings")
    project.repo.git("push", "-q", str(project.origin), "main:main")
    git(project.checkout, "fetch", "-q", "--depth", "1", "origin", "main")
    git(project.checkout, "reset", "-q", "--hard", "FETCH_HEAD")  # the next pipeline's checkout
    assert project.note("dev", "/help") == 0
    [reply] = project.replies()
    assert "Owner or Maintainer role on group/demo" in reply and "@dev has Developer" in reply
    assert project.awards() == ["thumbsdown"]
    assert project.note("mia", "/help") == 0
    assert project.awards() == ["eyes", "rocket"]


def test_the_merge_request_pipeline_shows_the_plan_the_label_commits(project: Project) -> None:
    """The usual order: the MR pipeline's summary shows the staged plan, a developer adds the
    label, the webhook's pipeline commits exactly that plan."""
    version = project.fake.version
    for key, value in {"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "3",
                       "CI_MERGE_REQUEST_DIFF_BASE_SHA": version["base_commit_sha"],
                       "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                       "CI_COMMIT_SHA": version["head_commit_sha"]}.items():
        project.monkeypatch.setenv(key, value)
    project.fake.calls.clear()
    assert cli.main(["ci"]) == 1  # the gate: F401 is an error
    summary = project.summary()
    assert "### Staged changes" in summary and "add the label `reviewbot:apply`" in summary
    plan = summary.split("`plan ")[1].split("`")[0]
    project.monkeypatch.setenv("CI_PIPELINE_SOURCE", "trigger")
    assert project.label("dev") == 0
    new = project.branch()
    assert plan in git(project.origin, "log", "-1", "--format=%B", new)
    assert git(project.origin, "show", f"{new}:app.py").startswith("import sys\n")


def test_a_fork_with_allow_collaboration_is_pushed_to_at_its_own_url(project: Project) -> None:
    fork = project.tmp / "fork.git"
    git(project.tmp, "clone", "-q", "--bare", str(project.origin), str(fork))
    project.fake.repo = fork  # GitLab's diff versions follow the fork's source branch
    project.fake.source_project = {"id": 99, "path_with_namespace": "alice/demo",
                                   "http_url_to_repo": str(fork)}
    project.fake.allow_collaboration = True
    assert project.note("mia", "/fix") == 0
    new = git(fork, "rev-parse", "refs/heads/feature")
    assert git(fork, "rev-parse", f"{new}^") == project.head
    assert project.branch() == project.head  # the target project's branch is untouched
    assert f"Compared `{new[:12]}`" in project.summary()


def test_a_label_added_before_the_head_moved_commits_nothing(project: Project) -> None:
    assert project.note("dev", "/ast-edit print($A) => log($A)") == 0
    labelled_at = project.head
    moved = project.push({"other.py": "x = 1\n"})
    assert project.label("dev", head=labelled_at) == 0
    reply = project.replies()[-1]
    assert f"moved to {moved[:12]} after the label was added at {labelled_at[:12]}" in reply
    assert project.branch() == moved and project.fake.labels == ["bug"]


def test_ignore_is_kept_in_the_summary_note(project: Project) -> None:
    assert project.note("dev", "/review") == 0
    [thread] = [t for t in project.fake.threads() if "F841" in t["notes"][0]["body"]]
    fingerprint = thread["notes"][0]["body"].split("reviewbot:fp=")[1].split(" ")[0]
    assert project.note("dev", f"/ignore {fingerprint} kept for the debugger") == 0
    assert "Ignored `ruff` `F841`" in project.replies()[-1]
    assert "ignored by @" in project.summary() and fingerprint in project.summary()
    assert thread["notes"][0]["resolved"]  # not commented any more
    posted = len(project.fake.threads())
    assert project.note("dev", "/review") == 0  # a later run reads the state from the note
    assert len(project.fake.threads()) == posted and "ignored by @" in project.summary()


@pytest.mark.parametrize("event", ["note", "label"])
def test_a_dry_run_of_a_command_or_the_label_writes_nothing(project: Project, event: str) -> None:
    project.flags = ("--dry-run",)
    before = project.branch()
    status = project.note("dev", "/fix") if event == "note" else project.label("dev")
    assert status == 2
    assert project.writes() == [] and project.branch() == before


def _two_jobs(project: Project, payload: dict[str, Any]) -> tuple[int, int, int]:
    """A webhook's pipeline split in two: `analyze` with no token in reach, then `publish`
    with the token (the publish job's protected variable alone), in an empty folder."""
    path = project.tmp / "trigger-payload.json"
    path.write_text(json.dumps(payload))
    project.monkeypatch.setenv("TRIGGER_PAYLOAD", str(path))
    project.monkeypatch.delenv("REVIEWBOT_GITLAB_TOKEN")
    project.fake.calls.clear()
    art = project.tmp / "analysis.json"
    analysed = cli.main(["analyze", "--out", str(art)])
    analyse_calls = len(project.fake.calls)
    project.monkeypatch.setenv("REVIEWBOT_GITLAB_TOKEN", "glpat-bot")
    project.monkeypatch.setattr(gitlab_ci, "clone_url", lambda env, name: str(project.origin))
    empty = project.tmp / "empty"
    empty.mkdir()
    project.monkeypatch.chdir(empty)
    published = cli.main(["publish", str(art)])
    assert list(empty.iterdir()) == []
    return analysed, published, analyse_calls


def test_fix_split_in_two_jobs_commits_like_one(project: Project) -> None:
    user = project.users["mia"]
    note = project.fake.note_by(user, "/fix")
    project.note_id = int(note["id"])
    analysed, published, calls = _two_jobs(project, gitlab_hooks.note_on_merge_request(
        user, project.note_id, "/fix", project.fake.version["head_commit_sha"]))
    assert (analysed, published, calls) == (0, 0, 0)  # analyze spoke to no forge at all
    assert project.awards() == ["eyes", "rocket"]
    new = project.branch()
    assert git(project.origin, "rev-parse", f"{new}^") == project.head
    assert git(project.origin, "show", f"{new}:app.py").startswith("import sys\n")
    [reply] = project.replies()
    assert new in reply and "merge request pipeline" in reply


def test_the_apply_label_split_in_two_jobs(project: Project) -> None:
    assert project.note("dev", "/ast-edit print($A) => log($A)") == 0
    user = project.users["dev"]
    project.fake.labels = ["bug", LABEL]
    analysed, published, calls = _two_jobs(project, gitlab_hooks.merge_request_update(
        user, ["bug"], ["bug", LABEL], project.fake.version["head_commit_sha"]))
    assert (analysed, published, calls) == (0, 0, 0)
    new = project.branch()
    assert "log(sys.argv)" in git(project.origin, "show", f"{new}:app.py")
    assert project.fake.labels == ["bug"]
