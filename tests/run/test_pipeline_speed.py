"""What a plain review costs before any linter runs: the modules it imports and the git
processes it starts (a bound that does not grow with the number of changed files), and the
compact JSON it prints. Counts, never timings: the timings are bench/core's."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot import proc
from bot.analyzer import Analyzer, Outcome, Resolution, Target
from bot.cli import main
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import ROOT, GitRepo, require_tool

RUFF = '[lint]\nselect = ["F", "E"]\n'

# Libraries a local review of a Python repository has no use for: forge SDKs and HTTP, the
# schema checker, the structural search's parsers, the language-server protocol, and the
# package metadata (only --version reads it).
HEAVY = ("github", "gitlab", "httpx", "jsonschema", "tree_sitter", "tree_sitter_language_pack",
         "lsprotocol", "yaml", "importlib.metadata",
         # the parsers of declared linters' globs, JSON documents and mypy's settings
         "pathspec", "ijson", "tomllib", "configparser",
         # the atomic writes' random names come from os.urandom
         "secrets", "base64",
         # the cache's Ed25519 signatures: only where a key is given (bot.cachesig)
         "cryptography")
# The bot's own modules for other jobs: forges, CI triggers, chat commands, apply, sweep, the
# structural search, a language server's session, the fixer (Biome's refinement), SARIF input;
# the specs of linters whose files the checkout does not hold, the declared linters' adapter
# and their output formats (bot/linters/registry.py imports each spec when it may apply);
# the other flows (the local review is one: bot.flows.local);
UNUSED = ("bot.forges", "bot.ci", "bot.flows.", "bot.conversation", "bot.apply", "bot.sweep",
          "bot.cachesig",
          "bot.publishing.sync",
          "bot.structural.", "bot.lsp.session", "bot.lsp.rpc", "bot.render.markdown",
          "bot.render.sarif", "bot.render.text", "bot.fixes", "bot.linters.formats",
          "bot.linters.eslint", "bot.linters.biome", "bot.linters.golangci", "bot.linters.clippy",
          "bot.linters.mypy", "bot.linters.presets", "bot.linters.declared",
          # a language server's time budget, memo and diagnostics: only once one runs
          "bot.lsp.budget", "bot.lsp.memo", "bot.lsp.diagnostics",
          # files read as tokens: only where findings moved (the next test)
          "bot.verdicts.tokens",
          # the shards' plan: only for a sharded run
          "bot.run.shards")
LOCAL_FLOW = "bot.flows.local"  # `reviewbot review` itself

# Git processes of a review of N Python files with ruff (the head checked out, a linked base):
# revisions, configuration, the diff and the blobs, the checkouts, the guard of the user's
# checkout (one status, then one after each tool's version probe and one after its run) and
# the clean-up. Batched, so
# N does not appear.
GIT_CALLS = 21


def _module(i: int, extra: str = "") -> str:
    return f"import os\n\n\ndef f_{i}(x):\n{extra}    return x\n"


def _change(repo: GitRepo, files: int) -> None:
    require_tool("ruff")
    repo.commit({"ruff.toml": RUFF, **{f"pkg/m{i}.py": _module(i) for i in range(files)}}, "base")
    repo.branch("feature")
    repo.commit({f"pkg/m{i}.py": _module(i, f"    unused_{i} = 1\n") for i in range(files)})


def _review_in_a_new_interpreter(repo: GitRepo) -> tuple[int, dict[str, int], list[str]]:
    """`reviewbot review --format json --no-cache` in a fresh interpreter: its status, the
    JSON's summary and every module it imported."""
    probe = ("import io, json, sys, contextlib\nfrom bot.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
             "    status = main(['review', '--repo', sys.argv[1], '--base', 'main', "
             "'--format', 'json', '--no-cache'])\n"
             "print(json.dumps([status, json.loads(out.getvalue())['summary'], sorted(sys.modules)]))")
    out = subprocess.run([sys.executable, "-c", probe, str(repo.path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    status, summary, modules = json.loads(out.stdout)
    return int(status), summary, modules


def test_a_plain_review_imports_nothing_it_does_not_use(repo: GitRepo) -> None:
    _change(repo, 3)
    status, _, modules = _review_in_a_new_interpreter(repo)
    assert status == 1  # the review ran: three introduced F841
    assert "bot.linters.ruff" in modules
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    unused = [m for m in modules if any(m == u or m.startswith(u) for u in UNUSED)
              and m != LOCAL_FLOW]
    assert heavy == [] and unused == []


def test_loading_the_bot_raises_the_collector_s_first_threshold() -> None:
    """The bot's start makes tens of thousands of lasting objects; at the default threshold
    (700) the collector walks them some 40 times meanwhile (docs/performance.md)."""
    probe = "import gc; before = gc.get_threshold(); import bot; print(before, gc.get_threshold())"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    before, after = (tuple(int(x) for x in part.strip(" ()").split(",")) for part in
                     out.strip().split(") ("))
    assert before[0] == 700 and after == (100_000, *before[1:])


def test_a_review_that_compares_tokens_loads_one_grammar_and_nothing_else(repo: GitRepo) -> None:
    """Findings that moved with their functions are matched by tokens (bot.verdicts.tokens): tree-sitter
    and the Python grammar load, and nothing else of the grammar pack, no SDK, no forge, no
    schema checker."""
    require_tool("ruff")
    functions = [f"def f_{i}(x):\n    if x == None:\n        return {i}\n    return 2\n"
                 for i in range(4)]
    repo.commit({"ruff.toml": RUFF, "a.py": "\n\n".join(functions)}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "\n\n".join(functions[::-1])})
    status, summary, modules = _review_in_a_new_interpreter(repo)
    assert status == 0 and summary["introduced"] == 0 and summary["preexisting"] == 4
    assert "bot.verdicts.tokens" in modules and "tree_sitter" in modules, "the tokens were compared"
    grammars = [m for m in modules if m.startswith("tree_sitter_")]
    assert grammars == ["tree_sitter_language_pack.bindings.python"]
    allowed = {"tree_sitter", "tree_sitter_language_pack"}
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)
             and m.split(".")[0] not in allowed]
    unused = [m for m in modules if any(m == u or m.startswith(u) for u in UNUSED)
              and m not in ("bot.structural.lang", "bot.verdicts.tokens", LOCAL_FLOW)]
    assert heavy == [] and unused == []


