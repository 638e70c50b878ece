"""The Analyzer contract: every member the pipeline asks for is declared, with one default,
and the registries are plain imports (a missing module is an import error)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.analyzer import Analyzer, Outcome, Resolution, Target
from bot.linters.registry import LINTERS
from bot.lsp.registry import SERVERS
from bot.model import Finding, Severity, Span
from bot.run.pipeline import ReviewOptions, registry, run_review
from bot.structural.analyzer import RulesAnalyzer
from tests.conftest import ROOT, GitRepo


class Recorder(Analyzer):
    """Applies to everything, finds nothing, keeps the targets it was given, whether their
    checkout existed when collect began, and what the base checkout held in `fake.toml`."""

    name = "recorder"

    def __init__(self) -> None:
        self.targets: list[Target] = []
        self.made: dict[str, bool] = {}
        self.base_config: str | None = None

    def applies(self, root: Path, changed: Sequence[str]) -> bool:
        return True

    def resolve(self, root: Path, cache_dir: Path | None = None) -> Resolution:
        return Resolution("recorder", "1")

    def collect(self, target: Target, resolution: Resolution) -> Outcome:
        self.targets.append(target)
        self.made[target.side] = target.root.is_dir()
        if target.side == "base":
            config = target.ready() / "fake.toml"
            self.base_config = config.read_text() if config.is_file() else None
        return Outcome(self.name, "ok", version="1")


class Configured(Recorder):
    @property
    def config_files(self) -> tuple[str, ...]:
        return ("fake.toml",)


class Lazy(Recorder):
    @property
    def lazy_checkout(self) -> bool:
        return True


class Paired(Recorder):
    def collect_pair(self, base: Target, head: Target,
                     resolution: Resolution) -> tuple[Outcome, Outcome] | None:
        found = Finding(self.name, "R1", Severity.ERROR, "paired", "a.py", Span(1, 1, 1, 2))
        return Outcome(self.name, "ok", version="1"), Outcome(self.name, "ok", (found,), "1")


def change(repo: GitRepo) -> GitRepo:
    repo.commit({"a.py": "x = 1\n", "b.py": "y = 1\n", "fake.toml": "base\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n", "b.py": None, "c.py": "z = 1\n", "fake.toml": "head\n"})
    return repo


def review(repo: GitRepo, analyzer: Analyzer) -> list[str]:
    result = run_review(ReviewOptions(repo=repo.path, base="main",
                                      analyzers={analyzer.name: analyzer}))
    assert [(t.name, t.status) for t in result.tools] == [(analyzer.name, "ok")]
    return [f.finding.message for f in result.findings]


def test_the_defaults_are_the_safe_answers() -> None:
    tool = Recorder()
    assert tool.config_files == ()
    assert tool.read_only is False  # a tool that might write gets its own base checkout
    assert tool.lazy_checkout is False
    target = Target(Path("."), "HEAD", (), "head")
    assert tool.collect_pair(target, target, Resolution("recorder")) is None


def test_a_tool_that_says_nothing_more_is_surveyed_from_applies(tmp_path: Path) -> None:
    survey = Recorder().survey(tmp_path, ["a.py", "b.go"], Resolution("recorder", "1", "get it"))
    assert (survey.kind, survey.markers, survey.candidates) == (
        "linter", ("its own detection",), ("a marker",))
    assert (survey.files, survey.version, survey.install_hint) == (2, "1", "get it")


def test_the_repository_s_rules_are_surveyed_as_built_in(tmp_path: Path) -> None:
    rule = {"id": "no-print", "language": "python", "rule": {"pattern": "print($X)"},
            "message": "no print"}
    rules = RulesAnalyzer.from_settings([rule], lambda path: None)
    survey = rules.survey(tmp_path, ["a.py", "b.go"], rules.resolve(tmp_path))
    assert (survey.kind, survey.markers, survey.files, survey.origin) == (
        "rules", ("1 rule(s) in .reviewbot.yml",), 1, "built in")


def test_every_built_in_tool_takes_the_defaults_from_the_contract() -> None:
    tools = [*registry().values(), RulesAnalyzer(())]
    assert all(Analyzer in type(tool).__mro__ for tool in tools)
    assert registry().keys() == LINTERS.keys() | SERVERS.keys()
    ruff = LINTERS["ruff"]
    assert (ruff.lazy_checkout, ruff.read_only) == (True, True)
    assert "pyproject.toml" in ruff.config_files
    assert not SERVERS["gopls"].lazy_checkout and "go.mod" not in SERVERS["gopls"].config_files
    assert RulesAnalyzer(()).read_only


def test_both_targets_carry_every_changed_path(repo: GitRepo) -> None:
    tool = Recorder()
    review(change(repo), tool)
    by_side = {t.side: t for t in tool.targets}
    assert by_side["head"].paths == ("a.py", "c.py", "fake.toml")
    assert by_side["base"].paths == ("a.py", "b.py", "fake.toml")
    assert {t.changed for t in tool.targets} == {("a.py", "b.py", "c.py", "fake.toml")}
    # Not lazy: the base checkout was made before collect.
    assert by_side["base"].prepare is None and tool.made["base"]


def test_a_lazy_tool_gets_a_base_made_on_first_need(repo: GitRepo) -> None:
    tool = Lazy()
    review(change(repo), tool)
    base = next(t for t in tool.targets if t.side == "base")
    assert base.prepare is not None and base.view is not None
    assert not tool.made["base"]
    assert tool.base_config == "base\n"  # ready() made it


def test_the_base_takes_the_head_config_files_a_tool_declares(repo: GitRepo) -> None:
    plain, configured = Recorder(), Configured()
    review(change(repo), plain)
    review(repo, configured)
    assert plain.base_config == "base\n"
    assert configured.base_config == "head\n"


def test_a_pair_run_replaces_the_two_collects(repo: GitRepo) -> None:
    tool = Paired()
    assert review(change(repo), tool) == ["paired"]
    assert tool.targets == []


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)


def test_a_missing_language_server_registry_is_an_import_error() -> None:
    """It used to be skipped, leaving a review without type checkers and no word why."""
    out = _python("import sys; sys.modules['bot.lsp.registry'] = None; import bot.run.pipeline")
    assert out.returncode != 0
    assert "ModuleNotFoundError" in out.stderr and "bot.lsp.registry" in out.stderr
