"""The subprocess chokepoint: secrets never reach a tool, large output never sits in memory."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from bot import proc
from bot.linters import eslint
from bot.linters.runner import LinterAnalyzer
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import ROOT, GitRepo

SECRETS = {
    "GITHUB_TOKEN": "ghs_secret1",
    "ACTIONS_RUNTIME_TOKEN": "secret2",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "secret3",
    "GITLAB_TOKEN": "glpat-secret4",
    "REVIEWBOT_GITLAB_TOKEN": "secret5",
    "CI_JOB_TOKEN": "secret6",
    "NPM_AUTH_token": "secret7",
    "my_client_secret": "secret8",
    "DB_PASSWORD": "secret9",
}


def _child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    script = "import json, os, sys; sys.stdout.write(json.dumps(dict(os.environ)))"
    result = proc.run([sys.executable, "-c", script], env=extra)
    assert result.returncode == 0, result.err
    env: dict[str, str] = json.loads(result.out)
    return env


def test_no_secret_variable_reaches_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("REVIEWBOT_KEEP_ME", "visible")
    env = _child_env()
    assert not set(SECRETS) & set(env)
    assert not set(SECRETS.values()) & set(env.values())
    assert env["REVIEWBOT_KEEP_ME"] == "visible" and "PATH" in env


def test_explicit_env_entries_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_ambient")
    env = _child_env({"GIT_ASKPASS_TOKEN": "given"})
    assert env["GIT_ASKPASS_TOKEN"] == "given"
    assert "GITHUB_TOKEN" not in env


def test_a_repository_eslint_config_sees_no_token(repo: GitRepo, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The repository's own code (an ESLint JS config) runs with the bot's environment."""
    dump = tmp_path / "env.json"
    config = (f'import {{ writeFileSync }} from "node:fs";\n'
              f'writeFileSync({json.dumps(str(dump))}, JSON.stringify(process.env));\n'
              'export default [{ rules: { "no-unused-vars": "error" } }];\n')
    repo.commit({"eslint.config.mjs": config, "a.js": "export const a = 1;\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.js": "export const a = 1;\nconst b = 2;\n"})
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    result = run_review(ReviewOptions(repo.path, "main",
                                      analyzers={"eslint": LinterAnalyzer(eslint.SPEC)}))
    assert [t.status for t in result.tools] == ["ok"], result.tools
    assert result.count("introduced") == 1
    seen = json.loads(dump.read_text())
    assert "PATH" in seen
    assert not set(SECRETS) & set(seen)
    assert not set(SECRETS.values()) & set(seen.values())


def test_nothing_in_bot_starts_a_process_outside_proc() -> None:
    starters = re.compile(r"\b(subprocess\.(run|Popen|call|check_call|check_output|getoutput)\s*\("
                          r"|os\.(system|popen|exec\w*|spawn\w*|posix_spawn\w*|fork)\s*\()")
    offenders = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if path == ROOT / "bot" / "proc.py":
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if starters.search(line) and not line.lstrip().startswith("#"):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


# --- large output -----------------------------------------------------------------------------

BIG = "import sys\nfor i in range(200_000): sys.stdout.write(f'line {i:07d} ' + 'x' * 90 + '\\n')\n"


def test_spilled_output_streams_from_disk_not_memory() -> None:
    import tracemalloc

    tracemalloc.start()
    try:
        result = proc.run([sys.executable, "-c", BIG], spill=True)
        count, last = 0, ""
        for line in result.lines():
            count, last = count + 1, line
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.returncode == 0 and not result.truncated and result.stdout == b""
    assert count == 200_000 and last.startswith("line 0199999 ")
    assert peak < 4 * 1024 * 1024, peak  # about 20 MB went through
    assert result.out_tail(1) == last
    result.close()


def test_spilled_output_past_the_cap_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proc, "SPILL_CAP", 1024 * 1024)
    result = proc.run([sys.executable, "-c", BIG], spill=True)
    with result.stream() as stream:
        assert len(stream.read()) == 1024 * 1024
    assert result.truncated
    result.close()


def test_handoff_gives_exactly_its_environment_and_passes_sigterm_on(tmp_path: Path) -> None:
    """The action's entry point hands the job to the bot with the environment it chose (its
    token included) and must not swallow the runner's SIGTERM."""
    script = ("import json, os, signal, sys, time\n"
              "signal.signal(signal.SIGTERM, lambda *_: sys.exit(43))\n"
              f"open({str(tmp_path / 'env.json')!r}, 'w').write(json.dumps(dict(os.environ)))\n"
              f"open({str(tmp_path / 'ready')!r}, 'w').close()\n"
              "time.sleep(30)\n")
    env = {"PATH": os.environ["PATH"], "GITHUB_TOKEN": "t0ken"}
    def terminate_when_ready() -> None:
        for _ in range(300):
            if (tmp_path / "ready").exists():
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(0.02)

    timer = threading.Thread(target=terminate_when_ready)
    timer.start()
    status = proc.handoff([sys.executable, "-c", script], env)
    timer.join()
    assert status == 43
    seen = json.loads((tmp_path / "env.json").read_text())
    assert seen.get("GITHUB_TOKEN") == "t0ken" and "HOME" not in seen
