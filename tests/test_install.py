"""`pip install reviewbot` (and `pipx install` / `uv tool install`, which do the same into a
virtualenv of their own): the wheel built from this checkout, installed into a fresh
virtualenv, runs a real review of a repository, and `reviewbot doctor` says what the
repository needs. Nothing of the checkout's own environment is on PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, GitRepo, require_tool

BASE_PATH = os.pathsep.join(d for d in ("/usr/local/bin", "/usr/bin", "/bin") if Path(d).is_dir())


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `reviewbot` command of a fresh virtualenv that holds the wheel and its dependencies."""
    where = tmp_path_factory.mktemp("install")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
                    str(where / "dist"), str(ROOT)], check=True, capture_output=True, timeout=300)
    [wheel] = (where / "dist").glob("reviewbot-*-py3-none-any.whl")
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True, timeout=120)
    done = subprocess.run([str(where / "venv" / "bin" / "python"), "-m", "pip", "install",
                           "--quiet", "--disable-pip-version-check", str(wheel)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return where / "venv" / "bin" / "reviewbot"


def run(bot: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The user's own tools on PATH (ruff, as `pipx install ruff` puts it), and the system's.
    path = os.pathsep.join([str(cwd.parent / "bin"), BASE_PATH])
    env = {"PATH": path, "HOME": str(cwd.parent), "LANG": "C.UTF-8"}
    return subprocess.run([str(bot), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    """A Python project whose linter (ruff) the user installed on PATH."""
    repo.commit({"pyproject.toml": "[tool.ruff]\n", "app.py": "import sys\n\nprint(sys.argv)\n"})
    repo.branch("feature")
    repo.commit({"app.py": "import os\nimport sys\n\nprint(sys.argv)\n"})
    (repo.path.parent / "bin").mkdir()
    os.symlink(require_tool("ruff"), repo.path.parent / "bin" / "ruff")
    return repo


def test_the_installed_command_reviews_a_repository(installed: Path, project: GitRepo) -> None:
    from importlib.metadata import version

    assert run(installed, "--version", cwd=project.path).stdout == f"reviewbot {version('reviewbot')}\n"
    done = run(installed, "review", "--base", "main", "--only", "ruff", cwd=project.path)
    assert done.returncode == 1, done.stderr  # the change introduced an error
    assert "app.py:1:8: error ruff F401" in done.stdout
    assert "1 introduced, 0 changed, 0 preexisting, 0 fixed" in done.stdout


def test_doctor_after_install_says_what_the_repository_needs(installed: Path,
                                                             project: GitRepo) -> None:
    project.commit({"eslint.config.mjs": "export default [];\n", "web.js": "export const a = 1;\n"})
    done = run(installed, "doctor", cwd=project.path)
    assert done.returncode == 1, done.stdout  # ESLint applies and is not installed
    assert "ruff (linter): ready" in done.stdout
    assert "eslint (linter): CANNOT RUN" in done.stdout
    assert "  install it with: npm install --save-dev eslint" in done.stdout
    assert done.stdout.endswith("reviewbot doctor: 1 problem:\n  - eslint applies but cannot run: "
                                "eslint not found\n")
