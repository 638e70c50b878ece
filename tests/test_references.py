"""The generated references (scripts/references.py): docs/cli.md and docs/action.md are what
the parsers and action.yml say, so a synopsis cannot go stale."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT


def references() -> ModuleType:
    spec = importlib.util.spec_from_file_location("references", ROOT / "scripts" / "references.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_references_are_what_the_code_says() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "references.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_synopses_that_went_stale_by_hand() -> None:
    text = (ROOT / "docs" / "cli.md").read_text("utf-8")
    review = text.split("## reviewbot review\n", 1)[1].split("\n## ", 1)[0]
    assert "--format {text,json,rdjson}" in review
    assert "else main, else master" in " ".join(review.split())
    publish = text.split("## reviewbot publish\n", 1)[1].split("\n## ", 1)[0]
    assert "--label" in publish and "--code-quality FILE" in publish


def test_a_stale_reference_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    module = references()
    for rel in ("action.yml", "actions/native/action.yml", "docs/cli.md", "docs/action.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    monkeypatch.setattr(module, "ROOT", tmp_path)
    assert module.main(["--check"]) == 0
    action = tmp_path / "action.yml"
    action.write_text(action.read_text().replace("Folder of the checkout", "Folder of the clone"))
    assert module.main(["--check"]) == 1
    assert "docs/action.md differs from the code; run scripts/references" in capsys.readouterr().err
    assert module.main([]) == 0 and module.main(["--check"]) == 0
    assert "Folder of the clone" in (tmp_path / "docs" / "action.md").read_text()
