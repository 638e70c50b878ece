"""Webhook bodies shaped as GitLab's documentation shows them (doc/user/project/integrations/
webhook_events.md: "Comment on a merge request", "Merge request events"), with every field the
examples carry, filled for the test project `group/demo` (id 42) and its merge request !3."""

from __future__ import annotations

from typing import Any

SERVER = "http://gitlab.example"


def _project(path: str = "group/demo", pid: int = 42) -> dict[str, Any]:
    name = path.rsplit("/", 1)[-1]
    return {"id": pid, "name": name.title(), "description": "", "web_url": f"{SERVER}/{path}",
            "avatar_url": None, "git_ssh_url": f"git@gitlab.example:{path}.git",
            "git_http_url": f"{SERVER}/{path}.git", "namespace": path.split("/")[0].title(),
            "visibility_level": 0, "path_with_namespace": path, "default_branch": "main",
            "ci_config_path": None, "homepage": f"{SERVER}/{path}",
            "url": f"git@gitlab.example:{path}.git", "ssh_url": f"git@gitlab.example:{path}.git",
            "http_url": f"{SERVER}/{path}.git"}


def _user(user: dict[str, Any]) -> dict[str, Any]:
    return {"id": user["id"], "name": user["name"], "username": user["username"],
            "avatar_url": "https://www.gravatar.com/avatar/0?s=40&d=identicon",
            "email": "[REDACTED]"}


def _label(title: str, lid: int) -> dict[str, Any]:
    return {"id": lid, "title": title, "color": "#3e8068", "project_id": 42,
            "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
            "template": False, "description": None, "type": "ProjectLabel", "group_id": None}


def _last_commit(sha: str) -> dict[str, Any]:
    return {"id": sha, "message": "feature\n", "title": "feature",
            "timestamp": "2026-01-02T09:00:00+00:00",
            "url": f"{SERVER}/group/demo/-/commit/{sha}",
            "author": {"name": "Alice", "email": "alice@example.com"}}


def note_on_merge_request(user: dict[str, Any], note_id: int, body: str, last_commit: str, *,
                          action: str = "create", state: str = "opened",
                          source: str = "group/demo", source_id: int = 42) -> dict[str, Any]:
    """`X-Gitlab-Event: Note Hook`, a comment on a merge request."""
    return {
        "object_kind": "note", "event_type": "note", "user": _user(user), "project_id": 42,
        "project": _project(),
        "repository": {"name": "Demo", "url": f"{SERVER}/group/demo.git", "description": "",
                       "homepage": f"{SERVER}/group/demo"},
        "object_attributes": {
            "id": note_id, "note": body, "noteable_type": "MergeRequest", "author_id": user["id"],
            "created_at": "2026-01-02 10:00:00 UTC", "updated_at": "2026-01-02 10:00:00 UTC",
            "project_id": 42, "attachment": None, "line_code": None, "commit_id": "",
            "noteable_id": 1, "system": False, "st_diff": None, "action": action,
            "url": f"{SERVER}/group/demo/-/merge_requests/3#note_{note_id}"},
        "merge_request": {
            "id": 1, "target_branch": "main", "source_branch": "feature",
            "source_project_id": source_id, "author_id": 7, "assignee_id": None,
            "title": "Feature", "created_at": "2026-01-02 09:00:00 UTC",
            "updated_at": "2026-01-02 09:30:00 UTC", "milestone_id": None, "state": state,
            "merge_status": "can_be_merged", "target_project_id": 42, "iid": 3,
            "description": "", "position": 0, "labels": [_label("bug", 1)],
            "source": _project(source, source_id), "target": _project(),
            "last_commit": _last_commit(last_commit), "work_in_progress": False, "draft": False,
            "assignee": None, "detailed_merge_status": "mergeable"},
    }


def note_on_issue(user: dict[str, Any]) -> dict[str, Any]:
    """`X-Gitlab-Event: Note Hook`, a comment on an issue."""
    payload = note_on_merge_request(user, 1241, "/help", "0" * 40)
    del payload["merge_request"]
    payload["object_attributes"].update(noteable_type="Issue", noteable_id=92)
    payload["issue"] = {"id": 92, "title": "test", "assignee_ids": [], "assignee_id": None,
                        "author_id": 1, "project_id": 42, "iid": 17, "state": "opened",
                        "labels": []}
    return payload


def merge_request_update(user: dict[str, Any], previous: list[str], current: list[str],
                         last_commit: str, *, oldrev: str | None = None,
                         source: str = "group/demo", source_id: int = 42) -> dict[str, Any]:
    """`X-Gitlab-Event: Merge Request Hook`, action `update`, with `changes.labels`."""
    labels = {title: _label(title, 10 + n) for n, title in enumerate(dict.fromkeys(previous + current))}
    attributes: dict[str, Any] = {
        "id": 1, "iid": 3, "target_branch": "main", "source_branch": "feature",
        "source_project_id": source_id, "author_id": 7, "assignee_ids": [], "assignee_id": None,
        "reviewer_ids": [], "title": "Feature", "created_at": "2026-01-02T09:00:00Z",
        "updated_at": "2026-01-02T10:00:00Z", "last_edited_at": None, "last_edited_by_id": None,
        "milestone_id": None, "state_id": 1, "state": "opened",
        "blocking_discussions_resolved": True, "work_in_progress": False, "draft": False,
        "first_contribution": False, "merge_status": "can_be_merged", "target_project_id": 42,
        "description": "", "prepared_at": "2026-01-02T09:00:01Z", "total_time_spent": 0,
        "time_change": 0, "human_total_time_spent": None, "human_time_change": None,
        "human_time_estimate": None, "url": f"{SERVER}/group/demo/-/merge_requests/3",
        "source": _project(source, source_id), "target": _project(),
        "last_commit": _last_commit(last_commit), "labels": [labels[t] for t in current],
        "action": "update", "detailed_merge_status": "mergeable"}
    if oldrev:
        attributes["oldrev"] = oldrev
    return {
        "object_kind": "merge_request", "event_type": "merge_request", "user": _user(user),
        "project": _project(),
        "repository": {"name": "Demo", "url": f"{SERVER}/group/demo.git", "description": "",
                       "homepage": f"{SERVER}/group/demo"},
        "object_attributes": attributes, "labels": [labels[t] for t in current],
        "changes": {"updated_by_id": {"previous": None, "current": user["id"]},
                    "updated_at": {"previous": "2026-01-02 09:30:00 UTC",
                                   "current": "2026-01-02 10:00:00 UTC"},
                    **({"labels": {"previous": [labels[t] for t in previous],
                                   "current": [labels[t] for t in current]}}
                       if previous != current else {})},
    }
