"""Shards in a GitLab merge request pipeline: `analyze --shard I/N` jobs (no token), then one
`publish` job of every part against the fake GitLab: the same requests, bodies included, as
the publish of one unsharded analysis; a missing part is refused before any request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from tests.flows.test_review_gitlab import Pipeline, _environ, pipeline  # noqa: F401 (a fixture)


def _analyze(line: Pipeline, monkeypatch: pytest.MonkeyPatch, out: Path, *extra: str) -> str:
    with monkeypatch.context() as job:
        job.delenv("REVIEWBOT_GITLAB_TOKEN")
        line.fake.calls.clear()
        assert cli.main(["analyze", "--out", str(out), *extra]) == 0
        assert line.fake.calls == []
    return str(out)


def _publish(line: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
             capsys: pytest.CaptureFixture[str], files: list[str]) -> tuple[int, Any]:
    """The publish job in an empty folder, as a dry run: its status and the writes it would send."""
    empty = tmp_path / "publish-job"
    empty.mkdir(exist_ok=True)
    capsys.readouterr()
    with monkeypatch.context() as job:
        job.chdir(empty)
        job.setenv("CI_PROJECT_DIR", str(empty))
        status = line.run_command("publish", *files, "--dry-run")
    printed = capsys.readouterr()
    if status not in (0, 1):
        return status, printed.err
    return status, json.loads(printed.out)["requests"]


def test_sharded_analyses_publish_what_one_analysis_publishes(
        pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    pipeline.checkout()
    _environ(pipeline, monkeypatch)
    whole = _analyze(pipeline, monkeypatch, tmp_path / "whole.json")
    status, expected = _publish(pipeline, monkeypatch, tmp_path, capsys, [whole])
    assert status == 1
    assert [r["path"].rsplit("/", 1)[-1] for r in expected] == [
        "discussions", "discussions", "notes", pipeline.fake.version["head_commit_sha"]]
    for count in (1, 2, 3):  # three shards of a two-file change: one part has no work
        parts = [_analyze(pipeline, monkeypatch, tmp_path / f"part-{i}-of-{count}.json",
                          "--shard", f"{i}/{count}") for i in range(1, count + 1)]
        assert _publish(pipeline, monkeypatch, tmp_path, capsys, parts) == (1, expected), count
        if count > 1:
            status, err = _publish(pipeline, monkeypatch, tmp_path, capsys, parts[1:])
            assert status == 2 and f"shard 1/{count} missing" in err
            assert pipeline.fake.calls == []
    assert pipeline.fake.writes() == []
