"""Terminal output survives hostile names and messages: one finding, one header line, no escapes."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.model import ReviewResult, ToolRun
from bot.positions import display_width
from bot.render import text
from tests.conftest import GitRepo, require_tool
from tests.forges.builders import finding, verdict

RUFF = "[tool.ruff]\n[tool.ruff.lint]\nselect = [\"F\"]\n"


@pytest.fixture(autouse=True)
def _ruff() -> None:
    require_tool("ruff")


def review_text(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    main(["review", "--repo", str(repo.path), "--base", "main", "--no-cache"])
    return capsys.readouterr().out


@pytest.mark.parametrize(("name", "shown"), [
    ("bad\nname.py", '"bad\\nname.py"'),
    ("esc\x1b[2Jx.py", '"esc\\x1b[2Jx.py"'),
    ("cr\rover.py", '"cr\\rover.py"'),
])
def test_a_control_character_in_a_path_is_escaped(repo: GitRepo, capsys: pytest.CaptureFixture[str],
                                                  name: str, shown: str) -> None:
    repo.commit({"pyproject.toml": RUFF, "ok.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({name: "import os\n"})
    out = review_text(repo, capsys)
    assert "\x1b" not in out and "\r" not in out
    assert f"── {shown}\n" in out
    header = f"{shown}:1:8: error ruff F401: `os` imported but unused"
    assert [line for line in out.split("\n") if "F401" in line] == [header]
    assert name not in out


def frame_rows(out: str) -> tuple[str, str]:
    """The flagged code line and the caret line under it."""
    lines = out.split("\n")
    index = next(i for i, line in enumerate(lines) if line.lstrip().startswith("█"))
    return lines[index], lines[index + 1]


def test_escape_sequences_in_code_are_shown_not_sent(repo: GitRepo,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({"pyproject.toml": RUFF, "ok.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "s = '\x1b[2J\x07'; import os\n"})
    out = review_text(repo, capsys)
    assert "\x1b" not in out and "\x07" not in out
    code, carets = frame_rows(out)
    assert code.endswith("| s = '\\x1b[2J\\a'; import os")
    assert code[carets.index("^"):].startswith("os")


def test_caret_under_wide_text_points_at_the_finding(repo: GitRepo,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({"pyproject.toml": RUFF, "ok.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "名前 = 'ｶﾀｶﾅ全角ＡＢ' + 未定義\n"})
    out = review_text(repo, capsys)
    assert "F821" in out
    code, carets = frame_rows(out)
    before = code[: code.index("未定義")]
    assert display_width(before) == carets.index("^")
    assert len(carets) - carets.index("^") == display_width("未定義") == 6


def test_multi_line_tool_errors_are_indented_under_their_tool(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff]\nline-length = "x"\n', "a.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "x = 2\n"})
    out = review_text(repo, capsys)
    lines = out.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("! ruff: failed: "))
    rest = lines[first + 1:]
    tail = rest[: next(i for i, line in enumerate(rest) if not line.startswith("    "))]
    assert any("TOML parse error" in line for line in tail)
    assert not any(line.startswith(("  |", "2 |")) for line in lines)  # ruff's gutter stays inside


def test_a_message_never_ends_its_line_early() -> None:
    f = finding("a.py", 1, message="first\nsecond\x1b]0;title\x07\u202eevil")
    notes = ("a note\nwith two lines",)
    res = ReviewResult("main", "b" * 40, "c" * 40, (ToolRun("ruff", "1\x1b[0m", "ok"),),
                       (verdict(f, "fp"),), (), notes=notes)
    out = text.render(res, lambda path: ["x = 1\n"])
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "a.py:1:1: error ruff F841: first\\nsecond\\x1b]0;title\\a\\u202eevil\n" in out
    assert "note: a note\\nwith two lines\n" in out and "ruff 1\\x1b[0m |" in out


def test_what_a_tool_left_out_on_purpose_is_said() -> None:
    skipped = "importers of p04 not checked: only function bodies changed there"
    res = ReviewResult("main", "b" * 40, "c" * 40,
                       (ToolRun("golangci-lint", "2", "ok"), ToolRun("gopls", None, "ok", skipped)),
                       (), ())
    out = text.render(res, lambda path: [])
    assert f"note: gopls: {skipped}\n" in out
    assert "golangci-lint:" not in out  # a tool with nothing to say gets no line
