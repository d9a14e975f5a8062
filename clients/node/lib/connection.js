// JSON-RPC 2.0 over a pair of byte streams in LSP framing: request/response
// matching, timeouts, cancellation and incoming notifications.

import { EventEmitter } from 'node:events';
import { FrameParser, encodeFrame } from './framing.js';
import {
  ProtocolError,
  RequestCancelledError,
  TimeoutError,
  UnsendableRequestError,
  errorFromResponse,
} from './errors.js';

/**
 * Events: 'notification' (method, params) for every message from the peer that
 * has a method; 'error' (error) for malformed input and for error responses
 * that cannot be matched to a request (id null); 'pending' (count) whenever
 * the number of requests awaiting an answer changes.
 */
export class JsonRpcConnection extends EventEmitter {
  #output;
  #parser = new FrameParser();
  #pending = new Map(); // request id -> { resolve, reject, cleanup }
  #nextId = 1;
  #defaultTimeout;
  #closedBecause = null;
  /** The largest message body the peer reads (bytes); a larger request is not sent. */
  maxMessageBytes = Infinity;

  constructor(input, output, { defaultTimeout = 0 } = {}) {
    super();
    this.#output = output;
    this.#defaultTimeout = defaultTimeout;
    input.on('data', (chunk) => this.#receiveChunk(chunk));
  }

  /**
   * Sends a request and resolves with its result. A timeout (milliseconds, 0 for
   * none) or an aborted signal rejects at once and asks the peer to cancel; a
   * response that arrives later is dropped.
   */
  request(method, params, { timeout = this.#defaultTimeout, signal } = {}) {
    if (this.#closedBecause) return Promise.reject(this.#closedBecause);
    if (signal?.aborted) return Promise.reject(abortError(method, signal));

    const id = this.#nextId++;
    let frame;
    try {
      frame = this.#frame(method, { jsonrpc: '2.0', id, method, params });
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const timer = timeout > 0
        ? setTimeout(
          () => this.#abandon(id, new TimeoutError(`${method} timed out after ${timeout} ms`, { method, timeout })),
          timeout,
        )
        : null;
      const onAbort = () => this.#abandon(id, abortError(method, signal));
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#pending.set(id, { resolve, reject, cleanup });
      this.emit('pending', this.#pending.size);
      this.#output.write(frame);
    });
  }

  /** Sends a notification; throws UnsendableRequestError, as request() rejects, for what the peer cannot read. */
  notify(method, params) {
    if (!this.#closedBecause) this.#output.write(this.#frame(method, { jsonrpc: '2.0', method, params }));
  }

  /** Rejects every pending and future request with `error`. */
  close(error) {
    this.#closedBecause ??= error;
    for (const id of [...this.#pending.keys()]) this.#settle(id).reject(error);
  }

  /**
   * The frame of `message`, or UnsendableRequestError for what the server would
   * answer with id null (-32700, -32600) instead of answering the request.
   */
  #frame(method, message) {
    const where = findIllFormedString(message.params, 'params');
    if (where !== undefined) {
      throw new UnsendableRequestError(`${method} was not sent: ${where} holds a lone surrogate (it is not well-formed Unicode)`, { method });
    }
    const frame = encodeFrame(message);
    const bodyBytes = frame.length - frame.indexOf('\r\n\r\n') - 4;
    if (bodyBytes > this.maxMessageBytes) {
      throw new UnsendableRequestError(
        `${method} was not sent: it is ${bodyBytes} bytes, more than the server's limit of ${this.maxMessageBytes}`,
        { method },
      );
    }
    return frame;
  }

  #abandon(id, error) {
    this.#settle(id).reject(error);
    this.notify('$/cancelRequest', { id });
  }

  /** Removes a pending request and returns its callbacks, or undefined if it is not pending. */
  #settle(id) {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    pending.cleanup();
    this.emit('pending', this.#pending.size);
    return pending;
  }

  #receiveChunk(chunk) {
    let bodies;
    try {
      bodies = this.#parser.push(chunk);
    } catch (error) {
      // The stream cannot be resynchronised after a broken header.
      this.close(error);
      this.emit('error', error);
      return;
    }
    for (const body of bodies) this.#receiveBody(body);
  }

  #receiveBody(body) {
    let message;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch (error) {
      this.emit('error', new ProtocolError(`server sent invalid JSON: ${error.message}`, { cause: error }));
      return;
    }
    for (const member of Array.isArray(message) ? message : [message]) {
      try {
        this.#receiveMessage(member);
      } catch (error) {
        // A fault in handling one message must not drop the ones after it.
        this.emit('error', new ProtocolError(`cannot handle a message from the server: ${error.message}`, { cause: error }));
      }
    }
  }

  #receiveMessage(message) {
    if (typeof message?.method === 'string') {
      this.emit('notification', message.method, message.params);
    } else if (message?.id === null && message.error) {
      this.emit('error', errorFromResponse(message.error));
    } else {
      // Responses to requests that timed out or were aborted are no longer pending.
      const pending = this.#settle(message?.id);
      if (!pending) return;
      if (message.error) pending.reject(errorFromResponse(message.error));
      else pending.resolve(message.result);
    }
  }
}

const LONE_SURROGATE = /\p{Surrogate}/u; // with the u flag, a valid pair is one code point and does not match

/** The path of the first string (or member name) in `value` that holds a lone surrogate, or undefined. */
function findIllFormedString(value, path) {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, member] of Object.entries(value)) {
    if (LONE_SURROGATE.test(key)) return `${path} (a member name)`;
    const found = findIllFormedString(member, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function abortError(method, signal) {
  return new RequestCancelledError(`${method} was aborted`, undefined, signal.reason);
}
