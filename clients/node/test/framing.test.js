import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameParser, ProtocolError, encodeFrame } from '../index.js';

const messages = [
  { jsonrpc: '2.0', id: 1, result: { title: 'Grüße, 世界 🎉' } },
  { jsonrpc: '2.0', method: 'tasks/didChange', params: { seq: 1, changes: [] } },
  { jsonrpc: '2.0', id: 2, error: { code: 1001, message: 'task not found', data: { id: 'x' } } },
];

function parseAll(chunks) {
  const parser = new FrameParser();
  return chunks.flatMap((chunk) => parser.push(Buffer.from(chunk)))
    .map((body) => JSON.parse(body.toString('utf8')));
}

test('encodeFrame counts Content-Length in UTF-8 bytes, not characters', () => {
  const frame = encodeFrame({ title: 'é🎉' }).toString('utf8');
  const body = '{"title":"é🎉"}';
  assert.equal(frame, `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  assert.notEqual(Buffer.byteLength(body), body.length);
});

test('coalesced frames in one chunk all come out, in order', () => {
  const stream = Buffer.concat(messages.map(encodeFrame));
  assert.deepEqual(parseAll([stream]), messages);
});

test('a frame split at every possible byte position comes out whole', () => {
  const stream = Buffer.concat(messages.map(encodeFrame));
  for (let split = 1; split < stream.length; split++) {
    assert.deepEqual(parseAll([stream.subarray(0, split), stream.subarray(split)]), messages, `split at ${split}`);
  }
});

test('a stream fed one byte at a time comes out whole, multi-byte characters included', () => {
  const stream = Buffer.concat(messages.map(encodeFrame));
  const bytes = [...stream].map((byte) => Buffer.of(byte));
  assert.deepEqual(parseAll(bytes), messages);
});

test('header names are case-insensitive, other headers and bare newlines are accepted', () => {
  const body = '{"jsonrpc":"2.0","id":7,"result":null}';
  const frames = [
    `content-length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${body}`,
    `\r\nCONTENT-LENGTH:${body.length}\n\n${body}`,
  ];
  assert.deepEqual(parseAll(frames), [JSON.parse(body), JSON.parse(body)]);
});

test('a header block without Content-Length is a ProtocolError', () => {
  assert.throws(() => new FrameParser().push(Buffer.from('Content-Type: x\r\n\r\n{}')), ProtocolError);
});

test('a non-numeric Content-Length is a ProtocolError', () => {
  assert.throws(() => new FrameParser().push(Buffer.from('Content-Length: 1e3\r\n\r\n{}')), ProtocolError);
});

test('a header line without a colon is a ProtocolError', () => {
  assert.throws(() => new FrameParser().push(Buffer.from('Content-Length 2\r\n\r\n{}')), ProtocolError);
});

test('a header block that never ends is a ProtocolError once it passes 8 KiB', () => {
  const parser = new FrameParser();
  const headerLine = Buffer.from('X-Padding: aaaaaaaaaaaaaaaaaaaa\r\n');
  for (let bytes = headerLine.length; bytes <= 8 * 1024; bytes += headerLine.length) {
    assert.deepEqual(parser.push(headerLine), []);
  }
  assert.throws(() => parser.push(headerLine), ProtocolError);
});
