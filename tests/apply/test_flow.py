"""The apply flow end to end: a real review, a real bare `origin`, real pushes with git."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import pytest

from bot.apply.flow import ApplyOutcome, ApplyRequest, run
from bot.apply.plan import StagedRewrite, plan_for
from bot.errors import BotError
from tests.apply.conftest import Scenario, git

BOT = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"
STR_TO_REPR = StagedRewrite("str($A)", "repr($A)", None, "alice")
APP_AFTER = ("import logging\n\nlog = logging.getLogger()\n\n\ndef old():\n    print('kept')\n\n\n"
             "def new(x):\n    log.info(x)\n    if x == None:\n        return 0\n    return 1\n")
UTIL_AFTER = "\n\ndef helper(v):\n    return repr(v)\n"


def apply(pr: Scenario, *, staged: tuple[StagedRewrite, ...] = (STR_TO_REPR,),
          kind: Literal["apply", "fix"] = "apply", asked_by: str = "alice", **kw: Any) -> ApplyOutcome:
    return run(ApplyRequest(pr.checkout, "origin", "feat", pr.result, staged, kind, asked_by, **kw))


def untouched(checkout: Path) -> tuple[str, str, str, bytes]:
    """What a run must leave as it was: the working tree's status (ignored files too), the
    index's entries and bytes, and HEAD."""
    status = git(checkout, "status", "--porcelain=v1", "--ignored", "--untracked-files=all")
    # Read after `git status`, which refreshes the index's file times when they are stale.
    index = (checkout / ".git" / "index").read_bytes()
    return status, git(checkout, "ls-files", "--stage"), git(checkout, "rev-parse", "HEAD"), index


