"""Run a pattern (and optionally a rewrite) over many files, on every core.

A byte-level check for the pattern's literal tokens runs before anything is parsed: parsing
is most of the cost, and most files of a tree cannot match a selective pattern.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from bot.positions import LineIndex
from bot.structural.files import MAX_BYTES, SourceFile
from bot.structural.lang import parse
from bot.structural.match import find
from bot.structural.pattern import Pattern
from bot.structural.rewrite import FileRewrite, Template, rewrite_tree
from bot.structural.rulefix import rewrite_rule
from bot.structural.rulematch import find_rule
from bot.structural.rules import RuleConfig
from bot.structural.search import Match, prefilter, to_match

# Below this much source to parse, a process pool costs more than it saves.
PARALLEL_MIN_BYTES = 1_000_000


@dataclass(frozen=True)
class Job:
    """What to do with the files of one language: a pattern (and a rewrite template), or a
    rule (`rewrite`: apply its fix)."""

    pattern: Pattern | None = None
    template: Template | None = None
    rule: RuleConfig | None = None
    rewrite: bool = False


@dataclass(frozen=True)
class FileResult:
    file: SourceFile
    matches: tuple[Match, ...]
    sha256: str = ""  # of the bytes searched (set when rewriting)
    rewrite: FileRewrite | None = None
    source: bytes = b""  # the bytes searched (kept when rewriting)
    note: str = ""  # why the file was skipped


def process(file: SourceFile, source: bytes, job: Job) -> FileResult:
    """Search (and rewrite) one file's bytes; pure."""
    if job.rule is not None:
        return _process_rule(file, source, job.rule, job.rewrite)
    assert job.pattern is not None
    if not prefilter(job.pattern, source):
        return FileResult(file, ())
    tree = parse(job.pattern.lang.grammar, source)
    raws = list(find(job.pattern, tree, source))
    pos = LineIndex.of_bytes(source)
    matches = tuple(to_match(file.path, source, pos, r) for r in raws)
    if job.template is None or not raws:
        return FileResult(file, matches)
    rewrite = rewrite_tree(job.pattern, job.template, tree, source, raws)
    return FileResult(file, matches, hashlib.sha256(source).hexdigest(), rewrite, source)


def _process_rule(file: SourceFile, source: bytes, rule: RuleConfig, rewrite: bool) -> FileResult:
    if rule.rule.pattern is not None and not prefilter(rule.rule.pattern, source):
        return FileResult(file, ())  # a top-level pattern must match: its tokens must occur
    tree = parse(rule.lang.grammar, source)
    raws = [raw for _, raw in find_rule(rule, tree, source)]
    pos = LineIndex.of_bytes(source)
    matches = tuple(to_match(file.path, source, pos, r) for r in raws)
    if not rewrite or not raws:
        return FileResult(file, matches)
    return FileResult(file, matches, hashlib.sha256(source).hexdigest(),
                      rewrite_rule(rule, source, tree), source)


def _read(file: SourceFile) -> bytes | str:
    """The file's bytes, or why it is skipped."""
    try:
        size = os.path.getsize(file.abspath)
        if size > MAX_BYTES:
            return f"skipped: {size} bytes is over the {MAX_BYTES}-byte limit"
        with open(file.abspath, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return f"skipped: {exc.strerror or exc}"
    if b"\0" in data[:8192]:
        return "skipped: binary file"
    return data


def _run_one(file: SourceFile, job: Job) -> FileResult:
    data = _read(file)
    if isinstance(data, str):
        return FileResult(file, (), note=data)
    return process(file, data, job)


def _run_chunk(chunk: Sequence[SourceFile], jobs: Mapping[str, Job]) -> list[FileResult]:
    return [_run_one(f, jobs[f.lang.name]) for f in chunk]


def workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run(
    files: Sequence[SourceFile], jobs: Mapping[str, Job], max_workers: int | None = None
) -> list[FileResult]:
    """Every file's result, in the order of `files`."""
    n = max_workers or workers()
    total = sum(_size(f) for f in files)
    if n <= 1 or total < PARALLEL_MIN_BYTES or len(files) < 2:
        done = _run_chunk(files, jobs)
    else:
        # Workers read and pre-filter too: the parent reading everything first would be a
        # serial pass over the whole tree.
        done = _parallel(list(files), jobs, n)
    order = {f.abspath: k for k, f in enumerate(files)}
    return sorted(done, key=lambda r: order[r.file.abspath])


def _parallel(files: list[SourceFile], jobs: Mapping[str, Job], n: int) -> list[FileResult]:
    # Big files first and small chunks, so no worker is left with the tail.
    by_size = sorted(files, key=lambda f: -_size(f))
    per = max(1, len(by_size) // (n * 8))
    chunks = [by_size[k:k + per] for k in range(0, len(by_size), per)]
    # fork: the workers inherit the loaded grammars instead of importing them again.
    ctx = multiprocessing.get_context("fork")
    out: list[FileResult] = []
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx) as pool:
        for part in pool.map(_run_chunk, chunks, [jobs] * len(chunks)):
            out.extend(part)
    return out


def _size(f: SourceFile) -> int:
    try:
        return os.path.getsize(f.abspath)
    except OSError:
        return 0
