"""golangci-lint, clippy and mypy through the whole review: verdicts against the merge base
(introduced, preexisting, a finding that only moved, a break elsewhere), and `review --fix` on
every linter that has fixes (mypy has none)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.model import ReviewResult, Verdict
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo


def review(repo: GitRepo, tool: str, tmp_path: Path) -> ReviewResult:
    result = run_review(ReviewOptions(repo=repo.path, base="main", only=(tool,),
                                      cache_dir=tmp_path / "cache"))
    [run] = result.tools
    assert run.status == "ok", run.message
    return result


def verdicts(result: ReviewResult) -> list[tuple[str, str, int, str, str | None]]:
    return sorted((v.finding.path, v.finding.rule, v.finding.line, v.scope, v.where)
                  for v in result.findings)


def only(result: ReviewResult, text: str) -> Verdict:
    [v] = [v for v in result.findings if text in v.finding.message]
    return v


# --- golangci-lint ----------------------------------------------------------------------------

GO_CONFIG = 'version: "2"\nlinters:\n  default: none\n  enable: [errcheck, misspell]\n'
GO_BASE = """package main

import "os"

func helper() {
\tf, _ := os.Open("a")
\tf.Close()
}

func main() { helper() }
"""
GO_HEAD = """package main

import "os"

func main() { helper(); other() }

// other does the recieve side
func other() {
\tg, _ := os.Open("b")
\tg.Close()
}

func helper() {
\tf, _ := os.Open("a")
\tf.Close()
}
"""


@pytest.fixture
def go_repo(repo: GitRepo) -> GitRepo:
    repo.commit({"go.mod": "module example.com/m\n\ngo 1.22\n", ".golangci.yml": GO_CONFIG,
                 "main.go": GO_BASE, "lib/lib.go": "package lib\n\nfunc Name() string { return \"x\" }\n",
                 "use/use.go": 'package use\n\nimport "example.com/m/lib"\n\nvar N = lib.Name()\n'})
    repo.branch("feat")
    repo.commit({"main.go": GO_HEAD})
    return repo


def test_golangci_verdicts(go_repo: GitRepo, tmp_path: Path) -> None:
    result = review(go_repo, "golangci-lint", tmp_path)
    assert verdicts(result) == [
        ("main.go", "errcheck", 10, "introduced", "diff"),
        ("main.go", "errcheck", 15, "preexisting", None),  # moved from line 7
        ("main.go", "misspell", 7, "introduced", "diff"),
    ]
    assert only(result, "f.Close").base is not None and only(result, "f.Close").base.line == 7  # type: ignore[union-attr]


def test_golangci_break_in_another_package_of_the_change(go_repo: GitRepo, tmp_path: Path) -> None:
    # Renaming lib.Name breaks use/use.go; use/ also changes (a comment) so its package is run.
    go_repo.commit({"lib/lib.go": "package lib\n\nfunc Title() string { return \"x\" }\n",
                    "use/use.go": 'package use\n\nimport "example.com/m/lib"\n\n// N is a name\n'
                                  "var N = lib.Name()\n"})
    result = review(go_repo, "golangci-lint", tmp_path)
    broken = only(result, "undefined: lib.Name")
    assert (broken.finding.path, broken.finding.rule) == ("use/use.go", "typecheck")
    assert (broken.scope, broken.where) == ("introduced", "elsewhere")


def test_golangci_fix(go_repo: GitRepo, tmp_path: Path) -> None:
    main(["review", "--repo", str(go_repo.path), "--base", "main", "--only", "golangci-lint",
          "--cache-dir", str(tmp_path / "c"), "--fix"])
    assert "// other does the receive side\n" in (go_repo.path / "main.go").read_text()


# --- clippy -------------------------------------------------------------------------------------

RS_MANIFEST = '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n'
RS_BASE = """fn helper(v: &[i32]) -> bool {
    v.len() == 0
}

fn main() {
    println!("{}", helper(&[]));
}
"""
RS_HEAD = """fn main() {
    println!("{} {}", helper(&[]), other(&[1]));
}

fn other(w: &[i32]) -> bool {
    w.len() == 0
}

