"""The two revisions to compare: merge base, changed files, line maps and checkouts.

All diffs come from local git. The head is analysed in the repository itself when it is the
checked-out, clean HEAD; otherwise (and always for the base) in a detached worktree, so the
user's working tree is never touched.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import shutil
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bot import deps, git, gitcreds, linked, scratch, trees
from bot.cache import default_dir, file_blob
from bot.classify import FileSide
from bot.diff import UNCHANGED, FilePatch, LineMap, hunk_lines, line_map, parse_patch
from bot.errors import BotError
from bot.model import FileChange, FileStatus
from bot.positions import split_lines

DEEPEN_STEPS = (50, 200, 1000)
# Changed files larger than this (at either revision) are not analysed, and the review says
# the change went unchecked for them.
SIZE_LIMIT = 10 * 1024 * 1024
TOO_BIG = f"over the {SIZE_LIMIT // (1024 * 1024)} MB size limit"
_RAW_STATUS: dict[str, FileStatus] = {"A": "added", "M": "modified", "D": "deleted",
                                      "R": "renamed", "C": "copied", "T": "modified"}


@dataclass(frozen=True)
class Revisions:
    repo: Path
    base_ref: str
    merge_base: str
    head: str


@dataclass
class Changes:
    patches: list[FilePatch]
    base_files: dict[str, FileSide] = field(default_factory=dict)
    head_files: dict[str, FileSide] = field(default_factory=dict)
    maps: dict[str, LineMap] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it is not analysed
    # Skipped paths a tool should have checked (over SIZE_LIMIT): the change is unchecked there.
    unchecked: set[str] = field(default_factory=set)

    def head_paths(self) -> list[str]:
        return sorted(p.new_path for p in self.patches
                      if p.new_path and p.new_path not in self.skipped)

    def base_paths(self) -> list[str]:
        return sorted(p.old_path for p in self.patches
                      if p.old_path and p.status != "copied" and p.old_path not in self.skipped)

    def pairs(self) -> dict[str, str | None]:
        return {p.new_path: (None if p.status in ("added", "copied") else p.old_path)
                for p in self.patches if p.new_path}

    def file_changes(self) -> tuple[FileChange, ...]:
        out = []
        for p in self.patches:
            lm = self.maps.get(p.path) if p.new_path else None
            hunks = hunk_lines(lm) if lm else frozenset()
            out.append(FileChange(
                p.path, p.old_path, p.status, lm.changed_lines() if lm else frozenset(), hunks,
                p.binary, p.similarity,
                {h: b for b, h in lm.base_to_head.items()
                 if h in hunks and lm.head_status(h) == UNCHANGED} if lm else {}))
        return tuple(out)


def default_target(repo: Path) -> str:
    remote = git.default_branch(repo)
    if remote:
        return remote
    for candidate in ("main", "origin/main", "master", "origin/master"):
        if git.rev_parse(repo, candidate):
            return candidate
    raise BotError("no target branch: neither the remote's default branch nor main/master exists; "
                   "pass --base BRANCH_OR_COMMIT")


def resolve(repo: Path, base: str | None, head: str) -> Revisions:
    # One git process when all is well; asked one by one (to say what is wrong) when not.
    at_once = git.commits(repo, (head, base) if base else (head,))
    repo = at_once[0] if at_once else git.toplevel(repo)
    head_sha = at_once[1][0] if at_once else git.rev_parse(repo, head)
    if head_sha is None:
        raise BotError(f"--head {head!r} is not a commit in {repo}")
    target = base or default_target(repo)
    target_sha = at_once[1][1] if at_once and base else git.rev_parse(repo, target)
    if target_sha is None:
        raise BotError(f"--base {target!r} is not a branch or commit here "
                       f"(fetch it first: git fetch origin {target})")
    mb = git.merge_base(repo, target_sha, head_sha)
    if mb is None and git.is_shallow(repo):
        for depth in DEEPEN_STEPS:
            git.fetch_deepen(repo, "origin", target.removeprefix("origin/"), depth)
            git.fetch_deepen(repo, "origin", head_sha, depth)
            mb = git.merge_base(repo, target_sha, head_sha)
            if mb:
                break
    if mb is None:
        shallow = " The clone is shallow: fetch the history (git fetch --unshallow, or " \
                  "actions/checkout with fetch-depth: 0)." if git.is_shallow(repo) else ""
        raise BotError(f"{target} and {head} have no common ancestor.{shallow}")
    return Revisions(repo, target, mb, head_sha)


def _split(text: str) -> tuple[str, ...]:
    return tuple(split_lines(text))


LFS_POINTER = "a Git LFS pointer: its content is not in the repository (git lfs pull)"


def _lfs_pointer(blob: bytes | None) -> bool:
    """The few lines Git LFS commits in place of a file's content (its spec: a `version` line
    first, the whole pointer under 1024 bytes); linted as code it would only give nonsense."""
    return (blob is not None and len(blob) < 1024
            and blob.startswith(b"version https://git-lfs.github.com/spec/v1\n"))


def _decode(blob: bytes) -> str:
    return blob.decode("utf-8", errors="replace")


def _oversized(rev: Revisions, raw: Sequence[git.RawChange]) -> list[FilePatch]:
    """The changed files with a side over SIZE_LIMIT, found from blob sizes alone: neither they
    nor their diff are read (a 50 MB file cost gigabytes as lines, maps and findings)."""
    sizes = git.blob_sizes(rev.repo, sorted({b for r in raw for b in (r.old_blob, r.new_blob) if b}))
    out = []
    for r in raw:
        blobs = [b for b in (r.old_blob, r.new_blob) if b]
        if any(sizes.get(b, 0) > SIZE_LIMIT for b in blobs):
            # git's own test for binary content: a NUL in the first 8000 bytes.
            binary = any(b"\0" in git.blob_prefix(rev.repo, b, 8000) for b in blobs)
            out.append(FilePatch(r.old_path, r.new_path, _RAW_STATUS[r.status], binary=binary,
                                 similarity=r.score if r.status in "RC" else None))
    return out


def read_changes(rev: Revisions) -> Changes:
    raw = git.diff_raw(rev.repo, rev.merge_base, rev.head)
    big = _oversized(rev, raw)
    excluded = sorted({path for p in big for path in (p.old_path, p.new_path) if path})
    # The contents, by the raw diff's blob ids, are read while git computes the patch: two
    # processes at once instead of one after the other.
    skip = set(excluded)
    ids = sorted({b for r in raw if r.old_path not in skip and r.new_path not in skip
                  for b in (r.old_blob, r.new_blob) if b})
    with ThreadPoolExecutor(max_workers=1) as pool:
        reading = pool.submit(git.cat_blobs, rev.repo, ids)
        patch = git.diff_unified(rev.repo, rev.merge_base, rev.head, exclude=excluded)
        by_id = dict(zip(ids, reading.result(), strict=True))
    changes = Changes(parse_patch(patch))
    for p in big:
        changes.skipped[p.path] = "binary file" if p.binary else TOO_BIG
        if not p.binary:
            changes.unchecked.add(p.path)
    if big:
        changes.patches = sorted([*changes.patches, *big], key=lambda p: p.path)
    specs: list[str] = []
    for p in changes.patches:
        if p.path in changes.skipped:
            continue
        specs.append(f"{rev.merge_base}:{p.old_path}" if p.old_path else "")
        specs.append(f"{rev.head}:{p.new_path}" if p.new_path else "")
    wanted = [s for s in specs if s]
    # Read by blob id where the raw diff gave one: git then walks neither tree once per file.
    spec_ids = {f"{rev.merge_base}:{r.old_path}": r.old_blob for r in raw if r.old_blob} | {
        f"{rev.head}:{r.new_path}": r.new_blob for r in raw if r.new_blob}
    blobs = {s: by_id[spec_ids[s]] for s in wanted if spec_ids.get(s) in by_id}
    rest = [s for s in wanted if s not in blobs]  # none the raw diff named (never expected)
    blobs |= dict(zip(rest, git.cat_blobs(rev.repo, [spec_ids.get(s, s) for s in rest]), strict=True))
    for p in changes.patches:
        if p.path in changes.skipped:
            continue
        if p.binary:
            changes.skipped[p.path] = "binary file"
            continue
        if p.symlink:
            changes.skipped[p.path] = "symbolic link"
            continue
        base_blob = blobs.get(f"{rev.merge_base}:{p.old_path}") if p.old_path else None
        head_blob = blobs.get(f"{rev.head}:{p.new_path}") if p.new_path else None
        if b"\0" in (base_blob or b"")[:8000] or b"\0" in (head_blob or b"")[:8000]:
            changes.skipped[p.path] = "binary file"
            continue
        if _lfs_pointer(base_blob) or _lfs_pointer(head_blob):
            changes.skipped[p.path] = LFS_POINTER
            continue
        if p.old_path and base_blob is not None:
            changes.base_files[p.old_path] = FileSide(_split(_decode(base_blob)))
        if p.new_path and head_blob is not None:
            changes.head_files[p.new_path] = FileSide(_split(_decode(head_blob)))
        if p.new_path:
            base_n = len(changes.base_files[p.old_path].lines) if p.old_path in changes.base_files else 0
            changes.maps[p.new_path] = line_map(p, base_n, len(changes.head_files[p.new_path].lines)
                                                if p.new_path in changes.head_files else 0)
    return changes


def texts(repo: Path, rev: str, paths: Sequence[str]) -> dict[str, list[str]]:
    """Lines (EOL kept) of each path at rev, read through one git process: for code frames."""
    return {p: list(side.lines) for p, side in load_files(repo, rev, sorted(set(paths))).items()}


def load_files(repo: Path, rev: str, paths: Sequence[str]) -> dict[str, FileSide]:
    blobs = git.cat_blobs(repo, [f"{rev}:{p}" for p in paths])
    return {p: FileSide(_split(_decode(b))) for p, b in zip(paths, blobs, strict=True) if b is not None}


# --- checkouts -------------------------------------------------------------------------------

def base_home(repo: Path) -> Path:
    """Where `repo`'s base checkout is made, the same folder every run: golangci-lint keys its
    package cache, and the go command its build ids, on the files' absolute paths, so a base
    at a new path each run misses both (seconds per package)."""
    digest = hashlib.sha256(str(repo.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return default_dir() / "bases" / digest[:16]


def _head_is_checkout(rev: Revisions) -> bool:
    current, clean = git.head_state(rev.repo)
    return current == rev.head and clean


def _carry_config(head_root: Path, base_root: Path, names: Sequence[str]) -> None:
    """Both revisions use the head's configuration: copy the head's config files over."""
    for name in names:
        src, dst = head_root / name, base_root / name
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)  # `.github/actionlint.yaml`
            shutil.copy2(src, dst)
        elif dst.is_file() and not src.exists():
            dst.unlink()  # a config the head removed must not apply at the base


class Checkouts:
    """The head's checkout, and the base's, made on first need (`base()`)."""

    def __init__(self, rev: Revisions, config_files: Sequence[str]) -> None:
        self.rev = rev
        self.config_files = list(config_files)
        scratch.prune(rev.repo)  # what runs killed with SIGKILL left behind
        self.scratch = scratch.make(rev.repo)
        self.made: list[Path] = []
        self.lock = threading.Lock()
        # The repository's own place when no other run holds it, else a new one.
        self.place = scratch.claim(rev.repo, base_home(rev.repo))
        self.base_root = self.place.path if self.place else self.scratch / "base"
        # Set by the caller when no tool to be run on the base writes into its files: the
        # base may then share the head's files through hard links (bot.linked).
        self.read_only = False
        self.how = ""  # how the base was made: "linked" or "checkout"
        self.head_root = rev.repo
        if not _head_is_checkout(rev):
            self.head_root = self.scratch / "head"
            try:
                git.worktree_add(rev.repo, self.head_root, rev.head)
                self.made.append(self.head_root)
                deps.link(rev.repo, self.head_root, self.dependencies)
            except BaseException:
                self.close()
                raise

    def base(self) -> Path:
        """The base checkout, carrying the head's configuration; made once, on first call."""
        with self.lock:
            if self.base_root not in self.made:
                self.how = "linked" if self.read_only and self._linked_base() else "checkout"
                if self.how == "checkout":
                    git.worktree_add(self.rev.repo, self.base_root, self.rev.merge_base)
                    self.made.append(self.base_root)
                _carry_config(self.head_root, self.base_root, self.config_files)
                deps.link(self.rev.repo, self.base_root, self.dependencies)
        return self.base_root

    @functools.cached_property
    def dependencies(self) -> list[str]:
        """The user's installed dependency folders: every revision's tools load them."""
        return deps.installed(self.rev.repo)

    @functools.cached_property
    def installed(self) -> str:
        """The stamp of what those folders hold (bot.deps.stamp)."""
        return deps.stamp(self.rev.repo, self.dependencies)

    def _linked_base(self) -> bool:
        """Make the base from the head's files (hard links) and git (the rest); False, with
        nothing left behind, when links are not possible here."""
        repo, base_rev = self.rev.repo, self.rev.merge_base
        git.worktree_add(repo, self.base_root, base_rev, checkout=False)
        self.made.append(self.base_root)
        todo = linked.plan(self.base_view.listing(),
                           git.tree_blobs(repo, self.rev.head, [], recursive=True),
                           linked.ALWAYS_COPIED | frozenset(self.config_files))
        try:
            linked.materialize(base_rev, self.head_root, self.base_root, todo)
        except (linked.CannotLink, BotError):  # BotError: git refused the partial checkout
            git.worktree_remove(repo, self.base_root)
            self.made.remove(self.base_root)
            shutil.rmtree(self.base_root, ignore_errors=True)
            return False
        return True

    @functools.cached_property
    def base_view(self) -> trees.GitView:
        """The base read from git, shared by every tool of the run (one listing, one lookup
        per path). The overlay is what `_carry_config` does to the base: the head's file, or
        none where the head has none."""
        overlay: dict[str, str | None] = {}
        for name in self.config_files:
            head_file = self.head_root / name
            if head_file.is_file():
                overlay[name] = file_blob(head_file)
            elif not head_file.exists():
                overlay[name] = None
        return trees.GitView(self.rev.repo, self.rev.merge_base, overlay)

    def close(self) -> None:
        for where in self.made:
            git.worktree_remove(self.rev.repo, where)
        shutil.rmtree(self.scratch, ignore_errors=True)
        if self.place is not None:
            scratch.vacate(self.rev.repo, self.place.path)
            self.place.release()


@contextlib.contextmanager
def checkouts(rev: Revisions, config_files: Sequence[str]) -> Iterator[Checkouts]:
    """The revisions' checkouts for the duration of the block; worktrees removed afterwards.
    Refused when the repository's git configuration holds a credential: the tools run inside."""
    gitcreds.refuse_held(rev.repo)
    made = Checkouts(rev, config_files)
    try:
        yield made
    finally:
        made.close()
