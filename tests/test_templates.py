"""The shipped GitLab CI templates: valid against GitLab's CI schema (check-jsonschema's
vendored copy), the review job runs `reviewbot ci` on merge request pipelines with the report,
the webhook and sweep jobs run on trigger and schedule pipelines; the CI/CD component's
`spec:` header (a YAML document of its own, which the schema does not describe) declares
inputs that its jobs all use and docs/gitlab.md all documents."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CHECK = Path(sys.executable).parent / "check-jsonschema"
FOLDER = ROOT / "templates" / "gitlab"
COMPONENT = FOLDER / "template.yml"
PLAIN = sorted(p for p in FOLDER.glob("*.yml") if p != COMPONENT)
# doc/ci/yaml/_index.md, `spec:inputs`: the keywords an input may have.
INPUT_KEYWORDS = {"default", "description", "options", "regex", "type", "rules"}
INPUT = re.compile(r"\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]")


def _check(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHECK), "--builtin-schema", "vendor.gitlab-ci", *map(str, paths)],
                          capture_output=True, text=True)


def _component() -> tuple[dict[str, Any], str]:
    """The spec header, and the text of the jobs document after `---`."""
    header, jobs = COMPONENT.read_text().split("\n---\n", 1)
    return yaml.safe_load(header), jobs


def _jobs(path: Path, tmp_path: Path) -> dict[str, Any]:
    if path != COMPONENT:
        return dict(yaml.safe_load(path.read_text()))
    # The jobs as GitLab runs them: every input replaced by its default.
    spec, text = _component()
    inputs = spec["spec"]["inputs"]
    return dict(yaml.safe_load(INPUT.sub(lambda m: _text(inputs[m.group(1)]["default"]), text)))


def _text(value: Any) -> str:
    """An input's value as GitLab interpolates it (a boolean as `true`/`false`)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _variables(jobs: dict[str, Any], name: str) -> dict[str, str]:
    """The job's variables: the file's, then those of what it extends, then its own."""
    job = jobs[name]
    base = _variables(jobs, job["extends"]) if "extends" in job else dict(jobs.get("variables", {}))
    return {**base, **job.get("variables", {})}


CONDITION = re.compile(r'\$(\w+) (==|!=) (?:"([^"]*)"|\$(\w+))')


def _runs(jobs: dict[str, Any], name: str, env: dict[str, str]) -> bool:
    """Whether the job's one rule holds (its `if:` is conditions joined by `&&`)."""
    [rule] = jobs[name]["rules"]
    values = {**_variables(jobs, name), **env}
    out = True
    for condition in rule["if"].split(" && "):
        if condition.startswith("$") and condition[1:].isidentifier():  # set and not empty
            out = out and bool(values.get(condition[1:]))
            continue
        found = CONDITION.fullmatch(condition)
        assert found, condition
        var, op, text, other = found.groups()
        text = values.get(other, "") if other else text
        out = out and ((values.get(var, "") == text) == (op == "=="))
    return out


def test_valid_against_gitlabs_schema(tmp_path: Path) -> None:
    assert PLAIN and COMPONENT.exists()
    # As GitLab checks it: the inputs interpolated first (`parallel:` takes a number only).
    jobs_file = tmp_path / "component-jobs.yml"
    jobs_file.write_text(yaml.safe_dump(_jobs(COMPONENT, tmp_path)))
    done = _check(*PLAIN, jobs_file)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("job:\n  script: 1\n  rules: yes\n")
    assert _check(bad).returncode != 0


def test_the_component_s_inputs_are_all_used_and_documented() -> None:
    spec, jobs = _component()
    assert set(spec) == {"spec"} and set(spec["spec"]) == {"inputs"}
    inputs: dict[str, dict[str, Any]] = spec["spec"]["inputs"]
    assert {"image", "fail_level", "token_variable", "code_quality", "stage", "split"} <= set(inputs)
    for name, declared in inputs.items():
        assert set(declared) <= INPUT_KEYWORDS, name
        assert declared.get("description") and "default" in declared, name
        if "options" in declared:
            assert declared["default"] in declared["options"], name
    assert set(INPUT.findall(jobs)) == set(inputs)  # each used, none undeclared
    docs = (ROOT / "docs" / "gitlab.md").read_text()
    for name in inputs:
        assert f"| `{name}` |" in docs, f"docs/gitlab.md does not document the input {name}"


