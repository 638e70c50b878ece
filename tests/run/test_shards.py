"""The shard plan (deterministic, balanced by bytes, a tool with the tools it defers to) and a
shard's part in the artifact: what it writes validates against the schema and reads back
equal; the reader and the schema agree on odd values; a line map that is not its file's is
refused."""

from __future__ import annotations

import copy
import itertools
import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from bot.errors import ArtifactError
from bot.run import artifact, shards
from bot.run import part as shard_part
from bot.run.pipeline import ReviewOptions, begin, conclude, gather
from bot.run.shards import Group, Shard
from tests.conftest import GitRepo, require_tool
from tests.run.test_artifact import _leaves, reader_and_schema_agree


def test_groups_are_balanced_by_bytes_largest_first() -> None:
    shares = {"ruff": [("a.py",), ("b.py",), ("c.py",), ("d.py",)], "eslint": [("x.js",)]}
    sizes = {"a.py": 50, "b.py": 40, "c.py": 30, "d.py": 20, "x.js": 60}
    plan = shards.assign(shards.groups(shares, {}, sizes), 2)
    assert [[g.paths for g in shard] for shard in plan] == [
        [("x.js",), ("c.py",), ("d.py",)], [("a.py",), ("b.py",)]]
    assert [sum(g.size for g in shard) for shard in plan] == [110, 90]
    # The same inputs in any order: the same plan (every shard computes it alone).
    again = shards.assign(list(reversed(shards.groups(
        dict(reversed(shares.items())), {}, sizes))), 2)
    assert again == plan
    assert shards.mine(plan, Shard(2, 2)) == {"ruff": frozenset({"a.py", "b.py"})}


def test_a_tool_goes_with_the_tools_it_defers_to() -> None:
    shares = {"golangci-lint": [("a/x.go",), ("b/y.go",)], "gopls": [("a/x.go", "b/y.go", "z.py")],
              "ruff": [("z.py",)]}
    groups = shards.groups(shares, {"gopls": ("golangci-lint", "clippy")}, {"z.py": 5})
    assert sorted((g.tools, g.paths) for g in groups) == [
        (("golangci-lint", "gopls"), ("a/x.go", "b/y.go", "z.py")), (("ruff",), ("z.py",))]


def test_more_shards_than_work_leaves_some_empty() -> None:
    plan = shards.assign([Group(("ruff",), ("a.py",), 3)], 3)
    assert [len(s) for s in plan] == [1, 0, 0]
    assert shards.mine(plan, Shard(3, 3)) == {}


@pytest.mark.parametrize(("text", "says"), [
    ("0/2", "expected I/N"), ("3/2", "from 1 to 2"), ("1/257", "at most 256"), ("x", "I/N")])
def test_bad_shard_specs(text: str, says: str) -> None:
    with pytest.raises(shards.BotError) as info:
        shards.parse(text)
    assert says in info.value.message


@pytest.fixture(scope="module")
def part_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    require_tool("ruff")
    repo = GitRepo(tmp_path_factory.mktemp("shards") / "repo")
    repo.commit({"ruff.toml": '[lint]\nselect = ["F"]\n', "a.py": "import os\n\n\nx = 1\n",
                 "old.py": "import re\n\n\ndef f():\n    return 1\n", "gone.py": "import json\n"},
                "base")
    repo.branch("feature")
    repo.commit({"a.py": "import os\nimport sys\n\n\nx = 2\n", "old.py": None,
                 "new.py": "import re\n\n\ndef f():\n    y = 1\n    return 1\n", "gone.py": None})
    opts = ReviewOptions(repo=repo.path, base="main", shard=Shard(1, 1))
    gathered = gather(opts, begin(opts))
    result = conclude(replace(gathered, base=(), head=()))
    analysis = replace(artifact.build(result, {}, repository="octo/demo", number=7,
                                      base_sha=result.merge_base, target_ref="main"),
                       part=shard_part.of(1, 1, gathered.plan, gathered.base, gathered.head,
                                          gathered.unbaselined, gathered.evidence))
    doc: dict[str, object] = json.loads(artifact.dump(analysis))
    assert artifact.load(artifact.dump(analysis)) == analysis
    return doc


def test_a_part_validates_and_carries_what_the_classifier_reads(part_doc: dict[str, object]
                                                                 ) -> None:
    jsonschema.Draft202012Validator(artifact.schema()).validate(part_doc)
    shard = part_doc["shard"]
    assert isinstance(shard, dict)
    assert sorted({f["path"] for f in shard["head"]}) == ["a.py", "new.py"]
    assert sorted({f["path"] for f in shard["base"]}) == ["a.py", "gone.py", "old.py"]
    # Each finding's file pair, both sides (the rename's old name at the base).
    assert sorted(shard["files"]["head"]) == ["a.py", "new.py"]
    assert sorted(shard["files"]["base"]) == ["a.py", "gone.py", "old.py"]
    assert shard["maps"]["a.py"]["status"] == [[2, "added"], [5, "modified"]]
    assert shard["maps"]["a.py"]["same"] == [[1, 1, 1], [2, 3, 2]]


