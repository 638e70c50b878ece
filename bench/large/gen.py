"""A generated 20,000-file repository with changes of 250, 500 and 1,000 files, for the
review at size. Deterministic: one seed, fixed commit dates, text built from the file's
number only.

- `py/pNNN/mMM.py`: 8,000 Python modules (200 packages of 40), `ruff.toml` (F, E, B);
- `ts/src/dNNN/fMM.ts`: 8,000 TypeScript modules (200 folders of 40), `eslint.config.mjs`
  (typescript-eslint `recommended`, `prefer-const`, `eqeqeq`), the repository's own ESLint
  from `node_modules` (a link to the bench's install, ignored by git);
- `go/pNNN/fMM.go`: 4,000 Go files (400 packages of 10, every fifth package importing the
  one before), one module at the root, `.golangci.yml` (`default: standard`).

Some files hold findings at the base (an unused import, `== None`, `any`, an unchecked
error). Branch `change-N` (N = 250, 500, 1000) edits N files on top of `main`, 40% Python,
40% TypeScript, 20% Go (whole halves of packages), 2% of them new files: each edit inserts a
function near the top (every old finding moves down), adds a finding in half of the files and
removes one in a tenth. The changes are nested (the first 250 of the 500 are the 250), so
their times can be compared for linearity. `change-N-push` is a new push on top: a comment
line appended to each changed file (the base is what the findings cache holds).
"""

from __future__ import annotations

import random
from pathlib import Path

from bench.repos import git, write

SEED = 20
PY_PACKAGES, PY_MODULES = 200, 40
TS_FOLDERS, TS_MODULES = 200, 40
GO_PACKAGES, GO_FILES = 400, 10
SIZES = (250, 500, 1000)
SHARES = {"py": 0.4, "ts": 0.4, "go": 0.2}
NEW_EVERY = 50  # one changed file in 50 is a new file

RUFF = 'line-length = 100\n[lint]\nselect = ["F", "E", "B"]\n'
ESLINT = """import tseslint from "typescript-eslint";

export default [
  { ignores: ["py/**", "go/**", "node_modules/**"] },
  ...tseslint.configs.recommended,
  { files: ["**/*.ts"], rules: { "prefer-const": "error", eqeqeq: "error" } },
];
"""
GOLANGCI = "version: \"2\"\nlinters:\n  default: standard\n"
GO_MOD = "module example.com/large\n\ngo 1.22\n"


# --- Python -------------------------------------------------------------------------------

def py_path(pkg: int, mod: int) -> str:
    return f"py/p{pkg:03d}/m{mod:02d}.py"


def py_module(pkg: int, mod: int, rng: random.Random, edit: int | None = None) -> str:
    """A module; `edit` (the change's number for this file) inserts a helper near the top,
    with a new unused variable when even, and drops the use of `os` when divisible by 10."""
    old_unused = rng.random() < 0.3
    old_none = rng.random() < 0.3
    k = rng.randint(1, 99)
    head = [f'"""Records and totals of package p{pkg:03d}, module {mod:02d}."""', "",
            "from __future__ import annotations", "", "import json", "import os"]
    if old_unused:
        head.append("import sys")
    head += ["from dataclasses import dataclass", ""]
    helper: list[str] = []
    if edit is not None:
        helper = ["", f"def scaled_{mod}(values: list[int], factor: int = {edit % 7 + 2}) -> list[int]:",
                  '    """The values times the factor, negatives dropped."""']
        if edit % 2 == 0:
            helper.append(f"    unused_{edit} = len(values)")
        helper += ["    return [v * factor for v in values if v >= 0]", ""]
    uses_os = edit is None or edit % 10 != 0
    env_body = ('    return os.environ.get(name, "")' if uses_os else '    return name.upper()')
    body = [
        "", "@dataclass", f"class Record{mod}:", f'    """One record of module {mod}."""', "",
        "    name: str", "    size: int", "    tags: tuple[str, ...] = ()", "",
        "    def label(self) -> str:", '        return f"{self.name}:{self.size}"', "",
        "    def tagged(self, tag: str) -> bool:", "        return tag in self.tags", "", "",
        f"def total_{mod}(items: list[Record{mod}]) -> int:", "    total = 0",
        "    for item in items:", f"        if item.size > {k}:", "            total += item.size",
        "        else:", "            total -= 1", "    return total", "", "",
        f"def load_{mod}(path: str) -> dict[str, object]:", "    with open(path) as handle:",
        "        data = json.load(handle)",
        "    if data == None:" if old_none else "    if data is None:",
        "        return {}", "    return dict(data)", "", "",
        f"def env_{mod}(name: str) -> str:", env_body, "",
    ]
    return "\n".join(head + helper + body)


