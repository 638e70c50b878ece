"""Untrusted text made safe for one line of a terminal: no early line ends, no escape sequences.

Paths are quoted the way git quotes them (`"a\\nb.py"`, only when needed, with `\\` and `"`
escaped inside the quotes, so every name reads back unambiguously); other text (messages,
versions, notes) has its control characters escaped in place. Non-ASCII letters stay as they are.
"""

from __future__ import annotations

import unicodedata

_NAMED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
          "\r": "\\r"}


def _unsafe(char: str) -> bool:
    """C0/C1 controls and DEL (ESC, CSI), line and paragraph separators, and the bidirectional
    formatting characters that can make a line read differently from what it contains."""
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000:
        return True  # surrogates: a name's bytes that are not UTF-8 (no terminal can show one)
    return unicodedata.category(char) in ("Zl", "Zp") or unicodedata.bidirectional(char) in (
        "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code < 0xDD00:  # os.fsdecode's stand-in for the byte it could not decode
        code -= 0xDC00
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every unsafe character written as its escape (`\\n`, `\\x1b`)."""
    if not any(_unsafe(c) for c in text):
        return text
    return "".join(_escaped(c) if _unsafe(c) else c for c in text)


def quote_path(path: str) -> str:
    """`path` as is when it is plain, else in double quotes with escapes, as git shows it."""
    if not any(_unsafe(c) or c in '"\\' for c in path):
        return path
    body = "".join(_escaped(c) if _unsafe(c) else "\\" + c if c in '"\\' else c for c in path)
    return f'"{body}"'
