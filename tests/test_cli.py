"""The command registry: an explicit name -> module mapping, imported on demand, where a
missing module is an import error and a local review loads no forge SDK or parser."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from bot.cli import COMMANDS, build_parser, main
from tests.conftest import ROOT


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)


def test_the_commands() -> None:
    assert set(COMMANDS) == {"review", "analyze", "publish", "ci", "ast-grep", "ast-edit", "sweep",
                             "doctor", "warm", "bitbucket-relay",
                             "azure-relay"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_module_imports_and_registers_its_name(name: str) -> None:
    parser = build_parser(name)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == [name]


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_a_missing_command_module_is_an_import_error() -> None:
    out = _python("import sys; sys.modules['bot.commands.ci'] = None\n"
                  "from bot.cli import main; main(['ci', '--help'])")
    assert out.returncode != 0
    assert "ModuleNotFoundError" in out.stderr and "bot.commands.ci" in out.stderr


def test_a_local_review_loads_neither_pygithub_nor_tree_sitter() -> None:
    out = _python("import sys\nfrom bot.cli import main\n"
                  "try:\n    main(['review', '--help'])\nexcept SystemExit:\n    pass\n"
                  "print(sorted(m for m in sys.modules if m.split('.')[0] in "
                  "('github', 'tree_sitter', 'tree_sitter_language_pack')), file=sys.stderr)")
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().endswith("[]")


def test_version_is_the_installed_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out == f"reviewbot {version('reviewbot')}\n"


def test_version_loads_no_command_module() -> None:
    out = _python("import sys\nfrom bot.cli import main\n"
                  "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
                  "print(sorted(m for m in sys.modules if m.startswith('bot.commands')), file=sys.stderr)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("reviewbot ") and out.stderr.strip().endswith("[]")


def test_an_unexpected_error_is_exit_70_with_what_to_report(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.commands import review

    def broken(args: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(review, "run", broken)
    assert main(["review"]) == 70
    err = capsys.readouterr().err
    assert err.startswith("reviewbot: internal error (a bug, please report it): RuntimeError: a bug")
    assert "Traceback" in err  # what a report needs, after the one line


@pytest.mark.parametrize(("argv", "says"), [
    (["review", "--timeout", "0"], "reviewbot review: argument --timeout: must be a positive "
                                   "number of seconds, not 0; see reviewbot review --help"),
    (["review", "--format", "sarif"], "reviewbot review: argument --format: invalid choice: "
                                      "'sarif' (choose from 'text', 'json', 'rdjson'); "
                                      "see reviewbot review --help"),
    (["revew"], "reviewbot: argument COMMAND: invalid choice: 'revew' (did you mean 'review'?); "
                "see reviewbot --help"),
    (["review", "--bogus"], "reviewbot review: unrecognized arguments: --bogus; "
                            "see reviewbot review --help"),
])
def test_a_usage_error_is_one_line_that_points_at_help(
        argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert capsys.readouterr().err == says + "\n"
