"""basedpyright and pyright, for real, through the whole pipeline on temporary repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.analyzer import Target
from bot.lsp.registry import SERVERS
from tests.conftest import GitRepo, require_tool
from tests.lsp.conftest import review, status, table

A = "def add(a: int, b: int) -> int:\n    return a + b\n"
B = ("from pkg.a import add\n\n"
     "total: int = add(1, 2)\n"
     "legacy: str = 3  # preexisting\n")


@pytest.fixture(autouse=True)
def _tools() -> None:
    require_tool("basedpyright-langserver")
    require_tool("pyright-langserver")


def start(repo: GitRepo, config: dict[str, str]) -> None:
    repo.commit({**config, "pkg/__init__.py": "", "pkg/a.py": A, "pkg/b.py": B,
                 "pkg/unrelated.py": "x: int = 1\n"}, "base")
    repo.branch("feature")


def test_signature_change_breaks_untouched_importer(repo: GitRepo) -> None:
    start(repo, {"pyrightconfig.json": "{}\n"})
    repo.commit({"pkg/a.py": "def add(a: int, b: int, c: int) -> int:\n    return a + b + c\n"})
    result = review(repo, {"basedpyright": SERVERS["basedpyright"]})
    assert status(result, "basedpyright")[0] == "ok"
    rows = table(result)
    assert ("reportCallIssue", "pkg/b.py", 3, "introduced", "elsewhere") in rows
    assert ("reportAssignmentType", "pkg/b.py", 4, "preexisting", None) in rows
    assert not [r for r in rows if r[1] == "pkg/unrelated.py"]
    assert next(t for t in result.tools if t.name == "basedpyright").version == "1.40.2"


def test_introduced_in_diff_and_fixed(repo: GitRepo) -> None:
    start(repo, {"pyproject.toml": "[tool.basedpyright]\ntypeCheckingMode = \"standard\"\n"})
    repo.commit({"pkg/b.py": B.replace("legacy: str = 3", "legacy: str = 'ok'")
                 + "bad: int = add('é😀', 2)\n"})
    rows = table(review(repo, SERVERS))
    assert rows == [
        ("reportArgumentType", "pkg/b.py", 5, "introduced", "diff"),
        ("reportAssignmentType", "pkg/b.py", 4, "fixed", None),
    ]


def test_unicode_columns_and_spaced_paths(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"pyrightconfig.json": "{}\n", "dír with space/m.py": "s = 'é😀'; n: int = s\n"})
    root = repo.path
    analyzer = SERVERS["basedpyright"]
    outcome = analyzer.collect(Target(root, "HEAD", ("dír with space/m.py",), "head"),
                               analyzer.resolve(root))
    assert outcome.status == "ok", outcome.message
    (finding,) = outcome.findings
    assert finding.path == "dír with space/m.py"
    # `s` after `n: int = ` is code point 20 (the emoji counts once, not as two UTF-16 units).
    assert (finding.rule, finding.span.column, finding.span.end_column) == (
        "reportAssignmentType", 20, 21)


def test_pyright_when_the_repository_names_it(repo: GitRepo) -> None:
    start(repo, {"pyproject.toml": "[tool.pyright]\nreportMissingImports = true\n",
                 "requirements-dev.txt": "pyright==1.1.414\n"})
    repo.commit({"pkg/a.py": "def add(a: int) -> int:\n    return a\n"})
    assert not SERVERS["basedpyright"].applies(repo.path, ["pkg/a.py"])
    result = review(repo, SERVERS)
    assert [t.name for t in result.tools] == ["pyright"]
    assert ("reportCallIssue", "pkg/b.py", 3, "introduced", "elsewhere") in table(result)


def test_no_marker_no_server(repo: GitRepo) -> None:
    repo.commit({"a.py": "x: int = 'no config, no checker'\n"})
    assert not any(SERVERS[n].applies(repo.path, ["a.py"]) for n in ("basedpyright", "pyright"))


def test_importers_of_a_deleted_module_are_checked_at_the_head(repo: GitRepo) -> None:
    """At the head the deleted module is not among Target.paths; the union of changed paths
    (Target.changed) still leads the scan to its importers."""
    repo.commit({"pyrightconfig.json": "{}\n", "pkg/__init__.py": "", "pkg/b.py": B,
                 "pkg/c.py": "x: int = 1\n"})
    analyzer = SERVERS["basedpyright"]
    target = Target(repo.path, "HEAD", ("pkg/c.py",), "head",
                    changed=("pkg/a.py", "pkg/c.py"))
    outcome = analyzer.collect(target, analyzer.resolve(repo.path))
    assert outcome.extra_paths == {"pkg/b.py"}
    assert ("reportMissingImports", "pkg/b.py", 1) in [
        (f.rule, f.path, f.line) for f in outcome.findings]


def test_an_importer_through_a_package_reexport_is_checked(repo: GitRepo) -> None:
    repo.commit({"pyrightconfig.json": "{}\n", "pkg/__init__.py": "from pkg.a import add\n",
                 "pkg/a.py": A, "app.py": "from pkg import add\n\ntotal: int = add(1, 2)\n"})
    repo.branch("feature")
    repo.commit({"pkg/a.py": "def add(a: int, b: int, c: int) -> int:\n    return a + b + c\n"})
    rows = table(review(repo, {"basedpyright": SERVERS["basedpyright"]}))
    assert ("reportCallIssue", "app.py", 3, "introduced", "elsewhere") in rows
