"""Content-Length framing: the one place that turns bytes into messages and back.

Byte-level and transport-agnostic (the Debug Adapter Protocol uses the same headers, so a DAP
client can reuse it). Sans-I/O: callers `feed()` whatever a read returned and get the complete
bodies out; nothing here touches a pipe.

Robust to what real servers do: banners or log lines before or between frames (we resync on
the next `Content-Length:` header), half a header or several messages in one read, header
names in any case, `\r\r\n` line ends, and a stream that ends mid-message (`truncated`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from bot.errors import FramingError

# A header block: header lines, then an empty line. Lenient on `\r\r\n` (text-mode servers).
_HEADER_NAME = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_BLOCK_END = re.compile(rb"\r?\r?\n\r?\r?\n")
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)", re.IGNORECASE)
MAX_BODY = 256 * 1024 * 1024  # a larger claimed length is garbage, not a message


def encode(message: dict[str, Any]) -> bytes:
    """One framed message: the header counts UTF-8 bytes, never characters."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def decode(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FramingError(f"undecodable message body ({len(body)} bytes): {exc}") from exc
    if not isinstance(value, dict):
        raise FramingError(f"message body is not a JSON object: {type(value).__name__}")
    return value


@dataclass
class FrameReader:
    """Accumulates bytes and yields complete message bodies in order."""

    buffer: bytearray = field(default_factory=bytearray)
    skipped: bytearray = field(default_factory=bytearray)  # non-protocol bytes, for diagnostics
    _need: int | None = None  # body length once a header block is parsed

    def feed(self, data: bytes) -> list[bytes]:
        self.buffer.extend(data)
        bodies: list[bytes] = []
        while True:
            body = self._next()
            if body is None:
                return bodies
            bodies.append(body)

    @property
    def truncated(self) -> bool:
        """True when the stream holds part of a message (call after end of stream)."""
        return self._need is not None or bool(_HEADER_NAME.search(self.buffer))

    def _next(self) -> bytes | None:
        if self._need is None and not self._parse_header():
            return None
        assert self._need is not None
        if len(self.buffer) < self._need:
            return None
        body = bytes(self.buffer[: self._need])
        del self.buffer[: self._need]
        self._need = None
        return body

    def _parse_header(self) -> bool:
        start = _HEADER_NAME.search(self.buffer)
        if start is None:
            # Keep a tail that could be the start of a header split across reads.
            keep = min(len(self.buffer), 32)
            self._skip(len(self.buffer) - keep)
            return False
        self._skip(start.start())
        end = _BLOCK_END.search(self.buffer)
        if end is None:
            return False
        header = bytes(self.buffer[: end.start()])
        length = _LENGTH.match(header)
        # Another Content-Length inside the block means the first header was garbage.
        again = _HEADER_NAME.search(header, 1)
        if length is None or again is not None or int(length.group(1)) > MAX_BODY:
            self._skip(again.start() if again is not None else 1)
            return self._parse_header()
        del self.buffer[: end.end()]
        self._need = int(length.group(1))
        return True

    def _skip(self, count: int) -> None:
        if count <= 0:
            return
        if len(self.skipped) < 64 * 1024:
            self.skipped.extend(self.buffer[:count])
        del self.buffer[:count]
