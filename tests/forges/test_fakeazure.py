"""The fake Azure DevOps itself: it refuses what Azure DevOps's descriptions refuse, checks its
own answers, and behaves as Azure DevOps does where a review bot depends on it. Sent with
plain httpx, not through a client of the bot, so a fault of a client cannot hide one of the
fake."""

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
from tests.forges.fakeazure import API, BOT, HUMAN, FakeAzure, descriptions
from tests.forges.loopback import Fault
from tests.forges.validate import fix_holds

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "azure"
PULL = "/git/repositories/demo/pullRequests/1"
BASE = "a = 1\nb = 2\nc = 3\n"
HEAD = "a = 1\nnew = 0\nb = 2\nc = 3\n"  # line 2 added
V = "7.2-preview.1"


@pytest.fixture
def repo_with_change(repo: GitRepo) -> GitRepo:
    repo.commit({"m.py": BASE, "far.py": "".join(f"x{i} = {i}\n" for i in range(40))}, "base")
    repo.branch("feature")
    repo.commit({"m.py": HEAD}, "head")
    return repo


@pytest.fixture
def fake(repo_with_change: GitRepo) -> Iterator[FakeAzure]:
    server = FakeAzure(repo_with_change.path)
    yield server
    # A request the descriptions refuse fails the test, even where it was expected: the
    # tests that send one clear `errors` after reading it.
    assert server.errors == [], "\n".join(server.errors)


def send(fake: FakeAzure, method: str, where: str, body: Any = None, token: str = "bot-token",
         content_type: str = "application/json", accept: str = "application/json",
         **query: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}", "Accept": accept}
    data = None
    if body is not None:
        headers["Content-Type"] = content_type
        data = json.dumps(body).encode()
    with httpx.Client(transport=fake.transport, headers=headers) as client:
        return client.request(method, f"{API}{where}", content=data,
                              params={"api-version": V, **query})


def thread(fake: FakeAzure, text: str, line: int = 2, **extra: Any) -> httpx.Response:
    return send(fake, "POST", f"{PULL}/threads", {
        "comments": [{"parentCommentId": 0, "content": text, "commentType": "text"}],
        "status": "active",
        "threadContext": {"filePath": "/m.py", "rightFileStart": {"line": line, "offset": 1},
                          "rightFileEnd": {"line": line, "offset": 1}},
        "pullRequestThreadContext": {"changeTrackingId": 1, "iterationContext": {
            "firstComparingIteration": 1, "secondComparingIteration": 1}},
        **extra})


@pytest.mark.parametrize("name", ["git", "wit", "pipelines"])
def test_the_subsets_are_valid_swagger_2_descriptions(name: str) -> None:
    from openapi_spec_validator import OpenAPIV2SpecValidator
    document = json.loads((HERE / f"{name}-7.2-subset.json").read_text())
    assert list(OpenAPIV2SpecValidator(document).iter_errors()) == []


@pytest.mark.parametrize("name", ["git", "wit", "pipelines"])
def test_the_subsets_are_what_the_cut_script_makes_of_the_operations_listed(
        name: str, tmp_path: Path) -> None:
    # A cut of a cut is the same cut, so nothing was added by hand that the operations listed
    # do not reach; and each fix listed is in it.
    subset = json.loads((HERE / f"{name}-7.2-subset.json").read_text())
    out = tmp_path / "again.json"
    subprocess.run([sys.executable, str(ROOT / "scripts/cut-swagger-subset.py"),
                    "--operations", str(HERE / f"{name}-operations.txt"), "--out", str(out),
                    str(HERE / f"{name}-7.2-subset.json")], check=True, capture_output=True)
    assert json.loads(out.read_text()) == subset
    fixes = HERE / f"{name}-fixes.json"
    for fix in json.loads(fixes.read_text()) if fixes.exists() else []:
        assert fix_holds(subset, fix), fix["path"]


def test_a_thread_on_a_line_found_again_by_its_property_and_fixed(fake: FakeAzure) -> None:
    made = thread(fake, "finding", properties={"reviewbot.fingerprint": "f1"})
    assert made.status_code == 200
    tid = made.json()["id"]
    listed = send(fake, "GET", f"{PULL}/threads").json()
    assert listed["count"] == 1
    [found] = [t for t in listed["value"] if t["properties"].get("reviewbot.fingerprint") == "f1"]
    assert found["threadContext"]["rightFileStart"] == {"line": 2, "offset": 1}
    edited = send(fake, "PATCH", f"{PULL}/threads/{tid}/comments/1", {"content": "fixed"})
    assert edited.status_code == 200 and edited.json()["content"] == "fixed"
    fixed = send(fake, "PATCH", f"{PULL}/threads/{tid}", {"status": "fixed"})
    assert fixed.json()["status"] == "fixed"
    assert send(fake, "GET", f"{PULL}/threads/{tid}").json()["comments"][0]["content"] == "fixed"


