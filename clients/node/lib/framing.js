// LSP base-protocol framing: `Content-Length: N\r\n\r\n` followed by N bytes of UTF-8 JSON.

import { ProtocolError } from './errors.js';

const MAX_HEADER_BYTES = 8 * 1024;
const LINE_FEED = 0x0a;

/** Encodes one JSON-RPC message as an LSP frame. */
export function encodeFrame(message) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

/**
 * Incremental frame parser: feed it chunks as they arrive, in any split, and it
 * returns the bodies (as Buffers) of the frames each chunk completes.
 */
export class FrameParser {
  #chunks = [];
  #bufferedBytes = 0;
  #bodyLength = null; // set once a header block has been read, until its body is complete

  push(chunk) {
    this.#chunks.push(chunk);
    this.#bufferedBytes += chunk.length;
    const bodies = [];
    for (;;) {
      if (this.#bodyLength === null && !this.#readHeader()) break;
      if (this.#bufferedBytes < this.#bodyLength) break;
      const buffered = this.#joinChunks();
      bodies.push(buffered.subarray(0, this.#bodyLength));
      this.#keep(buffered.subarray(this.#bodyLength));
      this.#bodyLength = null;
    }
    return bodies;
  }

  /** Consumes a complete header block if one is buffered; returns whether it did. */
  #readHeader() {
    const buffered = this.#joinChunks();
    const lines = [];
    let position = 0;
    for (;;) {
      const lineEnd = buffered.indexOf(LINE_FEED, position);
      if (lineEnd === -1) {
        // Everything buffered belongs to an unfinished header block.
        if (buffered.length > MAX_HEADER_BYTES) {
          throw new ProtocolError('frame header block exceeds 8 KiB');
        }
        return false;
      }
      const line = buffered.toString('latin1', position, lineEnd).replace(/\r$/, '');
      position = lineEnd + 1;
      if (line !== '') {
        lines.push(line);
      } else if (lines.length > 0) {
        break;
      }
      // An empty line before any header is whitespace between frames: skip it.
    }
    this.#bodyLength = contentLength(lines);
    this.#keep(buffered.subarray(position));
    return true;
  }

  #joinChunks() {
    if (this.#chunks.length !== 1) this.#chunks = [Buffer.concat(this.#chunks)];
    return this.#chunks[0];
  }

  #keep(rest) {
    this.#chunks = [rest];
    this.#bufferedBytes = rest.length;
  }
}

function contentLength(headerLines) {
  let length = null;
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon === -1) throw new ProtocolError(`malformed frame header line: ${JSON.stringify(line)}`);
    if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d+$/.test(value)) throw new ProtocolError(`malformed Content-Length: ${JSON.stringify(value)}`);
    length = Number(value);
  }
  if (length === null) throw new ProtocolError('frame header block has no Content-Length');
  return length;
}
