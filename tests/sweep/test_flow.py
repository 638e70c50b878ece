"""Five consecutive sweeps of a real repository (real ruff, real git, several authors)
against the validating fake GitHub, and the sweeps that must not go wrong: a lost create
answer, a force push, a new configuration, a tool upgrade."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bot import config
from bot.errors import Uncertain
from bot.structural.analyzer import RulesAnalyzer
from bot.sweep import state
from tests.conftest import calls_of
from tests.forges.fakegithub import Fault
from tests.sweep.conftest import APP, CONFIG, OWNERS, UTIL, Sweeper, commit_as


def body_of(sweeper: Sweeper) -> str:
    return str(sweeper.only()[1]["body"])


def rows(body: str) -> list[str]:
    return [line for line in body.splitlines() if line.startswith("| ") and "finding" not in line]


def base_repo(sweeper: Sweeper) -> str:
    return commit_as(sweeper.repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP,
                                              "util.py": UTIL, ".github/CODEOWNERS": OWNERS},
                     "the base")


def test_five_sweeps(sweeper: Sweeper) -> None:
    fake = sweeper.fake
    c0 = base_repo(sweeper)
    # 1: the baseline, recorded in one closed issue; nothing reported for history before it.
    first = sweeper()
    assert first.kind == "baseline" and first.open == ()
    number, issue = sweeper.only()
    assert issue["state"] == "closed" and f"Baseline recorded at {c0[:12]}" in str(issue["body"])
    assert state.decode(str(issue["body"]), "main") == state.State(c0)

    # Two pull requests, one push straight to the branch.
    c1 = commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    c2 = commit_as(sweeper.repo, "carol", {"util.py": UTIL.replace("LIMIT = 10\n", "")},
                   "util: inline the limit")
    c3 = commit_as(sweeper.repo, "dave", {"NOTES.md": "notes\n"}, "notes")
    fake.merged(11, "bob-gh", [c1])
    fake.merged(12, "carol-gh", [c2])

    # 2: both regressions, each with its commit, pull request, author and owners.
    second = sweeper()
    body2 = body_of(sweeper)
    assert second.kind == "swept" and fake.s.issues[number]["state"] == "open"
    by_rule = {r.rule: r for r in second.open}
    assert set(by_rule) == {"F401", "F821"}
    assert (by_rule["F401"].commit, by_rule["F401"].pull, by_rule["F401"].author,
            by_rule["F401"].pull_author) == (c1, 11, "bob", "bob-gh")
    # The undefined name sits on a line nobody touched: found by linting the range's commits.
    assert (by_rule["F821"].commit, by_rule["F821"].pull, by_rule["F821"].author) == (c2, 12, "carol")
    assert by_rule["F821"].line == 4 and by_rule["F821"].owners == ("@octo/util-team",)
    assert by_rule["F401"].owners == ("@octo/maintainers",)
    assert second.probes >= 1
    assert not any(c3[:12] in r for r in rows(body2))  # the push brought nothing
    assert f"{c1[:12]}" in body2 and "#12" in body2
    assert "```text" in body2 and "import os" in body2  # the code frame
    assert "@\u200bbob-gh" in body2  # named, not pinged
    assert len(rows(body2)) == 2 and all(r.startswith("| 🆕 |") for r in rows(body2))
    assert "F401" in second.summary and "F821" in second.summary

    # 3: no new commit: nothing is written.
    writes = fake.count(write=True)
    third = sweeper()
    assert third.kind == "quiet" and fake.count(write=True) == writes
    assert body_of(sweeper) == body2

    # 4: bob fixes his; carol's is still open.
    c4 = commit_as(sweeper.repo, "bob", {"app.py": APP}, "app: no os")
    fake.merged(13, "bob-gh", [c4])
    fourth = sweeper()
    body4 = body_of(sweeper)
    assert [r.rule for r in fourth.open] == ["F821"] and [r.rule for r in fourth.fixed] == ["F401"]
    assert fake.s.issues[number]["state"] == "open"
    struck = [r for r in rows(body4) if r.startswith("| ✅ |")]
    assert len(struck) == 1 and "~~" in struck[0] and "F401" in struck[0]
    assert next(r for r in rows(body4) if r.startswith("| ⏳ |")).count("F821") == 1
    assert fourth.open[0].commit == c2 and fourth.open[0].since == c3  # first reported in 2

    # 5: carol fixes hers: the issue is closed with a comment.
    commit_as(sweeper.repo, "carol", {"util.py": UTIL}, "util: the limit is back")
    fifth = sweeper()
    assert fifth.open == () and [r.rule for r in fifth.fixed] == ["F821"]
    assert fake.s.issues[number]["state"] == "closed"
    assert len(fake.s.issue_notes[number]) == 1 and "fixed" in fake.s.issue_notes[number][0]
    assert len(sweeper.tracking()) == 1
    print("\n--- after sweep 2 ---\n" + body2 + "\n--- after sweep 4 ---\n" + body4)


@pytest.mark.parametrize("kind", ["502-after", "502", "timeout-after"])
def test_a_lost_create_answer_leaves_one_issue(sweeper: Sweeper, kind: str) -> None:
    c0 = base_repo(sweeper)
    fault = Fault(r"POST /issues$", kind)
    sweeper.fake.faults.append(fault)
    outcome = sweeper()
    assert fault.hit == 1 and outcome.kind == "baseline"
    number, issue = sweeper.only()
    assert issue["state"] == "closed" and state.decode(str(issue["body"]), "main") == state.State(c0)
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    assert sweeper().kind == "swept" and sweeper.only()[0] == number


def test_a_create_that_fails_twice_is_reported(sweeper: Sweeper) -> None:
    base_repo(sweeper)
    sweeper.fake.faults.append(Fault(r"POST /issues$", "502", times=2))
    with pytest.raises(Uncertain):
        sweeper()
    assert sweeper.tracking() == {}


def test_a_force_push_starts_a_fresh_baseline(sweeper: Sweeper) -> None:
    c0 = base_repo(sweeper)
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    sweeper()
    assert sweeper()  # quiet
    sweeper.repo.git("reset", "-q", "--hard", c0)  # the swept commit is rewritten away
    rewritten = commit_as(sweeper.repo, "bob", {"app.py": "import json\n" + APP}, "app: json")
    outcome = sweeper()
    assert outcome.kind == "rebaselined" and outcome.open == ()
    body = body_of(sweeper)
    assert "no longer in the history of main" in body and "force push" in body
    assert state.decode(body, "main") == state.State(rewritten)
    assert sweeper.only()[1]["state"] == "closed"


def test_a_force_push_over_open_regressions_says_so_on_the_issue(sweeper: Sweeper) -> None:
    c0 = base_repo(sweeper)
    sweeper()
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    assert len(sweeper().open) == 1
    number = sweeper.only()[0]
    sweeper.repo.git("reset", "-q", "--hard", c0)
    commit_as(sweeper.repo, "bob", {"NOTES.md": "x\n"}, "notes")
    assert sweeper().kind == "rebaselined"
    assert sweeper.fake.s.issues[number]["state"] == "closed"
    assert "force push" in sweeper.fake.s.issue_notes[number][0]


def test_a_new_configuration_is_a_section_of_its_own(sweeper: Sweeper) -> None:
    old = "def same(x):\n    return x == None\n"
    commit_as(sweeper.repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP, "old.py": old},
              "the base")
    sweeper()
    c1 = commit_as(sweeper.repo, "erin", {"pyproject.toml": CONFIG.replace('["F"]', '["F", "E711"]')},
                   "lint: E711")
    c2 = commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    outcome = sweeper()
    body = body_of(sweeper)
    assert [(r.rule, r.commit) for r in outcome.open] == [("F401", c2)]  # the code's regression
    section = body.split("### New with the new configuration (`pyproject.toml`)", 1)[1]
    assert "`old.py:2`" in section.split("###", 1)[0] and "E711" in section
    assert c1[:12] not in body  # attributed to no one
    assert not any("E711" in r for r in rows(body))


def test_a_tool_upgrade_is_named_and_not_attributed(sweeper: Sweeper) -> None:
    base_repo(sweeper)
    sweeper()
    number, issue = sweeper.only()
    # The last sweep's state as an older ruff would have left it.
    earlier = state.decode(str(issue["body"]), "main")
    assert earlier is not None
    marker = state.encode("main", state.State(earlier.sha, {"ruff": "0.0.1"}))
    sweeper.fake.s.issues[number]["body"] = re.sub(r"<!-- reviewbot:sweep .*? -->", marker,
                                                   str(issue["body"]))
    commit_as(sweeper.repo, "bob", {"NOTES.md": "x\n", "app.py": APP + "\n\nVALUE = 1\n"}, "notes")
    outcome = sweeper()
    body = body_of(sweeper)
    assert outcome.open == ()
    assert re.search(r"### New with ruff \d+\.\d+\.\d+ \(was 0\.0\.1\)", body)
    assert "Not regressions of the code" in body


def _regression_after_six_commits(sweeper: Sweeper) -> None:
    """Six commits that change nothing the tools see, then carol's, which brings F821: more
    than LINEAR_UP_TO, so attributing it is bisected."""
    for n in range(6):
        commit_as(sweeper.repo, f"dev{n}", {f"m{n}.py": f"V{n} = {n}\n"}, f"m{n}")
    commit_as(sweeper.repo, "carol", {"util.py": UTIL.replace("LIMIT = 10\n", "")}, "util")


def test_the_same_range_again_lints_no_commit_of_it(sweeper: Sweeper) -> None:
    base_repo(sweeper)
    sweeper()
    number, issue = sweeper.only()
    baseline = str(issue["body"])
    _regression_after_six_commits(sweeper)
    commit_as(sweeper.repo, "dave", {"NOTES.md": "x\n"}, "notes")
    first = sweeper()
    assert [r.rule for r in first.open] == ["F821"] and 1 <= first.probes <= 4
    sweeper.fake.s.issues[number]["body"] = baseline  # as if the update had been lost
    again = sweeper()
    assert again.probes == 0 and again.open == first.open


def test_the_settings_are_read_once_per_sweep_not_per_probe(
        sweeper: Sweeper, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep's review reads .reviewbot.yml and hands it to the reviews that attribute its
    findings (the head's settings, as the verdicts were made with)."""
    base_repo(sweeper)
    sweeper()
    _regression_after_six_commits(sweeper)
    reads = calls_of(monkeypatch, config, "for_review")
    swept = sweeper()
    assert [r.rule for r in swept.open] == ["F821"] and swept.probes >= 1
    assert [call.args[2] for call in reads] == [sweeper.repo.git("rev-parse", "HEAD")]  # the heads


