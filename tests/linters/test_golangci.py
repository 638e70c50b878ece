"""golangci-lint for real on temporary Go modules (standard library only, nothing to download)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bot import proc
from bot.analyzer import Target
from bot.linters import golangci
from bot.linters.base import Unit
from bot.linters.runner import LinterAnalyzer
from bot.model import Severity, Span
from bot.revisions import trees, workspace
from bot.revisions.trees import DiskView
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, calls_of
from tests.linters.conftest import lint, write

CONFIG = """
version: "2"
linters:
  default: none
  enable: [errcheck, govet, ineffassign, misspell, staticcheck]
formatters:
  enable: [gofmt]
"""

MAIN = """
package main

import (
\t"fmt"
\t"os"
)

func main() {
\tf, _ := os.Open("x")
\tf.Close()
\tfmt.Printf("%d\\n", "str")
}
"""

# A misspelling after non-ASCII text: byte columns must become code-point columns.
TEXT = """
package text

// Héllo: the recieve side
func Hello() string {
\treturn "é"
}
"""


@pytest.fixture
def module(tmp_path: Path) -> Path:
    return write(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.22\n", ".golangci.yml": CONFIG,
                            "main.go": MAIN, "text/text.go": TEXT})


def test_findings_positions_and_rules(module: Path) -> None:
    outcome = lint(golangci.SPEC, module, ["main.go", "text/text.go"])
    assert outcome.status == "ok", outcome.message
    found = {(f.path, f.rule, f.span.line, f.span.column) for f in outcome.findings}
    assert ("main.go", "errcheck", 10, 9) in found
    assert ("main.go", "govet/printf", 11, 14) in found
    # "recieve" starts at byte 13 of "// Héllo: the recieve side" but code point 12.
    assert ("text/text.go", "misspell", 3, 15) in found
    assert all(f.severity == Severity.ERROR for f in outcome.findings)
    assert outcome.version == "2.15.0"


def test_every_issue_of_a_line_is_reported(tmp_path: Path) -> None:
    """golangci-lint keeps one issue per line unless told otherwise: the one it hid at the
    base would come back as new when a formatter splits the line."""
    write(tmp_path, {"go.mod": "module example.com/m\n\ngo 1.22\n",
                     ".golangci.yml": 'version: "2"\nlinters:\n  default: none\n  enable: [staticcheck]\n',
                     "a.go": 'package a\n\nimport "strings"\n\nfunc F(s string, v bool) bool {\n'
                             '\treturn strings.Index(s, "x") != -1 && v == true\n}\n'})
    outcome = lint(golangci.SPEC, tmp_path, ["a.go"])
    assert sorted((f.rule, f.span.line) for f in outcome.findings) == [
        ("staticcheck/S1002", 6), ("staticcheck/S1003", 6)]


def test_misspell_fix_is_a_safe_edit_with_code_point_columns(module: Path) -> None:
    outcome = lint(golangci.SPEC, module, ["text/text.go"])
    [finding] = [f for f in outcome.findings if f.rule == "misspell"]
    assert finding.fix is not None and finding.fix.applicability == "safe"
    [edit] = finding.fix.edits
    assert edit == type(edit)("text/text.go", Span(3, 15, 3, 22), "receive")
    line = (module / "text/text.go").read_text().splitlines()[2]
    assert line[edit.span.column - 1:edit.span.end_column - 1] == "recieve"


def test_gofmt_fix_rewrites_the_file(module: Path) -> None:
    write(module, {"text/fmt.go": "package text\n\nfunc  Ugly()  {\n}\n"})
    outcome = lint(golangci.SPEC, module, ["text/fmt.go"])
    [finding] = [f for f in outcome.findings if f.rule == "gofmt"]
    assert finding.fix is not None
    assert "".join(e.new_text for e in finding.fix.edits).startswith("func Ugly() {")


def test_compile_error_is_split_into_its_real_positions(module: Path) -> None:
    write(module, {"text/broken.go": "package text\n\nfunc Broken() int {\n\treturn \"s\"\n}\n"})
    outcome = lint(golangci.SPEC, module, ["text/broken.go"])
    typecheck = [f for f in outcome.findings if f.rule == "typecheck"]
    assert [(f.path, f.span.line, f.span.column) for f in typecheck] == [("text/broken.go", 4, 9)]
    assert "cannot use" in typecheck[0].message


def test_change_that_breaks_an_untouched_file_of_the_package_is_kept(module: Path) -> None:
    # text/use.go is untouched; the changed text.go removed what it calls.
    write(module, {"text/use.go": "package text\n\nfunc Use() string { return Hello() }\n"})
    (module / "text/text.go").write_text("package text\n")
    outcome = lint(golangci.SPEC, module, ["text/text.go"])
    assert ("text/use.go", "typecheck") in {(f.path, f.rule) for f in outcome.findings}
    assert "text/use.go" in outcome.extra_paths


def test_packages_of_one_module_share_one_run(module: Path) -> None:
    units = golangci.units(DiskView(module), ["main.go", "text/text.go"])
    assert [(u.cwd, u.dir, u.paths) for u in units] == [(".", ".", ("main.go",)),
                                                         (".", "text", ("text/text.go",))]
    assert "go.mod" in units[0].key_files and "text/text.go" in units[0].key_files
    [group] = golangci.group(units)
    assert len(group) == 2
    merged = Unit(".", ("main.go", "text/text.go"))
    assert golangci._patterns(merged) == ["./", "./text/"]


def test_nested_module_runs_from_its_own_root(tmp_path: Path) -> None:
    write(tmp_path, {".golangci.yml": CONFIG, "svc/go.mod": "module example.com/svc\n\ngo 1.22\n",
                     "svc/api/api.go": "package api\n\n// the recieve path\nfunc A() {}\n"})
    [unit] = golangci.units(DiskView(tmp_path), ["svc/api/api.go"])
    assert (unit.cwd, unit.dir) == ("svc", "svc/api")
    outcome = lint(golangci.SPEC, tmp_path, ["svc/api/api.go"])
    assert [(f.path, f.rule) for f in outcome.findings] == [("svc/api/api.go", "misspell")]


def test_config_error_is_a_failure_not_silence(module: Path) -> None:
    (module / ".golangci.yml").write_text('version: "2"\nlinters:\n  enable: [gofmt]\n')
    outcome = lint(golangci.SPEC, module, ["main.go"])
    assert outcome.status == "failed"
    assert "main.go" in outcome.failed_paths
    assert "gofmt" in outcome.message


# --- fault injection on recorded/synthetic output -------------------------------------------

def _result(out: str, code: int = 1) -> proc.Result:
    return proc.Result(("golangci-lint",), code, out.encode(), b"")


def test_v1_replacement_fixes(tmp_path: Path) -> None:
    write(tmp_path, {"a.go": "package a\n\nvar x = 1 \n"})
    issue = {"FromLinter": "whitespace", "Text": "trailing", "Severity": "warning",
             "Pos": {"Filename": "a.go", "Line": 3, "Column": 10},
             "LineRange": {"From": 3, "To": 3},
             "Replacement": {"NeedOnlyDelete": False, "NewLines": ["var x = 1"], "Inline": None}}
    target = Target(tmp_path, "HEAD", ("a.go",), "head")
    [finding] = golangci.parse(_result(json.dumps({"Issues": [issue]})), Unit(".", ("a.go",)), target)
    assert finding.severity == Severity.WARNING
    assert finding.fix is not None
    assert finding.fix.edits[0].span == Span(3, 1, 4, 1)
    assert finding.fix.edits[0].new_text == "var x = 1\n"


def test_v1_command_uses_the_old_flag() -> None:
    spec = golangci.for_version(golangci.SPEC, "1.64.8")
    argv = spec.command("golangci-lint", Unit(".", ("a.go",)), Target(Path("."), "x", (), "head"))
    assert "--out-format=json" in argv and "./" in argv


@pytest.mark.parametrize("out", ["panic: runtime error", "[1, 2]", ""])
def test_garbage_is_refused(out: str, tmp_path: Path) -> None:
    with pytest.raises(golangci.GarbageOutput):
        golangci.parse(_result(out), Unit(".", ("a.go",)), Target(tmp_path, "x", (), "head"))


# A nested module importing the root module through a local `replace` it does not require:
# a go command allowed to update go.mod (-mod=mod) adds the `require` line.
DOCS = {"go.mod": "module example.com/demo\n\ngo 1.22\n", ".golangci.yml": CONFIG,
        "pkg/calc/calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
        "docs/go.mod": "module example.com/demo/docs\n\ngo 1.22\n\nreplace example.com/demo => ../\n",
        "docs/main.go": 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/demo/pkg/calc"\n)\n\n'
                        "func main() { fmt.Println(calc.Add(1, 2)) }\n"}


@pytest.mark.parametrize("user_goflags", [None, "-mod=mod"])
def test_never_writes_a_nested_modules_go_mod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              user_goflags: str | None) -> None:
    if user_goflags is None:
        monkeypatch.delenv("GOFLAGS", raising=False)
    else:
        monkeypatch.setenv("GOFLAGS", user_goflags)
    write(tmp_path, DOCS)
    before = {p: (tmp_path / p).read_bytes() for p in DOCS}
    outcome = lint(golangci.SPEC, tmp_path, ["docs/main.go"])
    assert {p: (tmp_path / p).read_bytes() for p in DOCS} == before
    assert not (tmp_path / "docs" / "go.sum").exists()
    # The module needs a go.mod update the run may not make: the tool says so, never "clean".
    assert outcome.status == "failed" or outcome.findings, outcome


def _cache_entries(*folders: Path) -> set[str]:
    """The entries of the go build cache and golangci-lint's, but the go command's module
    index: that one is keyed on the files' modification times (a new checkout has new ones)
    and skips folders with files younger than a few seconds, so it says nothing of paths."""
    entries = {p for folder in folders for p in folder.rglob("*") if p.is_file()}
    index = {p for p in entries if p.name.endswith("-d") and p.read_bytes()[:8] == b"go index"}
    for action in [p for p in entries if p.name.endswith("-a")]:
        words = action.read_text(errors="replace").split()  # "v1 <action> <output> <size> <time>"
        if len(words) > 2 and action.parent.parent / words[2][:2] / f"{words[2]}-d" in index:
            index.add(action)
    return {p.as_posix() for p in entries - index}


def test_a_second_review_of_a_go_change_hits_the_go_caches_at_the_base(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The go command keys its build cache on the package directory's absolute path: the base
    checkout, at the same place every run, is served from the caches by the second review (no
    findings cache, so both revisions are linted again) and writes no new entry. At a new path
    each run, it writes entries of its own."""
    repo.commit({"go.mod": "module example.com/m\n\ngo 1.22\n", ".golangci.yml": CONFIG,
                 "main.go": MAIN, "text/text.go": TEXT})
    repo.branch("feat")
    repo.commit({"main.go": MAIN.replace('"x"', '"y"')})
    # A private build cache, seeded with hard links to the user's (no standard library to
    # build): new entries are new files, so only this test's runs show in it.
    user = Path(proc.run(["go", "env", "GOCACHE"], timeout=60).out.strip())
    build_cache, tool_cache = tmp_path / "go-build", tmp_path / "golangci-cache"
    shutil.copytree(user, build_cache, copy_function=os.link)
    monkeypatch.setenv("GOCACHE", str(build_cache))
    monkeypatch.setenv("GOLANGCI_LINT_CACHE", str(tool_cache))

    def review() -> set[str]:
        result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=None,
                                          analyzers={"golangci-lint": LinterAnalyzer(golangci.SPEC)}))
        assert [t.status for t in result.tools] == ["ok"], result.tools
        assert {v.finding.rule for v in result.findings} >= {"errcheck"}
        return _cache_entries(build_cache, tool_cache)

    first = review()
    assert review() == first
    # The observation can fail: a base at a new path writes entries of its own.
    moved = iter(tmp_path / f"elsewhere-{i}" for i in range(2))
    monkeypatch.setattr(workspace, "base_home", lambda _repo: next(moved))
    assert review() - first


