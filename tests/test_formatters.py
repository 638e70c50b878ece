"""Formatting-only commits, made by the real formatters at narrow and wide widths, on files that
carry findings of the real linters: the review must find nothing introduced and nothing changed.
Reflowed, wrapped, joined and re-indented code keeps its old findings old."""

# The sources are long-lined on purpose: a narrow formatter must have lines to break.
# ruff: noqa: E501

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.model import ReviewResult
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, require_tool

PYPROJECT = """\
[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "W", "B", "RET"]
"""

PYTHON = '''\
import os, sys
from typing import List, Dict


def process_records(records, threshold=10, cache={}, verbose=False, label='records'):
    unused_total = len(records) * threshold + sum(r.get("weight", 0) for r in records if r)
    if records == None:
        return []
    result = [transform(r, threshold, label=label, extra={'k': 1, "v": 2}) for r in records if r.get('active') == True]
    try:
        value = compute_something_long(result, threshold, verbose=verbose, mode="strict")
    except:
        pass
    l = lambda x: x * 2 + threshold
    return result


class Handler:
    def handle(self, request, options=[], retries=3, timeout=30.0, backoff_factor=0.5):
        message = "handling request %s with %d retries and a long message" % (request, retries)
        if type(request) == dict:
            return undefined_helper(request, options, retries, timeout, backoff_factor)
        ambiguous_name_that_is_never_used = {"first": 1, "second": 2, "third": 3, 'fourth': 4}
        return None


def helper(a, b):
    assert (a, "b should be positive")
    return a is 1
'''

ESLINT = """\
export default [{
  languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { console: "readonly" } },
  rules: { "no-unused-vars": "error", eqeqeq: "error", "no-undef": "error", "prefer-const": "error",
           "no-var": "error", "no-empty": "error", "no-self-compare": "error" },
}];
"""

JAVASCRIPT = """\
import { readFile, writeFile, stat } from 'node:fs/promises'

export async function processRecords(records, threshold = 10, options = { verbose: false, label: 'records' }) {
  var unusedTotal = records.length * threshold + records.reduce((sum, r) => sum + (r.weight || 0), 0)
  if (records == null) { return [] }
  let result = records.filter(r => r.active == true).map(r => transform(r, threshold, { label: options.label, extra: { k: 1, v: 2 } }))
  try { await compute(result, threshold, { verbose: options.verbose, mode: "strict" }) } catch (error) {}
  if (threshold === threshold) { console.log('same', threshold) }
  return result
}

export const handler = (request, retries = 3, timeout = 30.0, backoffFactor = 0.5) => {
  const message = "handling request " + request + " with " + retries + " retries and a long message"
  if (typeof request == 'object') { return undefinedHelper(request, retries, timeout, backoffFactor) }
  let neverReassigned = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6 }
  return neverReassigned
}
"""

GOLANGCI = """\
version: "2"
linters:
  default: none
  enable: [errcheck, govet, ineffassign, staticcheck, unused]
"""

GO = """\
package shop

import (
\t"fmt"
\t"os"
\t"strings"
)

func ProcessRecords(records []map[string]int, threshold int, label string, verbose bool, mode string) []string {
\tf, _ := os.Open("records-" + label + "-" + mode + ".txt")
\tf.Close()
\tresult := []string{}
\tcount := 0
\tcount = len(records)
\tfor _, r := range records { if r["active"] == 1 { result = append(result, fmt.Sprintf("%d", "record-"+label)) } }
\tif strings.Index(label, "x") != -1 && verbose == true { fmt.Printf("%s %d\\n", threshold, label) }
\treturn append(result, fmt.Sprint(count))
}

func unusedHelperWithAVeryLongName(a int, b int, c int, d int, e int, f int, g int) int { return a + b + c + d + e + f + g }
"""

CARGO = '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'

RUST = """\
pub fn process_records(records: &Vec<i32>, threshold: i32, label: &str, verbose: bool, mode: &str) -> Vec<String> {
    let unused_total = records.len() as i32 * threshold + records.iter().map(|r| r * 2).sum::<i32>();
    let mut result: Vec<String> = Vec::new();
    if records.len() == 0 { return result; }
    for r in records.iter() { if *r > threshold && verbose == true { result.push(format!("{}-{}-{}", label, mode, r)); } }
    let copied = label.clone().to_string();
    return result;
}

pub fn helper_with_a_long_name(first_argument: i32, second_argument: i32, third_argument: i32) -> i32 {
    let x = first_argument + second_argument + third_argument; x
}
"""


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, str]
    tools: tuple[str, ...]
    command: str  # the formatter, run in the repository; {tool} names a bundled tool
    minimum: int  # the base must carry at least this many findings for the case to mean anything
    reporting: tuple[str, ...] = ()  # tools (language servers) that must be among the reporters