def test_a_shallow_checkout_is_deepened_not_taken_for_a_force_push(sweeper: Sweeper,
                                                                    tmp_path: Path) -> None:
    base_repo(sweeper)
    sweeper()
    c1 = commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    commit_as(sweeper.repo, "dave", {"NOTES.md": "x\n"}, "notes")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{sweeper.repo.path}",
                    str(shallow)], check=True, capture_output=True)
    outcome = sweeper.at(shallow)
    assert outcome.kind == "swept" and [(r.rule, r.commit) for r in outcome.open] == [("F401", c1)]


def test_a_lost_closing_comment_is_not_sent_twice(sweeper: Sweeper) -> None:
    base_repo(sweeper)
    sweeper()
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    sweeper()
    number = sweeper.only()[0]
    commit_as(sweeper.repo, "bob", {"app.py": APP}, "app: no os")
    sweeper.fake.faults.append(Fault(r"POST /issues/\d+/comments$", "502-after"))
    assert sweeper().open == ()
    commit_as(sweeper.repo, "dave", {"NOTES.md": "x\n"}, "notes")
    sweeper()
    assert sweeper.fake.s.issues[number]["state"] == "closed"
    assert len(sweeper.fake.s.issue_notes[number]) == 1


def test_a_tool_that_fails_fixes_nothing(sweeper: Sweeper) -> None:
    base_repo(sweeper)
    sweeper()
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    assert len(sweeper().open) == 1
    # ruff refuses the configuration; the import is still there.
    commit_as(sweeper.repo, "erin", {"pyproject.toml": "[tool.ruff.lint]\nselect = 3\n",
                                     "app.py": "import os\n" + APP + "\n# touched\n"}, "config")
    outcome = sweeper()
    assert [r.rule for r in outcome.open] == ["F401"] and outcome.fixed == ()
    assert "ruff could not check this sweep" in body_of(sweeper)
    assert sweeper.fake.s.issues[sweeper.only()[0]]["state"] == "open"


