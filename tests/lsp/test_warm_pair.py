"""One warm server for both revisions (LspAnalyzer.collect_pair), for real: the base's text
opened over the head's checkout, diagnosed, changed to the head's text, diagnosed again. A
base-only error must be gone at the head, a head-only one must appear, and importers must be
diagnosed against the right revision's text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.lsp.registry import SERVERS
from bot.model import ReviewResult
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, require_tool
from tests.lsp.conftest import Calls, review


def verdicts(result: ReviewResult, tool: str) -> set[tuple[str, str, int, str]]:
    rows = {(v.finding.rule, v.finding.path, v.finding.line, v.scope) for v in result.findings
            if v.finding.tool == tool}
    return rows | {(v.finding.rule, v.finding.path, v.finding.line, "fixed") for v in result.fixed
                   if v.finding.tool == tool}


TSCONFIG = json.dumps({"compilerOptions": {"strict": True, "noEmit": True, "target": "es2022",
                                           "module": "esnext", "moduleResolution": "bundler"}})
A_BASE = ('export function add(a: number, b: number): number {\n  return a + b;\n}\n'
          'export const base_only: number = "x";\n')
A_HEAD = ('export function add(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n'
          '\nexport const head_only = missingName;\n')
B = 'import { add } from "./a";\n\nexport const total: number = add(1, 2);\n'


def test_typescript_base_then_head_in_one_server(repo: GitRepo, sessions: Calls) -> None:
    require_tool("typescript-language-server")
    repo.commit({"tsconfig.json": TSCONFIG, "src/a.ts": A_BASE, "src/b.ts": B,
                 "README.md": "lib\n"}, "base")
    repo.branch("feature")
    repo.commit({"src/a.ts": A_HEAD, "README.md": "the lib\n"})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert [(t.name, t.status) for t in result.tools] == [("typescript", "ok")]
    assert sessions == {"run": 0, "run_pair": 1}
    assert verdicts(result, "typescript") == {
        ("TS2322", "src/a.ts", 4, "fixed"),  # only at the base
        ("TS2304", "src/a.ts", 5, "introduced"),  # only at the head
        ("TS2554", "src/b.ts", 3, "introduced"),  # the importer, against the head's a.ts
    }


def test_an_added_file_gets_one_server_per_revision(repo: GitRepo, sessions: Calls) -> None:
    """A module that exists at one revision only cannot be hidden from a server that reads
    the head's disk: the two revisions get their own sessions."""
    require_tool("typescript-language-server")
    repo.commit({"tsconfig.json": TSCONFIG, "src/a.ts": A_BASE, "src/b.ts": B}, "base")
    repo.branch("feature")
    repo.commit({"src/a.ts": A_HEAD, "src/c.ts": 'export const c: number = "c";\n'})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert [(t.name, t.status) for t in result.tools] == [("typescript", "ok")]
    assert sessions == {"run": 2, "run_pair": 0}
    assert ("TS2322", "src/c.ts", 1, "introduced") in verdicts(result, "typescript")


PY_BASE = 'def add(a: int, b: int) -> int:\n    return a + b\n\nbase_only: int = "x"\n'
PY_HEAD = 'def add(a: int, b: int, c: int) -> int:\n    return a + b + c\n\n\nhead_only = missing_name\n'
PY_B = "from pkg.a import add\n\ntotal: int = add(1, 2)\n"


def py_repo(repo: GitRepo) -> None:
    require_tool("basedpyright-langserver")
    repo.commit({"pyrightconfig.json": '{"typeCheckingMode": "standard"}\n', "pkg/__init__.py": "",
                 "pkg/a.py": PY_BASE, "pkg/b.py": PY_B}, "base")
    repo.branch("feature")
    repo.commit({"pkg/a.py": PY_HEAD})


def test_basedpyright_base_then_head_in_one_server(repo: GitRepo, sessions: Calls,
                                                  tmp_path: Path) -> None:
    py_repo(repo)
    result = review(repo, {"basedpyright": SERVERS["basedpyright"]})
    assert [(t.name, t.status) for t in result.tools] == [("basedpyright", "ok")]
    assert sessions == {"run": 0, "run_pair": 1}
    assert verdicts(result, "basedpyright") == {
        ("reportAssignmentType", "pkg/a.py", 4, "fixed"),
        ("reportUndefinedVariable", "pkg/a.py", 5, "introduced"),
        ("reportCallIssue", "pkg/b.py", 3, "introduced"),
    }


GO_MOD = "module example.com/demo\n\ngo 1.22\n"
CALC_BASE = ("package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\n"
             'var BaseOnly int = "x"\n')
CALC_HEAD = ("package calc\n\n// Add adds.\nfunc Add(a, b, c int) int { return a + b + c }\n\n\n"
             "var HeadOnly = missingName\n")
MAIN = ('package main\n\nimport (\n\t"fmt"\n\n\t"example.com/demo/calc"\n)\n\n'
        "func main() { fmt.Println(calc.Add(1, 2)) }\n")


def go_repo(repo: GitRepo, extra: dict[str, str | bytes | None] | None = None) -> None:
    require_tool("gopls")
    repo.commit({"go.mod": GO_MOD, "calc/calc.go": CALC_BASE, "main.go": MAIN, **(extra or {})},
                "base")
    repo.branch("feature")
    repo.commit({"calc/calc.go": CALC_HEAD})


