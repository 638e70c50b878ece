"""The no-container action (actions/native/action.yml), its two steps run as the runner runs them: the
bot's wheel installed into a virtualenv of its own, then the action's entry point with the
repository's own tools (here: ruff from the repository's .venv, nothing else on PATH)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import GitRepo, require_tool, requires

ROOT = Path(__file__).resolve().parent.parent
NATIVE = ROOT / "actions" / "native"
BASE_PATH = os.pathsep.join(d for d in ("/usr/local/bin", "/usr/bin", "/bin") if Path(d).is_dir())


def step(name: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """One `run:` step of actions/native/action.yml, with its shell and the runner's variables."""
    steps = yaml.safe_load((NATIVE / "action.yml").read_text())["runs"]["steps"]
    script = next(s for s in steps if s["id"] == name)["run"]
    assert script == f'bash "$GITHUB_ACTION_PATH/{name}.sh"'
    full = {"PATH": BASE_PATH, "HOME": os.environ.get("HOME", "/root"), "GITHUB_ACTION_PATH": str(NATIVE),
            **{k: v for k, v in os.environ.items() if k.startswith(("PIP_", "SSL_", "REQUESTS_"))},
            **env}
    return subprocess.run(["bash", "-c", script], env=full, cwd=cwd, capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
                    str(out), str(ROOT)], check=True, capture_output=True)
    [found] = out.glob("reviewbot-*.whl")
    return found


def read_outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_install_then_analyze_with_the_repository_s_own_ruff(wheel: Path, repo: GitRepo,
                                                            tmp_path: Path) -> None:
    repo.commit({"pyproject.toml": "[tool.ruff]\n", ".gitignore": ".venv/\n",
                 "app.py": "import sys\n\nprint(sys.argv)\n"})
    repo.branch("feature")
    repo.commit({"app.py": "import os\nimport sys\n\nprint(sys.argv)\n"})
    # The repository's virtualenv, holding its linter.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo.path / ".venv")], check=True)
    os.symlink(require_tool("ruff"), repo.path / ".venv" / "bin" / "ruff")

    out = tmp_path / "install_output"
    installed = step("install", {"REVIEWBOT_PACKAGE": str(wheel), "REVIEWBOT_VERSION": "0.0.0",
                                 "REVIEWBOT_PYTHON": sys.executable, "RUNNER_TEMP": str(tmp_path),
                                 "GITHUB_OUTPUT": str(out)}, tmp_path)
    assert installed.returncode == 0, installed.stderr
    home = read_outputs(out)["home"]
    assert home == str(tmp_path / "reviewbot") and "installed in" in installed.stderr
    assert "by uv" in installed.stderr  # the runner has no uv: it came from the index

    outputs = tmp_path / "review_output"
    done = step("review", {"REVIEWBOT_HOME": home, "INPUT_MODE": "analyze", "INPUT_BASE": "main",
                           "INPUT_GITHUB_TOKEN": "ghs_x", "INPUT_WORKING_DIRECTORY": repo.path.name,
                           "INPUT_SARIF": "", "GITHUB_OUTPUT": str(outputs)}, repo.path.parent)
    assert done.returncode == 0, done.stderr
    assert read_outputs(outputs) == {"introduced": "1", "changed": "0", "preexisting": "0",
                                     "fixed": "0", "gate": "fail", "sarif-file": ""}
    assert (repo.path / "reviewbot-analysis.json").is_file()


def test_a_python_that_cannot_work_is_refused(tmp_path: Path) -> None:
    done = step("install", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": "python2.7-nowhere",
                            "RUNNER_TEMP": str(tmp_path)}, tmp_path)
    assert done.returncode == 2
    assert "'python2.7-nowhere' is not on PATH: set the python input" in done.stderr
    old = tmp_path / "python"
    old.write_text("#!/bin/sh\ncase \"$1\" in --version) echo Python 3.8.0;; *) exit 1;; esac\n")
    old.chmod(0o755)
    done = step("install", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": str(old),
                            "RUNNER_TEMP": str(tmp_path)}, tmp_path)
    assert done.returncode == 2 and "Python 3.8.0 is older than 3.11" in done.stderr
    assert not (tmp_path / "reviewbot").exists()


def test_nothing_to_install_is_refused(tmp_path: Path) -> None:
    done = step("install", {"REVIEWBOT_PYTHON": sys.executable, "RUNNER_TEMP": str(tmp_path)}, tmp_path)
    assert done.returncode == 2 and "nothing to install" in done.stderr


def test_the_review_step_needs_the_install_step(tmp_path: Path) -> None:
    done = step("review", {"REVIEWBOT_HOME": str(tmp_path / "missing"), "INPUT_MODE": "analyze"}, tmp_path)
    assert done.returncode == 2 and "no reviewbot installed at" in done.stderr


def test_uv_is_used_when_the_runner_has_it(tmp_path: Path) -> None:
    """With uv on PATH the install step makes the virtualenv with uv (a stand-in records how
    it was called and fails, which the step must pass on)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "uv.log"
    (bin_dir / "uv").write_text(f"#!/bin/sh\necho \"$@\" >> {log}\nexit 7\n")
    (bin_dir / "uv").chmod(0o755)
    python = shutil.which("python3") or sys.executable
    done = step("install", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": python,
                            "RUNNER_TEMP": str(tmp_path), "PATH": f"{bin_dir}{os.pathsep}{BASE_PATH}"},
                tmp_path)
    assert done.returncode == 7
    assert log.read_text().split()[:2] == ["venv", "--quiet"]


def stand_in_uv(tmp_path: Path) -> tuple[Path, Path]:
    """A uv on PATH that records how it was called and fails (exit 7)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "uv.log"
    (bin_dir / "uv").write_text(f"#!/bin/sh\necho \"$@\" >> {log}\nexit 7\n")
    (bin_dir / "uv").chmod(0o755)
    return bin_dir, log