def test_a_reply_is_a_comment_in_the_thread_and_only_its_author_edits_one(
        fake: FakeAzure) -> None:
    tid = thread(fake, "finding").json()["id"]
    reply = fake.reply(tid, "why?")
    assert reply["parentCommentId"] == 1 and reply["author"] is HUMAN
    answer = send(fake, "POST", f"{PULL}/threads/{tid}/comments", {
        "parentCommentId": 1, "content": "because", "commentType": "text"})
    assert answer.status_code == 200 and answer.json()["id"] == 3
    assert send(fake, "PATCH", f"{PULL}/threads/{tid}/comments/2", {"content": "x"}
                ).status_code == 403
    assert [c["author"]["id"] for c in send(fake, "GET", f"{PULL}/threads/{tid}").json()[
        "comments"]] == [BOT["id"], HUMAN["id"], BOT["id"]]


def test_malformed_requests_are_refused_and_recorded(fake: FakeAzure) -> None:
    wrong_type = thread(fake, "x", line="2")  # type: ignore[arg-type]
    unknown_key = thread(fake, "x", fingerprint="f1")
    bad_enum = thread(fake, "x", status="resolved")
    no_such = send(fake, "POST", f"{PULL}/threads/1/likes", {})
    bad_path = send(fake, "GET", "/git/repositories/demo/pullrequests/one")
    bad_query = send(fake, "GET", f"{PULL}/threads", top="5")
    with httpx.Client(transport=fake.transport, headers={"Authorization": "Bearer bot-token"}
                      ) as client:
        no_version = client.get(f"{API}{PULL}/threads")
    wrong_media = send(fake, "POST", "/wit/workitems/$Task", [
        {"op": "add", "path": "/fields/System.Title", "value": "sweep"}])
    assert [r.status_code for r in (wrong_type, unknown_key, bad_enum, no_such, bad_path,
                                    bad_query, no_version, wrong_media)] == [400] * 8
    text = "\n".join(fake.errors)
    for expected in ("'2' is not of type 'integer'", "undeclared key 'fingerprint'",
                     "'resolved' is not one of", "no such operation",
                     "path parameter pullRequestId='one' is not integer",
                     "undeclared query parameter 'top'",
                     "required query parameter 'api-version' is missing",
                     "content type 'application/json' is not one of"):
        assert expected in text, expected
    assert len(fake.errors) == 9, text  # the wrong type twice: start and end
    fake.errors.clear()
    assert fake.threads == [] and fake.work_items == {}


def test_a_thread_needs_a_comment_and_a_rooted_path(fake: FakeAzure) -> None:
    empty = send(fake, "POST", f"{PULL}/threads", {"comments": [], "status": "active"})
    relative = thread(fake, "x", threadContext={"filePath": "m.py", "rightFileStart": {
        "line": 2, "offset": 1}, "rightFileEnd": {"line": 2, "offset": 1}})
    assert (empty.status_code, relative.status_code) == (400, 400)
    assert fake.threads == []


def test_the_fake_s_answers_are_checked_too() -> None:
    git = descriptions()[0]
    pull = "/o/p/_apis/git/repositories/r/pullrequests/1"
    query = {"api-version": [V]}
    assert git.response_errors("GET", pull, query, 200, {"pullRequestId": "1"})
    assert git.response_errors("GET", pull, query, 200, {"pullRequestID": 1})
    assert git.response_errors("GET", pull, query, 200, {"status": "open"})
    assert not git.response_errors("GET", pull, query, 200, {"pullRequestId": 1,
                                                             "status": "active"})


def test_each_push_is_an_iteration_whose_changes_come_from_git(
        fake: FakeAzure, repo_with_change: GitRepo) -> None:
    changes = send(fake, "GET", f"{PULL}/iterations/1/changes").json()["changeEntries"]
    assert [(c["changeType"], c["item"]["path"]) for c in changes] == [("edit", "/m.py")]
    repo_with_change.commit({"n.py": "n = 1\n"}, "more")
    fake.push()
    iterations = send(fake, "GET", f"{PULL}/iterations").json()["value"]
    assert [i["reason"] for i in iterations] == ["create", "push"]
    since = send(fake, "GET", f"{PULL}/iterations/2/changes", **{"$compareTo": "1"}).json()
    assert [(c["changeType"], c["item"]["path"]) for c in since["changeEntries"]] == [
        ("add", "/n.py")]
    assert len(send(fake, "GET", f"{PULL}/commits").json()["value"]) == 2
    pull = send(fake, "GET", "/git/repositories/demo/pullrequests/1",
                **{"api-version": "7.2-preview.2"}).json()
    assert pull["lastMergeSourceCommit"]["commitId"] == fake.head_sha


