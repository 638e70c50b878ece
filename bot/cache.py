"""The findings cache: what a tool said about content it has already seen.

Keyed by (tool, tool version, configuration hash, path, blob sha, and what the checkout has
installed: bot.deps.stamp): a file unchanged since the last run (every file at the merge base
on the second push of a PR) is never linted twice. Package-scoped tools key one entry on the
blobs of all the files their result depends on.

Entries are small JSON files under `<dir>/<FORMAT>/<2 hex>/<key>.json`, written to a temporary
file and renamed into place, so concurrent runs never see half an entry; an entry that does not
decode (or whose stored key differs) is a miss and is deleted. Reads refresh the mtime and
`prune` evicts the least recently used entries once the folder exceeds its size bound; it
measures the folder at most once every `PRUNE_EVERY` seconds (a stamp file's mtime), since the
measuring stats every entry and would otherwise cost each review time in the cache's size.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot import atomic, codec
from bot.model import Finding

# Bump when the entry layout or the meaning of a key changes (v2: findings in bot.codec's shape).
FORMAT = "v2"
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
PRUNE_TO = 0.8  # prune down to this fraction of the bound, so pruning is not constant
PRUNE_EVERY = 600.0  # seconds between two measures of the folder (see the module's docstring)


def default_dir() -> Path:
    """`REVIEWBOT_CACHE_DIR`, else `$XDG_CACHE_HOME/reviewbot`, else `~/.cache/reviewbot`."""
    override = os.environ.get("REVIEWBOT_CACHE_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "reviewbot"


def blob_sha(data: bytes) -> str:
    """git's blob id for `data` (what `git hash-object` prints), without running git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def file_blob(path: Path) -> str:
    """Blob id of a file on disk; a marker for missing/unreadable files so they key too."""
    try:
        return blob_sha(path.read_bytes())
    except OSError:
        return "-"


def make_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
    return digest.hexdigest()


def blobs_hash(blobs: Mapping[str, str]) -> str:
    """One hash over (path, blob id) pairs: the identity of a set of files' contents, the same
    whether the ids were hashed from disk or read from git."""
    return make_key(*(f"{p}={blobs[p]}" for p in sorted(blobs)))


def binary_stamp(exe: str, *args: str) -> str | None:
    """What identifies an installed binary and the way it is asked for its version: its real
    path, inode, size and times. Reinstalling gives a new inode and change time even when the
    package manager restores the modification time (npm does)."""
    try:
        real = os.path.realpath(exe)
        st = os.stat(real)
    except OSError:
        return None
    return "|".join([real, str(st.st_ino), str(st.st_size), str(st.st_mtime_ns),
                     str(st.st_ctime_ns), *args])


def _write_atomic(path: Path, text: str) -> bool:
    """Best effort (a cache that cannot be written only costs time), never half an entry."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write(path, text.encode("utf-8"))
    except OSError:
        return False
    return True


# --- the store: I/O ----------------------------------------------------------------------

class FindingsCache:
    def __init__(self, directory: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.directory = directory / FORMAT
        self.max_bytes = max_bytes
        self.writes = 0

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[Finding, ...] | None:
        entry = self._entry(key)
        try:
            data = json.loads(entry.read_text("utf-8"))
            if data.get("key") != key:
                raise ValueError("key mismatch")
            findings = codec.decode_findings(data["findings"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            with contextlib.suppress(OSError):  # corrupt: drop it, the caller recomputes
                entry.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(entry)  # recently used: last to be evicted
        return findings

    def put(self, key: str, findings: Sequence[Finding]) -> None:
        """Best effort: a cache that cannot be written only costs time."""
        payload = json.dumps({"key": key, "findings": codec.encode_findings(findings)}, separators=(",", ":"))
        if _write_atomic(self._entry(key), payload):
            self.writes += 1

    # -- tool versions: `TOOL --version` costs a process start (0.1 s for node tools) -----------

    def _version_entry(self, stamp: str) -> Path:
        return self.directory / "versions" / f"{make_key(stamp)}.json"

    def version(self, stamp: str) -> str | None:
        """The version recorded for a binary stamp (see `binary_stamp`), if any."""
        try:
            data = json.loads(self._version_entry(stamp).read_text("utf-8"))
            return str(data["version"]) if data.get("stamp") == stamp else None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def remember_version(self, stamp: str, version: str) -> None:
        _write_atomic(self._version_entry(stamp), json.dumps({"stamp": stamp, "version": version}))

    def prune(self) -> int:
        """Evict least recently used entries until the cache is under its bound; returns count.
        Measured less than `PRUNE_EVERY` seconds ago (by any run): nothing to do, returns 0."""
        stamp = self.directory / ".pruned"
        with contextlib.suppress(OSError):
            if 0 <= time.time() - stamp.stat().st_mtime < PRUNE_EVERY:
                return 0
        with contextlib.suppress(OSError):
            stamp.touch()
        entries: list[tuple[float, int, Path]] = []
        total = 0
        try:
            buckets = list(os.scandir(self.directory))
        except OSError:
            return 0
        for bucket in buckets:
            if not bucket.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                for item in os.scandir(bucket.path):
                    with contextlib.suppress(OSError):
                        st = item.stat(follow_symlinks=False)
                        entries.append((st.st_mtime, st.st_size, Path(item.path)))
                        total += st.st_size
        if total <= self.max_bytes:
            return 0
        removed = 0
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * PRUNE_TO:
                break
            with contextlib.suppress(OSError):  # a concurrent run may have removed it first
                path.unlink()
                removed += 1
            total -= size
        return removed
