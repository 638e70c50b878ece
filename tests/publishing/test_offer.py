"""The conversation's part of what a change shows (`bot.publishing.offer`): ignored findings
left out, the head's lines read from git, the staged plan's text and notes, the state carried
in the summary's closing section."""

from __future__ import annotations

from bot.config import Config
from bot.conversation.state import Conversation, Ignored, Staged, read
from bot.model import Finding, ReviewResult, Scope, Severity, Span, Verdict
from bot.publishing.offer import staged, with_conversation, with_notes
from tests.conftest import GitRepo


def verdict(fingerprint: str, line: int) -> Verdict:
    finding = Finding("ruff", "F401", Severity.ERROR, "unused", "app.py", Span(line, 1, line, 5))
    return Verdict(finding, Scope.INTRODUCED, fingerprint, "diff")


def test_ignored_findings_are_left_out_and_the_state_is_the_closing_section(
        repo: GitRepo) -> None:
    head = repo.commit({"app.py": "import os\nimport sys\n"})
    result = ReviewResult("main", head, head, (), (verdict("fp:os", 1), verdict("fp:sys", 2)), ())
    state = Conversation(ignored=(Ignored("fp:sys", "ada", "vendored"),))
    offered = with_conversation(repo.path, result, state, Config(), labels=False)
    shown = offered.shown
    assert [v.fingerprint for v in shown.result.findings] == ["fp:os"]
    assert shown.texts == {"app.py": ["import os\n", "import sys\n"]}  # read from git at the head
    assert "ignored by @ada: vendored" in shown.closing
    assert read(shown.closing) == offered.state and offered.state.shown is None  # no plan


def test_given_texts_are_used_and_notes_say_what_was_not_offered(repo: GitRepo) -> None:
    head = repo.commit({"app.py": "import os\n"})
    result = ReviewResult("main", head, head, (), (verdict("fp:os", 1),), ())
    offered = with_conversation(repo.path, result, Conversation(), Config(),
                                ["a fix the rule does not give"], texts={"app.py": ["given"]})
    assert offered.shown.texts == {"app.py": ["given"]}
    assert offered.shown.closing.endswith("Not offered:\n\n- a fix the rule does not give")


def test_notes_follow_the_plan_s_text_and_staged_rewrites_keep_who_staged_them() -> None:
    assert with_notes("plan", []) == "plan"
    assert with_notes("plan", ["why"]) == "plan\n\nNot offered:\n\n- why"
    state = Conversation(staged=(Staged("print($A)", "log($A)", "python", "ada"),))
    [rewrite] = staged(state)
    assert (rewrite.pattern, rewrite.rewrite, rewrite.lang, rewrite.by) == (
        "print($A)", "log($A)", "python", "ada")