def _python(name: str, command: str) -> Case:
    return Case(name, {"pyproject.toml": PYPROJECT, "app.py": PYTHON}, ("ruff",), command, 20)


def _js(width: int, style: str) -> Case:
    return Case(f"prettier-{width}{style.replace(' ', '')}",
                {"eslint.config.mjs": ESLINT, "package.json": '{"type": "module"}\n', "app.js": JAVASCRIPT},
                ("eslint", "prettier"), f"{{prettier}} --print-width {width} {style} --write app.js", 8)


def _go(name: str, command: str) -> Case:
    return Case(name, {"go.mod": "module example.com/shop\n\ngo 1.22\n", ".golangci.yml": GOLANGCI,
                       "shop.go": GO}, ("golangci-lint",), command, 6)


def _rust(width: int) -> Case:
    return Case(f"rustfmt-{width}", {"Cargo.toml": CARGO, "src/lib.rs": RUST}, ("cargo",),
                f"{{rustfmt}} --edition 2021 --config max_width={width} src/lib.rs", 6)


TSCONFIG = ('{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", '
            '"module": "esnext", "moduleResolution": "bundler"}}\n')

TYPESCRIPT = """\
export function processRecords(records: Array<{ weight: number; active: boolean }>, threshold: number = 10, label: string = 'records'): number {
  const total: string = records.reduce((sum, r) => sum + r.weight, 0) * threshold + records.length;
  const result = records.filter((r) => r.active === true).map((r) => transform(r, threshold, { label: label, extra: { k: 1, v: 2 } }));
  return result.length + undefinedCounter(records, threshold, label, { verbose: false, mode: 'strict' });
}

export const handler = (request: string, retries: number = 3, timeout: number = 30.0): boolean => {
  const message: number = 'handling request ' + request + ' with ' + retries + ' retries and a long message';
  return missingHelper(request, retries, timeout, message);
};
"""


STYLELINT = ('{"rules": {"color-no-invalid-hex": true, "declaration-block-no-duplicate-properties": true, '
             '"unit-no-unknown": true, "property-no-unknown": true}}\n')
CSS = """\
.header, .footer, .sidebar > .item:hover, .navigation .link { color: #12345z; margin: 10pixels 2px; colr: red; }
.card { padding: 4px; padding: 8px; border: 1px solid #abcdeg; font-family: 'Helvetica Neue', Arial, sans-serif; }
"""
YAMLLINT = "extends: default\nrules:\n  line-length: {max: 200}\n  document-start: disable\n"
YAML = """\
services: {web: {image: 'nginx:1.27', ports: ['80:80', '443:443'], environment: {MODE: 'production', DEBUG: 'no'}}}
truthy_value: yes
duplicated: 1
duplicated: 2
"""


MARKDOWNLINT = '{"default": true, "MD013": false}\n'
MARKDOWN = """\
# Title

### Skipped a level, and this heading line is long enough to be wrapped by a narrow formatter

Visit http://example.com/a/very/long/path/that/is/a/bare/url for the details of the thing we describe here.

- a list item with a long tail that a narrow print width is going to wrap onto more lines
- a second item

```
code without a language
```

# Second top-level heading
"""


def _lsp(name: str, files: dict[str, str], server: str, command: str, minimum: int,
         reporting: str) -> Case:
    return Case(name, files, (server,), command, minimum, (reporting,))


