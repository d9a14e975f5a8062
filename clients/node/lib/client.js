// A Taskline server child process and the protocol lifecycle around it.

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { JsonRpcConnection } from './connection.js';
import { ProtocolError, ServerExitedError, errorFromResponse } from './errors.js';

const PROTOCOL_VERSION = '1';
const STDERR_TAIL_CHARS = 4096;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_CLOSE_GRACE_MS = 2_000;

// Listeners that wait on the server, and so keep Node running.
const FOLLOWING_EVENTS = new Set(['change', 'missedChanges', 'remind', 'exit']);

/**
 * Events: 'change' (params of tasks/didChange), 'missedChanges' (params of
 * tasks/didMissChanges: the changes after `since` through `seq` did not come as
 * 'change' events; read them with changes(since), or refetch when `reason` is not
 * 'backlog' or that fails with 1005), 'remind' (params of tasks/remind: `{ tasks }`,
 * sent only after initialize({ reminders: true }); listen before initialize to get
 * the reminders that passed while no client asked), 'exit' ({ code, signal }) once the
 * process has ended and its output is read, 'error' (error) for faults that belong
 * to no request.
 *
 * Listeners are guarded: one that throws is reported on stderr and the others,
 * and every later message, are still handled.
 *
 * The server keeps Node running only while something waits on it: a request,
 * close(), a 'change', 'missedChanges' or 'exit' listener, or an open
 * changeStream(). A script that forgets close() still ends, and so does its server.
 */
export class TasklineClient extends EventEmitter {
  #child;
  #connection;
  #exit; // resolves with { code, signal } once the process is gone
  #exitInfo = null;
  #closing = null; // the promise of close(), once it was called
  #stderrTail = '';
  #pendingRequests = 0;
  #streams = new Set();

  serverInfo = null;
  protocolVersion = null;
  capabilities = null;
  /** `{ id, seq }` from initialize: which database file this is, and its newest seq then. */
  database = null;

