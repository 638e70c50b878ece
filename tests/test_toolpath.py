"""Finding tools and reading their versions without running them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bot import proc
from bot.linters import eslint
from bot.linters.runner import LinterAnalyzer
from bot.toolpath import go_module_version, npm_version
from tests.conftest import require_tool


def package(root: Path, name: str, version: str, shebang: str) -> Path:
    folder = root / "node_modules" / name
    (folder / "bin").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": name, "version": version}))
    script = folder / "bin" / "tool.js"
    script.write_text(f"{shebang}\nconsole.log('{version}')\n")
    script.chmod(0o755)
    link = root / "node_modules" / ".bin" / name.rsplit("/", 1)[-1]
    link.parent.mkdir(exist_ok=True)
    os.symlink(script, link)
    return link


def test_the_version_comes_from_the_package_behind_the_bin_link(tmp_path: Path) -> None:
    link = package(tmp_path, "@scope/tool", "1.2.3", "#!/bin/sh")
    assert npm_version(str(link), "@scope/tool") == "1.2.3"
    assert npm_version(str(link), "eslint") is None  # another package's manifest: not ours
    assert npm_version(str(tmp_path / "nothing"), "eslint") is None


def test_no_version_when_the_interpreter_is_missing(tmp_path: Path) -> None:
    link = package(tmp_path, "eslint", "9.0.0", "#!/usr/bin/env -S no-such-node-xyz --flag")
    assert npm_version(str(link), "eslint") is None
    # ...so the tool is run, fails, and is reported missing with its install hint.
    resolution = LinterAnalyzer(eslint.SPEC).resolve(tmp_path)
    assert resolution.executable is None and "install" in resolution.install_hint


def test_a_go_binary_names_its_module_version(tmp_path: Path) -> None:
    tool = require_tool("golangci-lint")
    version = go_module_version(str(tool), "github.com/golangci/golangci-lint/v2")
    assert version is not None and version.startswith("v2.")
    # The same version the tool prints about itself.
    printed = proc.run([str(tool), "--version"]).out
    assert version.removeprefix("v") in printed
    assert go_module_version(str(tool), "example.com/not-in-it") is None
    (tmp_path / "script").write_text("#!/bin/sh\n")
    assert go_module_version(str(tmp_path / "script"), "x") is None
    assert go_module_version(str(tmp_path / "missing"), "x") is None
