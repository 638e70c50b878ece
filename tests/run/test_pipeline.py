"""Where a review starts (`begin`): the revisions, the settings and the tools they choose, made
once and handed to every review of a run (`again`)."""

from __future__ import annotations

import pytest

from bot import git
from bot.errors import BotError, Exit
from bot.run import pipeline
from bot.run.pipeline import ReviewOptions, again, begin, run_review
from bot.structural.analyzer import RulesAnalyzer
from tests.conftest import GitRepo, calls_of

SETTINGS = "rules:\n  - rules/no-eval.yml\n"
NO_EVAL = "id: no-eval\nlanguage: javascript\nrule: {pattern: eval($X)}\nmessage: eval of $X\n"


def _rules_repo(repo: GitRepo) -> tuple[str, str]:
    """main, then two commits that each add an eval: (first, second)."""
    repo.commit({".reviewbot.yml": SETTINGS, "rules/no-eval.yml": NO_EVAL, "b.js": "x;\n"})
    repo.branch("feat")
    first = repo.commit({"b.js": "x;\neval(a);\n"})
    return first, repo.commit({"b.js": "x;\neval(a);\neval(b);\n"})


def test_begin_chooses_the_tools_and_again_keeps_them(repo: GitRepo,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _rules_repo(repo)
    compiled = calls_of(monkeypatch, RulesAnalyzer, "from_settings")
    opts = ReviewOptions(repo.path, base="main", head=second, only=("ast-grep",))
    begun = begin(opts)
    assert sorted(begun.analyzers) == ["ast-grep"] and begun.rev.head == second
    earlier = ReviewOptions(repo.path, base="main", head=first, only=("ast-grep",))
    shared = again(earlier, begun)
    assert shared.rev.head == first and shared.analyzers is begun.analyzers
    assert shared.settings is begun.settings
    lines = [[v.finding.line for v in run_review(o, b).findings]
             for o, b in ((opts, begun), (earlier, shared))]
    assert lines == [[2, 3], [2]] and len(compiled) == 1  # the rules compiled once


def test_a_bad_rule_stops_the_run_before_the_change_is_read(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit({".reviewbot.yml": "rules:\n  - missing.yml\n", "b.js": "x;\n"})
    repo.branch("feat")
    repo.commit({"b.js": "eval(a);\n"})
    monkeypatch.setattr(pipeline.workspace, "read_changes", lambda rev: pytest.fail("read"))
    with pytest.raises(BotError, match=r"cannot read rule file missing\.yml") as raised:
        begin(ReviewOptions(repo.path, base="main"))
    assert raised.value.code == Exit.USAGE


def test_an_unknown_only_tool_stops_at_the_beginning(repo: GitRepo) -> None:
    repo.commit({"a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    with pytest.raises(BotError, match=r"--only rufff: no such tool \(did you mean .ruff.\?\)"):
        begin(ReviewOptions(repo.path, base="main", only=("rufff",)))


def test_the_rule_files_are_read_from_the_head_through_one_process(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit({".reviewbot.yml": "rules:\n  - rules/no-eval.yml\n  - rules/again.yml\n",
                 "rules/no-eval.yml": NO_EVAL, "rules/again.yml": NO_EVAL.replace("no-eval", "again"),
                 "b.js": "x;\n"})
    repo.branch("feat")
    repo.commit({"b.js": "eval(a);\n"})
    reads = calls_of(monkeypatch, git, "cat_blobs")
    begun = begin(ReviewOptions(repo.path, base="main", only=("ast-grep",)))
    specs = [call.args[1] for call in reads]
    assert [s for s in specs if "rules/" in " ".join(s)] == [
        [f"{begun.rev.head}:rules/no-eval.yml", f"{begun.rev.head}:rules/again.yml"]]
    assert [c.id for c in begun.analyzers["ast-grep"].configs] == ["no-eval", "again"]  # type: ignore[attr-defined]
