"""What the user installed in their checkout (bot.revisions.deps): found, linked elsewhere (see
tests/revisions/test_workspace.py), and stamped, so that a cached answer never outlives an upgrade."""

from __future__ import annotations

import os
from pathlib import Path

from bot.revisions import deps


def venv(root: Path, *dists: str) -> Path:
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    for dist in dists:
        (site / dist).mkdir()
        (site / dist / "METADATA").write_text(f"Name: {dist}\n")
    return site


def test_a_virtualenv_is_stamped_by_what_is_installed_not_when(tmp_path: Path) -> None:
    site = venv(tmp_path, "requests-2.31.0.dist-info", "requests")
    stamp = deps.stamp(tmp_path, [".venv"])
    assert stamp == deps.stamp(tmp_path, [".venv"])
    os.utime(site / "requests-2.31.0.dist-info", ns=(1, 1))  # a fresh install of the same
    (site / "requests" / "api.py").write_text("# a module's text is not read\n")
    assert deps.stamp(tmp_path, [".venv"]) == stamp
    (site / "requests-2.31.0.dist-info").rename(site / "requests-2.32.3.dist-info")
    upgraded = deps.stamp(tmp_path, [".venv"])
    assert upgraded != stamp
    (site / "extra.pth").write_text("/somewhere\n")
    assert deps.stamp(tmp_path, [".venv"]) not in (stamp, upgraded)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.1\n")
    assert len({stamp, upgraded, deps.stamp(tmp_path, [".venv"])}) == 3


def test_node_modules_are_stamped_by_the_lockfile_npm_keeps_in_them(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    (modules / "eslint-plugin-x").mkdir(parents=True)
    (modules / "eslint-plugin-x" / "package.json").write_text('{"version": "1.0.0"}\n')
    bare = deps.stamp(tmp_path, ["node_modules"])
    (modules / "eslint-plugin-x" / "package.json").write_text('{"version": "1.1.0"}\n')
    assert deps.stamp(tmp_path, ["node_modules"]) != bare, "no lockfile: the packages' versions"
    (modules / ".package-lock.json").write_text('{"packages": {"node_modules/x": "1"}}\n')
    locked = deps.stamp(tmp_path, ["node_modules"])
    (modules / ".package-lock.json").write_text('{"packages": {"node_modules/x": "2"}}\n')
    assert deps.stamp(tmp_path, ["node_modules"]) != locked


def test_nothing_installed_is_one_stamp_and_every_folder_counts(tmp_path: Path) -> None:
    assert deps.stamp(tmp_path, []) == deps.stamp(tmp_path / "elsewhere", [])
    venv(tmp_path, "a-1.dist-info")
    (tmp_path / "web" / "node_modules" / "b").mkdir(parents=True)
    both = deps.stamp(tmp_path, [".venv", "web/node_modules"])
    assert both != deps.stamp(tmp_path, [".venv"]) != deps.stamp(tmp_path, [])
