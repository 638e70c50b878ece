"""gopls for real, through the whole pipeline: importers in other packages and siblings."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.linters import golangci
from bot.linters.runner import LinterAnalyzer
from bot.lsp.registry import SERVERS
from bot.model import ReviewResult
from tests.conftest import GitRepo, require_tool
from tests.lsp.conftest import Calls, leftovers, review, status, table

GO_MOD = "module example.com/demo\n\ngo 1.22\n"
CALC = "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"
MAIN = """package main

import (
\t"fmt"

\t"example.com/demo/pkg/calc"
)

func main() {
\tfmt.Println(calc.Add(1, 2))
\tvar s string = 3 // preexisting
\tfmt.Println(s)
}
"""
SIBLING = "package calc\n\n// Twice doubles.\nfunc Twice(a int) int { return Add(a, a) }\n"


@pytest.fixture(autouse=True)
def _tools() -> None:
    require_tool("gopls")


def start(repo: GitRepo, more: dict[str, str] | None = None) -> None:
    repo.commit({"go.mod": GO_MOD, "pkg/calc/calc.go": CALC, "pkg/calc/twice.go": SIBLING,
                 "main.go": MAIN, "pkg/other/other.go": "package other\n\nvar O = 1\n",
                 **(more or {})}, "base")
    repo.branch("feature")


def test_signature_change_breaks_importer_and_sibling(repo: GitRepo) -> None:
    start(repo)
    repo.commit({"pkg/calc/calc.go": CALC.replace("a, b int)", "a, b, c int)")})
    result = review(repo, {"gopls": SERVERS["gopls"]})
    assert status(result, "gopls")[0] == "ok", status(result, "gopls")[1]
    rows = table(result)
    assert ("WrongArgCount", "main.go", 10, "introduced", "elsewhere") in rows
    assert ("WrongArgCount", "pkg/calc/twice.go", 4, "introduced", "elsewhere") in rows
    assert ("IncompatibleAssign", "main.go", 11, "preexisting", None) in rows
    assert not [r for r in rows if r[1] == "pkg/other/other.go"]


def test_repository_without_go_never_starts_gopls(repo: GitRepo) -> None:
    repo.commit({"go.mod": GO_MOD, "README.md": "hi\n"}, "base")
    repo.branch("feature")
    repo.commit({"README.md": "hello\n"})
    assert not SERVERS["gopls"].applies(repo.path, ["README.md"])
    assert [t.name for t in review(repo, SERVERS).tools] == []


# A nested module (`docs/`, as real repositories have) that imports the root module through a
# local `replace` without requiring it: any go command allowed to update go.mod adds the
# `require` line, so a server that may write would leave docs/go.mod modified.
DOCS_GO_MOD = "module example.com/demo/docs\n\ngo 1.22\n\nreplace example.com/demo => ../\n"
DOCS_MAIN = """package main

import (
\t"fmt"

\t"example.com/demo/pkg/calc"
)

func main() { fmt.Println(calc.Add(1, 2)) }
"""


def porcelain(repo: GitRepo) -> str:
    return repo.git("status", "--porcelain", "--ignored")


@pytest.mark.parametrize("user_goflags", [None, "-mod=mod"])
def test_gopls_never_writes_a_nested_modules_go_mod(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch, user_goflags: str | None) -> None:
    # A developer's own GOFLAGS=-mod=mod must not let the server write either.
    if user_goflags is None:
        monkeypatch.delenv("GOFLAGS", raising=False)
    else:
        monkeypatch.setenv("GOFLAGS", user_goflags)
    repo.commit({"go.mod": GO_MOD, "pkg/calc/calc.go": CALC, "docs/go.mod": DOCS_GO_MOD,
                 "docs/main.go": DOCS_MAIN}, "base")
    repo.branch("feature")
    repo.commit({"docs/main.go": DOCS_MAIN.replace("Add(1, 2)", "Add(1, 3)"),
                 "pkg/calc/calc.go": CALC.replace("a + b", "b + a")})
    before = porcelain(repo)
    result = review(repo, {"gopls": SERVERS["gopls"]})
    assert porcelain(repo) == before, repo.git("diff")
    assert status(result, "gopls")[0] == "ok", status(result, "gopls")[1]


ANALYZED = """package main

import "fmt"

func unused() {}

