"""Decoding what the server writes: strict framing and strict JSON."""

import pytest

from replay.framing import LspDecoder, NdjsonDecoder, OutputViolation


def test_ndjson_messages_may_arrive_in_any_pieces():
    decoder = NdjsonDecoder()
    assert decoder.feed(b'{"a":') == []
    assert decoder.feed(b'1}\n{"b":2}\n{"c"') == [{"a": 1}, {"b": 2}]
    with pytest.raises(OutputViolation):
        decoder.finish()


def test_ndjson_lines_end_at_a_line_feed_only():
    line = '{"t":"a\u2028b\u2029c\u0085d"}\n'.encode()
    assert NdjsonDecoder().feed(line) == [{"t": "a\u2028b\u2029c\u0085d"}]


def test_lsp_messages_are_counted_in_bytes():
    decoder = LspDecoder()
    body = '{"t":"ü"}'.encode()
    stream = b"Content-Length: %d\r\n\r\n" % len(body) + body
    assert decoder.feed(stream[:20]) == []
    assert decoder.feed(stream[20:] + stream) == [{"t": "ü"}, {"t": "ü"}]


@pytest.mark.parametrize(
    "output",
    [
        b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        b"content-length: 2\r\n\r\n{}",
        b"Content-Length: x\r\n\r\n{}",
    ],
)
def test_lsp_output_carries_only_a_content_length_header(output):
    with pytest.raises(OutputViolation):
        LspDecoder().feed(output)


@pytest.mark.parametrize("line", [b'{"a":1,"a":2}\n', b'{"a":NaN}\n', b"\xff\n", b"{\n"])
def test_output_must_be_strict_json(line):
    with pytest.raises(OutputViolation):
        NdjsonDecoder().feed(line)
