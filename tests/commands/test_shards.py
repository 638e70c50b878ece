"""Shards on GitHub: `analyze --shard I/N` over a change that ruff and ESLint both review (code
moved between files, a rename, a deletion, a fix), then `publish` of every part against the
validating fake GitHub: the same requests, bodies included, as an unsharded analysis; and the
sets of parts `publish` refuses."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from tests.flows.test_publish import in_empty_folder, workflow_run
from tests.flows.test_review import open_pr
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FakeGitHub

HELPERS = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(6))
MOVED = "def moved(a, b):\n    unused_moved = a == None\n    return a + b\n"
BASE = {
    "pyproject.toml": "[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\nselect = [\"F\", \"E\"]\n",
    "eslint.config.mjs": 'export default [{ rules: { "no-unused-vars": "error", eqeqeq: "error" } }];\n',
    "src/one.py": "import os\n\n\n" + HELPERS + MOVED,
    "src/two.py": "import sys\n\n\ndef two():\n    return sys.argv\n",
    "src/old_name.py": "import json\n\n\ndef named():\n    gone = 1\n    return 2\n",
    "src/deleted.py": "import re\n",
    "src/away.py": "import glob\n\n\ndef away():\n    return 1\n",
    "web/a.js": "export function a(x) {\n  return x == 1;\n}\n",
    "web/b.js": "export const b = 2;\n",
    "web/c.js": "const c = 3;\nexport { c };\n",
}
HEAD = {
    # `moved` goes from one.py to two.py: its findings stay preexisting (across shards too).
    "src/one.py": "import os\n\n\n" + HELPERS + "def fresh():\n    new_unused = 1\n    return 0\n",
    "src/two.py": "import sys\n\n\ndef two():\n    return sys.argv\n\n\n" + MOVED,
    "src/old_name.py": None,
    "src/new_name.py": "import json\n\n\ndef named():\n    gone = 1\n    return 3\n",
    "src/deleted.py": None,
    # Renamed to a name no linter takes: its finding at the base is fixed, in every shard count.
    "src/away.py": None,
    "notes/away.txt": "import glob\n\n\ndef away():\n    return 1\n",
    "web/a.js": "export function a(x) {\n  const y = 2;\n  return x == 1;\n}\n",
    "web/b.js": "export const b = 2;\nconst unusedB = 1;\n",
    "web/c.js": "const c = 4;\nexport { c };\n",
    "web/d.js": "export const d = (x) => x != null;\n",
}


def _diff() -> dict[str, set[int]]:
    """What GitHub shows of each file: every line (the fake needs the commentable lines)."""
    return {p: set(range(1, text.count("\n") + 2)) for p, text in HEAD.items() if text is not None}


@pytest.fixture
def opened(repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
           sleeps: Sleeps) -> Iterator[tuple[Any, FakeGitHub]]:
    files = {**BASE}
    with open_pr(repo, tmp_path, monkeypatch, sleeps, files, {}, _diff()) as (repo, fake, _):
        head = repo.commit(HEAD, "the change")
        fake.push(head, _diff())
        event = json.loads(Path(tmp_path / "event.json").read_text())
        event["pull_request"]["head"]["sha"] = head
        (tmp_path / "event.json").write_text(json.dumps(event))
        quick.github(monkeypatch, sleeps, fake)
        yield repo, fake


def _analyze(repo: Any, out: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> None:
    """The matrix job: on the pull_request event, with no token."""
    with monkeypatch.context() as m:
        m.delenv("GITHUB_TOKEN")
        m.setenv("GITHUB_EVENT_NAME", "pull_request")
        m.setenv("GITHUB_EVENT_PATH", str(repo.path.parent / "event.json"))  # open_pr's
        assert cli.main(["analyze", "--repo", str(repo.path), "--out", str(out), *extra]) == 0


def _parts(repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int) -> list[str]:
    paths = []
    for index in range(1, count + 1):
        out = tmp_path / f"of{count}" / f"part-{index}.json"
        out.parent.mkdir(exist_ok=True)
        _analyze(repo, out, monkeypatch, "--shard", f"{index}/{count}")
        paths.append(str(out))
    return paths


def _published(files: list[str], fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
               ) -> tuple[int, list[Any]]:
    """The gate and every write `publish` would send (a dry run: the fake stays as it is)."""
    capsys.readouterr()
    status = cli.main(["publish", *files, "--fail-level", "info", "--dry-run"])
    printed = capsys.readouterr()
    assert status in (0, 1), printed.err
    doc = json.loads(printed.out)
    requests = []
    for r in doc["requests"]:
        body = dict(r["body"]) if isinstance(r["body"], dict) else r["body"]
        if isinstance(body, dict):  # a check run's marker is new on every run, by design
            body.pop("external_id", None)
        requests.append((r["method"], r["path"], body))
    return status, requests


def test_a_sharded_run_publishes_the_review_an_unsharded_one_does(
        opened: tuple[Any, FakeGitHub], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, fake = opened
    whole = tmp_path / "whole.json"
    _analyze(repo, whole, monkeypatch)
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)
    status, expected = _published([str(whole)], fake, capsys)
    assert status == 1
    review = next(b for m, p, b in expected if p.endswith("/reviews"))
    bodies = " ".join(c["body"] for c in review["comments"])
    for rule in ("F841", "no-unused-vars", "eqeqeq"):
        assert rule in bodies
    summary = next(b for m, p, b in expected if p.endswith("/comments"))["body"]
    assert "fixed" in summary
    doc = json.loads(whole.read_text())
    assert ("src/away.py", "F401") in {(f["path"], f["rule"]) for f in doc["result"]["fixed"]}
    # Matched across files: shards must see both files' findings before any verdict.
    [moved] = [f for f in doc["result"]["findings"] if f["path"] == "src/two.py"
               and f["rule"] == "E711"]
    assert (moved["scope"], moved["matched_by"]) == ("preexisting", "P7")
    for count in (1, 2, 3):
        parts = _parts(repo, tmp_path, monkeypatch, count)
        shares = [json.loads(Path(p).read_text())["shard"] for p in parts]
        assert len({s["plan"] for s in shares}) == 1
        if count > 1:  # the work is divided: no shard runs every tool on every file
            assert all(len(s["head"]) < len(doc["result"]["findings"]) for s in shares)
        got = _published(parts, fake, capsys)
        assert got == (status, expected), f"{count} shards"
        assert _published(list(reversed(parts)), fake, capsys) == (status, expected)
        # A folder stands for the parts in it (download-artifact's merge-multiple).
        assert _published([str(Path(parts[0]).parent)], fake, capsys) == (status, expected)
    assert fake.errors == []


def _refused(files: list[str], capsys: pytest.CaptureFixture[str], fake: FakeGitHub) -> str:
    fake.reset_calls()
    capsys.readouterr()
    assert cli.main(["publish", *files]) == 2
    assert fake.calls == []
    return capsys.readouterr().err


def test_publish_refuses_parts_that_are_not_one_analysis(
        opened: tuple[Any, FakeGitHub], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo, fake = opened
    three = _parts(repo, tmp_path, monkeypatch, 3)
    two = _parts(repo, tmp_path, monkeypatch, 2)
    whole = tmp_path / "whole.json"
    _analyze(repo, whole, monkeypatch)
    ruff_only = tmp_path / "ruff-only.json"
    _analyze(repo, ruff_only, monkeypatch, "--shard", "2/3", "--only", "ruff")
    settings = tmp_path / "settings.yml"  # a --config of the job's own, outside the checkout
    settings.write_text("timeout: 120\n")
    configured = tmp_path / "configured.json"
    _analyze(repo, configured, monkeypatch, "--shard", "2/3", "--config", str(settings))
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)

    err = _refused([three[0], three[2]], capsys, fake)
    assert "shard 2/3 missing" in err
    err = _refused([three[0], three[1], three[1], three[2]], capsys, fake)
    assert f"shard 2/3 is given twice: {three[1]}, {three[1]}" in err
    err = _refused([three[0], two[1], three[2]], capsys, fake)
    assert f"{two[1]} was planned as one of 2 shards" in err and "mixed configurations" in err
    err = _refused([three[0], str(ruff_only), three[2]], capsys, fake)
    assert f"{ruff_only} was planned" in err and "mixed configurations" in err
    err = _refused([three[0], str(configured), three[2]], capsys, fake)
    assert f"{configured} was planned" in err and "mixed configurations" in err
    err = _refused([three[0], str(whole)], capsys, fake)
    assert f"{whole} is a whole analysis" in err
    (tmp_path / "empty").mkdir()
    err = _refused([str(tmp_path / "empty")], capsys, fake)
    assert "a folder with no .json file in it" in err

    # A part of another head: the branch moved on between two matrix jobs.
    head2 = repo.commit({"web/b.js": "export const b = 3;\n"}, "another push")
    event = json.loads(Path(tmp_path / "event.json").read_text())
    event["pull_request"]["head"]["sha"] = head2
    (tmp_path / "event.json").write_text(json.dumps(event))
    later = tmp_path / "later.json"
    with monkeypatch.context() as m:
        m.setenv("GITHUB_EVENT_NAME", "pull_request")
        m.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
        _analyze(repo, later, monkeypatch, "--shard", "2/3")
    err = _refused([three[0], str(later), three[2]], capsys, fake)
    assert f"{later} is of head {head2[:12]}, {three[0]} of {fake.s.head[:12]}" in err


@pytest.mark.parametrize("bad", ["0/3", "4/3", "1/0", "2", "a/b", "1/300"])
def test_a_bad_shard_is_refused(repo, tmp_path: Path, bad: str,  # type: ignore[no-untyped-def]
                                capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({"a.py": "x = 1\n"})
    with pytest.raises(SystemExit) as exited:
        cli.main(["analyze", "--repo", str(repo.path), "--out", str(tmp_path / "o.json"),
                  "--shard", bad])
    assert exited.value.code == 2
    assert "--shard" in capsys.readouterr().err



def test_a_finding_two_parts_report_counts_once(
        opened: tuple[Any, FakeGitHub], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """One tool's run keeps a finding once (a crate's lint seen from a dependent crate's run
    too): so does the merge of parts."""
    repo, fake = opened
    whole = tmp_path / "whole.json"
    _analyze(repo, whole, monkeypatch)
    one, two = _parts(repo, tmp_path, monkeypatch, 2)
    first, second = json.loads(Path(one).read_text()), json.loads(Path(two).read_text())
    first["shard"]["head"] += [f for f in second["shard"]["head"] if f["tool"] == "ruff"]
    first["shard"]["files"]["head"].update(second["shard"]["files"]["head"])
    first["shard"]["files"]["base"].update(second["shard"]["files"]["base"])
    first["shard"]["maps"].update(second["shard"]["maps"])
    Path(one).write_text(json.dumps(first))
    workflow_run(tmp_path, monkeypatch, fake.s.head)
    in_empty_folder(tmp_path, monkeypatch)
    assert _published([one, two], fake, capsys) == _published([str(whole)], fake, capsys)
