"""The shipped workflow examples (GitHub's and Gitea's, whose runners read the same syntax), the
project's own workflows (CI, the release) and the actions: valid against GitHub's published
schemas, clean under actionlint with shellcheck on (it lints every `run:` script), no expression
pasted into a script, and every use of the action gives only inputs its action.yml declares and
its mode takes. Gitea's examples also name only activity types Gitea matches and pass the token
the way `bot.ci.gitea_actions` reads it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot import action
from tests.conftest import require_tool

ROOT = Path(__file__).resolve().parent.parent
CHECK = Path(sys.executable).parent / "check-jsonschema"
GITEA = sorted((ROOT / "examples" / "gitea").glob("*.yml"))
WORKFLOWS = [*sorted((ROOT / "examples" / "github").glob("*.yml")), *GITEA]
OWN_WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONS = [*sorted(ROOT.glob("actions/*/action.yml")), ROOT / "action.yml"]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def test_the_examples_cover_every_flow() -> None:
    assert {p.name for p in WORKFLOWS if p.parent.name == "github"} >= {
        "pull-request.yml", "fork-safe.yml", "fork-safe-publish.yml", "commands.yml",
        "apply-label.yml", "apply-label-publish.yml", "sweep.yml", "code-scanning.yml",
        "sharded.yml", "warm.yml"}
    assert {p.name for p in GITEA} == {"pull-request.yml", "commands.yml", "apply-label.yml",
                                       "sweep.yml", "fork-safe.yml", "warm.yml"}


# What Gitea's workflow matcher (modules/actions/workflows.go) compares a pull_request event's
# action with: its own `synchronized` and `label_updated` under GitHub's names. A type outside
# these never starts the workflow.
GITEA_PULL_REQUEST_TYPES = {"opened", "edited", "closed", "reopened", "assigned", "unassigned",
                            "synchronize", "labeled", "unlabeled"}
CACHE_SECRET = "${{ secrets.REVIEWBOT_CACHE_SECRET }}"
SIGNING_SECRET = "${{ secrets.REVIEWBOT_CACHE_SIGNING_SECRET }}"
GITEA_TOKENS = {"GITEA_TOKEN": "${{ secrets.GITEA_TOKEN }}",
                "REVIEWBOT_GITEA_TOKEN": "${{ secrets.REVIEWBOT_GITEA_TOKEN }}"}


@pytest.mark.parametrize("path", GITEA, ids=lambda p: p.name)
def test_gitea_examples_use_types_gitea_matches_and_pass_a_gitea_token(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    on = doc[True]  # YAML 1.1 reads the key `on` as a boolean
    types = set(on.get("pull_request", {}).get("types", []))
    assert types <= GITEA_PULL_REQUEST_TYPES, (path.name, types - GITEA_PULL_REQUEST_TYPES)
    for step, _ in uses_of_the_action(path):
        env = dict(step.get("env", {}))
        # The cache's secret only seals and verifies findings (docs/cache.md): no token.
        assert env.pop("REVIEWBOT_CACHE_SECRET", CACHE_SECRET) == CACHE_SECRET, path.name
        mode = step.get("with", {}).get("mode")
        if mode == "warm":
            assert env.pop("REVIEWBOT_CACHE_SIGNING_SECRET") == SIGNING_SECRET, path.name
        else:  # the public key is written in, not read from a secret
            assert "${{" not in env.pop("REVIEWBOT_CACHE_PUBLIC_KEY", ""), path.name
        if mode == "analyze":
            assert env == {} and "secrets.GITEA" not in json.dumps(step), path.name
        elif mode == "warm":
            assert env == {}, path.name
        else:
            [(name, value)] = env.items()
            assert GITEA_TOKENS[name] == value, path.name


def test_the_gitea_fork_safe_pair_gives_the_secret_to_publish_alone() -> None:
    doc = yaml.safe_load((ROOT / "examples" / "gitea" / "fork-safe.yml").read_text())
    analyze, publish = doc["jobs"]["analyze"], doc["jobs"]["publish"]
    assert publish["needs"] == "analyze"
    assert "secrets." not in json.dumps(analyze)
    assert "secrets.REVIEWBOT_GITEA_TOKEN" in json.dumps(publish)
    assert not any("actions/checkout" in str(s.get("uses")) for s in publish["steps"])


def test_the_gitea_checks_can_fail() -> None:
    text = (ROOT / "examples" / "gitea" / "pull-request.yml").read_text()
    broken = yaml.safe_load(text.replace("synchronize, ", "synchronized, "))
    assert "synchronized" in set(broken[True]["pull_request"]["types"]) - GITEA_PULL_REQUEST_TYPES


@pytest.mark.parametrize(("schema", "files"), [
    ("vendor.github-workflows", WORKFLOWS + OWN_WORKFLOWS),
    ("vendor.github-actions", ACTIONS),
], ids=["workflows", "actions"])
def test_valid_against_the_published_schema(schema: str, files: list[Path]) -> None:
    assert files
    done = subprocess.run([str(CHECK), "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    """actionlint with shellcheck on its PATH: it then lints every `run:` script too (without
    shellcheck it skips them silently)."""
    shellcheck = require_tool("shellcheck")
    env = {**os.environ, "PATH": f"{shellcheck.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(require_tool("actionlint")), "-no-color", *map(str, paths)],
                          capture_output=True, text=True, cwd=ROOT, env=env)


def test_actionlint_finds_nothing() -> None:
    assert len(OWN_WORKFLOWS) >= 2  # ci.yml and release.yml
    done = actionlint(*WORKFLOWS, *OWN_WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_would_catch_a_mistake(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text((ROOT / "examples" / "github" / "code-scanning.yml").read_text()
                      .replace("steps.reviewbot.outputs", "step.reviewbot.outputs"))
    done = actionlint(broken)
    assert done.returncode == 1 and "step" in done.stdout


def test_shellcheck_is_on(tmp_path: Path) -> None:
    """The mistake sweep.yml once had: in a plain YAML scalar ` #` starts a comment, which cut
    the script inside its quotes; only shellcheck sees it."""
    broken = tmp_path / "broken.yml"
    broken.write_text((ROOT / "examples" / "github" / "sweep.yml").read_text().replace(
        "run: |\n          echo \"::notice::$REGRESSIONS open regression(s) in issue #$ISSUE\"",
        "run: echo \"::notice::$REGRESSIONS open regression(s) in issue #$ISSUE\""))
    assert broken.read_text() != (ROOT / "examples" / "github" / "sweep.yml").read_text()
    done = actionlint(broken)
    assert done.returncode == 1 and "[shellcheck]" in done.stdout, done.stdout


def run_scripts(doc: dict[str, Any]) -> list[str]:
    """Every `run:` script of a workflow's jobs or a composite action's steps."""
    steps = [s for job in doc.get("jobs", {}).values() for s in job.get("steps", [])]
    steps += doc.get("runs", {}).get("steps", [])
    return [str(s["run"]) for s in steps if "run" in s]


@pytest.mark.parametrize("path", [*WORKFLOWS, *OWN_WORKFLOWS, *ACTIONS],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_expression_is_pasted_into_a_script(path: Path) -> None:
    """Values reach scripts through `env:`: a step output, an input or an event field pasted
    into the script's text is code injection waiting for a crafted value."""
    for script in run_scripts(yaml.safe_load(path.read_text())):
        assert not re.search(r"\$\{\{", script), (path.name, script)