@pytest.mark.parametrize("path", [*PLAIN, COMPONENT], ids=lambda p: p.name)
def test_the_merge_request_job(path: Path, tmp_path: Path) -> None:
    jobs = _jobs(path, tmp_path)
    job = jobs["reviewbot"]
    assert job["rules"][0]["if"].startswith('$CI_PIPELINE_SOURCE == "merge_request_event"')
    assert _runs(jobs, "reviewbot", {"CI_PIPELINE_SOURCE": "merge_request_event"})
    assert not _runs(jobs, "reviewbot", {"CI_PIPELINE_SOURCE": "push"})
    [script] = job["script"]
    report = job["artifacts"]["reports"]["codequality"]
    assert script.startswith("reviewbot ci ") and f"--code-quality {report}" in script
    assert job["artifacts"]["when"] == "always"  # a failing gate still uploads the report


@pytest.mark.parametrize("path", [*PLAIN, COMPONENT], ids=lambda p: p.name)
def test_merge_train_pipelines_run_what_merge_request_pipelines_run(path: Path,
                                                                    tmp_path: Path) -> None:
    # A merge train's pipeline is a merge request pipeline of event type merge_train: the
    # gate there is the train's merged result (docs/merge-queues.md).
    jobs = _jobs(path, tmp_path)
    request = {"CI_PIPELINE_SOURCE": "merge_request_event"}
    train = {**request, "CI_MERGE_REQUEST_EVENT_TYPE": "merge_train"}
    ruled = [name for name, job in jobs.items() if isinstance(job, dict) and "rules" in job]
    for extra in ({}, {"REVIEWBOT_SPLIT": "true"}, {"REVIEWBOT_SHARDS": "2"}):
        running = [n for n in ruled if _runs(jobs, n, {**request, **extra})]
        assert running, extra
        assert running == [n for n in ruled if _runs(jobs, n, {**train, **extra})], extra
    assert _runs(jobs, "reviewbot", train)


