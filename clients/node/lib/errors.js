// Error classes mirroring the protocol's error codes (protocol/errors.md, section 7).

/**
 * Base class of every error this library rejects with. `code` is the JSON-RPC
 * error code, or null for failures detected on the client side.
 */
export class TasklineError extends Error {
  constructor(message, { code = null, data, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }

  /**
   * In an atomic tasks/apply that failed, the index of the operation that failed:
   * `data.operation`, or the `operations[i]` that begins an invalid-params field.
   * Undefined otherwise.
   */
  get operation() {
    if (Number.isInteger(this.data?.operation)) return this.data.operation;
    const match = typeof this.data?.field === 'string' ? /^operations\[(\d+)\]/.exec(this.data.field) : null;
    return match ? Number(match[1]) : undefined;
  }
}

export class TaskNotFoundError extends TasklineError {
  static code = 1001;

  constructor(message, data) {
    super(message, { code: TaskNotFoundError.code, data });
    this.id = data?.id;
  }
}

export class VersionConflictError extends TasklineError {
  static code = 1002;

  constructor(message, data) {
    super(message, { code: VersionConflictError.code, data });
    this.currentTask = data?.task;
  }
}

export class TaskAlreadyExistsError extends TasklineError {
  static code = 1003;

  constructor(message, data) {
    super(message, { code: TaskAlreadyExistsError.code, data });
    this.id = data?.id;
  }
}

export class StorageError extends TasklineError {
  static code = 1004;

  constructor(message, data) {
    super(message, { code: StorageError.code, data });
  }
}

/**
 * tasks/changes was asked for changes older than the server keeps
 * (--history-days): refetch everything instead. `oldestSeq` is the oldest seq it
 * still holds.
 */
export class HistoryExpiredError extends TasklineError {
  static code = 1005;

  constructor(message, data) {
    super(message, { code: HistoryExpiredError.code, data });
    this.oldestSeq = data?.oldestSeq;
  }
}

/**
 * undo() or redo() found tasks of the group changed since, and reverted nothing
 * (pass `force: true` to revert anyway). `tasks` are those tasks as they are now,
 * `deleted` the ids of those that no longer exist.
 */
export class UndoConflictError extends TasklineError {
  static code = 1007;

  constructor(message, data) {
    super(message, { code: UndoConflictError.code, data });
    this.tasks = data?.tasks ?? [];
    this.deleted = data?.deleted ?? [];
  }
}

export class InvalidParamsError extends TasklineError {
  static code = -32602;

  constructor(message, data) {
    super(message, { code: InvalidParamsError.code, data });
    this.field = data?.field;
  }
}

export class MethodNotFoundError extends TasklineError {
  static code = -32601;

  constructor(message, data) {
    super(message, { code: MethodNotFoundError.code, data });
    this.method = data?.method;
  }
}

export class ServerNotInitializedError extends TasklineError {
  static code = -32002;

  constructor(message, data) {
    super(message, { code: ServerNotInitializedError.code, data });
  }
}

/** The server answered -32800, or the caller aborted the request through its AbortSignal. */
export class RequestCancelledError extends TasklineError {
  static code = -32800;

  constructor(message, data, cause) {
    super(message, { code: RequestCancelledError.code, data, cause });
  }
}

/** The server process ended (or never started) before the request was answered. */
export class ServerExitedError extends TasklineError {
  constructor(message, { exitCode = null, signal = null, stderr = '', cause } = {}) {
    super(message, { cause });
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderr = stderr;
  }
}

/** No response arrived within the request's timeout. */
export class TimeoutError extends TasklineError {
  constructor(message, { method, timeout }) {
    super(message);
    this.method = method;
    this.timeout = timeout;
  }
}

/**
 * A request (or notification) was not sent because the server would reject it
 * unread: a string that is not well-formed Unicode (a lone surrogate), or a
 * message over the server's maxMessageBytes. Nothing reached the server.
 */
export class UnsendableRequestError extends TasklineError {
  constructor(message, { method }) {
    super(message);
    this.method = method;
  }
}

/** The server wrote something that is not a valid frame or JSON-RPC message. */
export class ProtocolError extends TasklineError {}

const classByCode = new Map(
  [
    TaskNotFoundError,
    VersionConflictError,
    TaskAlreadyExistsError,
    StorageError,
    HistoryExpiredError,
    UndoConflictError,
    InvalidParamsError,
    MethodNotFoundError,
    ServerNotInitializedError,
    RequestCancelledError,
  ].map((errorClass) => [errorClass.code, errorClass]),
);

/** Turns the `error` member of a JSON-RPC response into the matching error instance. */
export function errorFromResponse({ code, message, data }) {
  const ErrorClass = classByCode.get(code);
  return ErrorClass ? new ErrorClass(message, data) : new TasklineError(message, { code, data });
}
