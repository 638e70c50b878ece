"""The analysis artifact: rendering from a loaded artifact is rendering from the files; what
it writes always validates against its schema and reads back equal; untrusted input is refused
with the field and the reason; shards merge into one analysis."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import ArtifactError, Exit
from bot.model import FileChange, Finding, ReviewResult, Severity, Span, ToolRun, Verdict
from bot.publishing import summary
from bot.publishing.gate import decide
from bot.publishing.placement import Placed
from bot.publishing.policy import Policy, cap, demote, place
from bot.render.dialect import Dialect
from bot.revisions import workspace
from bot.run import artifact
from bot.run.artifact import Analysis
from bot.run.excerpt import Excerpt
from bot.run.pipeline import ReviewOptions, run_review
from tests import strategies as s
from tests.conftest import GitRepo, require_tool

RUFF = '[lint]\nselect = ["F", "SIM", "E711", "I001"]\n'
NAMES = ("sys", "os", "re", "json", "glob", "time", "math", "abc", "csv")
FILLER = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(12))
BASE = {
    "ruff.toml": RUFF,
    "app.py": "import os\nimport sys\n\n\n" + FILLER
              + "def old():\n    x = os.getcwd()\n    return sys.argv\n",
    "util.py": "import glob\nimport json\n\n\n" + FILLER + "def gone():\n    return json.dumps(1)\n",
    "crlf.py": "x = 1\r\n",
}
HEAD = {
    # F401 with a fix deleting line 1 (the suggestion reads the next line too); F821 `os`
    # broken on an untouched line (elsewhere), next to a preexisting F841.
    "app.py": "import re\nimport sys\n\n\n" + FILLER
              + "def old():\n    x = os.getcwd()\n    return sys.argv\n"
              "\n\ndef new(flag, value):\n"
              "    if flag:\n        result = value\n    else:\n        result = None\n"  # SIM108, 4 lines
              "    if value == None:\n        pass\n"  # E711, unsafe fix
              "    if flag:\n        if value:\n            return 1\n"  # SIM102, 2 lines
              "    return result\n",
    # `json` unused on an unchanged line (elsewhere, with a fix); `glob` removed (fixed).
    "util.py": "import json\n\n\n" + FILLER + "def gone():\n    return 2\n",
    "crlf.py": "import os\r\nx = 1\r\n",  # CRLF line endings survive the round trip
    # I001 over 9 lines: its frame shows 6 flagged lines, its suggestion replaces all 9.
    "imports.py": "".join(f"import {m}\n" for m in NAMES) + f"\nprint({', '.join(NAMES)})\n",
    # SIM102 over lines 2-9: its frame ends at line 8, its fix ends inside line 10.
    "nested.py": "def g(flag, value):\n    if (flag\n" + "            and value\n" * 5
                 + "            and value):\n        if value:\n            return 1\n    return 0\n",
}


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReviewResult, dict[str, list[str]]]:
    require_tool("ruff")
    repo = GitRepo(tmp_path_factory.mktemp("artifact") / "repo")
    repo.commit(BASE, "base")
    repo.branch("feature")
    repo.commit(HEAD, "head")
    result = run_review(ReviewOptions(repo=repo.path, base="main"))
    texts = workspace.texts(repo.path, result.head, [v.finding.path for v in result.findings])
    return result, texts


def analysis_of(result: ReviewResult, texts: dict[str, list[str]]) -> Analysis:
    return artifact.build(result, texts, repository="octo/demo", number=7, base_sha=result.merge_base,
                          target_ref="main")


def test_the_scenario_has_what_the_acceptance_test_needs(
        reviewed: tuple[ReviewResult, dict[str, list[str]]]) -> None:
    result, _ = reviewed
    seen = {(v.scope, v.where, v.finding.rule) for v in result.findings}
    assert {("introduced", "diff", "F401"), ("introduced", "diff", "SIM108"),
            ("introduced", "diff", "SIM102"), ("introduced", "diff", "E711"),
            ("introduced", "elsewhere", "F821"), ("introduced", "elsewhere", "F401"),
            ("preexisting", None, "F841")} <= seen
    assert [v.finding.rule for v in result.fixed] == ["F401"]
    multi = [v for v in result.findings if v.finding.span.end_line > v.finding.span.line]
    assert multi and all(v.finding.fix for v in multi)


# GitHub's suggestion fence replaces the commented lines; GitLab's counts lines from the anchor.
DIALECTS = [Dialect("github", 65_536, True, lambda start, end, anchor: "suggestion"),
            Dialect("gitlab", 1_000_000, False,
                    lambda start, end, anchor: f"suggestion:-{anchor - start}+{end - anchor}")]


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@pytest.mark.parametrize("max_inline", [50, 2])  # 2: some comments fold into the summary
def test_rendering_from_the_artifact_is_rendering_from_the_files(
        reviewed: tuple[ReviewResult, dict[str, list[str]]], max_inline: int, dialect: Dialect) -> None:
    result, texts = reviewed
    loaded = artifact.load(artifact.dump(analysis_of(result, texts)))
    assert loaded.result == result
    policy = Policy(max_inline=max_inline)
    items = cap(place(result, texts, policy, dialect=dialect), frozenset(), policy)
    again = cap(place(loaded.result, loaded.texts, policy, dialect=dialect), frozenset(), policy)
    assert again == items
    assert any(i.kind == "inline" and i.body and "```suggestion" in i.body.text for i in items)
    assert any(i.kind == "summary" for i in items) == (max_inline == 2)
    gate = decide(result)
    page = summary.render(result, Placed(items), gate, texts)
    assert summary.render(loaded.result, Placed(again), gate, loaded.texts) == page
    assert "Caused outside the diff (2)" in page and "█" in page.split("Caused outside")[1]
    for item in items:  # a comment the forge refuses is re-rendered on the file from the same lines
        path = item.verdict.finding.path
        assert demote(item, "r", loaded.texts.get(path, ()), dialect=dialect) == \
            demote(item, "r", texts.get(path, []), dialect=dialect)


def test_the_artifact_keeps_only_the_lines_renderers_read(
        reviewed: tuple[ReviewResult, dict[str, list[str]]]) -> None:
    result, texts = reviewed
    kept = analysis_of(result, texts).texts
    app = kept["app.py"]
    assert isinstance(app, Excerpt) and len(app) == len(texts["app.py"])
    assert 0 < len(app.known) < len(texts["app.py"]) / 2
    assert all(texts["app.py"][n - 1] == line for n, line in app.known.items())
    sim108 = next(v.finding for v in result.findings if v.finding.rule == "SIM108")
    frame = set(range(sim108.span.line - 1, sim108.span.end_line + 2))  # one line of context
    assert {1, 2} | frame <= set(app.known) and 3 not in app.known
    assert set(kept["imports.py"].known) == set(range(1, 11))  # frame 1..7, suggestion 1..10
    assert set(kept["nested.py"].known) == set(range(1, 11))  # frame 1..8, suggestion 2..10
    assert kept["crlf.py"].known[1] == "import os\r\n"


def test_what_is_written_validates_against_the_shipped_schema(
        reviewed: tuple[ReviewResult, dict[str, list[str]]]) -> None:
    result, texts = reviewed
    doc = json.loads(artifact.dump(analysis_of(result, texts)))
    jsonschema.Draft202012Validator(artifact.schema()).validate(doc)
    assert doc["kind"] == "reviewbot-analysis" and doc["version"] == 1
    assert doc["repository"] == "octo/demo" and doc["number"] == 7
    assert doc["merge_base"] == doc["result"]["merge_base"] and doc["head_sha"] == doc["result"]["head"]
    verdict = next(v for v in doc["result"]["findings"] if v["rule"] == "SIM108")
    assert verdict["fix"]["applicability"] == "unsafe" and verdict["fingerprint"]
    assert doc["result"]["changes"] and all(c["hunk_lines"] for c in doc["result"]["changes"]
                                            if c["path"] == "app.py")


def test_the_schema_is_shipped_as_package_data() -> None:
    from importlib import resources
    assert resources.files("bot").joinpath("schemas", artifact.SCHEMA).is_file()
    jsonschema.Draft202012Validator.check_schema(artifact.schema())


# --- generated analyses: round trip and schema -------------------------------------------------

def excerpts() -> st.SearchStrategy[Excerpt]:
    def build(size: int) -> st.SearchStrategy[Excerpt]:
        body = st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=8)

        def line(n: int) -> st.SearchStrategy[str]:
            ending = st.sampled_from(["\n", "\r\n"]) if n < size else st.sampled_from(["", "\n"])
            return st.tuples(body, ending).map("".join)
        numbers = st.sets(st.integers(1, size), max_size=5) if size else st.just(set())
        return numbers.flatmap(lambda ns: st.fixed_dictionaries({n: line(n) for n in ns})) \
            .map(lambda known: Excerpt(size, known))
    return st.integers(0, 30).flatmap(build)


def analyses() -> st.SearchStrategy[Analysis]:
    repository = st.none() | st.sampled_from(["octo/demo", "a-b/c.d", "x/.github", "group/sub/name"])
    return st.builds(
        lambda result, repo, number, base, target, texts: Analysis(
            repo, number, base, result.head, target, result, texts),
        s.results(s.clean_paths, s.shas), repository, st.none() | st.integers(1, 10**6), s.shas,
        s.texts, st.dictionaries(s.clean_paths, excerpts(), max_size=3))


@settings(max_examples=100, deadline=None)
@given(analyses())
def test_generated_analyses_round_trip_and_validate(analysis: Analysis) -> None:
    data = artifact.dump(analysis)
    jsonschema.Draft202012Validator(artifact.schema()).validate(json.loads(data))
    assert artifact.load(data) == analysis


# --- untrusted input ---------------------------------------------------------------------------

SHA_A, SHA_B, SHA_C = "a" * 40, "b" * 40, "c" * 40
FINDING = Finding("ruff", "F401", Severity.ERROR, "unused", "src/a.py", Span(2, 1, 2, 5))


def small(**texts: Excerpt) -> Analysis:
    verdict = Verdict(FINDING, "introduced", "fp", "diff", base=replace(FINDING, path="src/old.py"))
    result = ReviewResult("main", SHA_A, SHA_B, (ToolRun("ruff", "0.17.6", "ok"),), (verdict,), (),
                          (FileChange("src/a.py", "src/old.py", "renamed", frozenset({2}),
                                      frozenset({1, 2, 3})),), unbaselined=frozenset({"src/a.py"}))
    return Analysis("octo/demo", 7, SHA_C, SHA_B, "main", result,
                    texts or {"src/a.py": Excerpt(3, {2: "import os\n"})})


def raw_doc() -> dict[str, Any]:
    return json.loads(artifact.dump(small()))


def refused(data: bytes, **kw: Any) -> ArtifactError:
    with pytest.raises(ArtifactError) as info:
        artifact.load(data, **kw)
    assert info.value.code == Exit.USAGE
    assert "\n" not in info.value.message
    return info.value


def test_the_byte_cap_is_checked_before_parsing() -> None:
    error = refused(b"{" * 100, max_bytes=99)
    assert error.field == "artifact" and "100 bytes, over the limit of 99" in error.why
    assert artifact.load(artifact.dump(small()), max_bytes=len(artifact.dump(small()))) == small()


@pytest.mark.parametrize("data,why", [
    (b"\xff\xfe", "not UTF-8"),
    (b"{not json", "not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"kind": "reviewbot-analysis", "kind": "x"}', "appears twice"),
    (b'{"number": NaN}', "NaN is not a JSON number"),
    (b"[]", "expected a JSON object"),
])
def test_what_is_not_an_artifact_is_refused(data: bytes, why: str) -> None:
    assert why in refused(data).why


Mutation = Callable[[dict[str, Any]], Any]
FINDING0 = "result.findings[0]"


@pytest.mark.parametrize("mutate,field,why", [
    (lambda d: d.update(kind="sarif"), "kind", "expected 'reviewbot-analysis'"),
    (lambda d: d.update(version=2), "version", "reads version 1, not 2"),
    (lambda d: d.update(extra=1), "extra", "unexpected key"),
    (lambda d: d.pop("texts"), "texts", "missing"),
    (lambda d: d.update(head_sha="B" * 40), "head_sha", "full commit sha"),
    (lambda d: d.update(base_sha="abc123"), "base_sha", "full commit sha"),
    (lambda d: d.update(merge_base=SHA_C), "merge_base", "differs from result.merge_base"),
    (lambda d: d.update(head_sha=SHA_C), "head_sha", "differs from result.head"),
    (lambda d: d["result"].update(merge_base="main"), "result.merge_base", "full commit sha"),
    (lambda d: d.update(repository="../x"), "repository", "expected owner/name"),
    (lambda d: d.update(repository="a/./c"), "repository", "expected owner/name"),
    (lambda d: d.update(repository="demo"), "repository", "expected owner/name"),
    (lambda d: d.update(number=0), "number", "positive integer"),
    (lambda d: d.update(number="7"), "number", "positive integer"),
    (lambda d: d.update(number=True), "number", "positive integer"),
    (lambda d: d["result"]["findings"][0].update(line=0), f"{FINDING0}.line", "positive integer"),
    (lambda d: d["result"]["findings"][0].update(end_column=-3), f"{FINDING0}.end_column", "positive"),
    (lambda d: d["result"]["findings"][0].update(path="../etc/passwd"), f"{FINDING0}.path", "`..`"),
    (lambda d: d["result"]["findings"][0].update(path="/etc/passwd"), f"{FINDING0}.path", "absolute"),
    (lambda d: d["result"]["findings"][0].update(path="a\\b.py"), f"{FINDING0}.path", "backslash"),
    (lambda d: d["result"]["findings"][0].update(path="a\0b.py"), f"{FINDING0}.path", "NUL"),
    (lambda d: d["result"]["findings"][0].update(path="a//b.py"), f"{FINDING0}.path", "empty segment"),
    (lambda d: d["result"]["findings"][0].update(path="a/"), f"{FINDING0}.path", "empty segment"),
    (lambda d: d["result"]["findings"][0].update(path="./a.py"), f"{FINDING0}.path", "`.` segment"),
    (lambda d: d["result"]["findings"][0].update(path=""), f"{FINDING0}.path", "empty"),
    (lambda d: d["result"]["findings"][0]["base"].update(path="x/../../y"), f"{FINDING0}.base.path",
     "`..`"),
    (lambda d: d["result"]["findings"][0].update(fix={
        "description": "", "applicability": "safe",
        "edits": [{"path": "/tmp/x", "line": 1, "column": 1, "end_line": 1, "end_column": 1,
                   "new_text": ""}]}), f"{FINDING0}.fix.edits[0].path", "absolute"),
    (lambda d: d["result"]["changes"][0].update(old_path=".."), "result.changes[0].old_path", "`..`"),
    (lambda d: d["result"]["changes"][0].update(path="C:\\x"), "result.changes[0].path", "backslash"),
    (lambda d: d["result"].update(unbaselined=["/abs"]), "result.unbaselined[0]", "absolute"),
    # Caught by the schema only (the decoder would collapse the set):
    (lambda d: d["result"]["changes"][0].update(hunk_lines=[1, 1]), "result.changes[0].hunk_lines",
     "non-unique"),
    (lambda d: d["texts"].update({"../a.py": {"line_count": 0, "lines": {}}}), "texts['../a.py']",
     "`..`"),
    (lambda d: d["texts"]["src/a.py"].update(line_count=10**9), "texts['src/a.py'].line_count",
     "from 0 to"),
    (lambda d: d["texts"]["src/a.py"].update(line_count=1), "texts['src/a.py'].lines['2']",
     "line count 1"),
    (lambda d: d["texts"]["src/a.py"]["lines"].update({"0": "x\n"}), "texts['src/a.py'].lines['0']",
     "line number"),
    (lambda d: d["texts"]["src/a.py"]["lines"].update({"01": "x\n"}), "texts['src/a.py'].lines['01']",
     "line number"),
    (lambda d: d["texts"]["src/a.py"]["lines"].update({"1": "a\nb\n"}), "texts['src/a.py'].lines['1']",
     "one line"),
    (lambda d: d["texts"]["src/a.py"]["lines"].update({"1": "no ending"}),
     "texts['src/a.py'].lines['1']", "one line"),
    (lambda d: d["texts"]["src/a.py"]["lines"].update({"1": 5}), "texts['src/a.py'].lines['1']",
     "expected a string"),
    (lambda d: d["texts"]["src/a.py"].pop("lines"), "texts['src/a.py'].lines", "missing"),
])
def test_bad_fields_are_named_with_the_reason(mutate: Mutation, field: str, why: str) -> None:
    doc = raw_doc()
    mutate(doc)
    error = refused(json.dumps(doc).encode())
    assert (error.field, why in error.why) == (field, True), error.message
    assert error.message.startswith(f"invalid analysis artifact: {field}: ")


ODD_VALUES = (0, -1, 1.5, True, False, None, "", "x", "../a", "/abs", "a\\b", "a\0b", "f" * 40,
              {}, [], "ERROR", [1, 1], ["a", "a"], [[1, 2]], 10**20)


def _leaves(doc: Any, path: tuple[str | int, ...] = ()) -> Any:
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc[:2]):
            yield from _leaves(value, (*path, index))
    if path:
        yield path


def test_what_the_reader_takes_and_would_write_back_the_same_validates(
        reviewed: tuple[ReviewResult, dict[str, list[str]]]) -> None:
    """`load` skips the schema (about two seconds per megabyte) for a document that is exactly
    what `dump` writes for what was read: every field of a real artifact (two of each list) set
    to odd values, the reader's verdict and the schema's must then agree."""
    doc = json.loads(artifact.dump(analysis_of(*reviewed)))
    lists = doc["result"]
    for key, value in lists.items():
        if isinstance(value, list):
            lists[key] = value[:2]
    kept = {v["path"] for v in lists["findings"]} | {c["path"] for c in lists["changes"]}
    doc["texts"] = {p: t for p, t in doc["texts"].items() if p in kept}
    artifact._decode(doc, schema=False)
    artifact._check_schema(doc)
    assert reader_and_schema_agree(doc, _leaves(doc)) > 100


def reader_and_schema_agree(doc: Any, paths: Iterable[tuple[Any, ...]]) -> int:
    """Sets each leaf at `paths` to each odd value: where the reader takes the document as it
    is (what `load` then skips the schema for), the schema must take it too. Returns how many
    such documents were checked."""
    checked = 0
    for path in list(paths):
        for value in ODD_VALUES:
            mutated = copy.deepcopy(doc)
            where = mutated
            for part in path[:-1]:
                where = where[part]
            where[path[-1]] = value
            try:
                read = artifact._decode(mutated, schema=False)
            except ArtifactError:
                continue
            if artifact.canonical(artifact.encode(read)) != artifact.canonical(mutated):
                continue  # load checks the schema then
            checked += 1
            artifact._check_schema(mutated)  # raises on a gap
    return checked


def test_the_last_line_may_lack_its_line_ending() -> None:
    analysis = small(**{"src/a.py": Excerpt(3, {2: "import os\r\n", 3: "x = 1"})})
    assert artifact.load(artifact.dump(analysis)) == analysis


def test_dump_refuses_what_load_would_refuse() -> None:
    bad = replace(small(), repository="not a repository")
    with pytest.raises(ArtifactError, match="repository: expected owner/name"):
        artifact.dump(bad)


def test_null_repository_and_number_are_a_local_analysis() -> None:
    local = replace(small(), repository=None, number=None)
    assert artifact.load(artifact.dump(local)) == local


# --- merging shards ------------------------------------------------------------------------------

def shard(tool: str, finding_path: str, line: int, text_lines: dict[int, str],
          note: str) -> Analysis:
    base = small()
    finding = Finding(tool, "R1", Severity.WARNING, "m", finding_path, Span(line, 1, line, 2))
    common = base.result.findings[0]
    result = replace(base.result, tools=(ToolRun(tool, "1", "ok"),),
                     findings=(common, Verdict(finding, "introduced", f"{tool}-fp", "diff")),
                     fixed=(Verdict(finding, "fixed", f"{tool}-fixed"),) if tool == "b" else (),
                     notes=(note, "shared note"))
    return replace(base, result=result, texts={"src/a.py": Excerpt(3, {2: "import os\n", **text_lines})})


def test_shards_merge_into_one_analysis_whatever_their_order() -> None:
    a = shard("a", "src/a.py", 1, {1: "first\n"}, "from a")
    b = shard("b", "src/a.py", 3, {3: "third"}, "from b")
    merged = artifact.merge([a, b])
    assert merged == artifact.merge([b, a]) == artifact.merge([b, a, b])
    result = merged.result
    assert [t.name for t in result.tools] == ["a", "b"]
    assert [v.fingerprint for v in result.findings] == ["a-fp", "fp", "b-fp"]  # by position
    assert [v.fingerprint for v in result.fixed] == ["b-fixed"]
    assert result.notes == ("from a", "from b", "shared note")
    assert result.changes == a.result.changes
    assert merged.texts == {"src/a.py": Excerpt(3, {1: "first\n", 2: "import os\n", 3: "third"})}
    assert artifact.load(artifact.dump(merged)) == merged


@pytest.mark.parametrize("change,what", [
    (lambda p: replace(p, number=8), "number"),
    (lambda p: replace(p, repository="octo/other"), "repository"),
    (lambda p: replace(p, base_sha=SHA_A), "base sha"),
    (lambda p: replace(p, head_sha=SHA_A, result=replace(p.result, head=SHA_A)), "head sha"),
    (lambda p: replace(p, result=replace(p.result, merge_base=SHA_C)), "merge base"),
])
def test_shards_of_different_analyses_do_not_merge(change: Callable[[Analysis], Analysis],
                                                   what: str) -> None:
    with pytest.raises(ArtifactError) as info:
        artifact.merge([small(), small(), change(small())])
    assert info.value.field == "artifact 3" and f"its {what} " in info.value.why


def test_shards_that_disagree_on_a_file_do_not_merge() -> None:
    other_lines = replace(small(), texts={"src/a.py": Excerpt(3, {2: "import sys\n"})})
    with pytest.raises(ArtifactError, match=r"texts\['src/a.py'\].lines\[2\]: differs"):
        artifact.merge([small(), other_lines])
    other_count = replace(small(), texts={"src/a.py": Excerpt(4, {})})
    with pytest.raises(ArtifactError, match="line count differs"):
        artifact.merge([small(), other_count])
    change = replace(small().result.changes[0], hunk_lines=frozenset({9}))
    other_diff = replace(small(), result=replace(small().result, changes=(change,)))
    with pytest.raises(ArtifactError, match=r"result.changes 'src/a.py': differs"):
        artifact.merge([small(), other_diff])
    with pytest.raises(ArtifactError, match="none to merge"):
        artifact.merge([])


def test_clean_paths_are_accepted() -> None:
    for path in ("a.py", "src/é x/.hidden", "...", "a..b/c", "pyproject.toml"):
        assert artifact.path_problem(path) is None, path
    doc = raw_doc()
    doc["result"]["findings"][0]["path"] = "src/é x/.hidden"
    assert artifact.load(json.dumps(doc).encode()).result.findings[0].finding.path == "src/é x/.hidden"


def with_the_next_head() -> Analysis:
    """An analysis of a comment's `/fix`: the plan id it saw and the review of the commit."""
    analysis = small()
    after = replace(analysis.result, head="d" * 40, findings=())
    return replace(analysis, offer="0123456789ab",
                   next=artifact.Next("fix", "0123456789ab", "e" * 40, after))


