"""What the review between the last swept commit and one commit of the range introduced, kept
on disk beside the findings cache: it depends only on the two commits, the tools' versions
and the options, so a sweep run again over the same range (after a lost write) reviews no
revision twice. Sealed like the findings cache's entries (bot.cache): the folder is within
reach of the tools a review runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from bot import cache

FORMAT = "sweep-probes-v1"
Key = tuple[str, str, str, str, str]  # fingerprint, tool, rule, path, message


class Probes:
    def __init__(self, folder: Path | None, salt: str) -> None:
        self.folder = folder / FORMAT if folder is not None else None
        self.store = cache.FindingsCache(folder) if folder is not None else None
        self.salt = salt

    def _key(self, base: str, sha: str) -> str:
        return hashlib.sha256("\0".join((self.salt, base, sha)).encode()).hexdigest()

    def get(self, base: str, sha: str) -> frozenset[Key] | None:
        if self.store is None or self.folder is None:
            return None
        key = self._key(base, sha)
        payload = self.store.read(FORMAT, key, self.folder / f"{key}.json")
        try:
            data = json.loads(payload) if payload is not None else None
        except ValueError:
            return None
        if not isinstance(data, list) or not all(
                isinstance(k, list) and len(k) == 5 and all(isinstance(x, str) for x in k)
                for k in data):
            return None
        return frozenset((k[0], k[1], k[2], k[3], k[4]) for k in data)

    def put(self, base: str, sha: str, keys: frozenset[Key]) -> None:
        if self.store is None or self.folder is None:
            return
        key = self._key(base, sha)  # best effort: a probe not kept costs time, not correctness
        self.store.write(FORMAT, key, self.folder / f"{key}.json", json.dumps(sorted(keys)).encode())