def _count_git(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []
    run, spawn = proc.run, proc.spawn

    def counted_run(argv: Sequence[str], **kwargs: Any) -> proc.Result:
        calls.append(tuple(argv))
        return run(argv, **kwargs)

    def counted_spawn(argv: Sequence[str], **kwargs: Any) -> Any:
        calls.append(tuple(argv))
        return spawn(argv, **kwargs)

    monkeypatch.setattr(proc, "run", counted_run)
    monkeypatch.setattr(proc, "spawn", counted_spawn)
    return calls


@pytest.mark.parametrize("files", [2, 40])
def test_the_git_processes_of_a_review_are_bounded_whatever_the_number_of_files(
        repo: GitRepo, files: int, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _change(repo, files)
    calls = _count_git(monkeypatch)
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--format", "json",
                 "--no-cache"]) == 1
    assert json.loads(capsys.readouterr().out)["summary"]["introduced"] == files
    git = [c for c in calls if Path(c[0]).name == "git"]
    assert 0 < len(git) <= GIT_CALLS, "\n".join(" ".join(c) for c in git)


def test_the_checkout_is_read_once_per_tool_step_not_twice(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The guard's status snapshots chain: what one step saw after it is what the next one
    starts from: one snapshot (the status that also tells the head is the clean HEAD), then
    one after each version probe that ran the tool (none: ruff's version is read from its
    wheel's record, ESLint's from its package.json) and one after the runs of ruff and ESLint,
    which run at once."""
    require_tool("eslint")
    repo.commit({"ruff.toml": RUFF, "eslint.config.mjs": 'export default [{ rules: { '
                 '"prefer-const": "error" } }];\n', "a.py": _module(0), "b.js": "const b = 1;\n"},
                "base")
    repo.branch("feature")
    repo.commit({"a.py": _module(0, "    unused_0 = 1\n"), "b.js": "let b = 1;\nexport { b };\n"})
    calls = _count_git(monkeypatch)
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--format", "json",
                 "--no-cache"]) == 1
    assert json.loads(capsys.readouterr().out)["summary"]["introduced"] == 2
    status = [c for c in calls if Path(c[0]).name == "git" and "--ignored=matching" in c]
    assert len(status) == 1 + 1
    assert not [c for c in calls if "--version" in c], "no tool was started to say its version"
    # Versions remembered in the cache: a probe that runs nothing needs no snapshot after it.
    cache = str(repo.path.parent / "cache")
    for _ in range(2):
        calls.clear()
        assert main(["review", "--repo", str(repo.path), "--base", "main", "--format", "json",
                     "--cache-dir", cache]) == 1
    status = [c for c in calls if Path(c[0]).name == "git" and "--ignored=matching" in c]
    assert len(status) == 1 + 1


def test_json_is_one_compact_line(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    _change(repo, 1)
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--format", "json",
                 "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert out.endswith("}\n") and out.count("\n") == 1 and '": ' not in out
    assert [f["rule"] for f in json.loads(out)["findings"] if f["scope"] == "introduced"] == ["F841"]


class Meeting(Analyzer):
    """A read-only tool that, at the head, waits for the other one to be running too."""

    def __init__(self, name: str, barrier: threading.Barrier, defers_to: tuple[str, ...] = ()
                 ) -> None:
        self._name, self.barrier, self._defers = name, barrier, defers_to
        self.saw: dict[str, frozenset[str]] = {}

    @property
    def name(self) -> str:
        return self._name

    @property
    def read_only(self) -> bool:
        return True

    @property
    def defers_to(self) -> tuple[str, ...]:
        return self._defers

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        return True

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        return Resolution(self._name, "1.0")

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        if target.side == "head":
            self.saw = dict(target.checked)
            if not self._defers:
                self.barrier.wait()  # broken (an error) if the other never comes
        return Outcome(self._name, "ok", version="1.0")


def test_independent_read_only_tools_run_at_once_and_dependents_after(
        repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"a.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "x = 2\n"})
    barrier = threading.Barrier(2, timeout=30)
    first, second = Meeting("first", barrier), Meeting("second", barrier)
    after = Meeting("after", barrier, defers_to=("second",))
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "c",
                                      analyzers={"after": after, "first": first, "second": second}))
    assert [(t.name, t.status) for t in result.tools] == [
        ("after", "ok"), ("first", "ok"), ("second", "ok")]
    assert after.saw["second"] == frozenset({"a.py"})  # it ran once the other had finished
