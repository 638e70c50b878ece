"""The findings cache: what a tool said about content it has already seen.

Keyed by (tool, tool version, configuration hash, path, blob sha, and what the checkout has
installed: bot.revisions.deps.stamp): a file unchanged since the last run (every file at the merge base
on the second push of a PR) is never linted twice. Package-scoped tools key one entry on the
blobs of all the files their result depends on.

Entries are small files under `<dir>/<FORMAT>/<2 hex>/<key>.json`, written to a temporary file
and renamed into place, so concurrent runs never see half an entry; an entry that does not
decode (or whose stored key differs) is a miss and is deleted.

The folder is reachable by every tool a review runs, and a pull request's tools are its own code:
each entry carries an HMAC-SHA256 (its first line) over the format, a label and the JSON that
follows, under a key derived from `REVIEWBOT_CACHE_SECRET`. `bot.safety.credentials` takes that variable
out of the environment at start (its name says secret), so no tool can read it. An entry that
does not verify is deleted, counted, and never used. Without the secret nothing on disk is read
or written: the results live in this process's memory, for the run that computed them.

A tool whose run costs less than its entries (ruff lints 200 files in some 20 ms; an entry
costs a file written and renamed, about 1 ms) keeps one *pack* per tool identity instead:
`<dir>/<FORMAT>/packs/<pack key>.pack`, one sealed file holding a line per file key, read once
per run and written once per collect (`flush`), sealed and refused as a whole like an entry.

Who saves: a run that runs a pull request's code only reads the folder, and keeps what it
computes in memory (`session(save=False)`); `reviewbot warm`, the local review and the sweep
save (`session(save=True)`). A run that enters no session saves nothing. docs/cache.md says
how the CI examples carry the folder from run to run. Reads refresh the mtime and
`prune` evicts the least recently used entries once the folder exceeds its size bound; it
measures the folder at most once every `PRUNE_EVERY` seconds (a stamp file's mtime), since the
measuring stats every entry and would otherwise cost each review time in the cache's size.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot import atomic, codec
from bot.errors import BotError
from bot.model import Finding

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

# Bump when the entry layout or the meaning of a key changes (v2: findings in bot.codec's shape;
# v3: each entry authenticated).
FORMAT = "v3"
SECRET_VARIABLE = "REVIEWBOT_CACHE_SECRET"
# The warm job's Ed25519 private key (a secret: bot.safety.credentials takes it out of the environment
# by its name), and the public key any run may verify with (no secret): bot/cachesig.py.
SIGNING_VARIABLE = "REVIEWBOT_CACHE_SIGNING_SECRET"
PUBLIC_KEY_VARIABLE = "REVIEWBOT_CACHE_PUBLIC_KEY"
SIGNED = b"ed25519:"  # the first line's start of a signed entry (bot.cachesig.PREFIX)
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
PRUNE_TO = 0.8  # prune down to this fraction of the bound, so pruning is not constant
PRUNE_EVERY = 600.0  # seconds between two measures of the folder (see the module's docstring)
PACK_MAX_ENTRIES = 50_000  # a pack keeps its newest entries up to this many


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


# --- authentication: pure but for the key -------------------------------------------------

def mac_key(secret: str) -> bytes:
    """The MAC key for a secret: 32 bytes whatever the secret's length."""
    return hashlib.sha256(b"reviewbot-cache\0" + secret.encode("utf-8", "surrogateescape")).digest()


def seal(key: bytes, label: str, payload: bytes) -> bytes:
    """`payload` with its MAC on a first line: what an entry holds on disk."""
    return _mac(key, label, payload).encode("ascii") + b"\n" + payload


def unseal(key: bytes, label: str, data: bytes) -> bytes | None:
    """The payload of a sealed entry, or None when its MAC does not verify."""
    mac, sep, payload = data.partition(b"\n")
    if not sep or not hmac.compare_digest(mac, _mac(key, label, payload).encode("ascii")):
        return None
    return payload


