"""LSP base-protocol framing (`Content-Length` headers), without any I/O."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

_HEADER_END = b"\r\n\r\n"
_MAX_HEADER_BYTES = 8192


class FramingError(ValueError):
    """The byte stream is not a valid sequence of LSP frames."""


def encode_frame(message: Any) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameDecoder:
    """Turns chunks of bytes, split anywhere, into decoded JSON messages."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._body_length: int | None = None

    def feed(self, data: bytes) -> Iterator[Any]:
        self._buffer += data
        while True:
            if self._body_length is None:
                self._body_length = self._take_header()
                if self._body_length is None:
                    return
            if len(self._buffer) < self._body_length:
                return
            body = bytes(self._buffer[: self._body_length])
            del self._buffer[: self._body_length]
            self._body_length = None
            try:
                yield json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                raise FramingError(f"message body is not UTF-8 JSON: {error}") from error

    def _take_header(self) -> int | None:
        # The server may put white space between messages.
        while self._buffer[:1].isspace():
            del self._buffer[:1]
        end = self._buffer.find(_HEADER_END)
        if end < 0:
            if len(self._buffer) > _MAX_HEADER_BYTES:
                raise FramingError("header block too long")
            return None
        header = bytes(self._buffer[:end]).decode("ascii", errors="replace")
        del self._buffer[: end + len(_HEADER_END)]
        length: int | None = None
        for line in header.split("\r\n"):
            name, colon, value = line.partition(":")
            if not colon:
                raise FramingError(f"header line without a colon: {line!r}")
            if name.strip().lower() == "content-length":
                value = value.strip()
                if not value.isdigit():
                    raise FramingError(f"bad Content-Length: {value!r}")
                length = int(value)
        if length is None:
            raise FramingError("header block without Content-Length")
        return length