func main() {
\tfmt.Printf("%d\\n", "s")
\tx := 1
\tfmt.Println(x)
}
"""


def test_analyzer_findings_are_named_by_their_analyzer(repo: GitRepo) -> None:
    """gopls gives analyzer diagnostics the code "default": the analyzer (the source) is the
    rule, so two analyzers' findings never pair with each other."""
    repo.commit({"go.mod": GO_MOD, "main.go": "package main\n\nfunc main() {}\n"}, "base")
    repo.branch("feature")
    repo.commit({"main.go": ANALYZED})
    result = review(repo, {"gopls": SERVERS["gopls"]})
    assert status(result, "gopls")[0] == "ok", status(result, "gopls")[1]
    rows = table(result)
    assert ("printf", "main.go", 8, "introduced", "diff") in rows, rows
    assert ("unusedfunc", "main.go", 5, "introduced", "diff") in rows, rows
    assert not [r for r in rows if r[0] == "default"], rows
    # Type-check errors keep their code: a real rule name already.
    repo.commit({"main.go": ANALYZED.replace("fmt.Println(x)", "")})
    assert ("UnusedVar", "main.go", 9, "introduced", "diff") in table(
        review(repo, {"gopls": SERVERS["gopls"]}))


def test_a_run_leaves_nothing_in_the_temporary_folder(repo: GitRepo, private_tmpdir: Path) -> None:
    start(repo)
    repo.commit({"pkg/calc/calc.go": CALC.replace("a, b int)", "a, b, c int)")})
    result = review(repo, {"gopls": SERVERS["gopls"]})
    assert status(result, "gopls")[0] == "ok", status(result, "gopls")[1]
    assert ("WrongArgCount", "main.go", 10, "introduced", "elsewhere") in table(result)
    assert leftovers(private_tmpdir) == []


def test_a_project_the_go_command_cannot_load_is_a_failure(repo: GitRepo) -> None:
    """A go.mod asking for a newer Go than the installed one (no toolchain is downloaded):
    gopls type-checks nothing, so the run failed; its one "initialization failed"
    diagnostic is neither a finding nor a pass, and the message names what went wrong."""
    start(repo)
    repo.commit({"go.mod": GO_MOD.replace("go 1.22", "go 1.99"),
                 "pkg/calc/calc.go": CALC.replace("a + b", "a + b + 0")})
    before = porcelain(repo)
    result = review(repo, {"gopls": SERVERS["gopls"]})
    state, message = status(result, "gopls")
    assert state == "failed", table(result)
    assert "go.mod requires go >= 1.99" in message and "GOTOOLCHAIN=local" in message, message
    assert str(repo.path) not in message and "/tmp" not in message, message
    assert not [v for v in result.findings if v.scope == "introduced"], table(result)
    assert porcelain(repo) == before


GOLANGCI = 'version: "2"\nlinters:\n  default: none\n  enable: [govet]\n'


def by_tool(result: ReviewResult, tool: str) -> set[tuple[str, str, str]]:
    return {(v.finding.rule, v.finding.path, v.scope) for v in result.findings
            if v.finding.tool == tool}


def test_next_to_golangci_lint_gopls_looks_only_beyond_the_packages_it_checked(
        repo: GitRepo) -> None:
    """golangci-lint's typecheck already reports the changed package (its untouched sibling
    included): gopls checks only the importer in another package, and says nothing twice."""
    require_tool("golangci-lint")
    start(repo)
    repo.commit({".golangci.yml": GOLANGCI}, "config")
    repo.commit({"pkg/calc/calc.go": CALC.replace("a, b int)", "a, b, c int)")})
    result = review(repo, {"golangci-lint": LinterAnalyzer(golangci.SPEC),
                           "gopls": SERVERS["gopls"]})
    assert [(t.name, t.status) for t in result.tools] == [("golangci-lint", "ok"), ("gopls", "ok")]
    assert ("typecheck", "pkg/calc/twice.go", "introduced") in by_tool(result, "golangci-lint")
    assert by_tool(result, "gopls") == {("WrongArgCount", "main.go", "introduced"),
                                        ("IncompatibleAssign", "main.go", "preexisting")}


def test_when_golangci_lint_fails_gopls_checks_the_changed_packages_again(repo: GitRepo) -> None:
    """Fail closed: a linter that did not run cleanly covers nothing."""
    require_tool("golangci-lint")
    start(repo)
    repo.commit({".golangci.yml": 'version: "2"\nlinters:\n  enable: [no-such-linter]\n'}, "config")
    repo.commit({"pkg/calc/calc.go": CALC.replace("a, b int)", "a, b, c int)")})
    result = review(repo, {"golangci-lint": LinterAnalyzer(golangci.SPEC),
                           "gopls": SERVERS["gopls"]})
    assert [(t.name, t.status) for t in result.tools] == [("golangci-lint", "failed"),
                                                         ("gopls", "ok")]
    assert {("WrongArgCount", "main.go", "introduced"),
            ("WrongArgCount", "pkg/calc/twice.go", "introduced")} <= by_tool(result, "gopls")