def _mac(key: bytes, label: str, payload: bytes) -> str:
    # The format and the label are in the MAC: an entry of one kind is never read as another.
    return hmac.new(key, f"{FORMAT}\0{label}\0".encode() + payload, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Keys:
    """What a run can seal and verify entries with: the HMAC key (from the secret), the
    Ed25519 private key (the warm job's), the Ed25519 public key."""

    mac: bytes | None = None
    signer: Ed25519PrivateKey | None = None
    verifier: Ed25519PublicKey | None = None

    @property
    def reads(self) -> bool:
        return self.mac is not None or self.verifier is not None

    @property
    def seals(self) -> bool:
        return self.mac is not None or self.signer is not None

    def seal(self, label: str, payload: bytes) -> bytes:
        """Signed where the run holds the private key (every run with the public key can
        verify it), else an HMAC."""
        if self.signer is not None:
            from bot import cachesig

            return cachesig.sign(self.signer, FORMAT, label, payload)
        assert self.mac is not None
        return seal(self.mac, label, payload)

    def lacks_key(self, data: bytes) -> bool:
        """Whether `data` is signed and this run holds no public key: not forged for all it
        can tell, only out of its reach (kept on disk for the runs that have the key)."""
        return data.startswith(SIGNED) and self.verifier is None

    def unseal(self, label: str, data: bytes) -> bytes | None:
        """The payload, or None when the entry does not verify with what this run holds."""
        if data.startswith(SIGNED):
            if self.verifier is None:
                return None
            from bot import cachesig

            return cachesig.verify(self.verifier, FORMAT, label, data)
        return unseal(self.mac, label, data) if self.mac is not None else None


def keys() -> Keys:
    """The keys this run holds (bot.safety.credentials holds the secrets). A key that does not read
    is a BotError naming its variable."""
    from bot.safety import credentials

    held = credentials.environ()
    known = held.get(SECRET_VARIABLE) or None
    signing = held.get(SIGNING_VARIABLE) or os.environ.get(SIGNING_VARIABLE) or None
    public = os.environ.get(PUBLIC_KEY_VARIABLE) or held.get(PUBLIC_KEY_VARIABLE) or None
    if signing is None and public is None:  # no import of cryptography
        return Keys(mac_key(known) if known is not None else None)
    from bot import cachesig

    signer = cachesig.private_key(signing, SIGNING_VARIABLE) if signing is not None else None
    verifier = (cachesig.public_key(public, PUBLIC_KEY_VARIABLE) if public is not None
                else signer.public_key() if signer is not None else None)
    return Keys(mac_key(known) if known is not None else None, signer, verifier)


# --- the run's policy: who saves, what did not verify ----------------------------------------

@dataclass
class _Pack:
    """One pack as this process knows it: each file key's encoded findings (JSON bytes), in
    the order they were added, and the on-disk file's identity when last read or written."""

    entries: dict[str, bytes] = field(default_factory=dict)
    stamp: tuple[int, int, int] | None = None
    dirty: bool = False


@dataclass
class _Policy:
    """One command's use of the cache (`session`): who saves, what it keeps, what failed."""

    # Outside a `session` nothing is saved: only a command that says it is trusted saves.
    save: bool = False
    # Results this process keeps for itself: (folder, label, key) -> payload. Used when the run
    # may not save, or when there is no secret to seal entries with.
    memory: dict[tuple[str, str, str], bytes] = field(default_factory=dict)
    rejected: Counter[str] = field(default_factory=Counter)  # folder -> entries that failed
    # folder -> signed entries met without the public key (Keys.lacks_key)
    unverifiable: Counter[str] = field(default_factory=Counter)
    folders: set[Path] = field(default_factory=set)  # the cache folders the run used
    # (folder, pack key) -> the pack: read once, shared by the run's collects (base and head).
    packs: dict[tuple[str, str], _Pack] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)  # tools run in threads

    def reject(self, folder: Path) -> None:
        with self.lock:
            self.rejected[str(folder)] += 1

    def out_of_reach(self, folder: Path) -> None:
        with self.lock:
            self.unverifiable[str(folder)] += 1


_policy = _Policy()


@contextlib.contextmanager
def session(save: bool, stream: TextIO | None = None) -> Iterator[None]:
    """One command's use of the cache: whether it may save, and at the end one line per folder
    that held entries which did not verify (to `stream`, default stderr)."""
    global _policy
    previous, _policy = _policy, _Policy(save=save)
    try:
        yield
    finally:
        current, _policy = _policy, previous
        out = stream or sys.stderr
        for folder, count in sorted(current.rejected.items()):
            what = "1 entry did not verify and was" if count == 1 else \
                f"{count} entries did not verify and were"
            print(f"reviewbot: cache {folder}: {what} ignored", file=out)
        for folder, count in sorted(current.unverifiable.items()):
            what, them = ("1 entry is", "it") if count == 1 else (f"{count} entries are", "them")
            print(f"reviewbot: cache {folder}: {what} signed by the warm job and this run has no "
                  f"key to verify {them}: give it {PUBLIC_KEY_VARIABLE} (docs/cache.md)", file=out)
        for directory in sorted(current.folders):
            note = unused_note(directory)
            if note is not None:
                print(f"reviewbot: {note}", file=out)