def cached_virtualenv(home: Path, says: str) -> None:
    """What actions/cache restores: a virtualenv whose reviewbot prints `says`."""
    (home / "bin").mkdir(parents=True)
    (home / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (home / "bin" / "reviewbot").write_text(f"#!/bin/sh\necho '{says}'\n")
    (home / "bin" / "reviewbot").chmod(0o755)


def test_the_cache_key_names_the_version_and_the_python(tmp_path: Path) -> None:
    out = tmp_path / "output"
    done = step("key", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": sys.executable,
                        "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(out)}, tmp_path)
    assert done.returncode == 0, done.stderr
    outputs = read_outputs(out)
    assert outputs["path"] == str(tmp_path / "reviewbot")
    version = ".".join(map(str, sys.version_info[:3]))
    assert outputs["key"].startswith(f"reviewbot-venv-0.1.0-Linux-{os.uname().machine}-py{version}-")
    # Another interpreter of the same version is another virtualenv.
    other = tmp_path / "other-python"
    other.symlink_to(sys.executable)
    out.unlink()
    step("key", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": str(other),
                 "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(out)}, tmp_path)
    assert read_outputs(out)["key"] != outputs["key"]
    # A wheel or a folder is not named by a version: no cache.
    out.unlink()
    step("key", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PACKAGE": "./dist/reviewbot.whl",
                 "REVIEWBOT_PYTHON": sys.executable, "GITHUB_OUTPUT": str(out)}, tmp_path)
    assert read_outputs(out)["key"] == ""


def test_the_action_saves_the_virtualenv_before_the_review_runs() -> None:
    """Restored before the install, saved right after it on a miss: what is saved was made by
    the install alone, before any of the pull request's code ran."""
    steps = yaml.safe_load((NATIVE / "action.yml").read_text())["runs"]["steps"]
    assert [s["id"] for s in steps] == ["key", "restore", "install", "save", "review"]
    restore, save = steps[1], steps[3]
    assert restore["uses"] == "actions/cache/restore@v4" and save["uses"] == "actions/cache/save@v4"
    for cache in (restore, save):
        assert cache["with"] == {"path": "${{ steps.key.outputs.path }}",
                                 "key": "${{ steps.key.outputs.key }}"}
    assert restore["if"] == "steps.key.outputs.key != ''"
    assert save["if"] == ("steps.key.outputs.key != '' && "
                          "steps.restore.outputs.cache-hit != 'true'")


def test_a_cached_virtualenv_of_the_version_is_used_as_it_is(tmp_path: Path) -> None:
    bin_dir, log = stand_in_uv(tmp_path)
    cached_virtualenv(tmp_path / "reviewbot", "reviewbot 0.1.0")
    out = tmp_path / "output"
    env = {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": sys.executable,
           "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(out),
           "PATH": f"{bin_dir}{os.pathsep}{BASE_PATH}"}
    done = step("install", env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "reviewbot 0.1.0 from the cached virtualenv" in done.stderr
    assert read_outputs(out)["home"] == str(tmp_path / "reviewbot")
    assert not log.exists()  # nothing installed
    # Another version (or an interpreter that no longer runs): made again.
    done = step("install", {**env, "REVIEWBOT_VERSION": "0.2.0"}, tmp_path)
    assert done.returncode == 7
    assert "is not reviewbot 0.2.0 or does not run: made again" in done.stderr
    assert log.read_text().split()[:2] == ["venv", "--quiet"]


def test_a_home_that_is_not_a_virtualenv_is_left_alone(tmp_path: Path) -> None:
    home = tmp_path / "reviewbot"
    home.mkdir()
    (home / "notes.txt").write_text("mine\n")
    done = step("install", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": sys.executable,
                            "RUNNER_TEMP": str(tmp_path)}, tmp_path)
    assert done.returncode == 2 and "exists and is not a virtualenv" in done.stderr
    assert (home / "notes.txt").read_text() == "mine\n"


def test_without_uv_on_the_runner_uv_comes_from_the_index(tmp_path: Path) -> None:
    """pip puts uv in a folder of its own (here from a folder standing in for the index, as
    PIP_FIND_LINKS and PIP_NO_INDEX say); uv then makes the virtualenv."""
    house = tmp_path / "house"
    fetched = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                              "--dest", str(house), "uv"], capture_output=True, text=True)
    requires(None if fetched.returncode == 0 else
             f"no uv wheel from the package index here: {fetched.stderr[-300:]}")
    done = step("install", {"REVIEWBOT_VERSION": "0.1.0", "REVIEWBOT_PYTHON": sys.executable,
                            "RUNNER_TEMP": str(tmp_path), "PIP_NO_INDEX": "1",
                            "PIP_FIND_LINKS": str(house)}, tmp_path)
    # The index holds no reviewbot 0.1.0: uv, not pip, says so.
    assert done.returncode != 0
    assert (tmp_path / "reviewbot-uv" / "bin" / "uv").is_file()
    assert (tmp_path / "reviewbot" / "pyvenv.cfg").is_file()
    assert "reviewbot==0.1.0" in done.stderr and "pip install --quiet" not in done.stderr
