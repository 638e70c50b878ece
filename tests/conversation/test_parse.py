"""Command lines of a comment: table tests of the pure parser."""

from __future__ import annotations

import pytest

from bot.conversation.parse import MAX_COMMANDS, Command, Problem, commands, help_text

CASES = [
    ("/review", [Command("review", 1)]),
    ("  /fix  ", [Command("fix", 1)]),
    ("/REVIEW", [Command("review", 1)]),
    ("please\n/review\n/apply", [Command("review", 2), Command("apply", 3)]),
    ("/ast-grep print($A)", [Command("ast-grep", 1, pattern="print($A)")]),
    ("/ast-grep `print($$$A)` --lang python",
     [Command("ast-grep", 1, pattern="print($$$A)", lang="python")]),
    ("/ast-grep foo(--x) --lang=js", [Command("ast-grep", 1, pattern="foo(--x)", lang="js")]),
    ("/ast-edit print($A) => log($A)",
     [Command("ast-edit", 1, pattern="print($A)", rewrite="log($A)")]),
    ("/ast-edit `a == b` => `a is b` --lang python",
     [Command("ast-edit", 1, pattern="a == b", rewrite="a is b", lang="python")]),
    ("/ast-edit del($A) =>", [Command("ast-edit", 1, pattern="del($A)", rewrite="")]),
    ("/ignore 0123456789abcdef0123 vendored code",
     [Command("ignore", 1, fingerprint="0123456789abcdef0123", reason="vendored code")]),
    # never count: fenced, tilde-fenced, indented, quoted
    ("```\n/apply\n```", []),
    ("~~~md\n/apply\n~~~\n/review", [Command("review", 4)]),
    ("````\n```\n/apply\n```\n````", []),
    ("    /apply", []),
    ("> /apply", []),
    ("  > /fix\n/help", [Command("help", 2)]),
    # prose that starts with a slash is not a command
    ("/usr/bin is on the PATH", []),
    ("/ review", []),
    ("a /review in the middle", []),
    ("$(rm -rf /)", []),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_command_lines(body: str, expected: list[Command]) -> None:
    assert list(commands(body)) == expected


PROBLEMS = [
    ("/deploy now", "unknown command `/deploy`; the commands are `/review`, `/fix`"),
    ("/review please", "`/review` takes no arguments"),
    ("/ast-grep", "the pattern is missing"),
    ("/ast-grep --lang python", "the pattern is missing"),
    ("/ast-edit print($A)", "a pattern, `=>`, then the rewrite"),
    ("/ast-edit => x", "a pattern, `=>`, then the rewrite"),
    ("/ignore 0123456789abcdef0123", "why it is ignored"),
    ("/ignore <script> because", "is not a finding's fingerprint"),
]


@pytest.mark.parametrize(("body", "message"), PROBLEMS)
def test_problems_say_why(body: str, message: str) -> None:
    [problem] = commands(body)
    assert isinstance(problem, Problem) and message in problem.message and problem.line == 1


def test_a_prefix_of_the_repository_s_choice() -> None:
    assert commands("!review\n/review", prefix="!") == (Command("review", 1),)
    assert commands("@bot help", prefix="@bot") == ()  # a verb directly after the prefix


def test_arguments_stay_text() -> None:
    [command] = commands("/ast-grep `$(touch /tmp/x)`; echo $HOME --lang bash")
    assert command == Command("ast-grep", 1, pattern="`$(touch /tmp/x)`; echo $HOME", lang="bash")


def test_at_most_ten_commands_run() -> None:
    parsed = commands("\n".join(["/help"] * (MAX_COMMANDS + 3)))
    assert len(parsed) == MAX_COMMANDS + 1 and isinstance(parsed[-1], Problem)


def test_help_names_every_command() -> None:
    text = help_text("!")
    for usage in ("!review", "!fix", "!ast-grep PATTERN [--lang L]",
                  "!ast-edit PATTERN => REWRITE [--lang L]", "!apply [PLAN]",
                  "!ignore FINGERPRINT REASON",
                  "!help"):
        assert f"`{usage}`" in text
