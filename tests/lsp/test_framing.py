"""Content-Length framing: banners, partial and coalesced reads, bytes not characters."""

from __future__ import annotations

import json

import pytest

from bot.lsp import framing


def frame(obj: dict[str, object]) -> bytes:
    return framing.encode(obj)


MESSAGES = [{"id": 1, "result": "é😀"}, {"method": "x", "params": {"a": [1, 2]}},
            {"id": 2, "result": None}]
STREAM = b"".join(frame(m) for m in MESSAGES)


def bodies(reader: framing.FrameReader, data: bytes, step: int) -> list[dict[str, object]]:
    out = []
    for i in range(0, len(data), step):
        out += [framing.decode(b) for b in reader.feed(data[i:i + step])]
    return out


@pytest.mark.parametrize("step", [1, 2, 7, 64, len(STREAM)])
def test_any_read_size_gives_the_same_messages(step: int) -> None:
    assert bodies(framing.FrameReader(), STREAM, step) == MESSAGES


def test_length_counts_utf8_bytes() -> None:
    encoded = frame({"s": "é😀"})
    header, body = encoded.split(b"\r\n\r\n", 1)
    assert int(header.split(b":")[1]) == len(body) == len(json.dumps({"s": "é😀"},
                                                                    ensure_ascii=False,
                                                                    separators=(",", ":")).encode())


def test_banner_and_noise_between_frames_are_skipped() -> None:
    data = (b"Starting server v1.2 \xe2\x9c\x93\n\x1b[32mready\x1b[0m\n" + frame(MESSAGES[0])
            + b"log line\r\n" + frame(MESSAGES[1]))
    reader = framing.FrameReader()
    assert bodies(reader, data, 3) == MESSAGES[:2]
    assert b"Starting server" in reader.skipped and not reader.truncated


def test_header_variants() -> None:
    body = json.dumps(MESSAGES[0]).encode()
    data = (b"content-length:%d\r\nContent-Type: application/vscode-jsonrpc; charset=utf8\r\n\r\n"
            % len(body) + body
            + b"Content-Length: %d\r\r\n\r\r\n" % len(body) + body)  # text-mode \r\r\n
    assert bodies(framing.FrameReader(), data, 5) == [MESSAGES[0], MESSAGES[0]]


def test_garbage_header_resyncs_on_the_next_one() -> None:
    data = b"Content-Length: nope\r\n" + frame(MESSAGES[0])
    assert bodies(framing.FrameReader(), data, 4) == [MESSAGES[0]]


def test_stream_ending_mid_message_is_truncated() -> None:
    reader = framing.FrameReader()
    assert reader.feed(frame(MESSAGES[0]) + frame(MESSAGES[1])[:-3]) != []
    assert reader.truncated
    half_header = framing.FrameReader()
    half_header.feed(b"Content-Len")
    assert not half_header.feed(b"")


def test_undecodable_body_is_an_error_not_a_crash() -> None:
    with pytest.raises(framing.FramingError):
        framing.decode(b"[1, 2]")
    with pytest.raises(framing.FramingError):
        framing.decode(b"\xff{")
