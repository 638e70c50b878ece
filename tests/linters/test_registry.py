"""The registry's table of built-in linters: it repeats what each spec says (names, config
files, markers) so that a review can ask every linter whether it applies without importing
the spec modules of those whose files are absent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.analyzer import Resolution
from bot.linters import registry
from bot.linters.runner import LinterAnalyzer
from tests.conftest import ROOT


def test_the_table_says_what_each_spec_says() -> None:
    for name, entry in registry.TABLE.items():
        spec = registry.load(name)
        assert spec.name == name
        assert spec.config_files == entry.config_files, name
        assert spec.markers == (*entry.markers, ".pre-commit-config.yaml"), name


def test_a_lazy_linter_answers_as_the_linter_it_stands_for(tmp_path: Path) -> None:
    """Same applies() as the loaded linter in a checkout holding each linter's files (and
    none), and the same config files for the base."""
    changed = ["a.py", "web/a.ts", "web/a.css", "go/a.go", "run.sh", "Dockerfile", "doc.md",
               "ci.yml", ".github/workflows/ci.yml", "crate/src/lib.rs"]
    layouts: list[dict[str, str]] = [
        {},
        {"pyproject.toml": "[tool.ruff]\n[tool.mypy]\n"},
        {"pyproject.toml": "[project]\n"},
        {"web/eslint.config.js": "", "web/biome.json": "{}", "web/package.json": '{"stylelint": {}}'},
        {"crate/Cargo.toml": "[package]\n", ".golangci.yml": "", ".shellcheckrc": "",
         ".hadolint.yaml": "", ".markdownlint.json": "{}", ".yamllint": "",
         ".github/actionlint.yaml": ""},
        {".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks:\n  - id: ruff\n  - id: shellcheck\n"},
    ]
    for i, layout in enumerate(layouts):
        root = tmp_path / str(i)
        root.mkdir()
        for rel, text in layout.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        for name, lazy in registry.LINTERS.items():
            loaded = LinterAnalyzer(registry.load(name))
            assert lazy.applies(root, changed) == loaded.applies(root, changed), (layout, name)
            assert lazy.config_files == loaded.config_files and lazy.name == loaded.name


def test_a_lazy_linter_is_surveyed_as_the_linter_it_stands_for(tmp_path: Path) -> None:
    """What the doctor reports: the configurations found at the root and in each project
    folder above a file the linter takes, the files it takes, and a configuration that does
    not enable it (a pyproject.toml without the tool's table)."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    (tmp_path / "lib" / "ruff.toml").write_text("")
    files = ["a.py", "lib/b.py", "c.go"]
    resolution = Resolution(None, install_hint="pip install ruff", message="ruff not found")
    for name in ("ruff", "mypy"):
        loaded = LinterAnalyzer(registry.load(name)).survey(tmp_path, files, resolution)
        assert registry.LINTERS[name].survey(tmp_path, files, resolution) == loaded
    ruff = registry.LINTERS["ruff"].survey(tmp_path, files, resolution)
    assert (ruff.markers, ruff.files, ruff.declined) == (("pyproject.toml", "lib/ruff.toml"), 2, "")
    mypy = registry.LINTERS["mypy"].survey(tmp_path, files, resolution)
    assert (mypy.markers, mypy.declined) == (("pyproject.toml",), "they do not enable mypy")


def test_asking_whether_linters_apply_imports_only_those_whose_files_are_there(
        tmp_path: Path) -> None:
    (tmp_path / "ruff.toml").write_text("")
    probe = ("import sys\nfrom pathlib import Path\nfrom bot.linters.registry import LINTERS\n"
             "print(sorted(n for n, a in LINTERS.items() if a.applies(Path(sys.argv[1]), "
             "['a.py', 'b.ts', 'c.go', 'd.sh'])))\n"
             "import json; print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "['ruff']"
    specs = {"bot.linters." + m for m in ("ruff", "eslint", "biome", "golangci", "clippy",
                                         "mypy", "presets", "declared", "formats")}
    assert [m for m in json.loads(out[1]) if m in specs] == ["bot.linters.ruff"]
