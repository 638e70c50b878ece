"""Replace a file's contents all at once: written beside it, then renamed over it, so no
reader and no crash ever sees half a file. The one place the bot writes files that matter
(fixes, plans, cache entries, reports)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

Replace = Callable[[str, str], None]


def write(path: Path, data: bytes, *, sync: bool = False, replace: Replace = os.replace) -> None:
    """Write `data` to `path`. An existing file keeps its permissions; a new one gets the
    usual ones (umask). `sync` flushes to disk before the rename (a plan being applied);
    `replace` is the rename, injectable to test a failure part-way."""
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    # os.urandom as secrets.token_hex does, without importing secrets (base64, hmac) on every run
    tmp = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    try:
        with open(tmp, "xb") as handle:  # exclusive: never someone else's file
            handle.write(data)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        replace(str(tmp), str(path))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