def test_the_injection_check_can_fail() -> None:
    doc = {"jobs": {"a": {"steps": [{"run": "echo ${{ steps.x.outputs.y }}"}]}}}
    assert any(re.search(r"\$\{\{", s) for s in run_scripts(doc))


# `vX` is the tag the release moves (docs/release.md); before 1.0 that is v0.
USES = re.compile(r"OWNER/reviewbot(?:/actions/(?P<folder>[a-z]+))?@v0")


def uses_of_the_action(path: Path) -> list[tuple[dict[str, Any], Path]]:
    """Each step that uses one of the actions, with the action.yml it runs."""
    doc = yaml.safe_load(path.read_text())
    out = []
    for job in doc["jobs"].values():
        for step in job.get("steps", []):
            found = USES.fullmatch(str(step.get("uses", "")))
            if found:
                folder = ROOT / "actions" / found["folder"] if found["folder"] else ROOT
                out.append((step, folder / "action.yml"))
    return out


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_use_gives_inputs_its_mode_takes(path: Path) -> None:
    uses = uses_of_the_action(path)
    assert uses
    for step, action_yml in uses:
        assert action_yml.is_file(), (path.name, step["uses"])
        declared = yaml.safe_load(action_yml.read_text())["inputs"]
        given = {k: str(v) for k, v in step.get("with", {}).items()}
        assert set(given) <= set(declared), path.name
        env = {f"INPUT_{k.upper()}": v for k, v in given.items() if k in ACTION["inputs"]}
        action.command(action.read_inputs(env), "reviewbot.sarif")  # raises on a stray input


def test_the_outputs_the_examples_read_are_declared() -> None:
    declared = set(ACTION["outputs"])
    assert declared == {"introduced", "changed", "preexisting", "fixed", "gate", "sarif-file",
                        "regressions", "tracking-issue"}
    for path in WORKFLOWS:
        text = path.read_text()
        for part in text.split("steps.reviewbot.outputs.")[1:]:
            name = part.split()[0].rstrip("}")
            assert name in declared, (path.name, name)


def _steps(path: Path) -> list[tuple[str, dict[str, Any]]]:
    doc = yaml.safe_load(path.read_text())
    return [(name, step) for name, job in doc["jobs"].items() for step in job.get("steps", [])]


