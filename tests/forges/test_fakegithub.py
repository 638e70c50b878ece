"""The fake refuses what GitHub's descriptions refuse: otherwise it proves nothing."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.forges.fakegithub import FakeGitHub


def post(fake: FakeGitHub, path: str, body: object) -> httpx.Response:
    return httpx.post(fake.api_url + path, json=body, headers={"Authorization": "token t"})


def test_invalid_rest_requests_are_recorded() -> None:
    with FakeGitHub("a" * 40, {"a.py": {1}}) as fake:
        bad_key = post(fake, "/repos/octo/demo/pulls/7/reviews", {
            "commit_id": "a" * 40, "body": "x", "event": "COMMENT",
            "comments": [{"path": "a.py", "body": "b", "line": 1, "subject_type": "line"}]})
        bad_enum = post(fake, "/repos/octo/demo/pulls/7/reviews", {"body": "x", "event": "NOPE"})
        bad_query = httpx.get(fake.api_url + "/repos/octo/demo/pulls/7/comments?perpage=100",
                              headers={"Authorization": "token t"})
        no_such = httpx.delete(fake.api_url + "/repos/octo/demo/pulls/7/reviews",
                               headers={"Authorization": "token t"})
        bad_graphql = httpx.post(fake.graphql_url, headers={"Authorization": "bearer t"}, json={
            "query": "mutation($id: ID!) { resolveReviewThread(input: {id: $id}) "
                     "{ thread { id } } }", "variables": {"id": "x"}})
        deprecated = httpx.post(fake.graphql_url, headers={"Authorization": "bearer t"}, json={
            "query": "query { repository(owner: \"octo\", name: \"demo\") { pullRequest(number: 7)"
                     " { reviewThreads(first: 1) { nodes { comments(first: 1) { nodes "
                     "{ databaseId } } } } } } }"})
    assert [r.status_code for r in (bad_key, bad_enum, bad_query, no_such)] == [400] * 4
    assert "errors" in bad_graphql.json() and "errors" in deprecated.json()
    text = "\n".join(fake.errors)
    for expected in ("undeclared key 'subject_type'", "'NOPE' is not one of",
                     "undeclared query parameter 'perpage'", "no such operation",
                     "required field 'threadId'", "databaseId is deprecated"):
        assert expected in text


def test_review_outside_the_diff_is_refused_whole() -> None:
    with FakeGitHub("a" * 40, {"a.py": {1, 2}}) as fake:
        answer = post(fake, "/repos/octo/demo/pulls/7/reviews", {
            "commit_id": "a" * 40, "body": "x", "event": "COMMENT",
            "comments": [{"path": "a.py", "body": "ok", "line": 1, "side": "RIGHT"},
                         {"path": "a.py", "body": "bad", "line": 9, "side": "RIGHT"}]})
    assert answer.status_code == 422
    assert "part of the diff" in json.dumps(answer.json())
    assert fake.s.comments == {} and fake.errors == []


@pytest.mark.parametrize("kind,status", [("502", 502), ("secondary", 403), ("403", 403)])
def test_faults_answer_as_configured(kind: str, status: int) -> None:
    from tests.forges.fakegithub import Fault
    with FakeGitHub("a" * 40, {"a.py": {1}}) as fake:
        fake.faults.append(Fault("POST /issues/7/comments", kind))
        first = post(fake, "/repos/octo/demo/issues/7/comments", {"body": "x"})
        second = post(fake, "/repos/octo/demo/issues/7/comments", {"body": "x"})
    assert (first.status_code, second.status_code) == (status, 201)
    assert len(fake.s.issue_comments) == 1


def test_repository_endpoints_are_validated_too() -> None:
    with FakeGitHub("a" * 40, {"a.py": {1}}) as fake:
        command = fake.comment_by("alice", "/review")
        bad_reaction = post(fake, f"/repos/octo/demo/issues/comments/{command}/reactions",
                            {"content": "thumbs"})
        bad_state = httpx.patch(fake.api_url + "/repos/octo/demo/issues/7", json={"state": "done"},
                                headers={"Authorization": "token t"})
        bad_issue = post(fake, "/repos/octo/demo/issues", {"body": "no title", "assignee_ids": [1]})
    assert [r.status_code for r in (bad_reaction, bad_state, bad_issue)] == [400] * 3
    text = "\n".join(fake.errors)
    for expected in ("'thumbs' is not one of", "'done' is not one of", "undeclared key 'assignee_ids'"):
        assert expected in text
    assert fake.s.reactions == {} and fake.s.issues == {}