# --- TypeScript ---------------------------------------------------------------------------

def ts_path(folder: int, mod: int) -> str:
    return f"ts/src/d{folder:03d}/f{mod:02d}.ts"


def ts_module(folder: int, mod: int, rng: random.Random, edit: int | None = None) -> str:
    old_any = rng.random() < 0.3
    old_eq = rng.random() < 0.3
    k = rng.randint(1, 99)
    lines = [f"// Items and totals of folder d{folder:03d}, module {mod:02d}.", "",
             f"export interface Item{mod} {{", "  id: number;", "  name: string;",
             "  tags: string[];", "}", ""]
    if edit is not None:
        lines += [f"export function scaled{mod}(values: number[], factor = {edit % 7 + 2}): number[] {{"]
        if edit % 2 == 0:
            lines += [f"  let count{edit} = values.length;", f"  void count{edit};"]
        lines += ["  return values.filter((v) => v >= 0).map((v) => v * factor);", "}", ""]
    lines += [
        f"export function total{mod}(xs: number[]): number {{", "  let sum = 0;",
        "  for (const x of xs) {", f"    if (x > {k}) {{", "      sum += x;", "    } else {",
        "      sum -= 1;", "    }", "  }", "  return sum;", "}", "",
        f"export function label{mod}(item: Item{mod}): string {{",
        "  return `${item.id}:${item.name}[${item.tags.join(\",\")}]`;", "}", "",
        f"export function parse{mod}(text: string): " + ("any {" if old_any else "unknown {"),
        "  return JSON.parse(text);", "}", "",
        f"export function same{mod}(a: Item{mod}, b: Item{mod}): boolean {{",
        "  return a.id " + ("==" if old_eq and (edit is None or edit % 10 != 0) else "===")
        + " b.id;", "}", "",
    ]
    return "\n".join(lines)


# --- Go -----------------------------------------------------------------------------------

def go_path(pkg: int, f: int) -> str:
    return f"go/p{pkg:03d}/f{f:02d}.go"


def go_file(pkg: int, f: int, rng: random.Random, edit: int | None = None) -> str:
    old_err = rng.random() < 0.3
    k = rng.randint(1, 99)
    imports = ['"fmt"', '"os"', '"strings"']
    below = pkg % 5 != 0 and f == 0
    if below:
        imports.append(f'"example.com/large/go/p{pkg - 1:03d}"')
    name = f"Item{f:02d}"
    lines = [f"// Package p{pkg:03d} holds records and totals.", f"package p{pkg:03d}", "",
             "import (", *(f"\t{i}" for i in imports), ")", ""]
    if edit is not None:
        lines += [f"// Scaled{f:02d} multiplies the values by the factor.",
                  f"func Scaled{f:02d}(values []int, factor int) []int {{",
                  "\tout := make([]int, 0, len(values))", "\tfor _, v := range values {",
                  f"\t\tout = append(out, v*factor+{edit % 7})", "\t}"]
        if edit % 2 == 0:
            lines += ['\tos.Remove("/nonexistent/scaled")']
        lines += ["\treturn out", "}", ""]
    lines += [
        f"// {name} is one record.", f"type {name} struct {{", "\tID   int", "\tName string",
        "\tTags []string", "}", "", "// Label formats the item.",
        f"func (it {name}) Label() string {{",
        '\treturn fmt.Sprintf("%d:%s[%s]", it.ID, it.Name, strings.Join(it.Tags, ","))', "}", "",
        f"// Total{f:02d} sums the values above a bound.", f"func Total{f:02d}(xs []int) int {{",
        f"\ts := {f'p{pkg - 1:03d}.Total00(xs)' if below else '0'}", "\tfor _, x := range xs {",
        f"\t\tif x > {k} {{", "\t\t\ts += x", "\t\t} else {", "\t\t\ts--", "\t\t}", "\t}",
        "\treturn s", "}", "", f"// Save{f:02d} writes the data.",
        f"func Save{f:02d}(path string, data []byte) error {{",
    ]
    if old_err and (edit is None or edit % 10 != 0):
        lines += ["\tos.WriteFile(path, data, 0o600)", "\treturn nil", "}", ""]
    else:
        lines += ["\treturn os.WriteFile(path, data, 0o600)", "}", ""]
    return "\n".join(lines)


# --- the repository -----------------------------------------------------------------------

def _rng(*key: int) -> random.Random:
    return random.Random(hash_key(SEED, *key))


def hash_key(*numbers: int) -> int:
    value = 0
    for n in numbers:
        value = value * 1_000_003 + n
    return value


