"""What the review between the last swept commit and one commit of the range introduced, kept
on disk beside the findings cache: it depends only on the two commits, the tools' versions
and the options, so a sweep run again over the same range (after a lost write) reviews no
revision twice."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from bot import atomic

FORMAT = "sweep-probes-v1"
Key = tuple[str, str, str, str, str]  # fingerprint, tool, rule, path, message


class Probes:
    def __init__(self, folder: Path | None, salt: str) -> None:
        self.folder = folder / FORMAT if folder is not None else None
        self.salt = salt

    def _path(self, base: str, sha: str) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256("\0".join((self.salt, base, sha)).encode()).hexdigest()
        return self.folder / f"{digest}.json"

    def get(self, base: str, sha: str) -> frozenset[Key] | None:
        path = self._path(base, sha)
        try:
            data = json.loads(path.read_text("utf-8")) if path else None
        except (OSError, ValueError):
            return None
        if not isinstance(data, list) or not all(
                isinstance(k, list) and len(k) == 5 and all(isinstance(x, str) for x in k)
                for k in data):
            return None
        return frozenset((k[0], k[1], k[2], k[3], k[4]) for k in data)

    def put(self, base: str, sha: str, keys: frozenset[Key]) -> None:
        path = self._path(base, sha)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic.write(path, json.dumps(sorted(keys)).encode())
        except OSError:
            pass  # a cache that cannot be written costs time, not correctness
