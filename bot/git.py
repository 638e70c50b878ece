"""Flat git verbs over the subprocess chokepoint. Every git call of the bot lives here."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot import proc
from bot.errors import BotError, Exit, MissingBinary, Timeout

GIT_TIMEOUT = 600.0


def git(repo: Path, *args: str, check: bool = True, stdin: bytes | None = None,
        env: Mapping[str, str] | None = None) -> proc.Result:
    """Run git in `repo`. `env` entries (a private index, an identity, credentials for one
    push) reach git through its environment only: never a config file, never argv."""
    # -c core.quotepath=off keeps non-ASCII paths readable where -z is not used.
    argv = ["git", "-c", "core.quotepath=off", "-c", "safe.directory=*", *args]
    if not Path(repo).is_dir():  # else the missing cwd would read as a missing git binary
        raise BotError(f"{repo}: no such directory")
    try:
        result = proc.run(argv, cwd=repo, timeout=GIT_TIMEOUT, stdin=stdin, env=env,
                          hint="install git (apt-get install git)")
    except MissingBinary as exc:
        raise BotError(f"git is not installed: {exc}") from exc
    except Timeout as exc:
        raise BotError(f"git {' '.join(args[:2])} timed out after {exc.seconds:g}s") from exc
    if check and result.returncode != 0:
        said = result.err_tail(5) or result.out.strip()
        raise BotError(f"git {' '.join(args)} failed: {said}{_hint(said)}")
    return result


# A filter the repository's configuration names whose program is missing (sh's and git's own
# words): Git LFS, on a machine without it, fails even `git status`.
_MISSING_LFS = re.compile(r"\bgit-lfs\b[^\n]*(?:not found|No such file|cannot run)")


def _hint(said: str) -> str:
    if _MISSING_LFS.search(said):
        return ("; this repository's git configuration runs Git LFS (filter.lfs), which is not "
                "installed here: install Git LFS (git-lfs)")
    return ""


def toplevel(path: Path) -> Path:
    """The root of the checkout `path` (the user's --repo) is in."""
    if not path.exists():
        raise BotError(f"--repo {path}: no such directory")
    if not path.is_dir():
        raise BotError(f"--repo {path}: not a directory")
    result = git(path, "rev-parse", "--show-toplevel", check=False)
    if result.returncode != 0:
        raise BotError(f"{path} is not a git repository (pass --repo DIR of a checkout)")
    return Path(result.out.strip())


_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def commits(path: Path, revs: Sequence[str]) -> tuple[Path, list[str]] | None:
    """The root of the checkout `path` is in and the commit each of `revs` names, through one
    `git rev-parse`; None when that cannot tell (not a repository, a revision that is not a
    commit, or one that could read as an option or a range): `toplevel` and `rev_parse`,
    asked one by one, then say what is wrong."""
    if not revs or any(r.startswith("-") for r in revs) or not Path(path).is_dir():
        return None
    # Without --verify (it takes one revision) a range or `A...B` would print more lines, or
    # lines with a `^`: anything but one full id per revision is left to the careful path.
    result = git(path, "rev-parse", "--show-toplevel", *(f"{r}^{{commit}}" for r in revs),
                 check=False)
    lines = result.out.splitlines()
    if result.returncode != 0 or len(lines) != len(revs) + 1 \
            or not all(_SHA.fullmatch(sha) for sha in lines[1:]):
        return None
    return Path(lines[0]), lines[1:]


def named(path: Path, revs: Sequence[str]) -> tuple[Path, list[str | None]]:
    """The root of the checkout `path` is in and the commit each of `revs` names (None: no
    commit), through one process (`commits`) when all is well; else asked one by one, and
    `toplevel` says what is wrong with `path`."""
    found = commits(path, revs)
    if found is not None:
        return found[0], list(found[1])
    root = toplevel(path)
    return root, [rev_parse(root, rev) for rev in revs]


def rev_parse(repo: Path, rev: str) -> str | None:
    result = git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def tree_of(repo: Path, rev: str) -> str | None:
    """The id of the tree of commit `rev`, or None when there is no such commit."""
    result = git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{tree}}", check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def merge_base(repo: Path, a: str, b: str) -> str | None:
    result = git(repo, "merge-base", a, b, check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def is_shallow(repo: Path) -> bool:
    return git(repo, "rev-parse", "--is-shallow-repository").out.strip() == "true"


def fetch_deepen(repo: Path, remote: str, ref: str, depth: int) -> bool:
    return git(repo, "fetch", "--quiet", f"--deepen={depth}", remote, ref, check=False).returncode == 0


def ensure_commits(checkout: Path, shas: tuple[str, ...], hint: str,
                   env: dict[str, str] | None = None) -> None:
    """A CI's checkout holds one commit (a merge commit, a shallow detached head): fetch the
    change's head and base when missing, keeping a shallow checkout shallow (the workspace
    deepens it to the merge base later)."""
    for sha in shas:
        if rev_parse(checkout, sha) is None:
            fetch(checkout, "origin", sha, depth=50 if is_shallow(checkout) else None,
                      env=env)
        if rev_parse(checkout, sha) is None:
            raise BotError(f"commit {sha[:12]} of the change is not in the checkout and could "
                           f"not be fetched: {hint}", Exit.USAGE)


def init_bare(where: Path, origin: str) -> Path:
    """A new bare repository at `where` whose `origin` is `origin`: where a job that runs
    nothing of a change fetches its commits as data."""
    where.mkdir(parents=True, exist_ok=True)
    git(where, "init", "--quiet", "--bare")
    git(where, "remote", "add", "origin", origin)
    return where


def fetch_branches(repo: Path, remote: str, env: Mapping[str, str] | None = None) -> bool:
    """Every branch of `remote` as `refs/remotes/<remote>/*` (a change's base is on one)."""
    return git(repo, "fetch", "--quiet", "--no-tags", remote,
               f"+refs/heads/*:refs/remotes/{remote}/*", check=False, env=env).returncode == 0


def current_branch(repo: Path) -> str | None:
    """The branch checked out, or None on a detached head."""
    result = git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    return result.out.strip() if result.returncode == 0 and result.out.strip() else None


def remotes(repo: Path) -> list[str]:
    """The names of the repository's remotes."""
    return git(repo, "remote", check=False).out.split()


def default_branch(repo: Path) -> str | None:
    """The remote's default branch as `origin/<name>`, if the clone knows it."""
    result = git(repo, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD", check=False)
    if result.returncode == 0 and result.out.strip():
        return result.out.strip().removeprefix("refs/remotes/")
    return None


def show(repo: Path, rev: str, path: str) -> bytes | None:
    """The blob at `rev:path`, or None when the path does not exist there."""
    result = git(repo, "cat-file", "blob", f"{rev}:{path}", check=False)
    return result.stdout if result.returncode == 0 else None


def diff_unified(repo: Path, base: str, head: str, paths: tuple[str, str] | None = None,
                 context: int = 0, exclude: Sequence[str] = ()) -> bytes:
    """Unified diff with `context` lines; `paths` = (old, new) compares two blobs; `exclude`:
    paths left out of a whole-tree diff."""
    args = ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--histogram", f"-U{context}"]
    if paths is None:
        spec = ["--", ".", *(f":(exclude,literal){p}" for p in exclude)] if exclude else []
        return git(repo, *args, "-M50%", base, head, *spec).stdout
    old, new = paths
    return git(repo, *args, f"{base}:{old}", f"{head}:{new}").stdout


@dataclass(frozen=True)
class RawChange:
    """One entry of `git diff --raw`: blob ids, not contents."""

    status: str  # A, M, D, R, C, T
    old_blob: str | None
    new_blob: str | None
    old_path: str | None
    new_path: str | None
    score: int | None = None  # similarity of a rename or copy


def diff_raw(repo: Path, base: str, head: str) -> list[RawChange]:
    """What changed and the blob ids involved, with the same rename detection as
    `diff_unified`, without reading any file's contents into memory here."""
    fields = git(repo, "diff", "--raw", "-z", "--no-abbrev", "-M50%", base, head).stdout.decode(
        "utf-8", "surrogateescape").split("\0")
    out: list[RawChange] = []
    i = 0
    while i + 1 < len(fields) and fields[i].startswith(":"):
        _, _, old_blob, new_blob, status = fields[i][1:].split(" ")
        kind, score = status[0], int(status[1:]) if status[1:] else None
        if kind in "RC":
            old_path, new_path, i = fields[i + 1], fields[i + 2], i + 3
        else:
            old_path = new_path = fields[i + 1]
            i += 2
        out.append(RawChange(kind, None if kind == "A" else old_blob, None if kind == "D" else new_blob,
                             None if kind == "A" else old_path, None if kind == "D" else new_path, score))
    return out


def blob_sizes(repo: Path, blobs: Sequence[str]) -> dict[str, int]:
    """The size in bytes of each blob id (`git cat-file --batch-check`)."""
    if not blobs:
        return {}
    listing = git(repo, "cat-file", "--batch-check", stdin="".join(f"{b}\n" for b in blobs).encode()).out
    sizes = {}
    for line in listing.splitlines():
        blob, kind, size = [*line.split(), "", ""][:3]
        if kind == "blob":
            sizes[blob] = int(size)
    return sizes


def blob_prefix(repo: Path, blob: str, size: int) -> bytes:
    """The first `size` bytes of a blob, however large the blob is."""
    process = proc.spawn(["git", "-c", "safe.directory=*", "cat-file", "blob", blob], cwd=repo)
    try:
        assert process.stdout is not None
        return process.stdout.read(size)
    finally:
        proc.kill_group(process)
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def worktree_add(repo: Path, where: Path, rev: str, checkout: bool = True) -> None:
    git(repo, "worktree", "add", "--detach", "--force", "--quiet",
        *([] if checkout else ["--no-checkout"]), str(where), rev)


def worktrees(repo: Path) -> list[Path]:
    """The registered worktrees of `repo` (its own checkout included); none when `repo` is
    no longer a repository."""
    result = git(repo, "worktree", "list", "--porcelain", check=False)
    if result.returncode != 0:
        return []
    return [Path(line[len("worktree "):]) for line in result.out.splitlines()
            if line.startswith("worktree ")]


def checkout_paths(worktree: Path, rev: str, paths: list[str]) -> None:
    """Write just `paths` of `rev` into a worktree made with --no-checkout, as a checkout
    would (modes, symlinks, end-of-line conversion, filters); the index is filled first."""
    git(worktree, "read-tree", rev)
    if paths:
        git(worktree, "checkout-index", "--force", "-z", "--stdin",
            stdin="".join(f"{p}\0" for p in paths).encode("utf-8", "surrogateescape"))


def worktree_remove(repo: Path, where: Path) -> None:
    # --force twice: also a worktree git still locks because its making was cut short.
    if git(repo, "worktree", "remove", "--force", "--force", str(where),
           check=False).returncode != 0:
        # E.g. its folder is gone already: what git still registers for it goes.
        git(repo, "worktree", "unlock", str(where), check=False)
        git(repo, "worktree", "prune", check=False)


def worktree_prune(repo: Path) -> None:
    """Forget every registered worktree whose folder is gone (locks included)."""
    for where in worktrees(repo)[1:]:
        if not where.exists():
            git(repo, "worktree", "unlock", str(where), check=False)
    git(repo, "worktree", "prune", check=False)


def tree_blobs(repo: Path, rev: str, paths: list[str], recursive: bool = False) -> dict[str, str]:
    """{path: "<mode> <blob id>"} for the paths that are blobs at `rev` (files and symlinks;
    the mode tells them apart); `recursive` and no paths: every blob of the revision.
    Paths are matched literally, without globbing."""
    out: dict[str, str] = {}
    batches = [paths[i:i + 1000] for i in range(0, len(paths), 1000)]  # argv under the OS limit
    for batch in batches or [[]]:
        if not batch and not recursive:
            break
        # Names decoded as Python decodes file names, so a non-UTF-8 one still matches.
        listing = git(repo, "--literal-pathspecs", "ls-tree", "-z", "--full-tree",
                      *(["-r"] if recursive else []), rev, "--", *batch).stdout.decode(
            "utf-8", "surrogateescape")
        for entry in listing.split("\0"):
            meta, _, path = entry.partition("\t")
            mode, kind, sha = [*meta.split(), "", "", ""][:3]
            if kind == "blob" and path:
                out[path] = f"{mode} {sha}"
    return out


@dataclass(frozen=True)
class TreeEntry:
    """One line of `git ls-tree`."""

    mode: str
    kind: str  # "blob", "tree" or "commit" (a submodule)
    sha: str
    path: str


def folder_entries(repo: Path, rev: str, folders: Sequence[str]) -> list[TreeEntry]:
    """The entries (files, folders, submodules) directly in each of `folders` at `rev`
    (repo-relative, "." the root), through one `git ls-tree` per 1,000 folders."""
    out: list[TreeEntry] = []
    specs = [f"{f.rstrip('/')}/" if f not in (".", "") else "./" for f in folders]
    for i in range(0, len(specs), 1000):  # argv under the OS limit
        listing = git(repo, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", rev, "--",
                      *specs[i:i + 1000]).stdout.decode("utf-8", "surrogateescape")
        for entry in listing.split("\0"):
            meta, _, path = entry.partition("\t")
            fields = meta.split()
            if len(fields) == 3 and path:
                out.append(TreeEntry(fields[0], fields[1], fields[2], path))
    return out


def checkout_entries(repo: Path, where: Path, index: Path, entries: Sequence[tuple[str, str]],
                     attributes: Sequence[tuple[str, str]] = ()) -> None:
    """Write `entries` ((path, "<mode> <blob>")) into the folder `where` as a checkout would
    (modes, symlinks, end-of-line conversion, filters), through the private index `index`,
    which also holds `attributes` (the `.gitattributes` files above them: git reads a
    checkout's attributes from the index)."""
    env = {"GIT_INDEX_FILE": str(index)}
    listed = dict([*attributes, *entries])
    git(repo, "update-index", "-z", "--index-info", env=env,
        stdin="".join(f"{entry}\t{path}\0" for path, entry in listed.items()).encode(
            "utf-8", "surrogateescape"))
    git(repo, f"--work-tree={where}", "checkout-index", "--force", "-z", "--stdin", env=env,
        stdin="".join(f"{path}\0" for path, _ in entries).encode("utf-8", "surrogateescape"))


def ls_files(repo: Path, *pathspecs: str) -> list[str]:
    """Tracked paths of the working tree matching `pathspecs` (git's pathspec magic allowed)."""
    listing = git(repo, "ls-files", "-z", "--", *pathspecs).stdout.decode("utf-8", "surrogateescape")
    return [path for path in listing.split("\0") if path]


def status_porcelain(repo: Path) -> str:
    return git(repo, "status", "--porcelain", "--untracked-files=no").out


def head_status(repo: Path) -> tuple[str | None, bool, dict[str, str]]:
    """What HEAD is and `status_all`, from one process: the commit HEAD is at, whether the
    tracked files are as committed, and the status of everything not clean."""
    fields = git(repo, "status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
                 "--ignored=matching", "--untracked-files=all").stdout.decode(
        "utf-8", "surrogateescape").split("\0")
    head, clean, out = None, True, {}
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        kind = entry[:2]
        if entry.startswith("# branch.oid "):
            oid = entry.removeprefix("# branch.oid ").strip()
            head = oid if _SHA.fullmatch(oid) else None  # "(initial)": no commit yet
        elif kind in ("? ", "! "):
            out[entry[2:]] = entry[0] * 2  # as porcelain v1 says them: "??", "!!"
        elif kind in ("1 ", "2 ", "u "):
            clean = False
            # "1 XY sub mH mI mW hH hI path", "2 ... X100 path" then the source, "u ... path"
            parts = entry.split(" ", {"1 ": 8, "2 ": 9, "u ": 10}[kind])
            out[parts[-1]] = parts[1].replace(".", " ")
            if kind == "2 ":
                i += 1  # a rename's second field is its source
    return head, clean, out


def status_all(repo: Path) -> dict[str, str]:
    """{path: two-letter status} of everything not clean in the working tree, ignored files
    included; an ignored folder is one entry ("build/"), its contents are not listed."""
    fields = git(repo, "status", "--porcelain=v1", "-z", "--ignored=matching",
                 "--untracked-files=all").stdout.decode("utf-8", "surrogateescape").split("\0")
    out: dict[str, str] = {}
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        out[entry[3:]] = entry[:2]
        if entry[0] in "RC":
            i += 1  # a rename's second field is its source
    return out


def store_blobs(repo: Path, paths: list[str]) -> dict[str, str]:
    """Write the working-tree files `paths` into the object database: {path: blob id}."""
    paths = [p for p in paths if "\n" not in p]  # the only name --stdin-paths cannot carry
    if not paths:
        return {}
    out = git(repo, "hash-object", "-w", "--no-filters", "--stdin-paths",
              stdin="".join(f"{p}\n" for p in paths).encode("utf-8", "surrogateescape")).out.split()
    return dict(zip(paths, out, strict=True))


def short(sha: str) -> str:
    return sha[:12]


def cat_blobs(repo: Path, specs: list[str]) -> list[bytes | None]:
    """Contents of many `rev:path` specs (or blob ids: faster, no tree is walked) through one
    `git cat-file --batch` process."""
    if not specs:
        return []
    if any("\n" in s for s in specs):  # cannot go through the line protocol
        return [show(repo, *s.split(":", 1)) for s in specs]
    request = "".join(f"{s}\n" for s in specs).encode("utf-8", "surrogateescape")
    # --buffer: one write at the end, not a flush per object (the request is all there is).
    result = git(repo, "cat-file", "--batch", "--buffer", stdin=request)
    data, pos = result.stdout, 0
    out: list[bytes | None] = []
    for _ in specs:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        pos = end + 1
        if len(header) == 3:  # "<id> <type> <size>", then the contents of any type
            size = int(header[2])
            out.append(data[pos:pos + size] if header[1] == b"blob" else None)
            pos += size + 1
        else:  # "<spec> missing" (or ambiguous): no contents follow
            out.append(None)
    return out


def fetch(repo: Path, remote: str, ref: str, depth: int | None = None,
          env: Mapping[str, str] | None = None) -> bool:
    """Fetch one ref or commit (e.g. a PR head missing from a depth-1 checkout); credentials,
    when needed, only in `env` for this one process."""
    args = ["fetch", "--quiet", "--no-tags"] + ([f"--depth={depth}"] if depth else []) + [remote, ref]
    return git(repo, *args, check=False, env=env).returncode == 0


def unshallow(repo: Path, remote: str) -> bool:
    """Fetch the whole history a shallow clone lacks."""
    return git(repo, "fetch", "--quiet", "--unshallow", remote, check=False).returncode == 0


def remote_url(repo: Path, remote: str) -> str | None:
    result = git(repo, "remote", "get-url", remote, check=False)
    return result.out.strip() or None if result.returncode == 0 else None


# --- commits made without a checkout (the apply flow) ----------------------------------------
# These never read or write the working tree or the repository's own index: the index they
# use is the private file named by GIT_INDEX_FILE in `env`.


def hash_blob(repo: Path, data: bytes) -> str:
    """Store `data` as a blob exactly as given (no filters, no end-of-line conversion)."""
    return git(repo, "hash-object", "-w", "--no-filters", "--stdin", stdin=data).out.strip()


def object_id(repo: Path, kind: str, data: bytes, write: bool = False) -> str:
    """The id of `data` as an object of `kind` ("tree", "commit") in `repo`'s hash function;
    `write`: stored too."""
    return git(repo, "hash-object", "-t", kind, "--stdin", *(["-w"] if write else []),
               stdin=data).out.strip()


def tree_with(repo: Path, base: str, entries: Mapping[str, tuple[str, str]], index: Path) -> str:
    """The tree of `base` with `entries` ({path: (mode, blob id)}) replaced, built in the
    private index file `index`; returns the new tree's id."""
    env = {"GIT_INDEX_FILE": str(index)}
    private = ("-c", "core.splitIndex=false")  # a split index would write beside the repository's
    git(repo, *private, "read-tree", f"{base}^{{tree}}", env=env)
    if entries:
        listing = "".join(f"{mode} {blob}\t{path}\0" for path, (mode, blob) in sorted(entries.items()))
        git(repo, *private, "update-index", "-z", "--index-info", env=env,
                stdin=listing.encode("utf-8", "surrogateescape"))
    return git(repo, *private, "write-tree", env=env).out.strip()


def commit_tree(repo: Path, tree: str, parent: str, message: str, name: str, email: str) -> str:
    """A commit of `tree` on `parent`, authored and committed by `name <email>`, unsigned
    whatever the repository's configuration says (no key is ours to use)."""
    env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
           "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    return git(repo, "commit-tree", "--no-gpg-sign", tree, "-p", parent, env=env,
                   stdin=message.encode("utf-8")).out.strip()


def format_patch(repo: Path, commit: str) -> str:
    """`commit` as one mail-formatted patch that `git am` applies (a/ b/ prefixes whatever
    the configuration says)."""
    return git(repo, "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
               "format-patch", "-1", "--stdout", "--no-signature", "--binary", commit).out


def push_with_lease(repo: Path, remote: str, commit: str, branch: str, old: str,
                    env: Mapping[str, str]) -> proc.Result:
    """Push `commit` to `refs/heads/<branch>` of `remote` only if the branch still points at
    `old` (never a plain force); no hooks and no submodules run. Not checked: the caller
    reads the outcome."""
    ref = f"refs/heads/{branch}"
    return git(repo, "push", "--porcelain", "--no-verify", "--no-recurse-submodules", "--no-signed",
                   f"--force-with-lease={ref}:{old}", "--", remote, f"{commit}:{ref}", env=env,
                   check=False)


def branch_name_ok(repo: Path, branch: str) -> bool:
    """True when `refs/heads/<branch>` is a valid ref name (`git check-ref-format`)."""
    return git(repo, "check-ref-format", f"refs/heads/{branch}", check=False).returncode == 0


def remote_head(repo: Path, remote: str, branch: str, env: Mapping[str, str]) -> str | None:
    """The sha `refs/heads/<branch>` has on `remote` now, or None when it cannot be read."""
    result = git(repo, "ls-remote", "--", remote, f"refs/heads/{branch}", env=env, check=False)
    if result.returncode != 0:
        return None
    for line in result.out.splitlines():
        sha, _, ref = line.partition("\t")
        if ref == f"refs/heads/{branch}":
            return sha
    return None


def stash_create(repo: Path, message: str) -> str | None:
    """A commit of the working tree's tracked files that moves nothing (no branch, no stash
    entry); None when the tree is clean."""
    result = git(repo, "stash", "create", message, check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def restore(repo: Path, paths: Sequence[str]) -> None:
    """Put `paths` back as HEAD has them, in the working tree and the index."""
    git(repo, "checkout", "HEAD", "--", *paths)


def untrack(repo: Path, path: str) -> None:
    """Take `path` out of the index (the file itself is the caller's)."""
    git(repo, "rm", "-q", "--cached", "--ignore-unmatch", "--", path)


def config_listing(repo: Path) -> str:
    """Every configuration entry git reads in `repo`: scope NUL key LF value NUL, for each."""
    return git(repo, "config", "--list", "--show-scope", "-z", check=False).out


# -- a folder that may not be in a repository (structural search) -----------------------------

def _outside_ok(folder: Path, *args: str) -> proc.Result | None:
    """`git` in a folder that need not be a repository: None when git cannot run there (not
    installed, timed out, no such folder), so the caller can do without it."""
    try:
        return git(folder, *args, check=False)
    except BotError:
        return None


def listed_files(folder: Path) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files under `folder`, relative to it; None
    outside a repository."""
    result = _outside_ok(folder, "ls-files", "-co", "--exclude-standard", "-z", "--", ".")
    if result is None or result.returncode != 0:
        return None
    return [p for p in result.out.split("\0") if p]


def is_ignored(folder: Path) -> bool:
    """Whether the repository's ignore rules ignore `folder` itself."""
    result = _outside_ok(folder, "check-ignore", "-q", "--", ".")
    return result is not None and result.returncode == 0


def toplevel_of(folder: Path) -> Path | None:
    """The root of the repository `folder` is in; None outside one."""
    result = _outside_ok(folder, "rev-parse", "--show-toplevel")
    if result is None or result.returncode != 0 or not result.out.strip():
        return None
    return Path(result.out.strip())


# -- history (the sweep) ------------------------------------------------------------------------

def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    return git(repo, "merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


def first_parents(repo: Path, rev: str, limit: int) -> list[str]:
    """The newest `limit` commits of `rev`'s first-parent line, newest first; none when git
    cannot say (a shallow or foreign checkout)."""
    done = git(repo, "rev-list", "--first-parent", "-n", str(limit), rev, check=False)
    return done.out.split() if done.returncode == 0 else []


def commits_between(repo: Path, base: str, head: str) -> list[str]:
    """The commits after `base` up to `head`, oldest first, parents before children."""
    return git(repo, "rev-list", "--reverse", "--topo-order", f"{base}..{head}").out.split()


def blame_line(repo: Path, head: str, path: str, line: int) -> str | None:
    """The commit that last wrote `line` of `path` at `head`."""
    result = git(repo, "blame", "--porcelain", "-L", f"{line},{line}", head, "--", path, check=False)
    if result.returncode != 0 or not result.out:
        return None
    first = result.out.split(maxsplit=1)[0]
    return first if len(first) >= 40 else None


def author(repo: Path, sha: str) -> str | None:
    result = git(repo, "log", "-1", "--format=%an", sha, check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def changed_paths(repo: Path, base: str, head: str, names: Sequence[str]) -> list[str]:
    """Which of `names` (repository-relative) differ between the two commits."""
    if not names:
        return []
    out = git(repo, "diff", "--name-only", "--no-renames", base, head, "--", *names).out
    return sorted(set(out.split("\n")) - {""})


def blob_id(repo: Path, rev: str, path: str) -> str | None:
    """The id of the blob at `rev:path`, None when there is none."""
    result = git(repo, "rev-parse", "--verify", "--quiet", f"{rev}:{path}", check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def tree_commit(repo: Path, tree_of: str, overlay: Mapping[str, str | None], parent: str | None
                ) -> str:
    """An unreferenced commit holding `tree_of`'s tree with `overlay` (path -> blob, None:
    removed) applied, on `parent`. Nothing in the checkout or the refs changes."""
    with tempfile.TemporaryDirectory(prefix="reviewbot-index-") as folder:
        env = {"GIT_INDEX_FILE": os.path.join(folder, "index")}  # the user's index stays as it is
        git(repo, "read-tree", tree_of, env=env)
        for path, blob in sorted(overlay.items()):
            if blob is None:
                git(repo, "update-index", "--force-remove", "--", path, env=env)
            else:
                git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = git(repo, "write-tree", env=env).out.strip()
    args = ["commit-tree", tree, "-m", "reviewbot sweep: configuration probe"]
    if parent:
        args += ["-p", parent]
    return _with_identity(repo, args)


def empty_commit(repo: Path) -> str:
    """A root commit with nothing in it: a base against which every file is added."""
    tree = git(repo, "mktree", stdin=b"").out.strip()  # git's empty tree, in any hash
    return _with_identity(repo, ["commit-tree", tree, "-m", "reviewbot sweep: empty"])


def _with_identity(repo: Path, args: list[str]) -> str:
    # A fixed identity and date: the same probe is the same commit, so the cache reuses it.
    stamp = "2000-01-01T00:00:00Z"
    return git(repo, *args, env={
        "GIT_AUTHOR_NAME": "reviewbot", "GIT_AUTHOR_EMAIL": "reviewbot@localhost",
        "GIT_COMMITTER_NAME": "reviewbot", "GIT_COMMITTER_EMAIL": "reviewbot@localhost",
        "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}).out.strip()
