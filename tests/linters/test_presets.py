"""The zero-configuration presets (shellcheck, hadolint, stylelint, markdownlint, yamllint,
actionlint): each is detected by its own configuration file and run for real through the
review."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.linters.registry import LINTERS
from bot.model import ReviewResult, Severity, Span
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, require_tool


def review(repo: GitRepo, tool: str, tmp_path: Path) -> ReviewResult:
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
    assert [(t.name, t.status) for t in result.tools] == [(tool, "ok")], result.tools
    return result


def scoped(result: ReviewResult) -> list[tuple[str, int, str, str]]:
    return sorted((v.finding.path, v.finding.line, v.finding.rule, v.scope) for v in result.findings)


def two_commits(repo: GitRepo, base: dict[str, str], head: dict[str, str]) -> None:
    repo.commit(base)
    repo.branch("feat")
    repo.commit(head)


def test_nothing_applies_without_a_configuration(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("echo $1\n")
    for name in ("shellcheck", "hadolint", "stylelint", "markdownlint", "yamllint"):
        assert not LINTERS[name].applies(tmp_path, ["run.sh", "Dockerfile", "a.css", "a.md",
                                                    "a.yml"]), name


def test_shellcheck_with_shellcheckrc(repo: GitRepo, tmp_path: Path) -> None:
    two_commits(repo, {".shellcheckrc": "disable=SC2034\n", "bin/run.sh": "#!/bin/sh\necho $1\nx=1\n"},
                {"bin/run.sh": "#!/bin/sh\necho $1\nx=1\ncd $2\n"})
    result = review(repo, "shellcheck", tmp_path)
    assert scoped(result) == [("bin/run.sh", 2, "SC2086", "preexisting"),
                              ("bin/run.sh", 4, "SC2086", "introduced"),
                              ("bin/run.sh", 4, "SC2164", "introduced")]
    quoting = next(v.finding for v in result.findings if v.finding.line == 4 and v.finding.rule == "SC2086")
    assert quoting.span == Span(4, 4, 4, 6) and quoting.severity == Severity.INFO
    assert quoting.url == "https://www.shellcheck.net/wiki/SC2086"
    assert quoting.fix is not None and quoting.fix.applicability == "unsafe"
    assert [(e.span, e.new_text) for e in quoting.fix.edits] == [(Span(4, 4, 4, 4), '"'),
                                                                 (Span(4, 6, 4, 6), '"')]


@pytest.mark.parametrize("config", [".hadolint.yaml", ".hadolint.yml"])
def test_hadolint_with_its_config(repo: GitRepo, tmp_path: Path, config: str) -> None:
    two_commits(repo, {config: "ignored: [DL3015]\n", "Dockerfile": "FROM debian\n",
                       "svc/api.Dockerfile": "FROM debian:12\n"},
                {"Dockerfile": "FROM debian\nRUN apt-get install -y curl\n",
                 "svc/api.Dockerfile": "FROM debian:12\nRUN cd /x\n"})
    result = review(repo, "hadolint", tmp_path)
    assert scoped(result) == [("Dockerfile", 1, "DL3006", "preexisting"),
                              ("Dockerfile", 2, "DL3008", "introduced"),
                              ("svc/api.Dockerfile", 2, "DL3003", "introduced"),
                              ("svc/api.Dockerfile", 2, "SC2164", "introduced")]
    # DL3015 (--no-install-recommends) is what the configuration switched off.
    urls = {v.finding.rule: v.finding.url for v in result.findings}
    assert urls["DL3008"] == "https://github.com/hadolint/hadolint/wiki/DL3008"
    assert urls["SC2164"] == "https://www.shellcheck.net/wiki/SC2164"


@pytest.mark.parametrize("config", [
    {".stylelintrc.json": '{"rules": {"color-hex-length": "short", "color-no-invalid-hex": true}}'},
    {"package.json": '{"name": "x", "stylelint": {"rules": {"color-hex-length": "short",'
                     ' "color-no-invalid-hex": true}}}'},
])
def test_stylelint_by_its_config_or_package_json(repo: GitRepo, tmp_path: Path,
                                                  config: dict[str, str]) -> None:
    two_commits(repo, {**config, "web/a.css": "a { color: #FFFFFF; }\n"},
                {"web/a.css": "a { color: #FFFFFF; }\nb { color: #12345; }\n"})
    result = review(repo, "stylelint", tmp_path)
    assert scoped(result) == [("web/a.css", 1, "color-hex-length", "preexisting"),
                              ("web/a.css", 2, "color-no-invalid-hex", "introduced")]
    hex_length = next(v.finding for v in result.findings if v.finding.rule == "color-hex-length")
    assert hex_length.span == Span(1, 12, 1, 19)
    assert hex_length.message == 'Expected "#FFFFFF" to be "#FFF"'
    assert hex_length.fix is not None and hex_length.fix.applicability == "safe"
    assert [(e.span, e.new_text) for e in hex_length.fix.edits] == [(Span(1, 16, 1, 19), "")]


def test_markdownlint_with_its_config(repo: GitRepo, tmp_path: Path) -> None:
    two_commits(repo, {".markdownlint.json": '{"default": true, "MD013": false}',
                       "docs/a b.md": "# Title\n\nText \n"},
                {"docs/a b.md": "# Title\n\nText \n\n##Bad\n"})
    result = review(repo, "markdownlint", tmp_path)
    got = scoped(result)
    assert ("docs/a b.md", 3, "MD009", "preexisting") in got
    assert ("docs/a b.md", 5, "MD018", "introduced") in got
    md018 = next(v.finding for v in result.findings if v.finding.rule == "MD018")
    assert md018.message.startswith("No space after hash on atx style heading")
    assert md018.url is not None and md018.url.endswith("/md018.md")


@pytest.mark.parametrize("config", [".yamllint", ".yamllint.yaml", ".yamllint.yml"])
def test_yamllint_with_its_config(repo: GitRepo, tmp_path: Path, config: str) -> None:
    settings = "extends: default\nrules:\n  document-start: disable\nignore: |\n  vendor/\n"
    two_commits(repo, {config: settings, "ci/deploy.yml": "name: deploy\nsteps:   [a]\n",
                       "vendor/x.yaml": "a:  1\n"},
                {"ci/deploy.yml": "name: deploy\nsteps:   [a]\nenv: {A: 1,B: 2}\n",
                 "vendor/x.yaml": "a:  1\nb:  2\n"})
    result = review(repo, "yamllint", tmp_path)
    # vendor/ is what the configuration ignores, even when the file is named on the command line.
    assert scoped(result) == [("ci/deploy.yml", 2, "colons", "preexisting"),
                              ("ci/deploy.yml", 3, "commas", "introduced")]
    commas = next(v.finding for v in result.findings if v.finding.rule == "commas")
    assert commas.severity == Severity.ERROR and commas.span == Span(3, 12, 3, 13)
    assert commas.url == "https://yamllint.readthedocs.io/en/stable/rules.html#module-yamllint.rules.commas"


def test_yamllint_syntax_errors_and_a_broken_configuration(repo: GitRepo, tmp_path: Path) -> None:
    two_commits(repo, {".yamllint": "extends: default\n", "a.yml": "---\na: 1\n"},
                {"a.yml": "---\na: [\n"})
    assert ("a.yml", 3, "syntax", "introduced") in scoped(review(repo, "yamllint", tmp_path))
    repo.commit({".yamllint": "rules:\n  no-such-rule: enable\n", "a.yml": "---\na: 2\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
    (run,) = result.tools
    assert (run.name, run.status) == ("yamllint", "failed") and "no-such-rule" in run.message


WORKFLOW = ("on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - uses: actions/checkout@v1\n")


def test_actionlint_with_its_config_on_workflows_only(repo: GitRepo, tmp_path: Path) -> None:
    config = {".github/actionlint.yaml": "self-hosted-runner:\n  labels: []\n"}
    two_commits(repo, {**config, ".github/workflows/ci.yml": WORKFLOW, "deploy/ci.yml": "a: 1\n"},
                {".github/workflows/ci.yml": WORKFLOW + "      - run: echo ${{ github.event.issue.title }}\n",
                 "deploy/ci.yml": "a: 2\n"})
    result = review(repo, "actionlint", tmp_path)
    assert scoped(result) == [(".github/workflows/ci.yml", 6, "action", "preexisting"),
                              (".github/workflows/ci.yml", 7, "expression", "introduced")]
    untrusted = next(v.finding for v in result.findings if v.finding.rule == "expression")
    assert "potentially untrusted" in untrusted.message
    assert untrusted.span == Span(7, 23, 7, 47)


def test_a_config_in_a_folder_the_base_lacks_is_carried_over(repo: GitRepo, tmp_path: Path) -> None:
    """The head adds `.github/` with actionlint's config; ruff needs the base's checkout, which
    takes every tool's config from the head, into a folder the base does not have."""
    require_tool("ruff")
    two_commits(repo, {"pyproject.toml": "[tool.ruff]\n", "a.py": "import os\n"},
                {".github/actionlint.yaml": "{}\n", ".github/workflows/ci.yml": WORKFLOW,
                 "a.py": "import os\nimport sys\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
    assert sorted((t.name, t.status) for t in result.tools) == [("actionlint", "ok"), ("ruff", "ok")]
    assert scoped(result) == [(".github/workflows/ci.yml", 6, "action", "introduced"),
                              ("a.py", 1, "F401", "preexisting"), ("a.py", 2, "F401", "introduced")]