def blob(repo: Path, rev: str, path: str) -> str:
    return subprocess.run(["git", "cat-file", "blob", f"{rev}:{path}"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout


def commit_header(repo: Path, sha: str) -> dict[str, str]:
    raw = git(repo, "cat-file", "commit", sha)
    header, _, message = raw.partition("\n\n")
    fields = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in header.splitlines()}
    fields["message"] = message
    return fields


def test_apply_pushes_one_commit_on_the_head(pr: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    # The push's credentials travel in push_env only; an inherited token never reaches git.
    hook = pr.origin / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\ncat >/dev/null\nenv > '{pr.origin.parent / 'push-env.txt'}'\n")
    hook.chmod(0o755)
    monkeypatch.setenv("GITHUB_TOKEN", "inherited-secret")
    before = untouched(pr.checkout)
    outcome = apply(pr, push_env={"REVIEWBOT_PUSH_TOKEN": "explicit-secret"})

    assert outcome.status == "pushed", outcome.message
    assert outcome.commit == pr.remote_head("feat")
    assert untouched(pr.checkout) == before
    header = commit_header(pr.origin, outcome.commit)
    assert header["parent"] == pr.head
    assert header["author"].startswith(BOT + " ") and header["committer"].startswith(BOT + " ")
    assert header["message"] == (f"reviewbot: apply plan {outcome.plan.id} (asked by alice)\n\n"
                                 "- ast-grep rule no-print: 1 edit\n- /ast-edit by alice: 1 edit\n"
                                 "- ruff F401 (safe): 2 edits")
    assert git(pr.origin, "diff-tree", "--no-commit-id", "--name-only", "-r", pr.head,
               outcome.commit).split() == ["app.py", "util.py"]
    assert blob(pr.origin, outcome.commit, "app.py") == APP_AFTER
    assert blob(pr.origin, outcome.commit, "util.py") == UTIL_AFTER
    pushed_env = (pr.origin.parent / "push-env.txt").read_text()
    assert "REVIEWBOT_PUSH_TOKEN=explicit-secret" in pushed_env
    assert "inherited-secret" not in pushed_env
    for config in (pr.checkout / ".git" / "config", pr.origin / "config"):
        assert "secret" not in config.read_text()
    assert pr.remote_head("main") == git(pr.checkout, "rev-parse", "origin/main")  # main untouched


def test_fix_commits_only_the_safe_linter_fixes(pr: Scenario) -> None:
    outcome = apply(pr, kind="fix", asked_by="bob")
    assert outcome.status == "pushed", outcome.message
    assert outcome.plan.sources == ("ruff F401 (safe): 2 edits",)
    assert commit_header(pr.origin, outcome.commit or "")["message"].startswith(
        f"reviewbot: apply safe fixes, plan {outcome.plan.id} (asked by bob)\n")
    app = blob(pr.origin, "feat", "app.py")
    assert "import os" not in app and "    print(x)" in app and "x == None" in app  # unsafe E711 left
    assert blob(pr.origin, "feat", "util.py") == "\n\ndef helper(v):\n    return str(v)\n"


def test_a_push_that_landed_first_is_kept_and_ours_refused(pr: Scenario) -> None:
    (pr.dev / "other.py").write_text("x = 1\n")
    git(pr.dev, "add", "other.py")
    git(pr.dev, "commit", "-q", "-m", "someone else's push")
    git(pr.dev, "push", "-q", "origin", "feat")
    theirs = git(pr.dev, "rev-parse", "HEAD")
    before = untouched(pr.checkout)
    outcome = apply(pr)  # the review and the plan are of the old head
    assert outcome.status == "moved", outcome.message
    assert pr.remote_head("feat") == theirs
    assert git(pr.origin, "rev-parse", f"{theirs}^") == pr.head
    assert f"at {theirs[:12]} now" in outcome.message and "lease" in outcome.message
    assert untouched(pr.checkout) == before


def test_a_fork_without_maintainer_edits_gets_a_patch(pr: Scenario, tmp_path: Path) -> None:
    outcome = apply(pr, can_push=False)
    assert outcome.status == "patch" and outcome.patch and outcome.commit
    assert pr.remote_head("feat") == pr.head  # nothing pushed
    assert f"Subject: [PATCH] reviewbot: apply plan {outcome.plan.id} (asked by alice)" in outcome.patch
    # The maintainer applies it to the branch as it is and gets exactly the commit's tree.
    git(tmp_path, "clone", "-q", "--branch", "feat", str(pr.origin), "fork")
    fork = tmp_path / "fork"
    subprocess.run(["git", "-c", "user.name=M", "-c", "user.email=m@example.invalid", "am", "-q"],
                   cwd=fork, input=outcome.patch, text=True, check=True, capture_output=True)
    tree = git(pr.checkout, "rev-parse", f"{outcome.commit}^{{tree}}")
    assert git(fork, "rev-parse", "HEAD^{tree}") == tree
    assert git(fork, "log", "-1", "--format=%an <%ae>") == BOT


def test_a_rewrite_that_would_not_parse_commits_nothing(pr: Scenario) -> None:
    broken = StagedRewrite("str($A)", "str($A", None, "carol")
    before = untouched(pr.checkout)
    outcome = apply(pr, staged=(broken,))
    assert outcome.status == "refused" and outcome.commit is None
    assert "util.py: the rewritten file does not parse as python (syntax error at line" in outcome.message
    assert pr.remote_head("feat") == pr.head
    assert untouched(pr.checkout) == before


def test_a_plan_under_github_workflows_is_refused(make_pr: Callable[[Mapping[str, str | None]], Scenario]
                                                 ) -> None:
    pr = make_pr({".github/workflows/gen.py": "import os\n", "util.py": "import sys\n"})
    plan = plan_for(pr.checkout, pr.result, (), "fix")
    assert plan.files == (".github/workflows/gen.py", "util.py")
    outcome = apply(pr, staged=(), kind="fix")
    assert outcome.status == "refused" and outcome.commit is None
    assert ".github/workflows/gen.py" in outcome.message and "never changed" in outcome.message
    assert pr.remote_head("feat") == pr.head


def test_a_different_plan_than_shown_commits_nothing(pr: Scenario) -> None:
    shown = plan_for(pr.checkout, pr.result, (), "apply").id  # shown before /ast-edit was staged
    outcome = apply(pr, expected_plan=shown)
    assert outcome.status == "differs" and shown in outcome.message and outcome.plan.id != shown
    assert pr.remote_head("feat") == pr.head
    assert apply(pr, expected_plan=outcome.plan.id).status == "pushed"


def test_nothing_to_apply(make_pr: Callable[[Mapping[str, str | None]], Scenario]) -> None:
    pr = make_pr({"util.py": "def helper(v):\n    return v\n"})
    outcome = apply(pr, kind="fix")
    assert (outcome.status, outcome.commit, outcome.plan.edits) == ("nothing", None, ())
    assert pr.remote_head("feat") == pr.head


def test_a_push_the_remote_refuses_is_reported(pr: Scenario) -> None:
    hook = pr.origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\ncat >/dev/null\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    outcome = apply(pr, push_env={"REVIEWBOT_PUSH_TOKEN": "explicit-secret"})
    assert outcome.status == "refused" and "Nothing was pushed" in outcome.message
    assert pr.remote_head("feat") == pr.head


def test_a_bad_author_is_refused_before_anything_is_written(pr: Scenario) -> None:
    outcome = apply(pr, author="no email here")
    assert outcome.status == "refused" and "Name <email>" in outcome.message
    assert pr.remote_head("feat") == pr.head


def test_the_lease_refuses_even_a_push_that_would_fast_forward(pr: Scenario) -> None:
    # Someone reset the branch to an older commit: our commit would fast-forward it, so only
    # the lease on the head we reviewed keeps their reset.
    main = pr.remote_head("main")
    git(pr.dev, "push", "-q", "--force", "origin", "main:feat")
    outcome = apply(pr)
    assert outcome.status == "moved", outcome.message
    assert pr.remote_head("feat") == main


def test_a_checkout_without_the_head_is_an_error(pr: Scenario, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "empty")
    with pytest.raises(BotError, match="does not hold the PR head"):
        run(ApplyRequest(tmp_path / "empty", "origin", "feat", pr.result, (), "fix", "alice"))


def test_a_branch_name_git_refuses_is_refused(pr: Scenario) -> None:
    for bad in ("a b", "x..y", "-x:refs/heads/main", ""):
        outcome = run(ApplyRequest(pr.checkout, "origin", bad, pr.result, (), "fix", "alice"))
        assert outcome.status == "refused" and "not a branch name" in outcome.message, bad
    assert pr.remote_head("feat") == pr.head
    assert pr.remote_head("main") == git(pr.checkout, "rev-parse", "main")
