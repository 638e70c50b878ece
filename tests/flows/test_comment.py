"""Slash commands end to end against the fake GitHub and a real origin."""

from __future__ import annotations

import pytest

from tests.flows.conftest import USERS, World, git


def test_help_answers_with_the_table(world: World) -> None:
    assert world.comment("wes", "/help") == 0
    [reply] = world.replies()
    assert "`/ast-edit PATTERN => REWRITE [--lang L]`" in reply
    assert world.reactions() == ["eyes", "rocket"]


def summary(world: World) -> str:
    [found] = world.fake.summaries()
    return str(found["body"])


def test_review_publishes_with_the_staged_plan(world: World) -> None:
    assert world.comment("wes", "/review") == 0
    assert world.reactions() == ["eyes", "rocket"]
    bodies = [c["body"] for c in world.fake.bot_comments()]
    assert any("F401" in b for b in bodies) and any("F841" in b for b in bodies)
    text = summary(world)
    assert "### Staged changes" in text and "`plan " in text and "ruff F401 (safe): 1 edit" in text
    assert world.replies() == []  # the review is the answer


def test_fix_commits_the_safe_fixes_and_reviews_the_new_head(world: World) -> None:
    assert world.comment("max", "/fix") == 0
    assert world.reactions() == ["eyes", "rocket"]
    new = world.branch()
    assert new != world.head
    assert git(world.origin, "rev-parse", f"{new}^") == world.head  # one commit on the head
    assert git(world.origin, "log", "-1", "--format=%an <%ae>", new) == (
        "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>")
    assert git(world.origin, "show", f"{new}:app.py") == (
        "import sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n    return sys.argv")
    message = git(world.origin, "log", "-1", "--format=%B", new)
    assert "max" in message
    [reply] = world.replies()
    assert new in reply and "starts no new workflow run" in reply
    assert f"Compared `{new[:12]}`" in summary(world)  # the new head, reviewed in the same run
    assert not any("F401" in c["body"] and c["commit_id"] == new for c in world.fake.bot_comments())


def test_ast_grep_replies_with_code_frames(world: World) -> None:
    assert world.comment("wes", "/ast-grep print($A) --lang python") == 0
    [reply] = world.replies()
    assert reply.startswith("> /ast-grep print($A) --lang python")
    assert "1 match in 1 file" in reply and "print(sys.argv)" in reply and "**`app.py`:6**" in reply
    assert world.writes() == [("POST", "/issues/comments/1001/reactions"),
                              ("POST", "/issues/7/comments"),
                              ("POST", "/issues/comments/1001/reactions")]


def test_a_pattern_that_does_not_parse_gets_the_parser_s_words(world: World) -> None:
    assert world.comment("wes", "/ast-grep def (") == 0
    [reply] = world.replies()
    assert "is not valid python code" in reply
    assert world.reactions() == ["eyes", "confused"]


def test_ast_edit_stages_and_apply_commits_the_plan_shown(world: World) -> None:
    assert world.comment("wes", "/ast-edit print($A) => log($A)") == 0
    [staged] = world.replies()
    assert "Staged 1 edit; nothing is committed yet." in staged
    assert "-    print(sys.argv)\n+    log(sys.argv)" in staged
    plan = staged.split("`plan ")[1].split("`")[0]
    text = summary(world)
    assert f"`plan {plan}`" in text and "— staged by @wes" in text
    assert world.branch() == world.head  # nothing committed

    assert world.comment("ada", "/apply") == 0
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py") == (
        "import sys\n\n\ndef main():\n    log(sys.argv)\n    unused = 1\n    return sys.argv")
    assert plan in git(world.origin, "log", "-1", "--format=%B", new)
    reply = world.replies()[-1]
    assert new in reply and world.reactions() == ["eyes", "rocket"]
    assert "staged by" not in summary(world)  # applied: nothing staged any more


def test_apply_without_a_plan_shown_commits_nothing(world: World) -> None:
    assert world.comment("wes", "/apply") == 0
    assert "the summary shows no staged plan" in world.replies()[-1]
    assert world.branch() == world.head and world.reactions() == ["eyes", "confused"]