def test_the_offer_and_the_next_head_s_review_round_trip_and_validate() -> None:
    analysis = with_the_next_head()
    data = artifact.dump(analysis)
    doc = json.loads(data)
    jsonschema.Draft202012Validator(artifact.schema()).validate(doc)
    assert doc["offer"] == {"plan": "0123456789ab"} and doc["next"]["tree"] == "e" * 40
    assert artifact.load(data) == analysis


NEXT0 = "next.result"


@pytest.mark.parametrize("mutate,field,why", [
    (lambda d: d["offer"].update(plan="../x"), "offer.plan", "12 hex digits"),
    (lambda d: d["offer"].update(more=1), "offer.more", "unexpected key"),
    (lambda d: d["next"].update(kind="push"), "next.kind", "expected one of"),
    (lambda d: d["next"].update(plan="A" * 12), "next.plan", "12 hex digits"),
    (lambda d: d["next"].update(tree="HEAD"), "next.tree", "full commit sha"),
    (lambda d: d["next"].pop("tree"), "next.tree", "missing"),
    (lambda d: d["next"]["result"].update(merge_base=SHA_C), f"{NEXT0}.merge_base",
     "differs from the analysis's merge base"),
    (lambda d: d["next"]["result"].update(head="main"), f"{NEXT0}.head", "full commit sha"),
    (lambda d: d["next"]["result"]["changes"][0].update(path="../x"), f"{NEXT0}.changes[0].path",
     "`..`"),
    (lambda d: d["next"]["result"].update(unbaselined=["/abs"]), f"{NEXT0}.unbaselined[0]",
     "absolute"),
])
def test_a_bad_offer_or_next_head_is_named_with_the_reason(mutate: Mutation, field: str,
                                                            why: str) -> None:
    doc = json.loads(artifact.dump(with_the_next_head()))
    mutate(doc)
    error = refused(json.dumps(doc).encode())
    assert (error.field, why in error.why) == (field, True), error.message
