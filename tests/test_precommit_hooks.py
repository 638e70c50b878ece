"""`.pre-commit-hooks.yaml`: a manifest pre-commit itself accepts, whose hooks, run by
pre-commit in a real repository, review what is staged (pre-commit) and the pushed commit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, GitRepo, require_tool

MANIFEST = ROOT / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([str(BIN / "pre-commit"), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=300)


def test_pre_commit_accepts_the_manifest_and_refuses_a_broken_one(tmp_path: Path) -> None:
    assert pre_commit("validate-manifest", str(MANIFEST), cwd=ROOT, home=tmp_path).returncode == 0
    broken = tmp_path / "hooks.yaml"
    hooks = yaml.safe_load(MANIFEST.read_text())
    hooks[0]["stages"] = ["pre-comit"]
    broken.write_text(yaml.safe_dump(hooks))
    assert pre_commit("validate-manifest", str(broken), cwd=ROOT, home=tmp_path).returncode != 0


@pytest.fixture
def hooked(repo: GitRepo) -> GitRepo:
    """A repository whose pre-commit configuration runs the manifest's hooks as they are
    (entry and options), from the installed bot rather than a fresh environment."""
    require_tool("ruff")
    local = [{**hook, "language": "system"} for hook in yaml.safe_load(MANIFEST.read_text())]
    repo.commit({"ruff.toml": '[lint]\nselect = ["F"]\n', "a.py": "import os\n",
                 ".pre-commit-config.yaml": yaml.safe_dump({"repos": [{"repo": "local", "hooks": local}]})},
                "base")
    repo.branch("feature")
    return repo


def test_the_commit_hook_reviews_what_is_staged(hooked: GitRepo, tmp_path: Path) -> None:
    hooked.write({"a.py": "import os\nimport sys\n"})
    hooked.git("add", "a.py")
    bad = pre_commit("run", "reviewbot", cwd=hooked.path, home=tmp_path)
    assert bad.returncode == 1 and "F401" in bad.stdout and "sys" in bad.stdout, bad.stdout
    hooked.git("reset", "-q", "a.py")  # the same change, not staged: not what is committed
    hooked.write({"b.py": "x = 1\n"})
    hooked.git("add", "b.py")
    good = pre_commit("run", "reviewbot", cwd=hooked.path, home=tmp_path)
    assert good.returncode == 0, good.stdout
    assert (hooked.path / "a.py").read_text() == "import os\nimport sys\n"  # left as it was


def test_the_push_hook_reviews_the_commit(hooked: GitRepo, tmp_path: Path) -> None:
    hooked.commit({"a.py": "import os\nimport sys\n"})
    bad = pre_commit("run", "reviewbot-push", "--hook-stage", "pre-push", cwd=hooked.path, home=tmp_path)
    assert bad.returncode == 1 and "F401" in bad.stdout, bad.stdout


def test_the_readme_s_configuration_names_the_manifest_s_hooks_at_a_released_tag(
        tmp_path: Path) -> None:
    example = ROOT / "examples" / "pre-commit-config.yaml"
    assert pre_commit("validate-config", str(example), cwd=ROOT, home=tmp_path).returncode == 0
    [repo] = yaml.safe_load(example.read_text())["repos"]
    assert repo["repo"] == "https://github.com/OWNER/reviewbot" and repo["rev"] == "v0"
    hooks = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}
    assert [h["id"] for h in repo["hooks"]] == list(hooks)
    assert hooks["reviewbot-push"]["stages"] == ["pre-push", "manual"]
