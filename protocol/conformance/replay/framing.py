"""The two wire framings: encoding what the client sends and decoding what the server writes."""

import json

FRAMINGS = ("ndjson", "lsp")


class OutputViolation(Exception):
    """The server wrote something that is not a well-framed JSON message."""


def encode_json(value):
    """Compact UTF-8 JSON, the way a client would send it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def frame(body, framing):
    """Wraps one encoded message for the wire."""
    if framing == "lsp":
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    return body + b"\n"


def _reject_duplicates(pairs):
    names = [name for name, _ in pairs]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise OutputViolation(f"duplicate member names {sorted(duplicates)}")
    return dict(pairs)


def _reject_constant(name):
    raise OutputViolation(f"{name} is not JSON")


class WrittenInt(int):
    """An integer as the server wrote it: `text` is its JSON text."""


class WrittenFloat(float):
    """A number with a fraction or an exponent as the server wrote it: `text` is its JSON text."""


def _written(kind):
    def parse(text):
        number = kind(text)
        number.text = text
        return number

    return parse


def decode_json(body):
    """Strict RFC 8259 decoding of one message body the server wrote."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise OutputViolation(f"message is not UTF-8: {error}") from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_reject_duplicates,
            parse_constant=_reject_constant,
            parse_int=_written(WrittenInt),
            parse_float=_written(WrittenFloat),
        )
    except json.JSONDecodeError as error:
        raise OutputViolation(f"message is not JSON ({error}): {text[:200]!r}") from None


class NdjsonDecoder:
    """Splits the server's output into lines, one message per line."""

    def __init__(self):
        self._buffer = b""

    def feed(self, data):
        """Returns the messages completed by `data`."""
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        return [decode_json(line) for line in lines]

    def finish(self):
        if self._buffer:
            raise OutputViolation(f"output ends inside a line: {self._buffer[:200]!r}")


class LspDecoder:
    """Reads `Content-Length: N\\r\\n\\r\\n` + N bytes; the server writes no other header."""

    def __init__(self):
        self._buffer = b""

    def feed(self, data):
        self._buffer += data
        messages = []
        while True:
            header_end = self._buffer.find(b"\r\n\r\n")
            if header_end < 0:
                return messages
            header = self._buffer[:header_end].decode("ascii", "replace")
            name, _, value = header.partition(": ")
            if name != "Content-Length" or not value.isdigit():
                raise OutputViolation(f"expected exactly one header 'Content-Length: N', got {header[:200]!r}")
            body_start = header_end + 4
            body_end = body_start + int(value)
            if len(self._buffer) < body_end:
                return messages
            messages.append(decode_json(self._buffer[body_start:body_end]))
            self._buffer = self._buffer[body_end:]

    def finish(self):
        if self._buffer:
            raise OutputViolation(f"output ends inside a message: {self._buffer[:200]!r}")


def decoder_for(framing):
    return LspDecoder() if framing == "lsp" else NdjsonDecoder()