def base_files(tenth: bool = False) -> dict[str, str]:
    files = {"ruff.toml": RUFF, "eslint.config.mjs": ESLINT, ".golangci.yml": GOLANGCI,
             "go.mod": GO_MOD, ".gitignore": "node_modules\n",
             "package.json": '{"name": "large", "private": true, "type": "module"}\n'}
    py, ts, go = _packages(tenth)
    for p in range(py):
        files[f"py/p{p:03d}/__init__.py"] = ""
        for m in range(PY_MODULES - 1):  # __init__.py is the package's 40th file
            files[py_path(p, m)] = py_module(p, m, _rng(1, p, m))
    for d in range(ts):
        for m in range(TS_MODULES):
            files[ts_path(d, m)] = ts_module(d, m, _rng(2, d, m))
    for p in range(go):
        for f in range(GO_FILES):
            files[go_path(p, f)] = go_file(p, f, _rng(3, p, f))
    return files


def _packages(tenth: bool) -> tuple[int, int, int]:
    """How many Python packages, TypeScript folders and Go packages (a tenth: a smoke test)."""
    div = 10 if tenth else 1
    return PY_PACKAGES // div, TS_FOLDERS // div, GO_PACKAGES // div


def _order(tenth: bool) -> dict[str, list[tuple[int, int]]]:
    """Each language's files in the order changes take them: spread over packages (the
    halves of Go packages, so a package is changed in 5 of its files)."""
    shuffle = random.Random(SEED)
    py_n, ts_n, go_n = _packages(tenth)
    py = [(p, m) for p in shuffle.sample(range(py_n), py_n) for m in range(0, PY_MODULES - 1, 2)]
    ts = [(d, m) for d in shuffle.sample(range(ts_n), ts_n) for m in range(0, TS_MODULES, 2)]
    go = [(p, f) for p in shuffle.sample(range(go_n), go_n) for f in range(0, GO_FILES, 2)]
    return {"py": py, "ts": ts, "go": go}


def change_files(size: int, tenth: bool = False) -> dict[str, str]:
    """The head's text of the change of `size` files (nested: a prefix of the larger ones)."""
    order = _order(tenth)
    out: dict[str, str] = {}
    edit = 0
    for lang, share in SHARES.items():
        for n, (a, b) in enumerate(order[lang][:round(size * share)]):
            edit += 1
            new = n % NEW_EVERY == NEW_EVERY - 1
            if lang == "py":
                path = py_path(a, b) if not new else f"py/p{a:03d}/new{b:02d}.py"
                out[path] = py_module(a, b, _rng(1, a, b), edit)
            elif lang == "ts":
                path = ts_path(a, b) if not new else f"ts/src/d{a:03d}/new{b:02d}.ts"
                out[path] = ts_module(a, b, _rng(2, a, b), edit)
            else:
                path = go_path(a, b) if not new else f"go/p{a:03d}/new{b:02d}.go"
                text = go_file(a, b, _rng(3, a, b), edit)
                out[path] = text.replace(f"Item{b:02d}", f"New{b:02d}").replace(
                    f"Total{b:02d}", f"NewTotal{b:02d}").replace(f"Save{b:02d}", f"NewSave{b:02d}"
                    ).replace(f"Scaled{b:02d}", f"NewScaled{b:02d}") if new else text
    return out


def build(where: Path, sizes: tuple[int, ...] = SIZES, node_modules: Path | None = None,
          tenth: bool = False) -> dict[int, list[str]]:
    """The repository at `where` (branches main, change-N, change-N-push; main checked out);
    returns each change's paths. `tenth`: a tenth of the packages (a smoke test)."""
    where.mkdir(parents=True)
    git(where, "init", "-q", "-b", "main")
    for key, value in (("user.email", "bench@example.invalid"), ("user.name", "bench"),
                       ("commit.gpgsign", "false"), ("gc.auto", "0")):
        git(where, "config", key, value)
    base = base_files(tenth)
    write(where, base)
    git(where, "add", "-A")
    git(where, "commit", "-qm", "base")
    changed = {}
    for size in sizes:
        head = change_files(size, tenth)
        git(where, "checkout", "-qb", f"change-{size}", "main")
        write(where, head)
        git(where, "add", "-A")
        git(where, "commit", "-qm", f"change of {size} files")
        git(where, "checkout", "-qb", f"change-{size}-push")
        for path in head:
            with (where / path).open("a") as handle:
                handle.write("\n# pushed\n" if path.endswith(".py") else "\n// pushed\n")
        git(where, "commit", "-qam", "a new push")
        changed[size] = sorted(head)
    git(where, "checkout", "-q", "main")
    if node_modules is not None:
        (where / "node_modules").symlink_to(node_modules, target_is_directory=True)
    return changed
