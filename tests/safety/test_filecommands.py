"""The runner's file commands: a change that is not the bot's own is undone and reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ci import github_actions
from bot.safety import filecommands
from bot.secrecy import FILE_COMMANDS


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {name: tmp_path / name.lower() for name in FILE_COMMANDS}
    out["GITHUB_ENV"].write_text("EARLIER=1\n")
    for name in ("GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"):
        out[name].write_text("")
    return out


def env(files: dict[str, Path]) -> dict[str, str]:
    return {name: str(path) for name, path in files.items()}


def test_untouched_files_pass(files: dict[str, Path]) -> None:
    filecommands.Watch(env(files), FILE_COMMANDS).check()


def test_a_line_appended_by_a_tool_is_removed_and_reported(files: dict[str, Path]) -> None:
    watch = filecommands.Watch(env(files), FILE_COMMANDS)
    with files["GITHUB_ENV"].open("a") as f:
        f.write("NODE_OPTIONS=--require=/tmp/x.js\n")
    files["GITHUB_PATH"].write_text("/tmp/bin\n")
    with pytest.raises(filecommands.Tampered) as caught:
        watch.check()
    assert caught.value.names == ("GITHUB_ENV", "GITHUB_PATH")
    assert files["GITHUB_ENV"].read_text() == "EARLIER=1\n"
    assert files["GITHUB_PATH"].read_text() == ""
    watch.check()  # put back: nothing left to report


def test_the_bots_own_writes_are_expected(files: dict[str, Path]) -> None:
    watch = filecommands.Watch(env(files), FILE_COMMANDS)
    with filecommands.watching(watch):
        github_actions.job_summary(env(files), "## reviewbot")
        filecommands.append(files["GITHUB_OUTPUT"], "gate=pass\n")
    watch.check()
    assert files["GITHUB_STEP_SUMMARY"].read_text() == "## reviewbot\n"
    assert files["GITHUB_OUTPUT"].read_text() == "gate=pass\n"


def test_a_tool_write_is_caught_before_the_bot_writes_its_own(files: dict[str, Path]) -> None:
    watch = filecommands.Watch(env(files), FILE_COMMANDS)
    files["GITHUB_STEP_SUMMARY"].write_text("all clear\n")
    with filecommands.watching(watch), pytest.raises(filecommands.Tampered):
        github_actions.job_summary(env(files), "## reviewbot")
    assert files["GITHUB_STEP_SUMMARY"].read_text() == ""


def test_a_replaced_removed_or_new_file_is_put_back(files: dict[str, Path], tmp_path: Path) -> None:
    del files["GITHUB_STATE"]
    watch = filecommands.Watch({**env(files), "GITHUB_STATE": str(tmp_path / "absent")},
                               FILE_COMMANDS)
    files["GITHUB_ENV"].unlink()
    files["GITHUB_ENV"].symlink_to("/dev/zero")
    files["GITHUB_OUTPUT"].unlink()
    (tmp_path / "absent").write_text("x=1\n")
    with pytest.raises(filecommands.Tampered) as caught:
        watch.check()
    assert set(caught.value.names) == {"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STATE"}
    assert not files["GITHUB_ENV"].is_symlink() and files["GITHUB_ENV"].read_text() == "EARLIER=1\n"
    assert files["GITHUB_OUTPUT"].read_text() == ""
    assert not (tmp_path / "absent").exists()


def test_only_named_variables_are_watched(files: dict[str, Path]) -> None:
    watch = filecommands.Watch(env(files), filecommands.COMMANDS)
    files["GITHUB_STEP_SUMMARY"].write_text("the command's own summary\n")
    watch.check()
