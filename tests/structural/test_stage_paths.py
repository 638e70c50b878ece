"""`ast-edit --stage` accepts only what `--apply`, run where the plan says, will take: a plan
that stages is a plan that applies. What apply would refuse is refused at staging, with the
file and the reason, and no plan is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.cli import main

EDIT = ["ast-edit", "-l", "python", "-p", "print($A)", "-r", "log($A)", "--stage", "plan.json"]


@pytest.fixture
def two_folders(repo: Path) -> Path:
    """The repository (cwd) with a/x.py to rewrite and an empty folder b beside it."""
    (repo / "a").mkdir()
    (repo / "a" / "x.py").write_text("print(1)\n")
    (repo / "b").mkdir()
    return repo


def refused(capsys: pytest.CaptureFixture[str], cwd: Path, *paths: str) -> str:
    os.chdir(cwd)
    capsys.readouterr()
    assert main([*EDIT, *paths]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and not (cwd / "plan.json").exists()
    return err


def test_a_file_outside_the_current_folder_is_not_staged(
        two_folders: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, two_folders / "b", "../a/x.py")
    assert "../a/x.py" in err and "outside" in err and "nothing staged" in err
    assert (two_folders / "a" / "x.py").read_text() == "print(1)\n"


def test_a_subfolder_of_the_repository_does_not_stage_its_neighbours(
        two_folders: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # With no path, the whole repository is searched: its files above the cwd cannot be applied.
    err = refused(capsys, two_folders / "b")
    assert "../a/x.py" in err and "outside" in err


def test_a_symbolic_link_is_not_staged(two_folders: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (two_folders / "link.py").symlink_to("a/x.py")
    err = refused(capsys, two_folders, "link.py")
    assert "link.py" in err and "symbolic link" in err


def test_from_the_folder_above_it_stages_and_applies(
        two_folders: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.chdir(two_folders)
    assert main([*EDIT, "a/x.py"]) == 0
    assert [f["path"] for f in json.loads(Path("plan.json").read_text())["files"]] == ["a/x.py"]
    assert main(["ast-edit", "--apply", "plan.json"]) == 0
    assert (two_folders / "a" / "x.py").read_text() == "log(1)\n"


def test_a_file_name_that_is_not_utf8_stages_and_applies(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = os.fsdecode(b"caf\xe9.py")  # Latin-1, as an old archive may hold it
    (repo / name).write_text("print(1)\n")
    assert main([*EDIT, name]) == 0
    assert main(["ast-edit", "--apply", "plan.json"]) == 0, capsys.readouterr().err
    assert (repo / name).read_text() == "log(1)\n"
