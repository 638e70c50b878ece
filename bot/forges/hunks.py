"""The head lines a forge lets a review comment sit on, from the hunks of one file's patch as
the forge's API reports it (GitHub's `patch`, GitLab's `diff`: hunks without file headers).

Pure; the hunks are read by the one diff parser, `bot/revisions/diff.py`.
"""

from __future__ import annotations

from bot.revisions.diff import parse_patch

_HEADER = b"diff --git a/file b/file\n"  # what the parser expects before a file's hunks


def head_lines(patch: str) -> frozenset[int]:
    """Head line numbers inside the hunks (context and added lines); () for no hunks."""
    if not patch.strip():
        return frozenset()
    [parsed] = parse_patch(_HEADER + patch.encode("utf-8", "surrogateescape"))
    return frozenset(n for hunk in parsed.hunks
                     for n in range(hunk.new_start, hunk.new_start + hunk.new_count))