fn helper(v: &[i32]) -> bool {
    v.len() == 0
}
"""


@pytest.fixture
def rs_repo(repo: GitRepo) -> GitRepo:
    repo.commit({"Cargo.toml": RS_MANIFEST, ".gitignore": "target/\n", "src/main.rs": RS_BASE,
                 "src/util.rs": "pub fn one() -> i32 {\n    1\n}\n"})
    repo.branch("feat")
    repo.commit({"src/main.rs": RS_HEAD})
    return repo


def test_clippy_verdicts(rs_repo: GitRepo, tmp_path: Path) -> None:
    result = review(rs_repo, "clippy", tmp_path)
    assert verdicts(result) == [
        ("src/main.rs", "clippy::len_zero", 6, "introduced", "diff"),
        ("src/main.rs", "clippy::len_zero", 10, "preexisting", None),  # moved from line 2
    ]


def test_clippy_compile_error_elsewhere(rs_repo: GitRepo, tmp_path: Path) -> None:
    # util.rs changes its signature; main.rs (untouched by this commit) uses it wrongly now.
    rs_repo.commit({"src/main.rs": "mod util;\n\nfn main() {\n    println!(\"{}\", util::one());\n}\n"})
    rs_repo.git("branch", "-f", "main", "HEAD")
    rs_repo.commit({"src/util.rs": "pub fn one(x: i32) -> i32 {\n    x\n}\n"})
    result = review(rs_repo, "clippy", tmp_path)
    broken = only(result, "this function takes 1 argument")
    assert (broken.finding.path, broken.finding.rule, broken.scope, broken.where) == (
        "src/main.rs", "E0061", "introduced", "elsewhere")


def test_clippy_fix(rs_repo: GitRepo, tmp_path: Path) -> None:
    main(["review", "--repo", str(rs_repo.path), "--base", "main", "--only", "clippy",
          "--cache-dir", str(tmp_path / "c"), "--fix"])
    text = (rs_repo.path / "src/main.rs").read_text()
    assert "    w.is_empty()\n" in text and "    v.len() == 0\n" in text  # preexisting left alone


# --- mypy -------------------------------------------------------------------------------------

PY_BASE = '''def helper() -> int:
    return "s"


def main() -> None:
    helper()
'''
PY_HEAD = '''def main() -> None:
    helper()
    other()


def other() -> int:
    return 1.5


def helper() -> int:
    return "s"
'''


@pytest.fixture
def py_repo(repo: GitRepo) -> GitRepo:
    repo.commit({"pyproject.toml": '[tool.mypy]\nfiles = ["."]\n', "a.py": PY_BASE,
                 "b.py": "from a import helper\n\nx: int = helper()\n"})
    repo.branch("feat")
    repo.commit({"a.py": PY_HEAD})
    return repo


def test_mypy_verdicts(py_repo: GitRepo, tmp_path: Path) -> None:
    result = review(py_repo, "mypy", tmp_path)
    assert verdicts(result) == [
        ("a.py", "return-value", 7, "introduced", "diff"),
        ("a.py", "return-value", 11, "preexisting", None),  # moved from line 2
    ]


def test_mypy_break_in_an_untouched_module(py_repo: GitRepo, tmp_path: Path) -> None:
    py_repo.commit({"a.py": PY_HEAD.replace("def helper() -> int:\n    return \"s\"",
                                            "def helper() -> str:\n    return \"s\"")})
    result = review(py_repo, "mypy", tmp_path)
    broken = only(result, 'expression has type "str", variable has type "int"')
    assert (broken.finding.path, broken.scope, broken.where) == ("b.py", "introduced", "elsewhere")


# --- eslint and biome --fix --------------------------------------------------------------------

def test_eslint_fix(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"eslint.config.mjs": 'export default [{ rules: { "prefer-const": "error" } }];\n',
                 "a.js": "export const a = 1;\n"})
    repo.branch("feat")
    repo.commit({"a.js": "export const a = 1;\nlet b = 2;\nexport { b };\n"})
    code = main(["review", "--repo", str(repo.path), "--base", "main", "--only", "eslint",
                 "--cache-dir", str(tmp_path / "c"), "--fix"])
    assert (repo.path / "a.js").read_text() == "export const a = 1;\nconst b = 2;\nexport { b };\n"
    assert code == 0  # nothing left after fixing


def test_biome_fix(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"biome.json": "{}\n", "a.js": "export const a = 1;\n"})
    repo.branch("feat")
    repo.commit({"a.js": "export const a = 1;\n"
                         "export function f(x) {\n  const unused = 1;\n  let y = x;\n  return y;\n}\n"})
    args = ["review", "--repo", str(repo.path), "--base", "main", "--only", "biome",
            "--cache-dir", str(tmp_path / "c"), "--fix"]
    main(args)  # safe fixes only: useConst, not the rename of the unused variable
    assert "const unused = 1;\n  const y = x;" in (repo.path / "a.js").read_text()
    main([*args, "--unsafe-fixes", "--force"])
    assert "const _unused = 1;\n  const y = x;" in (repo.path / "a.js").read_text()