def test_the_reader_and_the_schema_agree_on_a_part(part_doc: dict[str, object]) -> None:
    assert reader_and_schema_agree(part_doc, _leaves(part_doc["shard"], ("shard",))) > 20


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda s: s["maps"]["a.py"].update(head_count=99), "shard.maps['a.py'].head_count"),
    (lambda s: s["maps"]["a.py"]["same"].append([1, 4, 5]), "shard.maps['a.py'].same[2][2]"),
    (lambda s: s["maps"]["a.py"]["status"].append([9, "added"]), "shard.maps['a.py'].status[2][0]"),
    (lambda s: s["maps"]["a.py"]["status"].append([1, "moved"]), "shard.maps['a.py'].status[2][1]"),
    (lambda s: s["files"]["head"].pop("a.py"), "shard.maps['a.py']"),
    (lambda s: s.update(index=2), "shard.index"),
    (lambda s: s["files"]["base"].update({"../x.py": ""}), "shard.files.base['../x.py']"),
    (lambda s: s["unbaselined"].append(["ruff", "/abs.py"]), "shard.unbaselined[0]"),
])
def test_a_bad_part_is_refused_naming_the_field(part_doc: dict[str, object], mutate: object,
                                                field: str) -> None:
    doc = copy.deepcopy(part_doc)
    mutate(doc["shard"])  # type: ignore[operator]
    with pytest.raises(ArtifactError) as info:
        artifact.load(json.dumps(doc).encode())
    assert info.value.field == field, info.value.message


def test_the_schema_file_describes_the_shard_fields() -> None:
    schema = json.loads((Path(artifact.__file__).parents[1] / "schemas" / artifact.SCHEMA).read_text())
    assert set(schema["$defs"]["shard"]["required"]) == set(shard_part.PART_KEYS)
    assert set(schema["$defs"]["lineMap"]["required"]) == set(shard_part.MAP_KEYS)


def test_shares_of_one_file_pair_are_one_group() -> None:
    """A renamed file's two paths name one pair: its shares join, and it goes to one shard."""
    assert shards.disjoint([("new.py",), ("a.py",), ("new.py",), ("b.py", "a.py"), ()]) == [
        ("new.py",), ("a.py", "b.py")]
    groups = shards.groups({"ruff": [("new.py",), ("new.py",), ("x.py",)]}, {}, {"new.py": 4})
    assert [(g.paths, g.size) for g in groups] == [(("new.py",), 4), (("x.py",), 0)]


def _assembled(repo: GitRepo, count: int, tmp_path: Path, only: tuple[str, ...]
               ) -> tuple[list[tuple[object, ...]], list[set[str]]]:
    """The verdicts of `count` parts put together, and each part's files with findings."""
    from bot.run.assemble import assemble

    analyses, held = [], []
    for index in range(1, count + 1):
        opts = ReviewOptions(repo=repo.path, base="main", only=only,
                             cache_dir=tmp_path / f"c{count}-{index}", shard=Shard(index, count))
        gathered = gather(opts, begin(opts))
        result = conclude(replace(gathered, base=(), head=()))
        analyses.append(replace(
            artifact.build(result, {}, repository=None, number=None, base_sha=result.merge_base,
                           target_ref="main"),
            part=shard_part.of(index, count, gathered.plan, gathered.base, gathered.head,
                               gathered.unbaselined, gathered.evidence)))
        held.append({f.path for f in (*gathered.base, *gathered.head)})
    merged = assemble(analyses, [f"part-{i}" for i in range(1, count + 1)])
    return _verdicts(merged.result), held


def _verdicts(result: object) -> list[tuple[object, ...]]:
    return sorted((v.finding.path, v.finding.line, v.finding.rule, v.scope, v.where,
                   v.fingerprint) for v in result.findings + result.fixed)  # type: ignore[attr-defined]


def test_a_package_scoped_linter_is_divided_by_package(repo: GitRepo, tmp_path: Path) -> None:
    """golangci-lint over three changed packages: each package is checked whole in one part,
    and the parts give the unsharded verdicts (moved, new and fixed findings)."""
    from bot.run.pipeline import run_review

    require_tool("golangci-lint")
    config = 'version: "2"\nlinters:\n  default: none\n  enable: [errcheck, misspell]\n'
    opened = '\tf, _ := os.Open("a")\n\tf.Close()\n'
    repo.commit({"go.mod": "module example.com/m\n\ngo 1.22\n", ".golangci.yml": config,
                 "lib/lib.go": "package lib\n\nfunc Name() string { return \"x\" }\n",
                 "use/use.go": 'package use\n\nimport "os"\n\nfunc U() {\n' + opened + "}\n",
                 "io/io.go": 'package io\n\nimport "os"\n\nfunc F() {\n' + opened + "}\n"})
    repo.branch("feat")
    repo.commit({"lib/lib.go": "package lib\n\n// Name does the recieve side\n"
                               "func Name() string { return \"x\" }\n",
                 "use/use.go": "package use\n\nfunc U() {\n}\n",
                 "io/io.go": 'package io\n\nimport "os"\n\n// F opens\nfunc F() {\n' + opened
                             + '\tg, _ := os.Open("b")\n\tg.Close()\n}\n'})
    only = ("golangci-lint",)
    whole = _verdicts(run_review(ReviewOptions(repo=repo.path, base="main", only=only,
                                               cache_dir=tmp_path / "whole")))
    assert [v[:5] for v in whole] == [
        ("io/io.go", 8, "errcheck", "preexisting", None),
        ("io/io.go", 10, "errcheck", "introduced", "diff"),
        ("lib/lib.go", 3, "misspell", "introduced", "diff"),
        ("use/use.go", 7, "errcheck", "fixed", None)]
    for count in (2, 3):
        verdicts, held = _assembled(repo, count, tmp_path, only)
        assert verdicts == whole, count
        assert sum(1 for files in held if files) >= 2  # the packages went to different parts
        for a, b in itertools.combinations(held, 2):
            assert not a & b  # no file's findings computed twice