@pytest.mark.parametrize(("name", "text", "skipped"), [
    (".golangci.yml", 'version: "2"\nrun:\n  tests: false\n', True),
    (".golangci.yaml", 'version: "2"\nrun:\n  tests: true\n', False),
    (".golangci.toml", 'version = "2"\n[run]\ntests = false\n', True),
    (".golangci.json", '{"version": "2", "run": {"tests": false}}', True),
    (".golangci.yml", 'version: "2"\n', False),  # the default lints tests
    (".golangci.yml", "run: [\n", False),  # golangci-lint itself fails on this one
])
def test_test_files_the_configuration_keeps_golangci_lint_from(
        tmp_path: Path, name: str, text: str, skipped: bool) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / name).write_text(text)
    paths = ["pkg/a.go", "pkg/a_test.go", "b_test.go"]
    assert golangci.unread(tmp_path, paths) == (
        {"pkg/a_test.go", "b_test.go"} if skipped else set())


def test_the_nearest_golangci_configuration_decides(tmp_path: Path) -> None:
    (tmp_path / "mod").mkdir()
    (tmp_path / ".golangci.yml").write_text("run:\n  tests: false\n")
    (tmp_path / "mod" / ".golangci.yml").write_text("run:\n  tests: true\n")
    assert golangci.unread(tmp_path, ["mod/x_test.go", "y_test.go"]) == {"y_test.go"}


