"""Bad inputs and broken tools: each gets a clear status or message, nothing is misclassified."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import proc
from bot.analyzer import Target
from bot.cli import main
from bot.linters import ruff
from bot.linters.base import LinterSpec, Unit
from bot.linters.runner import LinterAnalyzer
from bot.model import Finding
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, require_tool

CONFIG = '[tool.ruff.lint]\nselect = ["F"]\n'


def fake_linter(name: str, script: str, exit_codes: frozenset[int] = frozenset({0})) -> LinterAnalyzer:
    """A linter whose 'binary' is the running Python executing `script` (fault injection)."""

    def command(exe: str, unit: Unit, target: Target) -> list[str]:
        return [sys.executable, "-c", script, *unit.paths]

    def parse(result: proc.Result, unit: Unit, target: Target) -> list[Finding]:
        return ruff.parse(result, unit, target)

    spec = LinterSpec(
        name=name,
        extensions=frozenset({".py"}),
        executables=(Path(sys.executable).name,),
        install_hint=f"pip install {name}",
        config_files=("pyproject.toml",),
        command=command,
        parse=parse,
        ok_exit_codes=exit_codes,
    )
    return LinterAnalyzer(spec)


def missing_linter() -> LinterAnalyzer:
    spec = LinterSpec(
        name="ghost",
        extensions=frozenset({".py"}),
        executables=("no-such-linter-xyz",),
        install_hint="pip install ghost-linter",
        config_files=("pyproject.toml",),
        command=lambda exe, unit, target: [exe],
        parse=lambda r, u, t: [],
    )
    return LinterAnalyzer(spec)


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


@pytest.fixture
def py_repo(repo: GitRepo) -> GitRepo:
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff]\n" + CONFIG, "a.py": "import os\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "import os\nimport sys\n"})
    return repo


def with_ruff(**others: LinterAnalyzer) -> dict[str, object]:
    return {"ruff": LinterAnalyzer(ruff.SPEC), **others}


def test_missing_linter_reports_install_command_and_others_still_run(py_repo: GitRepo) -> None:
    result = run_review(ReviewOptions(py_repo.path, "main", analyzers=with_ruff(ghost=missing_linter())))  # type: ignore[arg-type]
    tools = {t.name: t for t in result.tools}
    assert tools["ghost"].status == "missing"
    assert "pip install ghost-linter" in tools["ghost"].message
    assert tools["ruff"].status == "ok" and result.count("introduced") == 1


def test_crashing_linter_is_failed_with_stderr_tail(py_repo: GitRepo) -> None:
    crash = fake_linter("crashy", "import sys; sys.stderr.write('Traceback: boom\\n'); sys.exit(3)")
    result = run_review(ReviewOptions(py_repo.path, "main", analyzers=with_ruff(crashy=crash)))  # type: ignore[arg-type]
    tools = {t.name: t for t in result.tools}
    assert tools["crashy"].status == "failed" and "boom" in tools["crashy"].message
    assert result.count("introduced") == 1  # ruff's finding stands


def test_hanging_linter_times_out_and_its_process_group_dies(py_repo: GitRepo, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    script = (
        "import os, subprocess, sys, time; "
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    hang = fake_linter("sleepy", script)
    result = run_review(ReviewOptions(py_repo.path, "main", timeout=2, analyzers=with_ruff(sleepy=hang)))  # type: ignore[arg-type]
    tools = {t.name: t for t in result.tools}
    assert tools["sleepy"].status == "timeout"
    child = int(pidfile.read_text())
    assert not alive(child)
    assert result.count("introduced") == 1


def test_garbage_output_is_failed_and_not_classified(py_repo: GitRepo) -> None:
    junk = fake_linter("junk", "print('this is not json')")
    result = run_review(ReviewOptions(py_repo.path, "main", analyzers={"junk": junk}))
    (tool,) = result.tools
    assert tool.status == "failed" and "unreadable output" in tool.message
    assert not result.findings and not result.fixed


def test_failure_at_base_only_leaves_head_findings_unclassified(repo: GitRepo) -> None:
    # A linter that fails only in the base checkout: its head findings must not be "introduced"
    # on untouched lines, nor base findings "fixed".
    script = (
        "import json, os, sys\n"
        "if os.path.basename(os.getcwd()) in ('base', 'files'): sys.exit(2)\n"
        "for p in sys.argv[1:]:\n"
        "    print(json.dumps({'code': 'X1', 'message': 'm', 'filename': p, 'severity': 'error',"
        " 'location': {'row': 1, 'column': 1}, 'end_location': {'row': 1, 'column': 2}}))\n"
    )
    repo.commit({"pyproject.toml": "", "a.py": "x = 1\ny = 2\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "x = 1\ny = 3\n"})
    result = run_review(ReviewOptions(repo.path, "main", analyzers={"half": fake_linter("half", script)}))
    (v,) = result.findings
    assert v.scope == "unclassified" and result.tools[0].status == "failed"


def test_binary_non_utf8_symlink_spaces_unicode_crlf(repo: GitRepo) -> None:
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff]\n" + CONFIG, "keep.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.write(
        {
            "blob.bin": b"\x00\x01\x02binary",
            "latin1.py": "s = 'caf\xe9'\nimport os\n".encode("latin-1"),
            "dir with space/ünï cödé.py": "import json\n",
            "crlf.py": b"import re\r\nx = 1\r\n",
        }
    )
    os.symlink("keep.py", repo.path / "link.py")
    repo.commit()
    result = run_review(ReviewOptions(repo.path, "main"))
    paths = {v.finding.path for v in result.findings}
    assert "dir with space/ünï cödé.py" in paths and "crlf.py" in paths
    assert "link.py" not in paths and "blob.bin" not in paths
    assert any("link.py: not analysed (symbolic link)" in n for n in result.notes)
    assert any("blob.bin: not analysed (binary file)" in n for n in result.notes)
    assert result.tools[0].status == "ok"  # latin-1 source: ruff reports it, nothing crashes


def test_empty_diff_and_nothing_configured(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({"a.py": "import os\n"}, "base")
    repo.branch("feature")
    assert main(["review", "--repo", str(repo.path), "--base", "main"]) == 0
    assert "no changes" in capsys.readouterr().out
    repo.commit({"a.py": "import os\nimport sys\n"})
    assert main(["review", "--repo", str(repo.path), "--base", "main"]) == 0
    assert "no linter is configured" in capsys.readouterr().out


def test_exit_codes_and_json(py_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--repo", str(py_repo.path), "--base", "main", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["introduced"] == 1 and doc["findings"][0]["scope"] in ("introduced", "preexisting")
    assert {
        "tool",
        "rule",
        "severity",
        "message",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "scope",
        "where",
        "touched",
        "base",
        "fingerprint",
        "fixable",
        "url",
    } <= set(doc["findings"][0])
    assert main(["review", "--repo", str(py_repo.path), "--base", "main", "--fail-level", "none"]) == 0
    assert main(["review", "--repo", str(py_repo.path), "--base", "nope"]) == 2
    assert "--base 'nope' is not a branch or commit" in capsys.readouterr().err
    assert main(["review", "--repo", "/", "--base", "main"]) == 2


def test_bad_config_is_a_usage_error(py_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    py_repo.commit({".reviewbot.yml": "fail-level: loud\n"})
    assert main(["review", "--repo", str(py_repo.path), "--base", "main"]) == 2
    assert "fail-level must be one of" in capsys.readouterr().err


def test_shallow_clone_is_deepened(repo: GitRepo, tmp_path: Path) -> None:
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff]\n" + CONFIG, "a.py": "import os\n"}, "base")
    for i in range(5):
        repo.commit({f"f{i}.py": "x = 1\n"}, f"main {i}")
    repo.branch("feature")
    for i in range(5):
        repo.commit({"a.py": "import os\n" + "x = 1\n" * i + "import sys\n"}, f"feature {i}")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{repo.path}", str(clone)],
        check=True,
    )
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "feature"], check=True)
    assert (
        subprocess.run(
            ["git", "-C", str(clone), "merge-base", "origin/main", "feature"], capture_output=True
        ).returncode
        != 0
    )  # really too shallow to start with
    result = run_review(ReviewOptions(clone, "origin/main"))
    assert result.count("introduced") >= 1
    assert result.merge_base == repo.git("merge-base", "main", "feature")


# --- one bad file must not cost the others ------------------------------------------------------

def crashing_ruff(tmp_path: Path, bad: str) -> tuple[LinterAnalyzer, Path]:
    """The real ruff behind a wrapper that crashes (exit 2, naming the file) whenever `bad`
    is among its arguments, and logs every invocation."""
    log = tmp_path / "calls.log"
    wrapper = ('echo "$*" >> "$0"; for a; do case "$a" in *' + bad + ') '
               'echo "thread panicked while linting $a" >&2; exit 2;; esac; done; exec "$@"')

    def command(exe: str, unit: Unit, target: Target) -> list[str]:
        return ["sh", "-c", wrapper, str(log), *ruff.command(exe, unit, target)]

    return LinterAnalyzer(dataclasses.replace(ruff.SPEC, command=command)), log


def test_one_crashing_file_keeps_the_others_findings(repo: GitRepo, tmp_path: Path) -> None:
    require_tool("ruff")
    names = [f"m{i:02d}.py" for i in range(12)] + ["bad.py"]
    repo.commit({"pyproject.toml": "[tool.ruff]\n" + CONFIG, **{n: "x = 1\n" for n in names}},
                "base")
    repo.branch("feature")
    repo.commit({n: "import os\nx = 1\n" for n in names})
    analyzer, log = crashing_ruff(tmp_path, "bad.py")
    result = run_review(ReviewOptions(repo.path, "main", analyzers={"ruff": analyzer}))
    (tool,) = result.tools
    assert tool.status == "failed"  # something could not be checked: never "ok"
    assert "bad.py: the tool failed on this file" in tool.message
    assert "thread panicked while linting bad.py" in tool.message
    scopes = {v.finding.path: v.scope for v in result.findings}
    assert {p: s for p, s in scopes.items() if p != "bad.py"} == {n: "introduced" for n in names[:-1]}
    assert "bad.py" in result.unbaselined and scopes.get("bad.py", "unclassified") == "unclassified"
    # Per revision: one run of the batch, then at most two per halving to isolate the file.
    runs = len(log.read_text().splitlines())
    assert runs <= 2 * (1 + 2 * 4 + 2), runs


def test_a_failure_of_every_file_is_not_retried_file_by_file(repo: GitRepo, tmp_path: Path) -> None:
    require_tool("ruff")
    names = [f"m{i:02d}.py" for i in range(16)]
    repo.commit({"pyproject.toml": "[tool.ruff]\n" + CONFIG, **{n: "x = 1\n" for n in names}},
                "base")
    repo.branch("feature")
    # A configuration ruff refuses: every run fails the same way, whatever its files.
    repo.commit({"pyproject.toml": '[tool.ruff]\nline-length = "long"\n',
                 **{n: "import os\n" for n in names}})
    analyzer, log = crashing_ruff(tmp_path, "no-such-file.py")
    result = run_review(ReviewOptions(repo.path, "main", analyzers={"ruff": analyzer}))
    (tool,) = result.tools
    assert tool.status == "failed" and "line-length" in tool.message
    assert set(names) <= result.unbaselined
    assert len(log.read_text().splitlines()) <= 2 * 3  # per revision: the batch and its halves


def test_a_timeout_is_not_retried_by_halves(repo: GitRepo, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    script = f"import sys, time; open({str(log)!r}, 'a').write('run\\n'); time.sleep(30)"
    repo.commit({"pyproject.toml": "", **{f"m{i}.py": "x = 1\n" for i in range(6)}}, "base")
    repo.branch("feature")
    repo.commit({f"m{i}.py": "x = 2\n" for i in range(6)})
    result = run_review(ReviewOptions(repo.path, "main", timeout=1,
                                      analyzers={"sleepy": fake_linter("sleepy", script)}))
    (tool,) = result.tools
    assert tool.status == "timeout"
    assert len(log.read_text().splitlines()) == 2  # one per revision
    assert {f"m{i}.py" for i in range(6)} <= result.unbaselined


# --- huge output: bounded memory, fail closed -------------------------------------------------

MEASURE = """
import json, sys
from pathlib import Path
from bot.run.pipeline import ReviewOptions, run_review
result = run_review(ReviewOptions(Path(sys.argv[1]), "main"))
print(json.dumps({
    "tools": [[t.name, t.status, t.message] for t in result.tools],
    "verdicts": sorted([v.finding.path, v.scope] for v in result.findings),
    "unbaselined": sorted(result.unbaselined),
    # VmHWM, not ru_maxrss: a process spawned from a large one (pytest, late in the suite)
    # inherits its parent's peak in ru_maxrss, while VmHWM is this process's own.
    "maxrss_mib": next(int(l.split()[1]) for l in open("/proc/self/status")
                       if l.startswith("VmHWM:")) / 1024,
}))
"""


def test_a_file_with_too_many_findings_fails_closed_in_bounded_memory(repo: GitRepo) -> None:
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff]\n" + CONFIG, "a.py": "x = 1\n", "big.py": ""},
                "base")
    repo.branch("feature")
    # 110,000 undefined names: as many ruff findings, about 45 MB of its output.
    big = "".join("(" + ",".join(["zz"] * 1000) + ")\n" for _ in range(110))
    repo.commit({"a.py": "import os\nx = 1\n", "big.py": big})
    done = subprocess.run([sys.executable, "-c", MEASURE, str(repo.path)], capture_output=True,
                          text=True, timeout=600, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    [[name, status, message]] = report["tools"]
    assert name == "ruff"
    assert status == "failed", "a file that was not fully read is never 'ok'"
    assert "big.py: 110000 findings, more than the 10000 per file" in message
    assert report["verdicts"] == [["a.py", "introduced"]]  # the other file is still reviewed
    assert report["unbaselined"] == ["big.py"]
    assert report["maxrss_mib"] < 300, report["maxrss_mib"]