@pytest.mark.parametrize("path", [FOLDER / "reviewbot.yml", COMPONENT], ids=lambda p: p.name)
def test_the_webhook_and_sweep_jobs(path: Path, tmp_path: Path) -> None:
    jobs = _jobs(path, tmp_path)
    hook, sweep = jobs["reviewbot-webhook"], jobs["reviewbot-sweep"]
    assert hook["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "trigger" && $TRIGGER_PAYLOAD && '
                                     '$REVIEWBOT_SPLIT != "true"'}]
    assert sweep["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}]
    assert hook["script"] == sweep["script"] == ["reviewbot ci"]
    assert sweep["variables"]["GIT_DEPTH"] == "0"
    base = jobs[".reviewbot"]
    token = base.get("variables", {}).get("REVIEWBOT_TOKEN_VARIABLE") or \
        jobs["variables"]["REVIEWBOT_TOKEN_VARIABLE"]
    assert token == "REVIEWBOT_GITLAB_TOKEN"  # the variable's name, never a token


@pytest.mark.parametrize("path", [FOLDER / "reviewbot.yml", COMPONENT], ids=lambda p: p.name)
def test_the_split_is_opt_in_and_replaces_the_review_job(path: Path, tmp_path: Path) -> None:
    jobs = _jobs(path, tmp_path)
    mr = {"CI_PIPELINE_SOURCE": "merge_request_event"}
    review = ("reviewbot", "reviewbot-analyze", "reviewbot-publish")
    assert [_runs(jobs, j, mr) for j in review] == [True, False, False]  # by default, one job
    split = {**mr, "REVIEWBOT_SPLIT": "true"}  # the component's `split: true`
    assert [_runs(jobs, j, split) for j in review] == [False, True, True]
    assert not any(_runs(jobs, j, {**split, "CI_PIPELINE_SOURCE": "push"}) for j in review)

    analyze, publish = jobs["reviewbot-analyze"], jobs["reviewbot-publish"]
    [run] = analyze["script"]
    out = run.removeprefix("reviewbot analyze --out ")
    assert out != run and analyze["artifacts"]["paths"] == [out]
    assert "environment" not in analyze  # never the token's environment
    assert publish["needs"] == [{"job": "reviewbot-analyze", "artifacts": True}]
    assert publish["stage"] == ".post"  # a later stage than any
    assert publish["environment"] == {"name": "reviewbot", "action": "access"}
    assert _variables(jobs, "reviewbot-publish")["GIT_STRATEGY"] == "none"
    [send] = publish["script"]
    report = publish["artifacts"]["reports"]["codequality"]
    assert send.startswith(f"reviewbot publish {out} ") and f"--code-quality {report}" in send
    assert publish["artifacts"]["when"] == "always"
    docs = (ROOT / "docs" / "gitlab.md").read_text()
    assert "reviewbot-publish" in docs and "environment" in docs


def test_shards_divide_the_analysis_and_one_job_publishes(tmp_path: Path) -> None:
    spec, text = _component()
    assert spec["spec"]["inputs"]["shards"] == {
        "description": spec["spec"]["inputs"]["shards"]["description"], "type": "number",
        "default": 1}
    jobs = dict(yaml.safe_load(INPUT.sub(lambda m: "3" if m.group(1) == "shards" else _text(
        spec["spec"]["inputs"][m.group(1)]["default"]), text)))
    jobs_file = tmp_path / "sharded.yml"
    jobs_file.write_text(yaml.safe_dump(jobs))
    assert _check(jobs_file).returncode == 0
    mr = {"CI_PIPELINE_SOURCE": "merge_request_event"}
    review = ("reviewbot", "reviewbot-analyze", "reviewbot-publish", "reviewbot-shard",
              "reviewbot-shards-publish")
    assert [_runs(jobs, j, mr) for j in review] == [False, False, False, True, True]
    assert [_runs(jobs, j, {**mr, "REVIEWBOT_SPLIT": "true"}) for j in review] == [
        False, False, False, True, True]
    default = _jobs(COMPONENT, tmp_path)
    assert [_runs(default, j, mr) for j in review] == [True, False, False, False, False]
    shard, publish = jobs["reviewbot-shard"], jobs["reviewbot-shards-publish"]
    assert shard["parallel"] == 3 and "environment" not in shard
    [run] = shard["script"]
    assert run == ("reviewbot analyze --shard $CI_NODE_INDEX/$CI_NODE_TOTAL "
                   "--out reviewbot-part-$CI_NODE_INDEX.json")
    assert shard["artifacts"]["paths"] == ["reviewbot-part-*.json"]
    assert publish["needs"] == [{"job": "reviewbot-shard", "artifacts": True}]
    assert publish["environment"] == {"name": "reviewbot", "action": "access"}
    assert _variables(jobs, "reviewbot-shards-publish")["GIT_STRATEGY"] == "none"
    [send] = publish["script"]
    assert send.startswith("reviewbot publish reviewbot-part-*.json ")


def test_the_component_s_flavor_picks_an_image_the_release_publishes() -> None:
    spec, jobs = _component()
    flavor = spec["spec"]["inputs"]["flavor"]
    targets = re.findall(r"^FROM \S+ AS (\S+)$", (ROOT / "Dockerfile").read_text(), re.M)
    assert set(flavor["options"]) == {"python", "node", "go", "rust", "full"} <= set(targets)
    assert flavor["default"] == "full"
    name = yaml.safe_load(INPUT.sub(lambda m: m.group(1).upper(), jobs))[".reviewbot"]["image"]["name"]
    assert name == "IMAGE:VERSION-FLAVOR"  # the release's tag for each flavor (release.yml)


@pytest.mark.parametrize("path", [FOLDER / "reviewbot.yml", COMPONENT], ids=lambda p: p.name)
def test_the_webhook_split_keeps_the_token_out_of_the_job_that_runs_the_code(
        path: Path, tmp_path: Path) -> None:
    jobs = _jobs(path, tmp_path)
    hook = {"CI_PIPELINE_SOURCE": "trigger", "TRIGGER_PAYLOAD": "/p.json"}
    names = ("reviewbot-webhook", "reviewbot-webhook-analyze", "reviewbot-webhook-publish")
    assert [_runs(jobs, j, hook) for j in names] == [True, False, False]
    split = {**hook, "REVIEWBOT_SPLIT": "true"}
    assert [_runs(jobs, j, split) for j in names] == [False, True, True]
    analyze, publish = jobs["reviewbot-webhook-analyze"], jobs["reviewbot-webhook-publish"]
    assert "environment" not in analyze
    [run] = analyze["script"]
    out = run.removeprefix("reviewbot analyze --out ")
    assert analyze["artifacts"]["paths"] == [out]
    assert publish["environment"] == {"name": "reviewbot", "action": "access"}
    assert publish["needs"] == [{"job": "reviewbot-webhook-analyze", "artifacts": True}]
    assert _variables(jobs, "reviewbot-webhook-publish")["GIT_STRATEGY"] == "none"
    assert publish["script"] == [f"reviewbot publish {out}"]


ANALYZING = ("reviewbot", "reviewbot-analyze", "reviewbot-shard", "reviewbot-webhook",
             "reviewbot-webhook-analyze", "reviewbot-sweep")


def _cache(jobs: dict[str, Any], name: str) -> Any:
    job = jobs[name]
    return job["cache"] if "cache" in job else _cache(jobs, job["extends"]) if "extends" in job else None


@pytest.mark.parametrize("path", [*PLAIN, COMPONENT], ids=lambda p: p.name)
def test_only_the_warm_job_pushes_the_findings_cache(path: Path, tmp_path: Path) -> None:
    """The jobs that run a merge request's code pull the cache the default branch's warm job
    pushes, from the folder the bot reads; none pushes (docs/cache.md)."""
    jobs = _jobs(path, tmp_path)
    pushing = [n for n in jobs if isinstance(jobs[n], dict) and _cache(jobs, n) is not None
               and _cache(jobs, n)["policy"] != "pull"]
    for name in (n for n in ANALYZING if n in jobs):
        cache = _cache(jobs, name)
        assert cache["policy"] == "pull" and cache["key"] == "reviewbot-findings", name
        folder = _variables(jobs, name)["REVIEWBOT_CACHE_DIR"]
        assert cache["paths"] == [folder.replace("$CI_PROJECT_DIR/", "") + "/v3"], name
    if path.name == "merge-request.yml":
        assert pushing == []
        return
    assert pushing == ["reviewbot-warm"]
    warm = jobs["reviewbot-warm"]
    assert warm["cache"]["key"] == "reviewbot-findings" and warm["cache"]["policy"] == "pull-push"
    push = {"CI_PIPELINE_SOURCE": "push", "CI_DEFAULT_BRANCH": "main"}
    assert _runs(jobs, "reviewbot-warm", {**push, "CI_COMMIT_BRANCH": "main"})
    assert not _runs(jobs, "reviewbot-warm", {**push, "CI_COMMIT_BRANCH": "feature"})
    assert not _runs(jobs, "reviewbot-warm", {"CI_PIPELINE_SOURCE": "merge_request_event",
                                               "CI_DEFAULT_BRANCH": "main"})
    [script] = warm["script"]
    assert "reviewbot warm --since \"$CI_COMMIT_BEFORE_SHA\"" in script and "else reviewbot warm;" in script


GITLAB_EXAMPLES = ROOT / "examples" / "gitlab"


def test_the_gitlab_examples_include_what_the_release_tags() -> None:
    """The README's GitLab quick start: each example is a whole .gitlab-ci.yml that GitLab's
    schema accepts, names the v0 tag the release moves, and includes a file this repository
    has at that path, with inputs the component declares."""
    assert _check(*sorted(GITLAB_EXAMPLES.glob("*.yml"))).returncode == 0
    remote = yaml.safe_load((GITLAB_EXAMPLES / "remote.yml").read_text())["include"]
    [url] = [i["remote"] for i in remote]
    prefix = "https://raw.githubusercontent.com/OWNER/reviewbot/v0/"
    assert url.startswith(prefix) and (ROOT / url.removeprefix(prefix)).is_file()
    [component] = yaml.safe_load((GITLAB_EXAMPLES / "component.yml").read_text())["include"]
    # `templates/NAME/template.yml` is the component NAME of the project that holds it.
    assert component["component"] == "$CI_SERVER_FQDN/OWNER/reviewbot/gitlab@v0"
    assert COMPONENT == ROOT / "templates" / "gitlab" / "template.yml"
    spec, _ = _component()
    inputs = spec["spec"]["inputs"]
    for name, value in component["inputs"].items():
        assert value in inputs[name].get("options", [value]), name