def test_a_package_that_does_not_compile_hides_no_other_packages_findings(
        repo: GitRepo, tmp_path: Path) -> None:
    """golangci-lint reports only the compile errors of a run where one package does not
    compile: the packages of such a grouped run are checked again one by one, so that a
    broken package never turns another package's findings into `fixed` or hides new ones."""
    config = 'version: "2"\nlinters:\n  default: none\n  enable: [errcheck]\n'
    opened = '\tf, _ := os.Open("a")\n\tf.Close()\n'
    repo.commit({"go.mod": "module example.com/m\n\ngo 1.22\n", ".golangci.yml": config,
                 "use/use.go": "package use\n\nfunc U() {\n}\n",
                 "io/io.go": 'package io\n\nimport "os"\n\nfunc F() {\n' + opened + "}\n"})
    repo.branch("feat")
    repo.commit({"use/use.go": 'package use\n\nimport "os"\n\nfunc U() {\n}\n',  # os unused
                 "io/io.go": 'package io\n\nimport "os"\n\n// F opens\nfunc F() {\n' + opened
                             + '\tg, _ := os.Open("b")\n\tg.Close()\n}\n'})
    result = run_review(ReviewOptions(repo=repo.path, base="main", only=("golangci-lint",),
                                      cache_dir=tmp_path / "c"))
    [run] = result.tools
    assert run.status == "ok", run.message
    assert sorted((v.finding.path, v.finding.line, v.finding.rule, v.scope)
                  for v in (*result.findings, *result.fixed)) == [
        ("io/io.go", 8, "errcheck", "preexisting"),
        ("io/io.go", 10, "errcheck", "introduced"),
        ("use/use.go", 3, "typecheck", "introduced")]


def test_a_modules_files_are_hashed_once_whatever_the_number_of_changed_packages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each changed package's cache key covers the whole module's Go files: read from the
    checkout once per collect, not once per package (packages x module files)."""
    files = {"go.mod": "module example.com/m\n\ngo 1.22\n",
             ".golangci.yml": 'version: "2"\nlinters:\n  default: none\n  enable: [errcheck]\n'}
    for p in range(6):
        for f in range(3):
            files[f"p{p}/f{f}.go"] = f"package p{p}\n\nfunc F{f}() int {{ return {f} }}\n"
    write(tmp_path, files)
    hashed = calls_of(monkeypatch, trees, "file_blob")
    outcome = lint(golangci.SPEC, tmp_path, [f"p{p}/f0.go" for p in range(6)],
                   cache_dir=tmp_path / "cache")
    assert outcome.status == "ok", outcome.message
    reads = [call.args[0] for call in hashed]  # the paths
    assert len(reads) == len(set(reads)) and len(reads) <= len(files)
