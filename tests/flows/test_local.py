"""The local review as a flow (`bot.flows.local`): typed options in, the report out, the gate as
its status; with --fix, one reading of the settings for both reviews. Real ruff, real git."""

from __future__ import annotations

import io
import json

import pytest

from bot import config
from bot.errors import BotError
from bot.flows import local
from bot.options import Checks
from tests.conftest import GitRepo, calls_of, require_tool

RUFF = '[tool.ruff.lint]\nselect = ["F401", "E711"]\n'


@pytest.fixture
def change(repo: GitRepo) -> GitRepo:
    require_tool("ruff")
    repo.commit({"pyproject.toml": RUFF, "a.py": "x = 1\n"}, "base")
    repo.branch("feat")
    repo.commit({"a.py": "import os\n\nx = 1\nif x == None:\n    pass\n"})
    return repo


def review(options: local.LocalOptions) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return local.review(options, out, err), out.getvalue(), err.getvalue()


def test_typed_options_in_the_report_and_the_gate_out(change: GitRepo) -> None:
    status, out, _ = review(local.LocalOptions(change.path, base="main", format="json"))
    doc = json.loads(out)
    assert status == 1 and doc["summary"]["introduced"] == 2
    assert {f["rule"] for f in doc["findings"]} == {"F401", "E711"}
    status, out, _ = review(local.LocalOptions(change.path, base="main",
                                               checks=Checks(fail_level="none")))
    assert status == 0 and "F401" in out and "E711" in out  # text, with the findings


def test_fix_reviews_again_with_the_settings_read_once(
        change: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    reads = calls_of(monkeypatch, config, "for_review")
    status, out, err = review(local.LocalOptions(change.path, base="main", format="json",
                                                 fix=local.Fixing()))
    assert "a.py: +0 -1, 1 fix(es)" in err and "1 introduced/changed finding(s) remain" in err
    doc = json.loads(out)  # the review after the fixes: E711's fix is unsafe, it remains
    assert status == 1 and [f["rule"] for f in doc["findings"]] == ["E711"]
    assert len(reads) == 1


def test_working_tree_with_a_head_is_refused(change: GitRepo) -> None:
    with pytest.raises(BotError, match="--working-tree reviews the files on disk"):
        review(local.LocalOptions(change.path, base="main", head="main", working_tree=True))
