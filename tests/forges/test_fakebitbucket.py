"""The fake Bitbucket Cloud itself: it refuses what Bitbucket's description refuses, checks its
own answers, and behaves as Bitbucket does where a review bot depends on it. Sent with plain
httpx, not through a client of the bot, so a fault of a client cannot hide one of the fake."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import GitRepo
from tests.forges.fakebitbucket import API, BOT, HUMAN, FakeBitbucket, description
from tests.forges.loopback import Fault
from tests.forges.validate import fix_holds

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "bitbucket"
REPO = "/repositories/octo/demo"
BASE = "a = 1\nb = 2\nc = 3\n"
HEAD = "a = 1\nnew = 0\nb = 2\nc = 3\n"  # line 2 added


@pytest.fixture
def fake(repo: GitRepo) -> Iterator[FakeBitbucket]:
    repo.commit({"m.py": BASE, "far.py": "".join(f"x{i} = {i}\n" for i in range(40))}, "base")
    repo.branch("feature")
    repo.commit({"m.py": HEAD}, "head")
    server = FakeBitbucket(repo.path)
    yield server
    # A request Bitbucket's description refuses fails the test, even where it was expected:
    # the tests that send one clear `errors` after reading it.
    assert server.errors == [], "\n".join(server.errors)


def send(fake: FakeBitbucket, method: str, path: str, body: Any = None,
         token: str = "bot-token", **query: str) -> httpx.Response:
    with httpx.Client(transport=fake.transport, follow_redirects=True,
                      headers={"Authorization": f"Bearer {token}"}) as client:
        return client.request(method, f"{API}{path}", json=body, params=query)


def inline(fake: FakeBitbucket, text: str, path: str = "m.py", to: int = 2) -> httpx.Response:
    return send(fake, "POST", f"{REPO}/pullrequests/1/comments", {
        "type": "pullrequest_comment", "content": {"raw": text},
        "inline": {"path": path, "to": to}})


def test_the_subset_is_a_valid_swagger_2_description() -> None:
    from openapi_spec_validator import OpenAPIV2SpecValidator
    document = json.loads((HERE / "bitbucket-cloud-subset.json").read_text())
    assert list(OpenAPIV2SpecValidator(document).iter_errors()) == []


def test_the_subset_is_what_the_cut_script_makes_of_the_operations_listed(tmp_path: Path
                                                                          ) -> None:
    # A cut of a cut is the same cut, so nothing was added by hand that the operations listed
    # do not reach; and each fix listed is in it.
    out = tmp_path / "again.json"
    subprocess.run([sys.executable, str(ROOT / "scripts/cut-swagger-subset.py"),
                    "--operations", str(HERE / "operations.txt"), "--out", str(out),
                    str(HERE / "bitbucket-cloud-subset.json")], check=True, capture_output=True)
    kept = json.loads((HERE / "bitbucket-cloud-subset.json").read_text())
    assert json.loads(out.read_text()) == kept
    for fix in json.loads((HERE / "fixes.json").read_text()):
        assert fix_holds(kept, fix), fix["path"]


def test_an_inline_comment_is_created_listed_edited_resolved_and_deleted(
        fake: FakeBitbucket) -> None:
    made = inline(fake, "finding <!-- reviewbot:1 -->")
    assert made.status_code == 201 and made.json()["inline"] == {"path": "m.py", "to": 2}
    cid = made.json()["id"]
    edited = send(fake, "PUT", f"{REPO}/pullrequests/1/comments/{cid}", {
        "type": "pullrequest_comment", "content": {"raw": "fixed"}})
    assert edited.status_code == 200 and edited.json()["content"]["raw"] == "fixed"
    resolved = send(fake, "POST", f"{REPO}/pullrequests/1/comments/{cid}/resolve")
    assert resolved.status_code == 200 and resolved.json()["user"]["nickname"] == "reviewbot"
    again = send(fake, "POST", f"{REPO}/pullrequests/1/comments/{cid}/resolve")
    assert again.status_code == 409
    assert send(fake, "DELETE", f"{REPO}/pullrequests/1/comments/{cid}/resolve").status_code == 204
    assert send(fake, "DELETE", f"{REPO}/pullrequests/1/comments/{cid}").status_code == 204
    listed = send(fake, "GET", f"{REPO}/pullrequests/1/comments", pagelen="100").json()
    assert [(c["id"], c["deleted"]) for c in listed["values"]] == [(cid, True)]


def test_only_the_author_edits_and_a_reply_cannot_be_resolved(fake: FakeBitbucket) -> None:
    cid = inline(fake, "finding").json()["id"]
    reply = fake.reply(cid, "why?")
    assert send(fake, "PUT", f"{REPO}/pullrequests/1/comments/{cid}", {
        "type": "pullrequest_comment", "content": {"raw": "x"}}, token="alice-token"
    ).status_code == 403
    assert send(fake, "POST", f"{REPO}/pullrequests/1/comments/{reply['id']}/resolve"
                ).status_code == 400
    listed = send(fake, "GET", f"{REPO}/pullrequests/1/comments").json()["values"]
    assert [c["user"]["nickname"] for c in listed] == ["reviewbot", "alice"]
    assert listed[1]["parent"]["id"] == cid and listed[1]["inline"]["to"] == 2


def test_malformed_requests_are_refused_and_recorded(fake: FakeBitbucket) -> None:
    comments = f"{REPO}/pullrequests/1/comments"
    wrong_type = send(fake, "POST", comments, {"type": "pullrequest_comment",
                                               "content": {"raw": "x"},
                                               "inline": {"path": "m.py", "to": "2"}})
    unknown_key = send(fake, "POST", comments, {"type": "pullrequest_comment",
                                                "content": {"raw": "x"},
                                                "inline": {"path": "m.py", "line": 2}})
    no_type = send(fake, "POST", comments, {"content": {"raw": "x"}})
    no_such = send(fake, "POST", f"{REPO}/pullrequests/1/comments/5/reactions", {})
    bad_path = send(fake, "GET", f"{REPO}/pullrequests/one")
    bad_query = send(fake, "GET", f"{REPO}/pullrequests/1", pagelen="10")
    bad_enum = send(fake, "PUT", f"{REPO}/commit/{fake.head_sha}/reports/lint", {
        "type": "report", "title": "t", "details": "d", "report_type": "LINT"})
    no_body = send(fake, "PUT", f"{REPO}/issues/1")
    assert [r.status_code for r in (wrong_type, unknown_key, no_type, no_such, bad_path,
                                    bad_query, bad_enum, no_body)] == [400] * 8
    text = "\n".join(fake.errors)
    for expected in ("inline/to: '2' is not of type 'integer'", "'line' was unexpected",
                     "'type' is a required property", "no such operation",
                     "path parameter pull_request_id='one' is not integer",
                     "undeclared query parameter 'pagelen'", "'LINT' is not one of",
                     "the body is required"):
        assert expected in text, expected
    assert len(fake.errors) == 8, "\n".join(fake.errors)
    fake.errors.clear()
    assert fake.comments == [] and fake.reports == {}


def test_the_fake_s_answers_are_checked_too() -> None:
    spec = description()
    pull = "/repositories/o/r/pullrequests/1"
    assert spec.response_errors("GET", pull, {}, 200, {"type": "pullrequest", "id": "1"})
    assert spec.response_errors("GET", pull, {}, 200, {"type": "pullrequest", "idd": 1})
    assert spec.response_errors("GET", pull, {}, 201, {"type": "pullrequest", "id": 1})
    assert not spec.response_errors("GET", pull, {}, 200, {"type": "pullrequest", "id": 1})


def test_the_diff_and_diffstat_redirect_to_the_repository_s_from_real_git(
        fake: FakeBitbucket) -> None:
    diff = send(fake, "GET", f"{REPO}/pullrequests/1/diff")
    assert diff.status_code == 200 and "+new = 0" in diff.text
    assert diff.history[0].status_code == 302
    assert f"/diff/{fake.head_sha}..{fake.base_sha()}" in diff.history[0].headers["location"]
    stat = send(fake, "GET", f"{REPO}/pullrequests/1/diffstat").json()["values"]
    assert stat == [{"type": "diffstat", "status": "modified", "lines_added": 1,
                     "lines_removed": 0, "old": {"type": "commit_file", "path": "m.py"},
                     "new": {"type": "commit_file", "path": "m.py"}}]
    commits = send(fake, "GET", f"{REPO}/pullrequests/1/commits").json()["values"]
    assert [c["hash"] for c in commits] == [fake.head_sha]
    assert send(fake, "GET", f"{REPO}/src/{fake.head_sha}/m.py").text == HEAD


def test_a_code_insights_report_with_annotations_replaced_as_a_whole(fake: FakeBitbucket
                                                                     ) -> None:
    report = f"{REPO}/commit/{fake.head_sha}/reports/reviewbot"
    body = {"type": "report", "title": "reviewbot", "details": "1 new finding",
            "report_type": "BUG", "result": "FAILED", "reporter": "reviewbot",
            "data": [{"type": "NUMBER", "title": "New", "value": 1}]}
    assert send(fake, "PUT", report, body).status_code == 200
    notes = [{"type": "report_annotation", "external_id": "f1", "annotation_type": "BUG",
              "summary": "E501 line too long", "path": "m.py", "line": 2,
              "severity": "MEDIUM", "result": "FAILED"}]
    made = send(fake, "POST", f"{report}/annotations", notes)
    assert made.status_code == 200 and made.json()[0]["external_id"] == "f1"
    listed = send(fake, "GET", f"{report}/annotations").json()["values"]
    assert [a["line"] for a in listed] == [2]
    assert send(fake, "PUT", report, {**body, "result": "PASSED"}).status_code == 200
    assert send(fake, "GET", f"{report}/annotations").json()["values"] == []
    assert send(fake, "GET", report).json()["result"] == "PASSED"
    too_many = [{**notes[0], "external_id": f"f{i}"} for i in range(101)]
    assert send(fake, "POST", f"{report}/annotations", too_many).status_code == 400
    assert "maxItems" in fake.errors[0] or "too long" in fake.errors[0]
    fake.errors.clear()


def test_a_build_status_on_the_head_commit(fake: FakeBitbucket) -> None:
    statuses = f"{REPO}/commit/{fake.head_sha}/statuses"
    made = send(fake, "POST", f"{statuses}/build", {
        "type": "commitstatus", "key": "reviewbot", "state": "FAILED", "name": "reviewbot",
        "url": "https://ci.example.invalid/1", "description": "1 new finding"})
    assert made.status_code == 201
    assert send(fake, "PUT", f"{statuses}/build/reviewbot", {
        "type": "commitstatus", "state": "SUCCESSFUL"}).json()["state"] == "SUCCESSFUL"
    assert [s["state"] for s in send(fake, "GET", statuses).json()["values"]] == ["SUCCESSFUL"]
    bad = send(fake, "POST", f"{statuses}/build", {"type": "commitstatus", "key": "k",
                                                   "state": "PASSED"})
    assert bad.status_code == 400 and "'PASSED' is not one of" in fake.errors[0]
    fake.errors.clear()


def test_a_custom_pipeline_runs_with_the_comment_s_variables(fake: FakeBitbucket) -> None:
    target = {"type": "pipeline_ref_target", "ref_type": "branch", "ref_name": "feature",
              "selector": {"type": "custom", "pattern": "reviewbot"}}
    variables = [{"type": "pipeline_variable", "key": "REVIEWBOT_COMMAND", "value": "/apply 1"}]
    run = send(fake, "POST", f"{REPO}/pipelines", {"type": "pipeline", "target": target,
                                                   "variables": variables})
    assert run.status_code == 201
    assert send(fake, "GET", f"{REPO}/pipelines/{run.json()['uuid']}").json()["build_number"] == 1
    assert fake.pipelines[0]["sent"]["variables"] == variables
    undefined = {**target, "selector": {"type": "custom", "pattern": "other"}}
    assert send(fake, "POST", f"{REPO}/pipelines", {"type": "pipeline", "target": undefined}
                ).status_code == 400
    misspelt = {**target, "ref_typ": "branch"}  # checked through the discriminator's subtype
    assert send(fake, "POST", f"{REPO}/pipelines", {"type": "pipeline", "target": misspelt}
                ).status_code == 400
    assert "undeclared key 'ref_typ'" in fake.errors[0]
    fake.errors.clear()


def test_permissions_are_read_per_user_by_an_admin_only(fake: FakeBitbucket) -> None:
    fake.permissions[HUMAN["account_id"]] = "read"
    where = "/workspaces/octo/permissions/repositories/demo"
    alice = f'user.account_id="{HUMAN["account_id"]}"'
    assert send(fake, "GET", where, q=alice).status_code == 403  # the bot may only write
    fake.permissions[BOT["account_id"]] = "admin"
    answer = send(fake, "GET", where, q=alice)
    assert [(p["user"]["nickname"], p["permission"]) for p in answer.json()["values"]] == [
        ("alice", "read")]
    assert send(fake, "GET", "/user", token="alice-token").json()["account_id"] == \
        HUMAN["account_id"]
    assert send(fake, "GET", "/user", token="nope").status_code == 401
    assert BOT["account_id"] in fake.permissions


def test_issues_exist_only_where_the_tracker_is_on(fake: FakeBitbucket) -> None:
    made = send(fake, "POST", f"{REPO}/issues", {"type": "issue", "title": "3 findings",
                                                 "content": {"raw": "sweep"}, "kind": "task"})
    assert made.status_code == 201
    closed = send(fake, "PUT", f"{REPO}/issues/{made.json()['id']}", {"type": "issue",
                                                                     "state": "resolved"})
    assert closed.json()["state"] == "resolved"
    fake.has_issues = False
    assert send(fake, "GET", f"{REPO}/issues").status_code == 404


def test_tasks_on_a_comment(fake: FakeBitbucket) -> None:
    cid = inline(fake, "finding").json()["id"]
    task = send(fake, "POST", f"{REPO}/pullrequests/1/tasks", {
        "content": {"raw": "fix it"}, "comment": {"type": "pullrequest_comment", "id": cid}})
    assert task.status_code == 201
    done = send(fake, "PUT", f"{REPO}/pullrequests/1/tasks/{task.json()['id']}",
                {"state": "RESOLVED"})
    assert done.json()["state"] == "RESOLVED"


def test_lists_are_paged_as_bitbucket_pages_them(fake: FakeBitbucket) -> None:
    for i in range(12):
        inline(fake, f"c{i}")
    first = send(fake, "GET", f"{REPO}/pullrequests/1/comments").json()
    assert (len(first["values"]), first["size"], first["pagelen"]) == (10, 12, 10)
    with httpx.Client(transport=fake.transport, headers={"Authorization": "Bearer bot-token"}
                      ) as client:
        second = client.get(first["next"]).json()
    assert len(second["values"]) == 2 and "next" not in second
    assert send(fake, "GET", f"{REPO}/pullrequests/1/comments", page="0").status_code == 400
    fake.errors.clear()


@pytest.mark.parametrize("kind", ["500-before", "500-after"])
def test_faults_before_and_after_the_effect(fake: FakeBitbucket, kind: str) -> None:
    fake.faults.append(Fault(r"POST .*/pullrequests/1/comments", kind))
    assert inline(fake, "x").status_code == 500
    assert len(fake.comments) == (1 if kind == "500-after" else 0)