def secret() -> str | None:
    """`REVIEWBOT_CACHE_SECRET`, wherever `bot.safety.credentials` holds it."""
    from bot.safety import credentials  # the secret is taken out of os.environ at start

    return credentials.environ().get(SECRET_VARIABLE) or None


def unused_note(directory: Path) -> str | None:
    """A line for a run without the secret or the public key whose cache folder holds
    entries: they are not read, and saying so beats a silently cold run."""
    if not (directory / FORMAT).is_dir():
        return None
    try:
        if keys().reads:
            return None
    except BotError:
        return None  # said where the cache was opened
    return (f"cache {directory}: {SECRET_VARIABLE} is not set, so its entries cannot be "
            "verified and are not used (docs/cache.md)")


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells one version of a file from the next: inode, size, modification time."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _write_atomic(path: Path, data: bytes) -> bool:
    """Best effort (a cache that cannot be written only costs time), never half an entry."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write(path, data)
    except OSError:
        return False
    return True


# --- the store: I/O ----------------------------------------------------------------------

class FindingsCache:
    """The cache folder as this run may use it (see the module's docstring): sealed entries
    read from disk, written there only when the run saves and a secret is set, else kept in
    this process's memory."""

    def __init__(self, directory: Path, max_bytes: int = DEFAULT_MAX_BYTES,
                 pack: str | None = None) -> None:
        """`pack`: keep every entry in that one pack (see the module's docstring)."""
        self.root = directory
        self.directory = directory / FORMAT
        self.max_bytes = max_bytes
        self.pack = pack
        self.writes = 0
        self._keys = keys()
        self._policy = _policy
        with self._policy.lock:
            self._policy.folders.add(directory)
        self._saves = self._keys.seals and self._policy.save

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def read(self, label: str, key: str, path: Path) -> bytes | None:
        """The payload stored under `key`: this run's own, else a verified entry from disk.
        An entry that does not verify is deleted and counted (the session names the folder)."""
        mine = self._policy.memory.get((str(self.directory), label, key))
        if mine is not None or not self._keys.reads:
            return mine
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if self._keys.lacks_key(data):
            self._policy.out_of_reach(self.root)
            return None
        payload = self._keys.unseal(label, data)
        if payload is None:
            self._drop(path)
            self._policy.reject(self.root)
        return payload

    def write(self, label: str, key: str, path: Path, payload: bytes) -> bool:
        if not self._saves:
            self._policy.memory[(str(self.directory), label, key)] = payload
            return True
        return _write_atomic(path, self._keys.seal(label, payload))

    @staticmethod
    def _drop(path: Path) -> None:
        with contextlib.suppress(OSError):  # the caller recomputes
            path.unlink()

    def get(self, key: str) -> tuple[Finding, ...] | None:
        if self.pack is not None:
            return self._pack_get(key)
        entry = self._entry(key)
        payload = self.read("findings", key, entry)
        if payload is None:
            return None
        try:
            data = json.loads(payload)
            if data.get("key") != key:
                raise ValueError("key mismatch")
            findings = codec.decode_findings(data["findings"])
        except (ValueError, KeyError, TypeError, AttributeError):
            self._drop(entry)  # written by an older bot under the same format: recomputed
            return None
        if self._saves:
            with contextlib.suppress(OSError):
                os.utime(entry)  # recently used: last to be evicted
        return findings

    def put(self, key: str, findings: Sequence[Finding]) -> None:
        """Best effort: a cache that cannot be written only costs time."""
        if self.pack is not None:
            self._pack_put(key, findings)
            return
        payload = json.dumps({"key": key, "findings": codec.encode_findings(findings)},
                             separators=(",", ":"))
        if self.write("findings", key, self._entry(key), payload.encode("utf-8")) and self._saves:
            self.writes += 1

    # -- the pack: one sealed file for all of a tool's entries ------------------------------

    def _pack_path(self) -> Path:
        assert self.pack is not None
        return self.directory / "packs" / f"{self.pack}.pack"

    def _pack_get(self, key: str) -> tuple[Finding, ...] | None:
        with self._policy.lock:
            raw = self._load_pack().entries.get(key)
        if raw is None:
            return None
        try:
            return codec.decode_findings(json.loads(raw))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None  # an older bot's shape under the same format: recomputed

    def _pack_put(self, key: str, findings: Sequence[Finding]) -> None:
        raw = json.dumps(codec.encode_findings(findings), separators=(",", ":")).encode("utf-8")
        with self._policy.lock:
            pack = self._load_pack()
            pack.entries.pop(key, None)  # newest last: what the bound keeps
            pack.entries[key] = raw
            pack.dirty = pack.dirty or self._saves

    def _load_pack(self) -> _Pack:
        """The pack as the run knows it, read again (and verified) when the file on disk is
        not the one last seen: another run wrote it. Called with the policy's lock held."""
        assert self.pack is not None
        slot = (str(self.directory), self.pack)
        known = self._policy.packs.get(slot)
        if not self._keys.reads:  # nothing on disk is read: the run's own results only
            return self._policy.packs.setdefault(slot, _Pack())
        path = self._pack_path()
        stamp = _stamp(path)
        if known is not None and known.stamp == stamp:
            return known
        entries = self._read_pack(path) if stamp is not None else {}
        stamp = _stamp(path)  # as read (and touched: its mtime is the eviction's clock)
        if known is not None:  # the run's own results stay, newest last
            for key, raw in known.entries.items():
                entries.pop(key, None)
                entries[key] = raw
        fresh = _Pack(entries, stamp, known.dirty if known is not None else False)
        self._policy.packs[slot] = fresh
        return fresh

    def _read_pack(self, path: Path) -> dict[str, bytes]:
        assert self.pack is not None
        try:
            data = path.read_bytes()
        except OSError:
            return {}
        if self._keys.lacks_key(data):
            self._policy.unverifiable[str(self.root)] += 1  # the policy's lock is held
            return {}
        payload = self._keys.unseal("pack", data)
        header, _, body = (payload or b"").partition(b"\n")
        if payload is None or header != f"pack {self.pack}".encode("ascii"):
            # Forged, sealed under another secret, or another tool's pack moved here.
            self._drop(path)
            self._policy.rejected[str(self.root)] += 1
            return {}
        if self._saves:
            with contextlib.suppress(OSError):
                os.utime(path)  # recently used: last to be evicted
        entries: dict[str, bytes] = {}
        for line in body.split(b"\n"):
            key, sep, raw = line.partition(b" ")
            if sep:
                entries[key.decode("ascii", "replace")] = raw
        return entries

    def flush(self) -> None:
        """Write the pack once if this run added to it and may save (best effort)."""
        if self.pack is None or not self._saves:
            return
        with self._policy.lock:
            pack = self._load_pack()
            if not pack.dirty:
                return
            items = list(pack.entries.items())[-PACK_MAX_ENTRIES:]
            payload = b"".join([f"pack {self.pack}\n".encode("ascii"),
                                *(k.encode("ascii") + b" " + raw + b"\n" for k, raw in items)])
            path = self._pack_path()
            if _write_atomic(path, self._keys.seal("pack", payload)):
                pack.stamp = _stamp(path)
                pack.dirty = False
                self.writes += 1

    # -- tool versions: `TOOL --version` costs a process start (0.1 s for node tools) -----------

    def _version_entry(self, stamp: str) -> Path:
        return self.directory / "versions" / f"{make_key(stamp)}.json"

    def version(self, stamp: str) -> str | None:
        """The version recorded for a binary stamp (see `binary_stamp`), if any."""
        payload = self.read("version", stamp, self._version_entry(stamp))
        try:
            data = json.loads(payload) if payload is not None else None
            return str(data["version"]) if data and data.get("stamp") == stamp else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def remember_version(self, stamp: str, version: str) -> None:
        self.write("version", stamp, self._version_entry(stamp),
                    json.dumps({"stamp": stamp, "version": version}).encode("utf-8"))

    def prune(self) -> int:
        """Evict least recently used entries until the cache is under its bound; returns count.
        Measured less than `PRUNE_EVERY` seconds ago (by any run), or a run that does not
        save: nothing to do, returns 0."""
        if not self._saves:
            return 0
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
