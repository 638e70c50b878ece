"""What other packages can see of a Go package's change (bot.lsp.surface), on real source."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.lsp import surface

BASE = '''//go:build linux

// Package calc adds.
package calc

import (
\t"fmt"
\t"strings"
)

// Item is one record.
type Item struct {
\tID   int    `json:"id"`
\tname string
}

// Label formats the item.
func (it Item) Label() string {
\treturn fmt.Sprintf("%d:%s", it.ID, strings.ToUpper(it.name))
}

// Add adds.
func Add(a, b int) int {
\treturn a + b
}

// Logf writes a line.
func Logf(format string, args ...any) {
\t_ = format
\t_ = args
}

// Stop ends.
func Stop() error {
\treturn nil
}

func init() { _ = 1 }

var _ fmt.Stringer = (*named)(nil)

type named struct{}

func (*named) String() string { return "" }

const (
\tA = iota
\tB
)

var Default = Item{ID: 1}

// Clear resets the items.
func Clear(xs []Item) {
\tfor i := range xs {
\t\txs[i].ID = 0
\t}
}
'''


def parse(text: str) -> surface.FileSurface | None:
    return surface.parse(text.encode())


def change(old: str, new: str, *, dot: bool = False) -> str | None:
    return surface.package_change([parse(BASE)],
                                  [parse(BASE.replace(old, new, 1))], dot)


@pytest.mark.parametrize(("old", "new"), [
    ("\treturn a + b\n", "\tif a < 0 {\n\t\treturn -a + b\n\t}\n\treturn a + b\n"),
    ('\treturn fmt.Sprintf("%d:%s", it.ID, strings.ToUpper(it.name))',
     '\treturn fmt.Sprint(it.ID)'),
    ('\t"strings"\n', '\t"strings"\n\t"os"\n'),  # import lists are the file's own business
    ("func init() { _ = 1 }", "func init() { _ = 2 }"),
    ("(*named)(nil)", "named{}"),  # a `var _` check speaks only to its own package
    ("func Add(a, b int) int {\n", "func   Add(a,  b int)   int {\n"),  # layout
    ("// Stop ends.\n", "// Extra is new.\nfunc Extra() {}\n\n// Stop ends.\n"),
    ("// Stop ends.\n", "// Extra is new.\ntype Extra int\n\n// Stop ends.\n"),
    ("\t\txs[i].ID = 0\n\t}\n}\n", "\t\txs[i].ID = 0\n\t}\n}\n\n// the end\n"),
    # bodies that surely reach their end: a loop over a range, an `if` with no `else`
    ("func Stop() error {\n\treturn nil\n}",
     "func Stop() error {\n\tfor range 3 {\n\t}\n\treturn nil\n}"),
    ("\t\txs[i].ID = 0\n", "\t\txs[i].ID = -1\n"),
    ("\t\txs[i].ID = 0\n\t}\n", "\t\txs[i].ID = 0\n\t}\n\tif len(xs) > 0 {\n\t\txs[0].ID = 1\n\t}\n"),
])
def test_what_importers_cannot_see(old: str, new: str) -> None:
    assert change(old, new) is None


@pytest.mark.parametrize(("old", "new", "why"), [
    ("func Add(a, b int) int", "func Add(a, b, c int) int", "func Add changed"),
    ("\tname string\n", "\tname []string\n", "type Item changed"),  # comparability
    ('`json:"id"`', '`json:"id,omitempty"`', "type Item changed"),  # struct type identity
    ("// Add adds.", "// Add adds.\n//\n// Deprecated: use Sum.", "func Add changed"),
    ("\tB\n)", "\tC\n\tB\n)", "const A,B was removed"),  # iota: the group is one
    ("\tB\n)", ")", "const A,B was removed"),
    ("var Default = Item{ID: 1}", "var Default = &Item{ID: 1}", "var Default changed"),
    ("//go:build linux", "//go:build linux && amd64", "build constraints"),
    ("package calc\n", "package calc2\n", "package clause"),
    ("// Package calc adds.", "// Package calc adds.\n//\n// Deprecated: gone.", "package clause"),
    ("\t\txs[i].ID = 0\n\t}\n}\n", "\t\txs[i].ID = 0\n\t}\n}\n\n//go:linkname x y\n",
     "package clause"),
    ("\treturn nil\n}", "\treturn nil\n}\n\nfunc (it Item) Size() int { return 1 }",
     "method Item.Size was added"),
    ("// Stop ends.\nfunc Stop() error {\n\treturn nil\n}\n", "", "func Stop was removed"),
    # printf: the wrapper's body decides whether importers' calls are checked as printf calls
    ("\t_ = format\n\t_ = args\n", '\tfmt.Printf(format, args...)\n', "body of func Logf"),
    # ctrlflow: a function that may never return changes what importers' lostcancel sees
    ("func Stop() error {\n\treturn nil", 'func Stop() error {\n\tpanic("stop")', "body of func Stop"),
    ("func Stop() error {\n\treturn nil", "func Stop() error {\n\tfor {\n\t}", "body of func Stop"),
    ("func Stop() error {\n\treturn nil",
     "func Stop() error {\n\tif true {\n\t\treturn nil\n\t} else {\n\t\treturn nil\n\t}",
     "body of func Stop"),
    ("\treturn a + b\n}", "\tdefer func() { log.Fatal(a) }()\n\treturn a + b\n}", "body of func Add"),
    ("// Add adds.\n", "// Add adds.\n//go:fix inline\n", "func Add changed"),
    ("\t\txs[i].ID = 0\n\t}\n", "\t\txs[i].ID = 0\n\t}\n\tfmt.Println(xs)\n", "body of func Clear"),
])
def test_what_importers_may_see(old: str, new: str, why: str) -> None:
    assert BASE.count(old) >= 1, old
    reason = change(old, new)
    assert reason is not None and why in reason, reason


def test_an_added_name_matters_to_a_dot_import() -> None:
    grown = ("// Stop ends.\n", "// Extra is new.\nfunc Extra() {}\n\n// Stop ends.\n")
    assert change(*grown) is None
    assert "imported with '.'" in (change(*grown, dot=True) or "")
    assert surface.added([parse(BASE)], [parse(BASE.replace(*grown))])
    assert not surface.added([parse(BASE)], [parse(BASE)])


def test_a_declaration_moved_between_two_changed_files_is_no_change() -> None:
    add = "// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
    rest = BASE.replace(add, "")
    other = "package calc\n"
    assert surface.package_change([parse(BASE), parse(other)],
                                  [parse(rest), parse(other + "\n" + add)]) is None
    # The same name declared twice is an error of its own: no claim about it.
    assert surface.package_change([parse(BASE)],
                                  [parse(BASE), parse(other + add)]) is not None


def test_what_does_not_parse_is_a_change() -> None:
    broken = BASE.replace("func Add(a, b int) int {", "func Add(a, b int) int {{")
    assert parse(broken) is None
    assert surface.package_change([parse(BASE)], [None]) == "a changed file does not parse"


def test_cgo_preamble_is_part_of_the_package() -> None:
    cgo = 'package p\n\n// #define N 1\nimport "C"\n\nfunc N() int { return int(C.N) }\n'
    assert surface.package_change([parse(cgo)],
                                  [parse(cgo.replace("N 1", "N 2"))]) is not None
    assert surface.package_change([parse(cgo)],
                                  [parse(cgo.replace("int(C.N)", "int(C.N) + 0"))]) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([" ", "\t", "  "]), min_size=1, max_size=8))
def test_spacing_between_tokens_never_counts(spaces: list[str]) -> None:
    """gofmt moving whitespace around is not a change; whitespace inside a tag is."""
    lines = BASE.splitlines(keepends=True)
    spaced = "".join(line.replace(" ", spaces[i % len(spaces)]) if "`" not in line and '"' not in line
                     and not line.startswith("//") else line for i, line in enumerate(lines))
    assert change(BASE, spaced) is None
    assert change('`json:"id"`', '`json:"id "`') is not None
