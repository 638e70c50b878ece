"""The built image, run with buildah (scripts/image-check builds it and runs these with
REVIEWBOT_IMAGE and REVIEWBOT_FLAVOR set): every tool of its flavor is there and runs as the
image's user and no other language's is, the bundled example review, `doctor`, `ci --dry-run` on
a real pull_request payload and the action's entry point (the full flavor, which the example
needs), and a change reviewed in each language the flavor has."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.ci.test_github_actions import examples
from tests.security import attack

ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("REVIEWBOT_IMAGE", "")
FLAVOR = os.environ.get("REVIEWBOT_FLAVOR", "full")
UID = 1001  # the image's user (Dockerfile)
# The tools of each flavor (the Dockerfile's targets); every flavor has the language-neutral ones.
NEUTRAL = {"hadolint", "shellcheck", "yamllint", "actionlint"}
LANGUAGES = {
    "python": {"ruff", "mypy", "basedpyright", "pyright"},
    "node": {"eslint", "biome", "typescript", "markdownlint", "stylelint"},
    "go": {"gopls", "golangci-lint"},
    "rust": {"clippy", "rust-analyzer"},
}
HAS = set(LANGUAGES) if FLAVOR == "full" else {FLAVOR}

pytestmark = pytest.mark.skipif(not IMAGE, reason="REVIEWBOT_IMAGE is not set: scripts/image-check "
                                                   "builds the image and runs these tests in it")
full_only = pytest.mark.skipif(FLAVOR != "full", reason="the bundled example needs Python and "
                                                         "JavaScript tools: the full flavor")


def test_the_flavor_is_one_the_dockerfile_builds() -> None:
    assert FLAVOR in {*LANGUAGES, "full"}, f"REVIEWBOT_FLAVOR={FLAVOR!r}"


def run(*command: str, env: dict[str, str] | None = None, volumes: Sequence[tuple[Path, str]] = (),
        workdir: str | None = None) -> subprocess.CompletedProcess[str]:
    opts = [f"--env={k}={v}" for k, v in (env or {}).items()]
    opts += [f"--volume={host}:{inside}" for host, inside in volumes]
    if workdir:
        opts.append(f"--workingdir={workdir}")
    return subprocess.run([str(ROOT / "scripts" / "image-run"), IMAGE, *opts, "--", *command],
                          capture_output=True, text=True, timeout=900)


def owned_by_the_image_user(path: Path) -> None:
    """As a runner mounts a workspace: owned by the job's user, not by the container's root."""
    for p in [path, *path.rglob("*")]:
        os.lchown(p, UID, UID)


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """The bundled example repository, made here and mounted at /work/shop."""
    subprocess.run([str(ROOT / "examples" / "demo" / "make-repo"), str(tmp_path / "shop")], check=True,
                   capture_output=True)
    owned_by_the_image_user(tmp_path)
    return tmp_path / "shop"


def git(repo: Path, *args: str) -> str:
    # The repository belongs to the image's user by now: git accepts it only when told.
    return subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), *args], check=True,
                          capture_output=True, text=True).stdout.strip()


def test_runs_as_the_runner_s_user() -> None:
    done = run("id", "-u")
    assert done.returncode == 0 and done.stdout.split() == [str(UID)], done.stderr


@pytest.mark.skipif("rust" not in HAS, reason="no Rust in this flavor")
def test_runs_as_a_user_who_owns_rustup_home() -> None:
    done = run("sh", "-c", 'id -u && test -w "$RUSTUP_HOME" && test -w "$CARGO_HOME" && echo ok')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(UID), "ok"]


def test_no_other_language_s_toolchain_is_in_a_slim_flavor() -> None:
    """A Python repository must not download Node, Go and Rust (basedpyright's own Node is
    inside its Python package, not on PATH)."""
    present = run("sh", "-c", "for c in node go cargo rustc gcc; do "
                              "command -v $c >/dev/null && echo $c; done; true")
    assert present.returncode == 0, present.stderr
    expected = {"node"} if "node" in HAS else set()
    expected |= {"go", "gcc"} if "go" in HAS else set()
    expected |= {"cargo", "rustc", "gcc"} if "rust" in HAS else set()
    assert set(present.stdout.split()) == expected


@full_only
def test_the_bundled_example_review() -> None:
    done = run("examples/demo/run", "--quiet", workdir="/opt/reviewbot")
    assert done.returncode == 0, done.stderr  # examples/demo/run reports the review's status itself
    out = done.stdout
    assert "(exit status 1:" in out, out
    assert "ruff F401" in out and "eslint" in out and "introduced" in out
    assert "4 introduced, 1 changed, 2 preexisting, 1 fixed | eslint" in out


@full_only
def test_doctor_on_the_example(shop: Path) -> None:
    done = run("reviewbot", "doctor", "--repo", "/work/shop", volumes=[(shop.parent, "/work")])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every tool that applies can run" in done.stdout
    for tool in ("eslint (linter): ready", "ruff (linter): ready"):
        assert tool in done.stdout


def polyglot(root: Path) -> Path:
    """A repository every tool the bot drives applies to, Rust with a rust-toolchain.toml."""
    files = {
        "pyproject.toml": "[tool.ruff]\n\n[tool.mypy]\nstrict = true\n\n[tool.basedpyright]\n",
        "pyrightconfig.json": "{}\n", "app.py": "def f(x: int) -> int:\n    return x\n",
        "go.mod": "module example.com/poly\n\ngo 1.23\n", ".golangci.yml": 'version: "2"\n',
        "poly.go": "package poly\n\nfunc F() int { return 1 }\n",
        "Cargo.toml": '[package]\nname = "poly"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "pub fn f() -> i32 {\n    1\n}\n",
        "rust-toolchain.toml": '[toolchain]\nchannel = "1.95.0"\ncomponents = ["clippy"]\n',
        "package.json": '{"name": "poly", "private": true}\n', "eslint.config.mjs": "export default [];\n",
        "biome.json": "{}\n", "tsconfig.json": "{}\n", "a.ts": "export const x: number = 1;\n",
        ".hadolint.yaml": "{}\n", "Dockerfile": "FROM scratch\n", ".shellcheckrc": "\n",
        "run.sh": "#!/bin/sh\necho hi\n", ".markdownlint.json": "{}\n", "README.md": "# poly\n",
        ".stylelintrc.json": "{}\n", "a.css": "a { color: red; }\n",
        ".yamllint": "extends: default\n", "ci.yml": "---\nname: ci\n",
        ".github/actionlint.yaml": "{}\n",
        ".github/workflows/ci.yml": "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
                                    "    steps:\n      - run: echo hi\n",
    }
    repo = root / "poly"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(root, "init", "-q", "-b", "main", "poly")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "poly")
    return repo


def test_every_tool_is_in_the_image_and_runs(tmp_path: Path) -> None:
    polyglot(tmp_path)
    owned_by_the_image_user(tmp_path)
    done = run("reviewbot", "doctor", "--repo", "/work/poly", "--format", "json",
               volumes=[(tmp_path, "/work")])
    doc = json.loads(done.stdout)
    tools = {t["name"]: t for t in doc["tools"]}
    mine = NEUTRAL.union(*(LANGUAGES[lang] for lang in HAS))
    assert set(tools) == NEUTRAL.union(*LANGUAGES.values())
    missing = {name: t["message"] or t["why"] for name, t in tools.items() if not t["executable"]}
    assert set(missing) == set(tools) - mine, missing
    unready = {name: t["message"] or t["why"] for name, t in tools.items()
               if name in mine and t["applies"] and t["state"] != "ready"}
    assert unready == {}
    # doctor fails closed on the other languages' tools, which apply here but are absent.
    assert done.returncode == (0 if FLAVOR == "full" else 1)
    if "rust" not in HAS:
        return
    # rustup's proxies follow the repository's rust-toolchain.toml.
    clippy = run("cargo", "clippy", "--version", workdir="/work/poly", volumes=[(tmp_path, "/work")])
    assert clippy.returncode == 0 and "clippy 0.1.95" in clippy.stdout, clippy.stderr


def pull_request_event(repo: Path, head: str, base: str) -> dict[str, Any]:
    payload = copy.deepcopy(next(p for p in examples()["pull_request"] if p["action"] == "opened"))
    payload["pull_request"]["head"]["sha"] = git(repo, "rev-parse", head)
    payload["pull_request"]["base"]["sha"] = git(repo, "rev-parse", base)
    return payload


@full_only
def test_ci_dry_run_on_a_pull_request_event(shop: Path) -> None:
    payload = pull_request_event(shop, "feature", "main")
    (shop.parent / "event.json").write_text(json.dumps(payload))
    repository = payload["repository"]["full_name"]
    number = payload["pull_request"]["number"]
    done = run("reviewbot", "ci", "--dry-run", volumes=[(shop.parent, "/work")],
               workdir="/work/shop",
               env={"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request",
                    "GITHUB_EVENT_PATH": "/work/event.json", "GITHUB_REPOSITORY": repository,
                    "GITHUB_WORKSPACE": "/work/shop"})
    assert done.returncode == 1, done.stderr  # the example introduces errors
    doc = json.loads(done.stdout)
    assert doc["gate"] == {"failed": True, "status": 1, "fail_level": "error", "unchecked": []}
    paths = {(r["method"], r["path"]) for r in doc["requests"]}
    assert ("POST", f"/repos/{repository}/pulls/{number}/reviews") in paths
    review = next(r for r in doc["requests"] if r["path"].endswith("/reviews"))
    assert any("F841" in c["body"] for c in review["body"]["comments"]), review


@full_only
def test_the_action_entry_point_analyzes_without_the_token(shop: Path) -> None:
    outputs = shop.parent / "github_output"
    outputs.touch()
    os.lchown(outputs, UID, UID)
    runs = ["python3", "-I", "-m", "bot.action"]  # action.yml's entrypoint and args
    done = run(*runs, volumes=[(shop.parent, "/work")], workdir="/work",
               env={"INPUT_MODE": "analyze", "INPUT_BASE": "main", "INPUT_GITHUB-TOKEN": "ghs_x",
                    "INPUT_WORKING-DIRECTORY": "shop", "GITHUB_OUTPUT": "/work/github_output"})
    assert done.returncode == 0, done.stderr
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert values == {"introduced": "4", "changed": "1", "preexisting": "2", "fixed": "1",
                      "gate": "fail", "sarif-file": ""}
    assert (shop / "reviewbot-analysis.json").is_file()


def test_buildah_is_here() -> None:
    assert shutil.which("buildah"), "scripts/image-check needs buildah"


# Per language: a change, the tools that review it, and a finding each must report.
CHANGES = {
    "go": ({"poly.go": "package poly\n\nfunc F() int { return 1 }\n\nfunc unused() {}\n"},
           {"golangci-lint": "unused"}),
    "rust": ({"src/lib.rs": "pub fn f() -> i32 {\n    return 1;\n}\n"},
             {"clippy": "clippy::needless_return"}),
    "python": ({"app.py": "import os\n\n\ndef f(x: int) -> int:\n    return x\n"}, {"ruff": "F401"}),
    "node": ({"eslint.config.mjs": 'export default [{rules: {"no-debugger": "error"}}];\n',
              "b.js": "debugger;\n"}, {"eslint": "no-debugger"}),
}


@pytest.mark.parametrize("language", sorted(CHANGES))
def test_a_change_is_reviewed_by_the_flavor_s_tools(language: str, tmp_path: Path) -> None:
    """The linters really run as the image's user (caches in its home)."""
    if language not in HAS:
        pytest.skip(f"no {language} tools in the {FLAVOR} flavor")
    files, expected = CHANGES[language]
    repo = polyglot(tmp_path)
    git(repo, "checkout", "-q", "-b", "feature")
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "change")
    owned_by_the_image_user(tmp_path)
    only = [arg for tool in expected for arg in ("--only", tool)]
    done = run("reviewbot", "review", "--repo", "/work/poly", "--base", "main", "--format", "json",
               *only, "--fail-level", "none", volumes=[(tmp_path, "/work")])
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert {t["name"]: t["status"] for t in doc["tools"]} == dict.fromkeys(expected, "ok")
    found = {(f["tool"], f["rule"]) for f in doc["findings"] if f["scope"] == "introduced"}
    for tool, rule in expected.items():
        assert any(t == tool and rule in r for t, r in found), (tool, rule, doc["findings"])


