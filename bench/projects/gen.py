"""Generated projects of real shapes, each a git repository: `main` holds the project, branch
`feat` a 2-file change on top. Pure text generation plus one `make_repo` at the edge.

- go:  a module of ~100 files in 10 packages (each package imports the previous one), a
       `.golangci.yml`; the change touches 2 files of one package (a new unchecked error and a
       new ineffectual assignment) that 4 files of the next package import.
- ts:  a library of ~80 files, strict `tsconfig.json`, type-aware ESLint (typescript-eslint
       `recommendedTypeChecked` with `projectService`); the change adds a type error and a
       floating promise.
- py:  a package of ~80 modules with `pyrightconfig.json`; the change adds 2 type errors.
"""

from __future__ import annotations

from pathlib import Path

from bench.repos import git

GO_PACKAGES = 10
GO_FILES = 10
TS_FILES = 80
PY_FILES = 80


def push(repo: Path, path: str, n: int) -> None:
    """A new commit on the branch: one changed file edited again (a new comment line)."""
    with (repo / path).open("a") as handle:
        handle.write(f"\n// push {n}\n" if not path.endswith(".py") else f"\n# push {n}\n")
    git(repo, "commit", "-qam", f"push {n}")


# --- Go -----------------------------------------------------------------------------------

def _go_file(pkg: int, f: int, extra: str = "") -> str:
    imports = ['"fmt"', '"strings"']
    calls = "0"
    if pkg > 0 and f % 3 == 0:
        imports.append(f'"example.com/shop/p{pkg - 1:02d}"')
        calls = f"p{pkg - 1:02d}.Total{f:02d}(xs)"
    name = f"Item{f:02d}"
    return f'''package p{pkg:02d}

import (
\t{chr(10).join(chr(9) + i for i in imports).strip()}
)

// {name} is one record of package p{pkg:02d}.
type {name} struct {{
\tID    int
\tName  string
\tTags  []string
\tPrice float64
}}

// Label formats the item.
func (it {name}) Label() string {{
\treturn fmt.Sprintf("%d:%s[%s]", it.ID, it.Name, strings.Join(it.Tags, ","))
}}

// Total{f:02d} sums the values, plus what the package below says.
func Total{f:02d}(xs []int) int {{
\ts := {calls}
\tfor i, x := range xs {{
\t\tif i%2 == 0 {{
\t\t\ts += x * {f + 1}
\t\t}} else {{
\t\t\ts -= x
\t\t}}
\t}}
\treturn s
}}

// Filter{f:02d} keeps the items whose name has the prefix.
func Filter{f:02d}(items []{name}, prefix string) []{name} {{
\tout := make([]{name}, 0, len(items))
\tfor _, it := range items {{
\t\tif strings.HasPrefix(it.Name, prefix) {{
\t\t\tout = append(out, it)
\t\t}}
\t}}
\treturn out
}}

// Index{f:02d} maps names to items.
func Index{f:02d}(items []{name}) map[string]{name} {{
\tm := make(map[string]{name}, len(items))
\tfor _, it := range items {{
\t\tm[it.Name] = it
\t}}
\treturn m
}}
{extra}'''


GO_CHANGE = '''
// Save{n} writes the label somewhere.
func Save{n}(path string, it Item{n}) error {{
\tf, err := os.Create(path)
\tif err != nil {{
\t\treturn err
\t}}
\tdefer f.Close()
\tcount := 0
\tcount = len(it.Label())
\tf.WriteString(it.Label())
\tif count == 0 {{
\t\treturn fmt.Errorf("empty")
\t}}
\treturn nil
}}
'''


def go_project(api: bool = False) -> tuple[dict[str, str], dict[str, str]]:
    """`api`: the change also gives p04's `Total00` a parameter, which breaks its caller in
    p05 (only gopls sees that: golangci-lint runs over the changed package)."""
    base = {"go.mod": "module example.com/shop\n\ngo 1.22\n",
            ".golangci.yml": 'version: "2"\nlinters:\n  default: standard\n'}
    for pkg in range(GO_PACKAGES):
        for f in range(GO_FILES):
            base[f"p{pkg:02d}/f{f:02d}.go"] = _go_file(pkg, f)
    head = {}
    for f in (0, 3):  # files 0 and 3 of p04: imported by p05's files 0, 3, 6, 9
        text = _go_file(4, f, GO_CHANGE.format(n=f"{f:02d}"))
        head[f"p04/f{f:02d}.go"] = text.replace('\t"fmt"\n', '\t"fmt"\n\t"os"\n', 1)
    if api:
        head["p04/f00.go"] = head["p04/f00.go"].replace(
            "func Total00(xs []int) int {", "func Total00(xs []int, scale int) int {").replace(
            "\treturn s\n", "\treturn s * scale\n", 1)
    return base, head