def test_a_tool_not_run_keeps_its_version_in_the_state(sweeper: Sweeper) -> None:
    base_repo(sweeper)
    sweeper()
    commit_as(sweeper.repo, "bob", {"app.py": APP + "\n# touched\n"}, "app")
    sweeper()
    ran = state.decode(body_of(sweeper), "main")
    assert ran is not None and "ruff" in ran.tools
    commit_as(sweeper.repo, "dave", {"NOTES.md": "x\n"}, "notes")  # nothing for ruff
    sweeper()
    after = state.decode(body_of(sweeper), "main")
    assert after is not None and after.tools == ran.tools


@pytest.mark.parametrize("settings_too", [False, True])
def test_a_new_configuration_is_measured_with_the_settings_read_once_unless_they_changed(
        sweeper: Sweeper, monkeypatch: pytest.MonkeyPatch, settings_too: bool) -> None:
    """Both trees of the measure hold the same settings unless the change is to them: then
    each tree is reviewed with its own."""
    commit_as(sweeper.repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP,
                                      "old.py": "def same(x):\n    return x == None\n"}, "base")
    sweeper()
    changed = {"pyproject.toml": CONFIG.replace('["F"]', '["F", "E711"]')}
    if settings_too:
        changed[".reviewbot.yml"] = "timeout: 100\n"
    commit_as(sweeper.repo, "erin", changed, "lint: E711")
    reads = calls_of(monkeypatch, config, "for_review")
    sweeper()
    section = body_of(sweeper).split("### New with the new configuration", 1)[1]
    assert "`old.py:2`" in section.split("###", 1)[0]
    assert len(reads) == (3 if settings_too else 2)  # the range's, then the measure's


def test_the_rules_are_compiled_once_per_sweep_not_per_probe(
        sweeper: Sweeper, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probes that attribute a finding review with the sweep's own tools: the head's
    rules, compiled once."""
    rule = "id: no-eval\nlanguage: javascript\nrule: {pattern: eval($X)}\nmessage: eval\n"
    commit_as(sweeper.repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP, "util.py": UTIL,
                                      ".reviewbot.yml": "rules:\n  - rules/no-eval.yml\n",
                                      "rules/no-eval.yml": rule}, "the base")
    sweeper()
    _regression_after_six_commits(sweeper)
    compiled = calls_of(monkeypatch, RulesAnalyzer, "from_settings")
    swept = sweeper()
    assert [r.rule for r in swept.open] == ["F821"] and swept.probes >= 1
    assert len(compiled) == 1


def test_the_owners_come_from_the_first_place_that_holds_a_codeowners_file(
        sweeper: Sweeper) -> None:
    commit_as(sweeper.repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP,
                                      "CODEOWNERS": OWNERS, "docs/CODEOWNERS": "* @octo/docs\n"},
              "the base")
    sweeper()
    commit_as(sweeper.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    assert [r.owners for r in sweeper().open] == [("@octo/maintainers",)]
