"""Finding tools and reading their versions without running them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bot.linters import eslint
from bot.linters.base import LinterAnalyzer
from bot.toolpath import npm_version


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