  /** Spawns the server; call initialize() (or use connect()) before sending task requests. */
  constructor({
    server = process.env.TASKLINE_SERVER || 'taskline',
    db,
    args = [],
    env,
    requestTimeout = DEFAULT_REQUEST_TIMEOUT_MS,
  } = {}) {
    super();
    const dbArgs = db === undefined ? [] : ['--db', db];
    this.#child = spawn(server, [...dbArgs, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.#connection = new JsonRpcConnection(this.#child.stdout, this.#child.stdin, {
      defaultTimeout: requestTimeout,
    });
    this.#connection.on('notification', (method, params) => {
      if (method === 'tasks/didChange') this.emit('change', params);
      else if (method === 'tasks/didMissChanges') this.emit('missedChanges', params);
      else if (method === 'tasks/remind') this.emit('remind', params);
    });
    this.#connection.on('error', (error) => this.emit('error', error));
    this.#connection.on('pending', (count) => {
      this.#pendingRequests = count;
      this.#updateRef();
    });
    this.on('newListener', (event) => {
      if (FOLLOWING_EVENTS.has(event)) queueMicrotask(() => this.#updateRef());
    });
    this.on('removeListener', (event) => {
      if (FOLLOWING_EVENTS.has(event)) this.#updateRef();
    });
    // Write failures (EPIPE) mean the process is gone; its 'close' event reports that.
    this.#child.stdin.on('error', () => {});
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (text) => {
      this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    this.#exit = new Promise((resolve) => {
      let spawnError;
      this.#child.on('error', (error) => {
        spawnError ??= error;
      });
      this.#child.on('close', (code, signal) => {
        this.#exitInfo = { code, signal };
        const exited = this.#exitedError(spawnError);
        this.#connection.close(exited);
        for (const stream of this.#streams) stream.end(this.#closing ? undefined : exited);
        this.emit('exit', this.#exitInfo);
        resolve(this.#exitInfo);
      });
    });
  }

  /** The server's process id, or undefined if it could not be started. */
  get pid() {
    return this.#child.pid;
  }

  /** Lines the server wrote to stderr most recently (at most 4096 characters). */
  get stderr() {
    return this.#stderrTail;
  }

  /**
   * Runs the initialize handshake. `notifications: false` asks the server not to
   * send tasks/didChange to this client; `reminders: true` asks for tasks/remind
   * ('remind' events).
   */
  async initialize({ clientInfo = { name: 'taskline-client' }, notifications = true, reminders = false, timeout, signal } = {}) {
    const result = await this.request('initialize', {
      processId: process.pid,
      clientInfo,
      initializationOptions: { notifications, reminders },
    }, { timeout, signal });
    if (result.protocolVersion !== PROTOCOL_VERSION) {
      throw new ProtocolError(`server speaks protocol version ${result.protocolVersion}, this client ${PROTOCOL_VERSION}`);
    }
    this.serverInfo = result.serverInfo;
    this.protocolVersion = result.protocolVersion;
    this.capabilities = result.capabilities;
    this.database = result.database;
    this.#connection.maxMessageBytes = result.capabilities.limits.maxMessageBytes;
    this.notify('initialized');
    return result;
  }

  request(method, params, options) {
    return this.#connection.request(method, params, options);
  }

  notify(method, params) {
    this.#connection.notify(method, params);
  }

  /**
   * Calls each listener in turn; one that throws is reported and does not stop
   * the others (as vscode-jsonrpc's Emitter does). An 'error' without a listener
   * becomes a process warning instead of an exception.
   */
  emit(event, ...args) {
    const listeners = this.rawListeners(event);
    if (listeners.length === 0) {
      if (event === 'error') process.emitWarning(args[0]);
      return false;
    }
    for (const listener of listeners) {
      try {
        listener.apply(this, args);
      } catch (error) {
        console.error(`taskline-client: a '${String(event)}' listener threw:`, error);
      }
    }
    return true;
  }

  /**
   * The 'change' and 'missedChanges' events as an async iterator of
   * `{ type: 'change' | 'missedChanges', params }`, from now until it is
   * returned from (break) or the client is closed. If the server ends before
   * close(), iterating rejects with ServerExitedError once what is buffered has
   * been read. At most `maxBuffered` notifications wait unread; past that it
   * keeps none of the later ones and yields, in their place, one
   * `{ type: 'missedChanges', params: { since, seq, reason: 'overflow' } }`
   * covering them all: read them with changesSince(since).
   */
  changeStream({ maxBuffered = 1000 } = {}) {
    const stream = new ChangeStream(maxBuffered, () => {
      this.#streams.delete(stream);
      this.off('change', onChange);
      this.off('missedChanges', onMissed);
    });
    const onChange = (params) => stream.put({ type: 'change', params });
    const onMissed = (params) => stream.put({ type: 'missedChanges', params });
    if (this.#exitInfo) {
      stream.end();
    } else {
      this.#streams.add(stream);
      this.on('change', onChange);
      this.on('missedChanges', onMissed);
    }
    return stream;
  }

  /** `await using client = await connect(...)` closes it at the end of the block. */
  async [Symbol.asyncDispose]() {
    await this.close();
  }

  /** Lets Node exit while nothing waits on the server (see the class comment). */
  #updateRef() {
    const stdio = [this.#child.stdin, this.#child.stdout, this.#child.stderr];
    const needed = this.#closing !== null || this.#pendingRequests > 0
      || [...FOLLOWING_EVENTS].some((event) => this.listenerCount(event) > 0);
    for (const stream of stdio) {
      if (needed) stream?.ref?.();
      else stream?.unref?.();
    }
    if (needed) this.#child.ref();
    else this.#child.unref();
  }

  create(task, options) {
    return this.request('tasks/create', task, options);
  }

  get(id, options) {
    return this.request('tasks/get', { id }, options);
  }

  fetch(query = {}, options) {
    return this.request('tasks/fetch', query, options);
  }

  update(id, changes, { ifVersion, ...options } = {}) {
    return this.request('tasks/update', { id, changes, ifVersion }, options);
  }

  delete(id, { ifVersion, ...options } = {}) {
    return this.request('tasks/delete', { id, ifVersion }, options);
  }

  /**
   * Several writes in one transaction, announced in one tasks/didChange. Each
   * operation is `{ create: task }`, `{ update: { id, changes, ifVersion } }` or
   * `{ delete: { id, ifVersion } }`. Resolves with one entry per operation, in
   * order, shaped like those of Promise.allSettled: `{ status: 'fulfilled', value }`
   * (what the single method resolves with) or `{ status: 'rejected', reason }`
   * (the error it rejects with; only when `atomic` is false). With `atomic`
   * (the default) either all are applied or none: the call rejects with the
   * failing operation's error, whose `operation` is its index.
   */
  async apply(operations, { atomic = true, ...options } = {}) {
    const { results } = await this.request('tasks/apply', { operations, atomic }, options);
    return results.map((entry) => (entry.error
      ? { status: 'rejected', reason: errorFromResponse(entry.error) }
      : { status: 'fulfilled', value: entry.result }));
  }

  /**
   * The changes after `since` (a seq; 0 for the beginning), oldest first, at most
   * `limit` (1–1000, default 100): `{ changes, seq, hasMore }`. Rejects with
   * HistoryExpiredError when the server no longer keeps them, and with
   * InvalidParamsError (field `since`) when `since` is ahead of the database.
   */
  changes(since, { limit, ...options } = {}) {
    return this.request('tasks/changes', { since, limit }, options);
  }

  /**
   * What `text`, words as `taskline add` takes them (`Call the bank +money due:fri
   * pri:H`), would make: tasks/create params; with `id`, the tasks/update changes
   * `taskline modify` would make to that task. Writes nothing. Words the grammar
   * refuses reject with InvalidParamsError (field `text`), the command line's
   * message in `data.reason`.
   */
  async parse(text, { id, ...options } = {}) {
    const result = await this.request('tasks/parse', { text, id }, options);
    return id === undefined ? result.task : result.changes;
  }

  /**
   * Reverts the newest change group (a write request or an apply, or a redo) not
   * undone yet: this connection's (`scope: 'connection'`, the default) or any
   * writer's (`scope: 'database'`). Resolves with `{ undone, tasks, deleted }`, or
   * null when there is nothing to undo. Rejects with UndoConflictError when tasks
   * of the group changed since, unless `force`.
   */
  async undo({ scope, force, ...options } = {}) {
    const result = await this.request('tasks/undo', { scope, force }, options);
    return result.undone ? result : null;
  }

  /**
   * Re-applies the newest undo of the scope not redone yet, unless a write of the
   * scope came after it: `{ redone, tasks, deleted }`, or null when there is
   * nothing to redo. Rejects with UndoConflictError as undo() does.
   */
  async redo({ scope, force, ...options } = {}) {
    const result = await this.request('tasks/redo', { scope, force }, options);
    return result.redone ? result : null;
  }

  /** Every change after `since`, fetched page by page until none are left. */
  async *changesSince(since, { pageSize, ...options } = {}) {
    let page = { seq: since, hasMore: true };
    while (page.hasMore) {
      page = await this.changes(page.seq, { limit: pageSize, ...options });
      yield* page.changes;
    }
  }

  /** Every task matching `filter`, in `sort` order, fetched page by page with cursors. */
  async *tasks({ filter, sort, pageSize, ...options } = {}) {
    let cursor;
    do {
      const page = await this.fetch({ filter, sort, limit: pageSize, cursor }, options);
      yield* page.tasks;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /**
   * Sends shutdown and exit, then waits for the process to end, killing it if it
   * has not ended within `grace` milliseconds. Resolves with { code, signal }.
   */
  close({ grace = DEFAULT_CLOSE_GRACE_MS } = {}) {
    if (this.#closing === null) {
      this.#closing = this.#shutdown(grace);
      this.#updateRef();
    }
    return this.#closing;
  }

  async #shutdown(grace) {
    if (this.#exitInfo) return this.#exitInfo;
    try {
      await this.request('shutdown', undefined, { timeout: grace });
      this.notify('exit');
    } catch {
      // The server is gone or stuck; the kill below deals with it.
    }
    this.#child.stdin.end();
    return this.#waitForExit(grace);
  }

  async #waitForExit(grace) {
    let timer;
    const gracePeriod = new Promise((resolve) => {
      timer = setTimeout(resolve, grace);
    });
    const exitInfo = await Promise.race([this.#exit, gracePeriod]);
    clearTimeout(timer);
    if (exitInfo) return exitInfo;
    this.#child.kill('SIGKILL');
    return this.#exit;
  }

  #exitedError(spawnError) {
    if (spawnError) {
      return new ServerExitedError(`could not start the taskline server: ${spawnError.message}`, { cause: spawnError });
    }
    const { code, signal } = this.#exitInfo;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const stderr = this.#stderrTail.trim();
    return new ServerExitedError(`the taskline server ${how}${stderr ? `: ${stderr}` : ''}`, {
      exitCode: code,
      signal,
      stderr: this.#stderrTail,
    });
  }
}

/** Spawns a server and runs initialize; rejects (and stops the process) if that fails. */
export async function connect(options = {}) {
  const client = new TasklineClient(options);
  const { onRemind } = options;
  if (onRemind) client.on('remind', onRemind);
  try {
    await client.initialize({ ...options, reminders: options.reminders ?? Boolean(onRemind) });
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

/** What changeStream() returns: a bounded buffer of notifications, read as an async iterator. */
class ChangeStream {
  #buffer = [];
  #missed = null; // the range left out while the buffer was full
  #maxBuffered;
  #onClose;
  #ended = false;
  #failure;
  #wake = null;

  constructor(maxBuffered, onClose) {
    if (!(maxBuffered >= 1)) throw new RangeError('maxBuffered must be at least 1');
    this.#maxBuffered = maxBuffered;
    this.#onClose = onClose;
  }

  put(notification) {
    if (this.#ended) return;
    if (this.#missed !== null || this.#buffer.length >= this.#maxBuffered) {
      this.#missed = widen(this.#missed, notification);
    } else {
      this.#buffer.push(notification);
    }
    this.#wake?.();
  }

  end(failure) {
    if (this.#ended) return;
    this.#ended = true;
    this.#failure = failure;
    this.#onClose();
    this.#wake?.();
  }

  async next() {
    for (;;) {
      if (this.#buffer.length > 0) {
        const value = this.#buffer.shift();
        if (this.#missed !== null) {
          // A place is free: the range left out goes next, ahead of anything later.
          this.#buffer.push(this.#missed);
          this.#missed = null;
        }
        return { value, done: false };
      }
      if (this.#missed !== null) {
        const value = this.#missed;
        this.#missed = null;
        return { value, done: false };
      }
      if (this.#ended) {
        const failure = this.#failure;
        this.#failure = undefined;
        if (failure) throw failure;
        return { value: undefined, done: true };
      }
      await new Promise((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = null;
    }
  }

  /** Stops receiving (what a `break` out of `for await` calls). */
  async return() {
    this.#buffer = [];
    this.#missed = null;
    this.end();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  async [Symbol.asyncDispose]() {
    await this.return();
  }
}

/** The range left out, grown by `notification`. */
function widen(missed, { type, params }) {
  const since = type === 'missedChanges' ? params.since : params.changes[0].seq - 1;
  return { type: 'missedChanges', params: { since: missed?.params.since ?? since, seq: params.seq, reason: 'overflow' } };
}