def test_the_gate_is_a_pull_request_status(fake: FakeAzure) -> None:
    body = {"state": "failed", "description": "1 new finding",
            "context": {"name": "gate", "genre": "reviewbot"}, "iterationId": 1,
            "targetUrl": "https://ci.example.invalid/1"}
    made = send(fake, "POST", f"{PULL}/statuses", body, **{"api-version": "7.2-preview.2"})
    assert made.status_code == 200 and made.json()["context"]["genre"] == "reviewbot"
    listed = send(fake, "GET", f"{PULL}/statuses", **{"api-version": "7.2-preview.2"}).json()
    assert [s["state"] for s in listed["value"]] == ["failed"]
    no_iteration = send(fake, "POST", f"{PULL}/statuses", {**body, "iterationId": 9},
                        **{"api-version": "7.2-preview.2"})
    assert no_iteration.status_code == 400


def test_labels_are_added_once_and_removed_by_name(fake: FakeAzure) -> None:
    first = send(fake, "POST", f"{PULL}/labels", {"name": "reviewbot:apply"})
    again = send(fake, "POST", f"{PULL}/labels", {"name": "reviewbot:apply"})
    assert first.json()["id"] == again.json()["id"]
    assert [t["name"] for t in send(fake, "GET", f"{PULL}/labels").json()["value"]] == [
        "reviewbot:apply"]
    assert send(fake, "DELETE", f"{PULL}/labels/reviewbot:apply").status_code == 200
    assert send(fake, "DELETE", f"{PULL}/labels/reviewbot:apply").status_code == 404


def test_reviewers_and_an_unknown_token(fake: FakeAzure) -> None:
    reviewers = send(fake, "GET", f"{PULL}/reviewers").json()["value"]
    assert [(r["uniqueName"], r["vote"]) for r in reviewers] == [(HUMAN["uniqueName"], 0)]
    assert send(fake, "GET", f"{PULL}/reviewers", token="nope").status_code == 203


def test_an_item_is_a_file_at_a_commit(fake: FakeAzure) -> None:
    at = {"path": "/m.py", "versionDescriptor.version": fake.head_sha,
          "versionDescriptor.versionType": "commit"}
    raw = send(fake, "GET", "/git/repositories/demo/items", accept="text/plain", **at)
    assert raw.text == HEAD
    item = send(fake, "GET", "/git/repositories/demo/items", includeContent="true", **at)
    assert item.json()["content"] == HEAD and item.json()["path"] == "/m.py"
    gone = send(fake, "GET", "/git/repositories/demo/items", **{**at, "path": "/nope.py"})
    assert gone.status_code == 404
    # without `path` it is another operation (Items_List, kept in `paths`), not in the cut
    listing = send(fake, "GET", "/git/repositories/demo/items", scopePath="/")
    assert listing.status_code == 400 and "no such operation" in fake.errors[0]
    fake.errors.clear()


def test_a_sweep_is_a_work_item_patched_in_json_patch(fake: FakeAzure) -> None:
    patch = "application/json-patch+json"
    made = send(fake, "POST", "/wit/workitems/$Task", [
        {"op": "add", "path": "/fields/System.Title", "value": "3 findings to sweep"},
        {"op": "add", "path": "/fields/System.Description", "value": "<ul><li>a</li></ul>"}],
        content_type=patch, **{"api-version": "7.2-preview.3"})
    assert made.status_code == 200 and made.json()["fields"]["System.WorkItemType"] == "Task"
    n = made.json()["id"]
    closed = send(fake, "PATCH", f"/wit/workitems/{n}", [
        {"op": "add", "path": "/fields/System.State", "value": "Done"}],
        content_type=patch, **{"api-version": "7.2-preview.3"})
    assert closed.json()["rev"] == 2 and closed.json()["fields"]["System.State"] == "Done"
    untitled = send(fake, "POST", "/wit/workitems/$Task", [
        {"op": "add", "path": "/fields/System.Description", "value": "x"}],
        content_type=patch, **{"api-version": "7.2-preview.3"})
    assert untitled.status_code == 400


def test_a_pipeline_run_with_the_command_s_variables(fake: FakeAzure) -> None:
    body = {"resources": {"repositories": {"self": {"refName": "refs/heads/feature"}}},
            "variables": {"REVIEWBOT_COMMAND": {"value": "/apply 1", "isSecret": False}}}
    run = send(fake, "POST", "/pipelines/7/runs", body)
    assert run.status_code == 200 and run.json()["state"] == "inProgress"
    assert send(fake, "GET", f"/pipelines/7/runs/{run.json()['id']}").json()["id"] == 1
    assert fake.runs[0]["sent"]["variables"]["REVIEWBOT_COMMAND"]["value"] == "/apply 1"
    not_settable = {**body, "variables": {"OTHER": {"value": "x"}}}
    assert send(fake, "POST", "/pipelines/7/runs", not_settable).status_code == 400


@pytest.mark.parametrize("kind", ["500-before", "500-after"])
def test_faults_before_and_after_the_effect(fake: FakeAzure, kind: str) -> None:
    fake.faults.append(Fault(r"POST .*/pullRequests/1/threads", kind))
    assert thread(fake, "x").status_code == 500
    assert len(fake.threads) == (1 if kind == "500-after" else 0)
