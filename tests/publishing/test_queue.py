"""The merge queue's word on a pull request (`bot.publishing.queue`): pure."""

from __future__ import annotations

from bot.model import Finding, ReviewResult, Scope, Severity, Span, Verdict
from bot.publishing.gate import decide
from bot.publishing.queue import MARKER, body, known_key, line, split
from bot.render.markdown import safe_fingerprint

TEXTS = {"app.py": ["def last():", "    return old() + 2", ""]}


def verdict(rule: str, line: int, fingerprint: str, severity: Severity = Severity.ERROR,
            scope: Scope = Scope.INTRODUCED) -> Verdict:
    finding = Finding("ruff", rule, severity, f"{rule} here", "app.py", Span(line, 12, line, 15))
    return Verdict(finding, scope, fingerprint, "diff" if scope is Scope.INTRODUCED else None)


def result(*verdicts: Verdict) -> ReviewResult:
    return ReviewResult("main", "a" * 40, "c" * 40, (), verdicts, ())


def test_known_findings_are_those_the_change_s_review_commented() -> None:
    new, old = verdict("F821", 2, "fp:new"), verdict("F401", 1, "fp:old")
    pre = verdict("E501", 1, "fp:pre", scope=Scope.PREEXISTING)
    assert split(result(new, old, pre), {safe_fingerprint("fp:old")}) == ([new], [old])
    assert known_key(safe_fingerprint("fp:old") + "~2") == safe_fingerprint("fp:old")


def test_a_failing_result_names_the_combination_s_findings_with_their_frames() -> None:
    reviewed = result(verdict("F821", 2, "fp:new"), verdict("F401", 1, "fp:old"))
    text = body(reviewed, decide(reviewed), {safe_fingerprint("fp:old")}, TEXTS,
                queue="merge queue", target="main")
    assert text.startswith(MARKER + "\n## reviewbot: the merge queue stopped this change")
    assert "`cccccccccccc`, this change merged onto `main` at `aaaaaaaaaaaa`" in text
    combination, known = text.split("### Already in this change's review (1)")
    assert "Introduced by the combination (1)" in combination and "F821" in combination
    assert "█ 2 |     return old() + 2" in combination  # the code frame
    assert "F401" in known and "█" not in known  # one line each, no frame


def test_a_passing_result_says_so_and_names_nothing() -> None:
    warned = result(verdict("F821", 2, "fp:new", Severity.WARNING))
    text = body(warned, decide(warned), set(), TEXTS, queue="merge train", target=None)
    assert text.startswith(MARKER + "\n## reviewbot: the merge train passes")
    assert "its target" in text and "F821" not in text


def test_a_long_list_stays_within_the_limit() -> None:
    many = result(*(verdict("F821", 2, f"fp:{n}") for n in range(300)))
    whole = body(many, decide(many), set(), TEXTS, queue="merge queue", target="main")
    assert "… and 200 more" in whole and whole.count("█") == 25  # frames for the first 25
    short = body(many, decide(many), set(), TEXTS, queue="merge queue", target="main",
                 limit=5_000)
    assert len(short) <= 5_000 and short.startswith(MARKER) and len(whole) > 5_000


def test_the_log_line_counts_the_combination_s_findings_and_the_change_s_own() -> None:
    reviewed = result(verdict("F821", 2, "fp:new"), verdict("F401", 1, "fp:old"))
    said = line(reviewed, decide(reviewed), {safe_fingerprint("fp:old")}, queue="merge queue",
                change="PR #7")
    assert said == ("merge queue: PR #7 merged as cccccccccccc onto aaaaaaaaaaaa: fails; 1 new "
                    "or changed finding(s) from the combination, 1 already in the change's review")