LOG = ("package calc\n\n// Logf writes a line.\n"
       "func Logf(format string, args ...any) {\n\t_, _ = format, args\n}\n")
# Without the type error: analyzers do not run over a package that does not type-check.
LOG_MAIN = ('package main\n\nimport "example.com/demo/pkg/calc"\n\n'
            'func main() {\n\tcalc.Logf("%d", "x")\n}\n')


def test_next_to_golangci_lint_a_body_only_change_starts_no_gopls(
        repo: GitRepo, sessions: Calls) -> None:
    """Importers in other packages cannot see a change to function bodies: gopls has nothing
    to look at, starts no server, and says what it left out."""
    require_tool("golangci-lint")
    start(repo, {".golangci.yml": GOLANGCI})
    repo.commit({"pkg/calc/calc.go": CALC.replace("return a + b", "return b + a")})
    result = review(repo, {"golangci-lint": LinterAnalyzer(golangci.SPEC),
                           "gopls": SERVERS["gopls"]})
    assert [(t.name, t.status) for t in result.tools] == [("golangci-lint", "ok"), ("gopls", "ok")]
    assert sessions == {"run": 0, "run_pair": 0}
    gopls = next(t for t in result.tools if t.name == "gopls")
    assert "importers of pkg/calc not checked" in gopls.message
    assert by_tool(result, "gopls") == set()


def test_a_body_that_makes_a_printf_wrapper_is_checked_in_its_importers(
        repo: GitRepo, sessions: Calls) -> None:
    """Only the body changed, but gopls' printf analyzer learns from it that `Logf` now
    formats: the importer's call with a wrong verb is new, so gopls must look."""
    require_tool("golangci-lint")
    start(repo, {".golangci.yml": GOLANGCI, "pkg/calc/log.go": LOG, "main.go": LOG_MAIN})
    repo.commit({"pkg/calc/log.go": LOG.replace(
        "\t_, _ = format, args\n", "\tfmt.Printf(format, args...)\n").replace(
        "package calc\n", 'package calc\n\nimport "fmt"\n')})
    result = review(repo, {"golangci-lint": LinterAnalyzer(golangci.SPEC),
                           "gopls": SERVERS["gopls"]})
    assert [(t.name, t.status) for t in result.tools] == [("golangci-lint", "ok"), ("gopls", "ok")]
    assert sessions == {"run": 0, "run_pair": 1}
    assert ("printf", "main.go", "introduced") in by_tool(result, "gopls")


CALC_TEST = 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\t_ = Add(1, 2)\n}\n'


def test_test_files_golangci_lint_is_told_to_skip_stay_with_gopls(repo: GitRepo) -> None:
    """`run.tests: false`: golangci-lint never reads `_test.go` files, so it covers none of
    them, and a type error in one is gopls' to find."""
    require_tool("golangci-lint")
    config = GOLANGCI.replace('version: "2"\n', 'version: "2"\nrun:\n  tests: false\n')
    start(repo, {".golangci.yml": config, "pkg/calc/calc_test.go": CALC_TEST})
    repo.commit({"pkg/calc/calc_test.go": CALC_TEST.replace(
        "\t_ = Add(1, 2)\n", "\tvar s string = Add(1, 2)\n\t_ = s\n")})
    result = review(repo, {"golangci-lint": LinterAnalyzer(golangci.SPEC),
                           "gopls": SERVERS["gopls"]})
    assert [(t.name, t.status) for t in result.tools] == [("golangci-lint", "ok"), ("gopls", "ok")]
    assert ("IncompatibleAssign", "pkg/calc/calc_test.go", "introduced") in by_tool(result, "gopls")


def test_alone_a_body_only_change_is_not_checked_in_other_packages(
        repo: GitRepo, sessions: Calls) -> None:
    """Without golangci-lint gopls checks the changed package itself, its other files too (a
    name it adds may clash with theirs), but not the importers in other packages, which
    cannot see a function's body; a changed signature still reaches them (above)."""
    start(repo)
    repo.commit({"pkg/calc/calc.go": CALC.replace("return a + b", "return b + a")
                 + "\nfunc Twice(a int) int { return a }\n"})
    result = review(repo, {"gopls": SERVERS["gopls"]})
    assert status(result, "gopls")[0] == "ok"
    assert "importers of pkg/calc not checked" in status(result, "gopls")[1]
    assert sessions == {"run": 0, "run_pair": 1}
    # The sibling is diagnosed (the added name clashes with its own); main.go is not (its
    # preexisting finding is not looked at).
    assert table(result) == [
        ("DuplicateDecl", "pkg/calc/calc.go", 6, "introduced", "diff"),
        ("DuplicateDecl", "pkg/calc/twice.go", 4, "introduced", "elsewhere")]