CACHE_SAVES = re.compile(r"actions/cache(/save)?@")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_only_the_warm_workflows_save_the_findings_cache(path: Path) -> None:
    """A job that runs a change's code saves no cache (docs/cache.md): the warm workflow runs
    on the default branch only, and it alone saves; the others only restore."""
    doc = yaml.safe_load(path.read_text())
    saves = [step for _, step in _steps(path) if CACHE_SAVES.match(str(step.get("uses", "")))]
    if path.name != "warm.yml":
        assert saves == [], path.name
        return
    on = doc[True]
    assert set(on) == {"push", "schedule", "workflow_dispatch"}
    assert on["push"] == {"branches": ["main"]}
    [save] = saves
    [restore] = [s for _, s in _steps(path) if str(s.get("uses", "")).startswith("actions/cache/restore@")]
    assert save["with"]["path"] == restore["with"]["path"]
    [(_, warm)] = [(n, s) for n, s in _steps(path) if s.get("with", {}).get("mode") == "warm"]
    # Signed, so that runs without secrets (a fork's) can verify with the public key.
    assert warm["env"] == {"REVIEWBOT_CACHE_SECRET": CACHE_SECRET,
                           "REVIEWBOT_CACHE_SIGNING_SECRET": SIGNING_SECRET}


@pytest.mark.parametrize("name", ["github/pull-request.yml", "github/fork-safe.yml",
                                  "github/no-container.yml", "gitea/pull-request.yml",
                                  "gitea/fork-safe.yml"])
def test_the_pull_request_workflows_restore_the_warm_cache(name: str) -> None:
    path = ROOT / "examples" / name
    warm = {s["with"]["path"] for _, s in _steps(path.parent / "warm.yml")
            if str(s.get("uses", "")).startswith("actions/cache/save@")}
    steps = [s for _, s in _steps(path)]
    restores = [i for i, s in enumerate(steps)
                if str(s.get("uses", "")).startswith("actions/cache/restore@")]
    # The first use of the action is the one that runs the linters (fork-safe: analyze).
    bot = next(i for i, s in enumerate(steps) if USES.fullmatch(str(s.get("uses", ""))))
    assert len(restores) == 1 and restores[0] < bot, name
    assert steps[restores[0]]["with"]["path"] in warm, name  # the same path: the same cache
    assert steps[restores[0]]["with"]["restore-keys"] == "reviewbot-${{ runner.os }}-"
    env = steps[bot]["env"]
    # The public key is written into the workflow: a fork's run gets no secrets nor variables.
    assert "REVIEWBOT_CACHE_PUBLIC_KEY" in env and "${{" not in env["REVIEWBOT_CACHE_PUBLIC_KEY"]
    if name != "gitea/fork-safe.yml":  # its analyze job holds no secret at all
        assert env["REVIEWBOT_CACHE_SECRET"] == CACHE_SECRET


# The events a workflow with a job of these modes sends `reviewbot ci` (review) or `reviewbot
# analyze` (analyze); `workflow_run` goes to publish, `push` to warm.
TRIGGERED_MODES = {"review", "analyze", "sweep"}
DEFAULT_TYPES = {"merge_group": ["checks_requested"], "issue_comment": ["created"],
                 "pull_request": ["opened", "synchronize", "reopened"]}


@pytest.mark.parametrize("path", sorted((ROOT / "examples" / "github").glob("*.yml")),
                         ids=lambda p: p.name)
def test_no_event_an_example_sends_is_nothing_to_do(path: Path) -> None:
    """Every event (and activity type) an example starts the bot's review, analysis or sweep
    with is one it acts on: none is answered "nothing to do"."""
    from bot.ci import github_actions
    from tests.ci.test_github_actions import examples

    doc = yaml.safe_load(path.read_text())
    modes = {s.get("with", {}).get("mode", "review") for _, s in _steps(path)
             if USES.fullmatch(str(s.get("uses", "")))}
    if not modes & TRIGGERED_MODES:
        return
    env = {"GITHUB_REPOSITORY": "octo/demo", "GITHUB_REF": "refs/heads/main",
           "GITHUB_SHA": "a" * 40}
    for event, spec in (doc[True] or {}).items():
        types = (spec if isinstance(spec, dict) else {}).get("types") or \
            DEFAULT_TYPES.get(event, [""])
        for kind in types:
            payload = next((p for p in examples().get(event, [{}]) if p.get("action") == kind),
                           None) or dict(examples().get(event, [{}])[0], action=kind)
            if event == "issue_comment":
                payload["issue"]["pull_request"] = payload["issue"].get("pull_request") or {}
            trigger = github_actions.parse(event, payload, env)
            assert trigger.kind != "ignored", (path.name, event, kind, trigger.reason)