# Starts a command with the secrets of /work/secrets.json added to its environment, after
# removing the file: as a runner hands a container its variables, and never on a command line
# (`buildah run --env=NAME=VALUE` would leave them in the cmdline of buildah, which the
# container's processes see here).
WITH_SECRETS = ("import json, os, sys; f = '/work/secrets.json'; s = json.load(open(f)); "
                "os.unlink(f); os.execvpe(sys.argv[1], sys.argv[1:], {**os.environ, **s})")


def hostile_run(root: Path, tool: str) -> tuple[dict[str, str], dict[str, Path], dict[str, str]]:
    """A repository whose head brings `tool` hostile code (tests/security/attack.py), the
    runner's file commands and fake secrets (in /work/secrets.json, for WITH_SECRETS), all
    under `root`, which is mounted at /work."""
    loot = root / "loot"
    loot.mkdir()
    loot.chmod(0o777)
    files = attack.runner_files(root / "runner_temp" / "_runner_file_commands")
    attack.make_repository(root / "repo", tool, "/work/loot/found.txt")
    given = attack.fake_secrets()
    (root / "secrets.json").write_text(json.dumps(given))
    (root / "secrets.json").chmod(0o600)
    owned_by_the_image_user(root)
    env = {"RUNNER_TEMP": "/work/runner_temp", "GITHUB_ACTIONS": "true",
           **{name: f"/work/runner_temp/_runner_file_commands/{path.name}"
              for name, path in files.items()}}
    return given, files, env


