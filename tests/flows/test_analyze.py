"""`reviewbot analyze`: real ruff on a real repository, no token, no network; one artifact that
validates against its schema and carries the pull request; exit 0 whatever the gate."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bot.cli import build_parser, main
from bot.commands import analyze
from bot.flows.analyze import repository_from_url
from bot.publishing.gate import decide
from bot.run import artifact
from tests.ci.test_github_actions import opened_pull_request
from tests.conftest import GitRepo, require_tool

RUFF = '[lint]\nselect = ["F"]\n'
BASE = {"ruff.toml": RUFF,
        "app.py": "import sys\n\n\ndef main():\n    unused = 1\n    return sys.argv\n\n\n"
                  "def old():\n    import glob\n"}
# `os` introduced (a safe fix), `unused` preexisting, `glob` fixed.
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    unused = 1\n    return sys.argv\n"}
GITHUB_ENV = ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_TOKEN", "GITHUB_WORKSPACE",
              "GITHUB_REPOSITORY")


@pytest.fixture
def change(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, str, str]:
    """A feature branch off main; no GitHub variables, no token, and no network."""
    require_tool("ruff")
    for name in GITHUB_ENV:
        monkeypatch.delenv(name, raising=False)

    def offline(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("analyze opened a network connection")
    monkeypatch.setattr(socket.socket, "connect", offline)
    base = repo.commit(BASE, "base")
    repo.branch("feature")
    head = repo.commit(HEAD, "feature")
    return repo, base, head


def pull_request_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str, head: str,
                       **pr: Any) -> dict[str, Any]:
    payload = opened_pull_request(base, head, **pr)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    return payload


def read(path: Path) -> tuple[dict[str, Any], artifact.Analysis]:
    data = path.read_bytes()
    doc = json.loads(data)
    jsonschema.Draft202012Validator(artifact.schema()).validate(doc)
    return doc, artifact.load(data)


def test_a_pull_request_event_gives_the_pull_requests_artifact(
        change: tuple[GitRepo, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, base, head = change
    payload = pull_request_event(tmp_path, monkeypatch, base, head)
    out = tmp_path / "analysis.json"
    assert main(["analyze", "--repo", str(repo.path), "--out", str(out)]) == 0
    doc, analysis = read(out)
    assert (analysis.repository, analysis.number) == ("octo/demo", 7)
    assert (analysis.base_sha, analysis.head_sha) == (base, head)
    assert analysis.merge_base == repo.git("merge-base", base, head) == doc["merge_base"]
    assert analysis.target_ref == payload["pull_request"]["base"]["ref"]
    result = analysis.result
    scopes = {(v.scope, v.finding.rule, v.finding.message.split("`")[1]) for v in result.findings}
    assert scopes == {("introduced", "F401", "os"), ("preexisting", "F841", "unused")}
    assert [v.finding.message.split("`")[1] for v in result.fixed] == ["glob"]
    introduced = next(v for v in result.findings if v.scope == "introduced")
    assert introduced.finding.fix is not None and introduced.finding.fix.applicability == "safe"
    assert [c.path for c in result.changes] == ["app.py"] and result.changes[0].hunk_lines
    assert len(analysis.texts["app.py"]) == 7 and analysis.texts["app.py"][0] == "import os\n"
    assert decide(result).failed  # the gate would fail, yet analyze exits 0: publish decides
    assert "octo/demo#7" in capsys.readouterr().err


def test_outside_actions_the_revisions_come_from_the_flags(
        change: tuple[GitRepo, str, str], tmp_path: Path) -> None:
    repo, base, head = change
    repo.checkout("main")  # --head names the branch; the checkout is elsewhere
    out = tmp_path / "analysis.json"
    assert main(["analyze", "--repo", str(repo.path), "--base", "main", "--head", "feature",
                 "--out", str(out)]) == 0
    doc, analysis = read(out)
    assert (doc["repository"], doc["number"]) == (None, None)  # no origin remote
    assert (analysis.base_sha, analysis.head_sha, analysis.target_ref) == (base, head, "main")
    repo.git("remote", "add", "origin", "git@github.com:octo/demo.git")
    assert main(["analyze", "--repo", str(repo.path), "--base", "main", "--head", "feature",
                 "--out", str(out)]) == 0
    assert read(out)[1].repository == "octo/demo"


def test_the_artifact_is_replaced_whole(change: tuple[GitRepo, str, str], tmp_path: Path) -> None:
    repo, _, _ = change
    out = tmp_path / "out" / "analysis.json"
    out.parent.mkdir()
    out.write_text("an older analysis")
    assert main(["analyze", "--repo", str(repo.path), "--base", "main", "--out", str(out)]) == 0
    assert read(out)[1].number is None
    assert [p.name for p in out.parent.iterdir()] == ["analysis.json"]  # no temporary left


@pytest.mark.parametrize("args,message", [
    (["--out", "{tmp}/missing/analysis.json"], "--out {tmp}/missing/analysis.json: the folder"),
    (["--out", "{tmp}"], "is a folder; name a file"),
    (["--out", "{tmp}/a.json", "--base", "no-such-branch"], "--base 'no-such-branch' is not a branch"),
    (["--out", "{tmp}/a.json", "--head", "nope"], "--head 'nope' is not a commit"),
    (["--out", "{tmp}/a.json", "--config", "{tmp}/missing.yml"], "missing.yml"),
    (["--out", "{tmp}/a.json", "--only", "rufff"], "--only rufff: no such tool"),
])
def test_bad_input_is_one_line_and_exit_2(change: tuple[GitRepo, str, str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str], args: list[str],
                                          message: str) -> None:
    repo, _, _ = change
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    base = [] if "--base" in args else ["--base", "main"]
    assert main(["analyze", "--repo", str(repo.path), *base, *argv]) == 2
    err = capsys.readouterr().err
    assert message.replace("{tmp}", str(tmp_path)) in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "a.json").exists()


def test_an_unwritable_out_is_refused_before_any_work(
        change: tuple[GitRepo, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _, _ = change
    # A bad --base too: the --out error comes first, so nothing was resolved or linted.
    assert main(["analyze", "--repo", str(repo.path), "--base", "nope",
                 "--out", str(tmp_path / "missing" / "a.json")]) == 2
    assert "--out" in capsys.readouterr().err


def test_event_errors_exit_2(change: tuple[GitRepo, str, str], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    repo, base, head = change
    out = str(tmp_path / "a.json")
    pull_request_event(tmp_path, monkeypatch, base, head)
    assert main(["analyze", "--repo", str(repo.path), "--base", "main", "--out", out]) == 2
    assert "come from the change's event" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request_target")
    assert main(["analyze", "--repo", str(repo.path), "--out", out]) == 2
    assert "refuses pull_request_target" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    (tmp_path / "event.json").write_text('{"pull_request": []}')
    assert main(["analyze", "--repo", str(repo.path), "--out", out]) == 2
    assert "malformed pull_request event" in capsys.readouterr().err
    pull_request_event(tmp_path, monkeypatch, base, "f" * 40)  # a head the checkout lacks (no origin)
    assert main(["analyze", "--repo", str(repo.path), "--out", out]) == 2
    assert "is not in the checkout and could not be fetched" in capsys.readouterr().err
    assert not Path(out).exists()


def test_a_closed_pull_request_writes_nothing(change: tuple[GitRepo, str, str], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    repo, base, head = change
    payload = pull_request_event(tmp_path, monkeypatch, base, head, state="closed")
    payload["action"] = "closed"
    (tmp_path / "event.json").write_text(json.dumps(payload))
    out = tmp_path / "a.json"
    assert main(["analyze", "--repo", str(repo.path), "--out", str(out)]) == 0
    assert not out.exists()


@pytest.mark.parametrize("url,expected", [
    ("https://github.com/octo/demo.git", "octo/demo"),
    ("https://x-access-token:secret@github.com/octo/demo", "octo/demo"),
    ("git@github.com:octo/demo.git", "octo/demo"),
    ("ssh://git@ghe.example.com:2222/octo/demo.git", "octo/demo"),
    ("https://gitlab.com/group/sub/project.git", "group/sub/project"),
    ("https://github.com/octo/demo/\n", "octo/demo"),
    ("/srv/git/demo.git", None),
    ("file:///srv/git/octo/demo.git", None),
    ("../octo/demo", None),
    ("octo/demo", None),
    ("https://github.com/demo", None),
    ("git@host:octo/../demo", None),
])
def test_the_repository_is_read_from_a_remote_url(url: str, expected: str | None) -> None:
    assert repository_from_url(url) == expected


class NoTokens(dict[str, str]):
    """An environment that fails the test when anything looks a token up."""

    def _check(self, key: object) -> None:
        assert "TOKEN" not in str(key), f"analyze read {key}"

    def get(self, key: str, default: Any = None) -> Any:
        self._check(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self._check(key)
        return super().__getitem__(key)


def test_no_token_is_read(change: tuple[GitRepo, str, str], tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo, base, head = change
    pull_request_event(tmp_path, monkeypatch, base, head)
    env = NoTokens({k: v for k, v in os.environ.items() if k.startswith("GITHUB_")},
                   GITHUB_TOKEN="t0ken")
    out = tmp_path / "a.json"
    args = build_parser("analyze").parse_args(["analyze", "--repo", str(repo.path), "--out", str(out)])
    assert analyze.run(args, env) == 0
    assert b"t0ken" not in out.read_bytes() and read(out)[1].number == 7


def test_analyze_and_a_written_artifact_s_publish_load_no_schema_checker(
        change: tuple[GitRepo, str, str], tmp_path: Path) -> None:
    """The JSON Schema checker costs over a second to import (its format checkers compile
    grammars): `analyze` never validates what it writes, and `publish` reads an artifact that
    is exactly what `analyze` writes without it. Counted in a fresh interpreter."""
    import subprocess
    import sys

    repo, _, _ = change
    out = tmp_path / "a.json"
    probe = ("import io, json, sys, contextlib\nfrom bot.cli import main\nfrom bot.run import artifact\n"
             "with contextlib.redirect_stderr(io.StringIO()):\n"
             "    status = main(['analyze', '--repo', sys.argv[1], '--base', 'main', "
             "'--out', sys.argv[2]])\n"
             "artifact.load(open(sys.argv[2], 'rb').read())\n"
             "print(json.dumps([status, 'jsonschema' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe, str(repo.path), str(out)],
                          capture_output=True, text=True, cwd=Path(__file__).parents[2],
                          env={**os.environ, "REVIEWBOT_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [0, False]
    # A document the reader would not write back the same is still checked against the schema.
    doc = json.loads(out.read_text())
    doc["result"]["findings"][0]["extra"] = 1
    with pytest.raises(artifact.ArtifactError) as info:
        artifact.load(json.dumps(doc).encode())
    assert "extra" in info.value.message
