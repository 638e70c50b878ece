"""Hypothesis strategies for the review values (`bot.model`), shared by the codec and artifact
tests. `paths` decides what a path may be: any text for the codec, clean relative POSIX paths
for the artifact."""

from __future__ import annotations

import string

from hypothesis import strategies as st

from bot.model import (
    Edit,
    FileChange,
    Finding,
    Fix,
    GatePolicy,
    ReviewResult,
    Severity,
    Span,
    ToolRun,
    Verdict,
)

positions = st.integers(min_value=1, max_value=10**6)
texts = st.text(max_size=12)
shas = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
segment = st.text(alphabet=string.ascii_letters + string.digits + "-_ é", min_size=1, max_size=6) \
    .filter(lambda s: s not in (".", ".."))
clean_paths = st.lists(segment, min_size=1, max_size=3).map("/".join)


def spans() -> st.SearchStrategy[Span]:
    return st.builds(Span, positions, positions, positions, positions)


def fixes(paths: st.SearchStrategy[str]) -> st.SearchStrategy[Fix]:
    edit = st.builds(Edit, paths, spans(), texts)
    return st.builds(Fix, texts, st.lists(edit, max_size=3).map(tuple),
                     st.sampled_from(["safe", "unsafe", "display"]))


def findings(paths: st.SearchStrategy[str]) -> st.SearchStrategy[Finding]:
    return st.builds(Finding, texts, texts, st.sampled_from(list(Severity)), texts, paths, spans(),
                     st.none() | texts, st.none() | fixes(paths), st.booleans())


def verdicts(paths: st.SearchStrategy[str]) -> st.SearchStrategy[Verdict]:
    return st.builds(
        Verdict, findings(paths),
        st.sampled_from(["introduced", "changed", "preexisting", "fixed", "unclassified"]), texts,
        st.none() | st.sampled_from(["diff", "elsewhere"]), st.booleans(),
        st.none() | findings(paths), st.lists(texts, max_size=3).map(tuple), st.none() | texts)


def tool_runs() -> st.SearchStrategy[ToolRun]:
    return st.builds(ToolRun, texts, st.none() | texts,
                     st.sampled_from(["ok", "missing", "failed", "timeout", "skipped"]), texts,
                     st.lists(st.sampled_from(["base", "head"]), max_size=2).map(tuple),
                     st.none() | st.floats(0, 1e6, allow_nan=False))


def changes(paths: st.SearchStrategy[str]) -> st.SearchStrategy[FileChange]:
    lines = st.frozensets(positions, max_size=8)
    return st.builds(FileChange, paths, st.none() | paths,
                     st.sampled_from(["added", "modified", "deleted", "renamed", "copied"]),
                     lines, lines, st.booleans(), st.none() | st.integers(0, 100),
                     st.dictionaries(positions, positions, max_size=4))


def policies() -> st.SearchStrategy[GatePolicy]:
    return st.builds(GatePolicy, st.sampled_from(["none", "info", "warning", "error"]),
                     st.sampled_from(["fail", "warn"]))


def results(paths: st.SearchStrategy[str], sha: st.SearchStrategy[str] = texts
            ) -> st.SearchStrategy[ReviewResult]:
    few = {"max_size": 3}
    return st.builds(
        ReviewResult, texts, sha, sha, st.lists(tool_runs(), **few).map(tuple),
        st.lists(verdicts(paths), **few).map(tuple), st.lists(verdicts(paths), **few).map(tuple),
        st.lists(changes(paths), **few).map(tuple), st.lists(texts, **few).map(tuple),
        st.frozensets(paths, **few), st.lists(texts, **few).map(tuple), policies())
