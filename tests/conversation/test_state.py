"""The conversation's state in the summary comment: written, read back, never injectable."""

from __future__ import annotations

import base64

from bot.conversation.state import MAX_STAGED, Conversation, Ignored, Staged, marker, read, restated, section
from bot.render.markdown import SUMMARY_MARKER

STATE = Conversation((Ignored("0123456789abcdef0123", "alice", "vendored --> <b>x</b>"),),
                     (Staged("print($A)", "log($A)", "python", "bob"),), "3f9a1c2b7d4e")


def test_the_marker_round_trips_inside_a_summary() -> None:
    body = f"<!-- reviewbot:summary -->\n## reviewbot\n\n{section(STATE, 'plan text')}\n"
    assert read(body) == STATE
    assert body.count("-->") == 2  # the reason's `-->` is inside the base64, not the page


def test_the_page_lists_who_and_why() -> None:
    text = section(STATE, "**3 edits** in 1 file · `plan 3f9a1c2b7d4e`")
    assert "ignored by @alice: vendored --&gt; &lt;b&gt;x&lt;/b&gt;" in text
    assert "`print($A)` ⇒ `log($A)` (python) — staged by @bob" in text
    assert "### Staged changes\n\n**3 edits**" in text


def test_damaged_or_missing_state_is_empty() -> None:
    assert read(None) == Conversation() and read("no marker") == Conversation()
    assert read("<!-- reviewbot:state !!!! -->") == Conversation()
    junk = base64.b64encode(b'{"ignored": [{"fingerprint": 1}], "staged": "x", "plan": "zz"}')
    assert read(f"<!-- reviewbot:state {junk.decode()} -->") == Conversation()
    assert marker(Conversation()) == "" and section(Conversation()) == ""


def test_newest_word_stands_and_sizes_are_bounded() -> None:
    state = STATE.ignore(Ignored("0123456789abcdef0123", "carol", "false positive"))
    assert state.ignored == (Ignored("0123456789abcdef0123", "carol", "false positive"),)
    for n in range(MAX_STAGED + 5):
        state = state.stage(Staged(f"f{n}($A)", "g($A)", None, "bob"))
    assert len(state.staged) == MAX_STAGED and state.staged[-1].pattern == f"f{MAX_STAGED + 4}($A)"
    assert read(marker(state)) == state
    assert state.applied().staged == () and state.applied().shown is None


# The summary's closing section replaced with the state, its review kept: what a publish that
# has no review of the new head saves.
REVIEW = f"{SUMMARY_MARKER}\n## reviewbot\n\n2 introduced at `abc123`.\n\n| a | b |\n|---|---|"
IGNORED = Ignored("ruff:F401:abc", "mia", "vendored")
STAGED = Staged("print($A)", "log($A)", None, "mia")


def test_the_applied_plan_leaves_the_summary_and_the_ignored_stay() -> None:
    before = Conversation((IGNORED,), (STAGED,), "0123456789ab")
    body = f"{REVIEW}\n\n{section(before, 'Plan `plan 0123456789ab`: 1 edit.')}"
    after = restated(body, before.applied())
    assert after.startswith(REVIEW) and "Staged" not in after and "plan " not in after
    assert "ignored by @mia: vendored" in after
    assert read(after) == Conversation((IGNORED,))


def test_an_empty_state_leaves_the_review_alone() -> None:
    body = f"{REVIEW}\n\n{section(Conversation((), (STAGED,), 'abcdef'), 'Plan.')}\n"
    assert restated(body, Conversation()) == REVIEW
    assert restated(REVIEW, Conversation()) == REVIEW


def test_a_summary_without_a_closing_section_gets_one() -> None:
    state = Conversation((IGNORED,))
    assert restated(REVIEW, state) == f"{REVIEW}\n\n{section(state)}"