@pytest.mark.parametrize(("tool", "language"), [("eslint", "node"), ("mypy", "python"),
                                               ("clippy", "rust")])
def test_a_hostile_linter_reads_no_secret_and_its_writes_are_undone(tmp_path: Path, tool: str,
                                                                     language: str) -> None:
    """An eslint.config.js, a mypy plugin and a build.rs, run by the image's tools as its user."""
    if language not in HAS:
        pytest.skip(f"no {tool} in the {FLAVOR} flavor")
    given, files, env = hostile_run(tmp_path, tool)
    done = run("python3", "-c", WITH_SECRETS, "reviewbot", "review", "--repo", "/work/repo",
               "--base", "main", "--only", tool, "--fail-level", "none", env=env,
               volumes=[(tmp_path, "/work")])
    attack.assert_defended(tmp_path / "loot" / "found.txt", given, files, done.returncode,
                           done.stderr, "bin/reviewbot\nreview")


@pytest.mark.skipif("node" not in HAS, reason="the hostile repository's linter is ESLint")
def test_the_action_entry_point_holds_its_token_out_of_reach(tmp_path: Path) -> None:
    given, files, env = hostile_run(tmp_path, "eslint")
    done = run("python3", "-c", WITH_SECRETS, "python3", "-I", "-m", "bot.action",
               workdir="/work/repo",
               env={**env, "INPUT_MODE": "analyze", "INPUT_BASE": "main"},
               volumes=[(tmp_path, "/work")])
    attack.assert_defended(tmp_path / "loot" / "found.txt", given, files, done.returncode,
                           done.stderr, "bot.action")