CASES = [
    _python("ruff-40", "{ruff} format --line-length 40 app.py"),
    _python("ruff-60", "{ruff} format --line-length 60 app.py"),
    _python("ruff-200", "{ruff} format --line-length 200 app.py"),
    _python("black-40", "{black} --quiet --line-length 40 app.py"),
    _python("black-120", "{black} --quiet --line-length 120 app.py"),
    _python("black-50-keep-quotes", "{black} --quiet --skip-magic-trailing-comma "
            "--skip-string-normalization -l 50 app.py"),
    _js(40, "--trailing-comma all"),
    _js(60, "--no-semi --single-quote"),
    _js(120, "--trailing-comma none"),
    _go("golines-40", "{golines} -m 40 -w shop.go"),
    # golines splits its base formatter's command line on spaces: gofumpt by name, on PATH.
    _go("golines-60-gofumpt", "{golines} -m 60 --base-formatter=gofumpt -w shop.go"),
    _go("gofumpt", "{gofumpt} -w -extra shop.go"),
    _go("gofmt", "{gofmt} -w shop.go"),
    _rust(40),
    _rust(60),
    _rust(160),
    Case("prettier-css-40", {".stylelintrc.json": STYLELINT, "app.css": CSS}, ("stylelint",),
         "{prettier} --print-width 40 --write app.css", 5),
    Case("prettier-markdown-40", {".markdownlint.json": MARKDOWNLINT, "README.md": MARKDOWN},
         ("markdownlint-cli2",), "{prettier} --print-width 40 --prose-wrap always --write README.md", 4),
    Case("prettier-yaml-40", {".yamllint.yaml": YAMLLINT, "app.yaml": YAML}, ("yamllint",),
         "{prettier} --print-width 40 --write app.yaml", 2),
    _lsp("basedpyright-ruff-40", {"pyproject.toml": PYPROJECT + "\n[tool.basedpyright]\ntypeCheckingMode = \"standard\"\n",
                                  "app.py": PYTHON},
         "basedpyright-langserver", "{ruff} format --line-length 40 app.py", 24, "basedpyright"),
    _lsp("typescript-prettier-40", {"tsconfig.json": TSCONFIG, "src/app.ts": TYPESCRIPT},
         "typescript-language-server", "{prettier} --print-width 40 --write src/app.ts", 5, "typescript"),
]


def _command(command: str) -> list[str]:
    """The command with each {tool} replaced by the path of the tool the install script gave."""
    return shlex.split(re.sub(r"\{([\w-]+)\}", lambda m: shlex.quote(str(require_tool(m.group(1)))),
                              command))


def reformat(repo: GitRepo, command: str) -> None:
    before = repo.git("rev-parse", "HEAD:")
    path = os.environ["PATH"]
    if "=gofumpt" in command:  # a formatter golines runs by name
        path = f"{require_tool('gofumpt').parent}{os.pathsep}{path}"
    subprocess.run(_command(command), cwd=repo.path, check=True, capture_output=True,
                   env={**os.environ, "PATH": path})
    repo.commit(None, "format")
    assert repo.git("rev-parse", "HEAD:") != before, f"{command} changed nothing: the case is void"


def worse(result: ReviewResult) -> list[tuple[str, str, int, str, str]]:
    return [(v.scope, v.finding.rule, v.finding.line, v.finding.message, v.matched_by or "")
            for v in result.findings if v.scope in ("introduced", "changed", "unclassified")]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_formatting_only_commit_makes_nothing_worse(repo: GitRepo, case: Case) -> None:
    for tool in case.tools:
        require_tool(tool)
    repo.commit(case.files, "base")
    repo.branch("feature")
    reformat(repo, case.command)
    result = run_review(ReviewOptions(repo=repo.path, base="main", head="HEAD"))
    assert len(result.findings) >= case.minimum, [v.finding.rule for v in result.findings]
    assert set(case.reporting) <= {v.finding.tool for v in result.findings}
    assert worse(result) == []
    assert all(r.status == "ok" for r in result.tools), [(r.name, r.message) for r in result.tools]


def test_joining_lines_back_makes_nothing_worse(repo: GitRepo, tmp_path: Path) -> None:
    """The other direction: a narrow layout at the base, a wide one at the head."""
    repo.commit({"pyproject.toml": PYPROJECT, "app.py": PYTHON}, "base")
    subprocess.run([str(require_tool("ruff")), "format", "--line-length", "40", "app.py"],
                   cwd=repo.path, check=True, capture_output=True)
    repo.commit(None, "narrow")
    repo.branch("feature")
    reformat(repo, "{ruff} format --line-length 120 app.py")
    result = run_review(ReviewOptions(repo=repo.path, base="main", head="HEAD"))
    assert len(result.findings) >= 20 and worse(result) == []