# --- TypeScript ---------------------------------------------------------------------------

ESLINT_CONFIG = """import tseslint from "typescript-eslint";

export default tseslint.config(
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true,
                                        tsconfigRootDir: import.meta.dirname } } },
);
"""
TSCONFIG = """{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "noEmit": true, "skipLibCheck": true
  },
  "include": ["src"]
}
"""


def _ts_file(i: int, extra: str = "") -> str:
    deps = sorted({(i - 1) % TS_FILES, (i * 7 + 3) % TS_FILES} - {i}) if i else []
    imports = "".join(f'import {{ total{d:02d}, type Row{d:02d} }} from "./m{d:02d}.js";\n'
                      for d in deps)
    uses = " + ".join(f"total{d:02d}(xs)" for d in deps) or "0"
    rows = " | ".join(f"Row{d:02d}" for d in deps) or "never"
    return f"""{imports}
export interface Row{i:02d} {{
  id: number;
  name: string;
  tags: readonly string[];
  price?: number;
}}

export type Link{i:02d} = {rows};

export function total{i:02d}(xs: readonly number[]): number {{
  let s = {uses};
  for (const [k, x] of xs.entries()) {{
    s += k % 2 === 0 ? x * {i + 1} : -x;
  }}
  return s;
}}

export class Store{i:02d} {{
  private readonly rows = new Map<number, Row{i:02d}>();

  add(row: Row{i:02d}): void {{
    this.rows.set(row.id, row);
  }}

  byTag(tag: string): Row{i:02d}[] {{
    return [...this.rows.values()].filter((r) => r.tags.includes(tag));
  }}

  async load(fetcher: (id: number) => Promise<Row{i:02d}>, ids: number[]): Promise<number> {{
    const rows = await Promise.all(ids.map((id) => fetcher(id)));
    rows.forEach((r) => this.add(r));
    return rows.length;
  }}
}}
{extra}"""


TS_CHANGE = """
export async function refresh{n}(store: Store{n}): Promise<string> {{
  store.load(async (id) => ({{ id, name: "x", tags: [] }}), [1, 2]);
  const count: number = store.byTag("a").map((r) => r.name).join(",");
  return `${{count}}`;
}}
"""


def ts_project() -> tuple[dict[str, str], dict[str, str]]:
    base = {"package.json": '{"name": "lib", "private": true, "type": "module"}\n',
            "tsconfig.json": TSCONFIG, "eslint.config.js": ESLINT_CONFIG}
    for i in range(TS_FILES):
        base[f"src/m{i:02d}.ts"] = _ts_file(i)
    head = {f"src/m{i:02d}.ts": _ts_file(i, TS_CHANGE.format(n=f"{i:02d}")) for i in (10, 40)}
    return base, head


# --- Python -------------------------------------------------------------------------------

def _py_file(i: int, extra: str = "") -> str:
    deps = sorted({(i - 1) % PY_FILES, (i * 7 + 3) % PY_FILES} - {i}) if i else []
    imports = "".join(f"from pkg.m{d:02d} import Row{d:02d}, total{d:02d}\n" for d in deps)
    uses = " + ".join(f"total{d:02d}(xs)" for d in deps) or "0"
    return f'''"""Module {i}."""

from __future__ import annotations

from dataclasses import dataclass, field

{imports}

@dataclass
class Row{i:02d}:
    id: int
    name: str
    tags: list[str] = field(default_factory=list)
    price: float | None = None

    def label(self) -> str:
        return f"{{self.id}}:{{self.name}}[{{','.join(self.tags)}}]"


def total{i:02d}(xs: list[int]) -> int:
    s = {uses}
    for k, x in enumerate(xs):
        s += x * {i + 1} if k % 2 == 0 else -x
    return s


class Store{i:02d}:
    def __init__(self) -> None:
        self.rows: dict[int, Row{i:02d}] = {{}}

    def add(self, row: Row{i:02d}) -> None:
        self.rows[row.id] = row

    def by_tag(self, tag: str) -> list[Row{i:02d}]:
        return [r for r in self.rows.values() if tag in r.tags]
{extra}'''


PY_CHANGE = '''

def refresh{n}(store: Store{n}) -> int:
    count: int = ",".join(r.name for r in store.by_tag("a"))
    return count
'''


def py_project() -> tuple[dict[str, str], dict[str, str]]:
    base = {"pyrightconfig.json": '{"typeCheckingMode": "standard"}\n', "pkg/__init__.py": ""}
    for i in range(PY_FILES):
        base[f"pkg/m{i:02d}.py"] = _py_file(i)
    head = {f"pkg/m{i:02d}.py": _py_file(i, PY_CHANGE.format(n=f"{i:02d}")) for i in (10, 40)}
    return base, head