def test_gopls_base_then_head_in_one_server(repo: GitRepo, sessions: Calls) -> None:
    go_repo(repo)
    result = review(repo, {"gopls": SERVERS["gopls"]})
    assert [(t.name, t.status) for t in result.tools] == [("gopls", "ok")]
    assert sessions == {"run": 0, "run_pair": 1}
    assert verdicts(result, "gopls") == {
        ("IncompatibleAssign", "calc/calc.go", 6, "fixed"),
        ("UndeclaredName", "calc/calc.go", 7, "introduced"),
        ("WrongArgCount", "main.go", 9, "introduced"),
    }


def test_gopls_next_to_golangci_lint_sees_the_changed_package_at_each_revision(
        repo: GitRepo, sessions: Calls) -> None:
    """The changed file is golangci-lint's, but gopls must still see its text at each
    revision (open, not diagnosed) to check the importer against the right one."""
    from bot.linters import golangci
    from bot.linters.runner import LinterAnalyzer

    require_tool("golangci-lint")
    go_repo(repo, {".golangci.yml": 'version: "2"\nlinters:\n  default: none\n  enable: [govet]\n'})
    result = review(repo, {"golangci-lint": LinterAnalyzer(golangci.SPEC),
                           "gopls": SERVERS["gopls"]})
    assert [(t.name, t.status) for t in result.tools] == [("golangci-lint", "ok"), ("gopls", "ok")]
    assert sessions == {"run": 0, "run_pair": 1}
    assert verdicts(result, "gopls") == {("WrongArgCount", "main.go", 9, "introduced")}


@pytest.mark.parametrize("server", ["gopls", "basedpyright"])
def test_a_new_push_takes_the_base_from_the_cache_and_checks_only_the_head(
        repo: GitRepo, sessions: Calls, tmp_path: Path, server: str) -> None:
    """The second review of a pull request (same merge base, same files) starts one server
    for the head only, and says what the first one did, the base's fixed finding included."""
    if server == "gopls":
        go_repo(repo)
    else:
        py_repo(repo)
    cache = tmp_path / "cache"
    first = review(repo, {server: SERVERS[server]}, cache=cache)
    assert sessions == {"run": 0, "run_pair": 1}
    repo.commit({"NOTES.md": "a new push that changes no source\n"})
    second = review(repo, {server: SERVERS[server]}, cache=cache)
    assert [(t.name, t.status) for t in second.tools] == [(server, "ok")]
    assert sessions == {"run": 1, "run_pair": 1}
    assert verdicts(second, server) == verdicts(first, server)
    assert any(scope == "fixed" for *_, scope in verdicts(second, server))
    # Without the cache, or against another merge base, both revisions are checked again.
    review(repo, {server: SERVERS[server]})
    assert sessions == {"run": 1, "run_pair": 2}
    repo.checkout("main")
    repo.commit({"UNRELATED.md": "the default branch moves on\n"})
    repo.checkout("feature")
    repo.git("merge", "-q", "--no-edit", "main")
    review(repo, {server: SERVERS[server]}, cache=cache)
    assert sessions == {"run": 1, "run_pair": 3}


A_CLEAN = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n'


def test_a_head_with_no_finding_leaves_the_base_out(repo: GitRepo, sessions: Calls) -> None:
    """A base finding can only make a head finding preexisting: with none at the head the
    server diagnoses the head alone. A sweep, which closes what was fixed, still gets it."""
    require_tool("typescript-language-server")
    repo.commit({"tsconfig.json": TSCONFIG, "src/a.ts": A_BASE, "src/b.ts": B}, "base")
    repo.branch("feature")
    repo.commit({"src/a.ts": A_CLEAN})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert sessions == {"run": 0, "run_pair": 1}
    assert [(t.name, t.status) for t in result.tools] == [("typescript", "ok")]
    assert verdicts(result, "typescript") == set()
    assert "the base was not checked: no finding at the head" in result.tools[0].message
    every = run_review(ReviewOptions(repo=repo.path, base="main", fixed=True,
                                     analyzers={"typescript": SERVERS["typescript"]}))
    assert verdicts(every, "typescript") == {("TS2322", "src/a.ts", 4, "fixed")}
    assert every.tools[0].message == ""


def test_one_server_per_revision_the_base_only_for_a_head_finding(
        repo: GitRepo, sessions: Calls) -> None:
    """With an added file each revision has its own server, both at once: the base's is
    stopped when the head has nothing to classify."""
    require_tool("typescript-language-server")
    repo.commit({"tsconfig.json": TSCONFIG, "src/a.ts": A_BASE, "src/b.ts": B}, "base")
    repo.branch("feature")
    repo.commit({"src/a.ts": A_CLEAN, "src/c.ts": "export const c = 1;\n"})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert sessions == {"run": 2, "run_pair": 0}
    assert [(t.name, t.status) for t in result.tools] == [("typescript", "ok")]
    assert verdicts(result, "typescript") == set()
    assert "the base was not checked" in result.tools[0].message
    repo.commit({"src/c.ts": 'export const c: number = "c";\n'})
    result = review(repo, {"typescript": SERVERS["typescript"]})
    assert sessions == {"run": 4, "run_pair": 0}
    assert verdicts(result, "typescript") == {("TS2322", "src/c.ts", 1, "introduced"),
                                              ("TS2322", "src/a.ts", 4, "fixed")}
    assert result.tools[0].message == ""
