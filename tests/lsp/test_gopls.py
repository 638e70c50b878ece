"""gopls for real, through the whole pipeline: importers in other packages and siblings."""

from __future__ import annotations

import pytest

from bot.lsp.registry import SERVERS
from tests.conftest import GitRepo, require_tool
from tests.lsp.conftest import review, status, table

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


def start(repo: GitRepo) -> None:
    repo.commit({"go.mod": GO_MOD, "pkg/calc/calc.go": CALC, "pkg/calc/twice.go": SIBLING,
                 "main.go": MAIN, "pkg/other/other.go": "package other\n\nvar O = 1\n"}, "base")
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