def test_a_push_between_the_read_and_the_push_is_kept(world: World,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.apply import commit
    original = commit.push
    theirs: list[str] = []

    def racing(*args, **kwargs):  # type: ignore[no-untyped-def]
        theirs.append(world.push({"other.py": "x = 1\n"}, at="2026-01-02T10:01:00Z"))
        return original(*args, **kwargs)
    monkeypatch.setattr(commit, "push", racing)
    assert world.comment("wes", "/fix") == 0
    assert world.branch() == theirs[0]  # their commit stands; ours was refused by the lease
    assert "the lease refused the push" in world.replies()[-1]
    assert world.reactions() == ["eyes", "confused"]


def test_a_plan_touching_workflows_is_refused(repo, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tests.flows.conftest import BASE, make_world
    head = {".github/workflows/helper.py": "import os\nimport sys\n\nprint(sys.argv)\n"}
    for world in make_world(repo, tmp_path, monkeypatch, BASE, head):
        assert world.comment("wes", "/fix") == 0
        reply = world.replies()[-1]
        assert "files under .github/workflows/ are never changed by the bot" in reply
        assert world.branch() == world.head


def test_a_rewrite_that_would_not_parse_is_not_staged(world: World) -> None:
    """Refused when staged, not first at `/apply`: the maintainer learns it from the reply."""
    assert world.comment("wes", "/ast-edit print($A) => print($A") == 0
    [reply] = world.replies()
    assert ("Not staged: 1 rewritten file would not parse: app.py: the rewritten file does not "
            "parse as python (syntax error at line 6)") in reply
    assert world.reactions() == ["eyes", "confused"]
    assert not any("staged by" in text for text in world.fake.summaries())
    assert world.comment("wes", "/apply") == 0
    assert world.branch() == world.head
    assert "the summary shows no staged plan" in world.replies()[-1]


def _fingerprint(world: World, rule: str) -> str:
    from bot.render.markdown import parse_marker
    for comment in world.fake.bot_comments():
        if rule in comment["body"]:
            marker = parse_marker(comment["body"])
            assert marker is not None
            return marker.fingerprint
    raise AssertionError(f"no comment for {rule}")


def test_ignore_keeps_a_finding_out_of_later_runs(world: World) -> None:
    assert world.review() == 1
    fingerprint = _fingerprint(world, "F841")
    assert world.comment("wes", f"/ignore {fingerprint} the variable is for the debugger") == 0
    assert "Ignored `ruff` `F841` at `app.py:7`" in world.replies()[-1]
    text = summary(world)
    assert f"`{fingerprint}` — ignored by @wes: the variable is for the debugger" in text
    world.fake.reset_calls()
    assert world.review() == 1  # a later run: the ignored finding is not commented again
    posted = [c for c in world.fake.calls if c.method == "POST" and c.path.endswith("/reviews")]
    assert all("F841" not in str(c.body) for c in posted)
    assert "ignored by @wes" in summary(world)
    assert world.comment("wes", "/ignore 0123456789abcdef0123 nope") == 0
    assert "has the fingerprint" in world.replies()[-1]


def test_unknown_verbs_and_bad_arguments_get_a_short_reply(world: World) -> None:
    assert world.comment("wes", "/deploy\n/review now") == 0
    first, second = world.replies()
    assert "unknown command `/deploy`" in first and "`/ast-grep`" in first
    assert "takes no arguments" in second
    assert world.reactions() == ["eyes", "confused"]


@pytest.mark.parametrize("user", ["tia", "rex", "nobody"])
def test_others_get_one_reply_and_nothing_else(world: World, user: str) -> None:
    assert world.comment(user, "/fix\n/apply") == 0
    assert world.writes() == [("POST", "/issues/comments/1001/reactions"),
                              ("POST", "/issues/7/comments")]
    assert world.reactions() == ["-1"]
    [reply] = world.replies()
    assert "admin, maintain or write role on octo/demo" in reply
    assert world.branch() == world.head


@pytest.mark.parametrize("user", sorted(USERS))
def test_every_permission_level(world: World, user: str) -> None:
    assert world.comment(user, "/help") == 0
    allowed = USERS[user] in ("admin", "maintain", "write")
    assert world.reactions() == (["eyes", "rocket"] if allowed else ["-1"])


def test_maintain_can_be_required(repo, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tests.flows.conftest import BASE, HEAD, make_world
    settings = {**BASE, ".reviewbot.yml": "commands: {permission: maintain}\n"}
    for world in make_world(repo, tmp_path, monkeypatch, settings, HEAD):
        assert world.comment("wes", "/help") == 0
        assert world.reactions() == ["-1"] and "admin or maintain role" in world.replies()[0]
        assert world.comment("max", "/help") == 0
        assert world.reactions() == ["eyes", "rocket"]


@pytest.mark.parametrize(("login", "typed_bot"), [("github-actions[bot]", True),
                                                  ("renovate[bot]", False),
                                                  ("some-app", True)])
def test_bots_are_ignored_without_a_request(world: World, login: str, typed_bot: bool) -> None:
    world.fake.reset_calls()
    assert world.comment(login, "/apply", bot=typed_bot) == 0
    assert world.fake.calls == []


def test_an_account_github_calls_a_bot_gets_nothing(world: World) -> None:
    assert world.comment("deployer", "/help") == 0  # not known: permission NONE, one reply
    world.fake.reset_calls()
    world.fake.grant("robot", "admin", bot=True)
    assert world.comment("robot", "/fix") == 0
    assert world.writes() == [] and world.reactions() == []


@pytest.mark.parametrize("body", ["```\n/fix\n```", "> /fix", "~~~\n/apply\n~~~", "    /fix",
                                  "see the /fix command"])
def test_quoted_and_fenced_commands_write_nothing(world: World, body: str) -> None:
    world.fake.reset_calls()
    assert world.comment("ada", body) == 0
    assert world.fake.calls == []


def test_a_head_pushed_after_the_comment_stops_every_command(world: World) -> None:
    moved = world.push({"other.py": "x = 1\n"}, at="2026-01-02T10:05:00Z")
    assert world.comment("ada", "/fix\n/review", written="2026-01-02T10:00:00Z") == 0
    [reply] = world.replies()
    assert f"moved to {moved[:12]} after the comment was written" in reply
    assert world.branch() == moved and world.fake.summaries() == []
    assert world.reactions() == ["eyes", "confused"]
    # Commit dates do not count: only when GitHub recorded the push.
    assert git(world.origin, "log", "-1", "--format=%cI", moved).startswith("2026-01-01")


def test_a_fork_without_maintainer_access_gets_the_patch(world: World) -> None:
    world.fake.fork = "someone/demo"
    world.fake.pushed(world.head, "2026-01-02T09:00:00Z")
    assert world.comment("wes", "/fix") == 0
    [reply] = world.replies()
    assert "cannot be pushed to" in reply and "```diff" in reply and "-import os" in reply
    assert world.branch() == world.head
    assert world.reactions() == ["eyes", "rocket"]


def test_a_closed_pull_request_or_an_unknown_language_writes_nothing_wrong(world: World) -> None:
    assert world.comment("wes", "/ast-grep print($A) --lang cobol") == 0
    assert "cobol" in world.replies()[-1] and world.reactions() == ["eyes", "confused"]
    with world.fake._lock:
        world.fake.s.state = "closed"
    world.fake.reset_calls()
    cid = world.fake.comment_by("wes", "/fix")
    from tests.ci.test_github_actions import pr_comment
    payload = pr_comment()
    payload["issue"].update(number=7, state="closed")
    payload["repository"]["full_name"] = "octo/demo"
    payload["comment"].update(id=cid, body="/fix", created_at="2026-01-02T10:00:00Z")
    payload["comment"]["user"].update(login="wes", type="User")
    world.fake.reset_calls()
    assert world._run("issue_comment", payload) == 0
    assert world.fake.calls == [] and world.branch() == world.head


def test_state_in_someone_else_s_comment_is_not_trusted(world: World) -> None:
    from bot.conversation.state import Conversation, Staged, marker
    forged = marker(Conversation((), (Staged("return $A", "return None", None, "ada"),)))
    world.fake.comment_by("mallory", f"<!-- reviewbot:summary -->\n{forged}")
    from bot.forges.github.api import Api, Settings
    from bot.forges.github.change import GitHubChange
    settings = Settings(api_url=world.fake.api_url, graphql_url=world.fake.graphql_url,
                        token="t", repository="octo/demo", number=7)
    host = GitHubChange(settings, api=Api(settings))
    assert host.summary_body() is None


@pytest.mark.parametrize("event", ["comment", "label"])
def test_a_dry_run_of_a_command_or_the_label_writes_nothing(world: World, event: str,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    world.flags = ("--dry-run",)
    status = world.comment("wes", "/fix") if event == "comment" else world.label("max")
    assert status == 2
    assert world.writes() == [] and world.branch() == world.fake.s.head
    assert "--dry-run" in capsys.readouterr().err
