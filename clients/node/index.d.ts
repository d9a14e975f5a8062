import { EventEmitter } from 'node:events';

export type Priority = 0 | 1 | 2 | 3;

export interface Task {
  id: string;
  title: string;
  notes: string;
  done: boolean;
  priority: Priority;
  tags: string[];
  /** RFC 3339 date-time with an offset, or a full date; returned exactly as given. */
  due: string | null;
  /** A dot-separated path (`Home.Garage`). */
  project: string | null;
  /** Ids of the tasks this one waits for, sorted by code point. */
  dependsOn: string[];
  /** RFC 3339 date-time or full date before which the task is not actionable. */
  wait: string | null;
  /** Clients' own data, returned as it was stored. */
  meta: TaskMeta;
  /** Completing a recurring task makes its next occurrence. */
  recurrence: Recurrence | null;
  /** Set by the server: the id of the series' first occurrence. */
  seriesId: string | null;
  /** RFC 3339 date-time or full date at which a client that asked for reminders gets a 'remind' event. */
  remindAt: string | null;
  /** Set while the task is active (being worked on), as the server writes times; null on a done task. */
  startedAt: string | null;
  /** Dated notes, in order of `at`. */
  annotations: Annotation[];
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  version: number;
}

export interface NewTask {
  title: string;
  notes?: string;
  done?: boolean;
  priority?: Priority;
  tags?: string[];
  due?: string | null;
  project?: string | null;
  dependsOn?: string[];
  wait?: string | null;
  meta?: TaskMeta | null;
  /** Needs a `due`. */
  recurrence?: Recurrence | null;
  remindAt?: string | null;
  startedAt?: string | null;
  /** Those without `at` take the creation time. */
  annotations?: NewAnnotation[] | null;
  id?: string;
}

/** A dated note on a task (Taskwarrior's annotation). */
export interface Annotation {
  /** The server's form of a time: RFC 3339, UTC, milliseconds. */
  at: string;
  text: string;
}

/** An annotation to add; without `at`, the server's clock at the write. */
export interface NewAnnotation {
  text: string;
  at?: string | null;
}

/**
 * `project`, `wait`, `remindAt`, `startedAt`: null clears; `meta`: replaced whole, null makes it `{}`; `recurrence`: null ends the series.
 * `addAnnotations` and `removeAnnotations` (each the first of that `at` and `text`) change the annotations the task has
 * when the update runs, so another client's additions are kept; `annotations` replaces them whole (not with those two).
 */
export type TaskChanges = Partial<Pick<Task, 'title' | 'notes' | 'done' | 'priority' | 'tags' | 'due' | 'project' | 'dependsOn' | 'wait' | 'recurrence' | 'remindAt' | 'startedAt'>> & {
  meta?: TaskMeta | null;
  annotations?: NewAnnotation[];
  addAnnotations?: NewAnnotation[];
  removeAnnotations?: Annotation[];
};

/** How a task recurs: an RFC 5545 RRULE (`FREQ=WEEKLY;BYDAY=MO,TH`). */
export interface Recurrence {
  rule: string;
}

/** A JSON object: a task's `meta`. */
export type TaskMeta = Record<string, unknown>;

export interface TaskFilter {
  done?: boolean;
  /** A task matches when it has all of these tags. */
  tags?: string[];
  /** Case-insensitive literal substring of the title or notes. */
  text?: string;
  /** Inclusive lower bound on `due`. */
  dueAfter?: string;
  /** Exclusive upper bound on `due`. */
  dueBefore?: string;
  ids?: string[];
  /** The project and every project under it (`Home` matches `Home.Garage`, not `Homework`). */
  project?: string;
  /** Has a dependency that is not done (true), or none (false). */
  blocked?: boolean;
  /** Its `wait` is later than the server's clock (true), or it has none or it passed (false). */
  waiting?: boolean;
}

export interface SortKey {
  field: 'createdAt' | 'updatedAt' | 'due' | 'priority' | 'title' | 'project';
  order?: 'asc' | 'desc';
}

export interface FetchQuery {
  filter?: TaskFilter;
  sort?: SortKey[];
  /** 1–1000, default 100. */
  limit?: number;
  cursor?: string;
  offset?: number;
  includeTotal?: boolean;
}

export interface FetchResult {
  tasks: Task[];
  nextCursor: string | null;
  /**
   * The database's newest seq when the page was read (one snapshot with the
   * page): after a refetch, follow on with changes(seq), and apply only
   * 'change' events whose seq is greater.
   */
  seq: number;
  total?: number;
}

export interface TaskChange {
  seq: number;
  kind: 'created' | 'updated' | 'deleted';
  id: string;
  /** The task's version after the change (for `deleted`, the version it had). */
  version: number;
  /**
   * Always absent for `deleted`. Otherwise, in a tasks/didChange for a change
   * this client's server made, the task right after the change; for a change made
   * by another process, and in a tasks/changes page, the task as it was read
   * later: its version may be greater than `version` (a later change follows),
   * and it is absent if the task has been deleted since (the deletion follows).
   * Applying changes in order gives the right state either way.
   */
  task?: Task;
}

/** One page of tasks/changes. */
// --- undo and redo ---

/** A change group: one write request, one apply, one undo or one redo. */
export interface ChangeGroup {
  firstSeq: number;
  lastSeq: number;
  kind: 'write' | 'undo' | 'redo';
  /** Written by this connection. */
  own: boolean;
  /** When its first change was made (RFC 3339, UTC). */
  at: string;
}

export interface UndoResult {
  /** The group undone. */
  undone: ChangeGroup;
  /** The group's tasks as the undo left them. */
  tasks: Task[];
  /** The ids of the group's tasks the undo left absent. */
  deleted: string[];
}

export interface RedoResult {
  /** The undo redone. */
  redone: ChangeGroup;
  tasks: Task[];
  deleted: string[];
}

export interface UndoOptions extends RequestOptions {
  /** 'connection' (the default): this connection's groups; 'database': any writer's. */
  scope?: 'connection' | 'database';
  /** Revert even tasks changed since the group (else UndoConflictError). */
  force?: boolean;
}

// --- end of undo and redo ---

export interface ChangesPage {
  /** The changes after `since`, oldest first. */
  changes: TaskChange[];
  /** Where to continue: the last change's seq, or `since` when there were none. */
  seq: number;
  /** Whether there are more changes to get at once. */
  hasMore: boolean;
}

export interface DeleteResult {
  id: string;
  deleted: true;
}

export interface UpdateParams {
  id: string;
  changes: TaskChanges;
  ifVersion?: number;
}

export interface DeleteParams {
  id: string;
  ifVersion?: number;
}

/** One write of tasks/apply. */
export type ApplyOperation =
  | { create: NewTask }
  | { update: UpdateParams }
  | { delete: DeleteParams };

/**
 * What one operation of apply() did, shaped like an entry of Promise.allSettled:
 * `value` is what the single method resolves with (the task for create and
 * update, `{ id, deleted: true }` for delete); `reason` the error it rejects with.
 */
export type ApplyResult =
  | { status: 'fulfilled'; value: Task | DeleteResult }
  | { status: 'rejected'; reason: TasklineError };

export interface DidChangeParams {
  seq: number;
  changes: TaskChange[];
}

/**
 * The changes after `since` through `seq` were not sent as 'change' events.
 * 'backlog': this client had not read 64 MiB of output; read them with
 * changes(since) (refetch if that fails with 1005). 'historyExpired' (or a reason
 * this client does not know): refetch with fetch() and follow on from its seq.
 */
/**
 * Tasks that are not done and whose `remindAt` has passed, soonest first. Each
 * reminder comes at most once per database: with several clients on one file,
 * to one of them.
 */
export interface RemindParams {
  tasks: Task[];
}

export interface DidMissChangesParams {
  since: number;
  seq: number;
  /** 'overflow' is changeStream()'s own: it held as many as it may. */
  reason: 'backlog' | 'historyExpired' | 'overflow' | (string & {});
}

export interface InitializeResult {
  serverInfo: { name: string; version: string };
  protocolVersion: string;
  /**
   * `id` names the database file (random, made with it): a copy kept under
   * another id is of another file, even if that file's seqs are as high. `seq`
   * is its newest seq now; notifications carry the changes after it.
   */
  database: { id: string; seq: number };
  capabilities: {
    /** The methods the server has; a server may list more than this client knows. */
    methods: string[];
    /** Whether this client gets tasks/didChange, and tasks/didMissChanges with it; and tasks/remind. */
    notifications: { didChange: boolean; didMissChanges: boolean; remind: boolean };
    limits: { maxMessageBytes: number; maxFetchLimit: number };
  };
}

export interface RequestOptions {
  /** Milliseconds to wait for the answer; 0 waits forever. Defaults to the client's requestTimeout. */
  timeout?: number;
  /** Aborting rejects with RequestCancelledError and sends $/cancelRequest. */
  signal?: AbortSignal;
}

export interface VersionedRequestOptions extends RequestOptions {
  /** Only apply the request if the task still has this version (else VersionConflictError). */
  ifVersion?: number;
}

export interface IterateOptions extends RequestOptions {
  filter?: TaskFilter;
  sort?: SortKey[];
  /** Tasks fetched per request, 1–1000. */
  pageSize?: number;
}

export interface ApplyOptions extends RequestOptions {
  /** true (the default): all or none, and a failure rejects. false: each operation stands alone. */
  atomic?: boolean;
}

export interface ChangesOptions extends RequestOptions {
  /** 1–1000, default 100. */
  limit?: number;
}

export interface ChangesSinceOptions extends RequestOptions {
  /** Changes fetched per request, 1–1000. */
  pageSize?: number;
}

export interface InitializeOptions extends RequestOptions {
  clientInfo?: { name: string; version?: string };
  /** false asks the server not to send tasks/didChange to this client. Default true. */
  notifications?: boolean;
  /**
   * true asks the server for tasks/remind ('remind' events). Listen for 'remind'
   * before initialize(): the reminders that passed while no client asked come
   * right after its answer. Default false.
   */
  reminders?: boolean;
  /** connect() only: a 'remind' listener registered before initialize; implies `reminders: true`. */
  onRemind?: (params: RemindParams) => void;
}

export interface ClientOptions {
  /** Path of the server binary. Default: $TASKLINE_SERVER, else `taskline` on PATH. */
  server?: string;
  /** Database path passed as --db; `:memory:` keeps everything in memory. */
  db?: string;
  /** Further command-line arguments for the server. */
  args?: string[];
  /** Environment of the server process. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Default per-request timeout in milliseconds; 0 waits forever. Default 30000. */
  requestTimeout?: number;
}

export type StreamedNotification =
  | { type: 'change'; params: DidChangeParams }
  | { type: 'missedChanges'; params: DidMissChangesParams };

export interface ChangeStream extends AsyncIterableIterator<StreamedNotification> {
  [Symbol.asyncDispose](): Promise<void>;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export declare class TasklineClient extends EventEmitter {
  /** Spawns the server; call initialize() (or use connect()) before sending task requests. */
  constructor(options?: ClientOptions);

  readonly pid: number | undefined;
  /** What the server wrote to stderr most recently (at most 4096 characters). */
  readonly stderr: string;
  serverInfo: InitializeResult['serverInfo'] | null;
  protocolVersion: string | null;
  capabilities: InitializeResult['capabilities'] | null;
  database: InitializeResult['database'] | null;

  initialize(options?: InitializeOptions): Promise<InitializeResult>;
  request<Result = unknown>(method: string, params?: object, options?: RequestOptions): Promise<Result>;
  notify(method: string, params?: object): void;

  create(task: NewTask, options?: RequestOptions): Promise<Task>;
  get(id: string, options?: RequestOptions): Promise<Task>;
  fetch(query?: FetchQuery, options?: RequestOptions): Promise<FetchResult>;
  update(id: string, changes: TaskChanges, options?: VersionedRequestOptions): Promise<Task>;
  delete(id: string, options?: VersionedRequestOptions): Promise<DeleteResult>;
  /** Every matching task in sort order, fetched page by page with cursors. */
  tasks(options?: IterateOptions): AsyncGenerator<Task, void, undefined>;
  /**
   * Several writes in one transaction, announced in one tasks/didChange; one
   * result per operation, in order. Atomic (the default): all or none, and the
   * failing operation's error rejects the call, with its index in `error.operation`.
   */
  apply(operations: ApplyOperation[], options?: ApplyOptions): Promise<ApplyResult[]>;
  /** The changes after `since` (0 for the beginning); rejects with HistoryExpiredError when they are no longer kept. */
  changes(since: number, options?: ChangesOptions): Promise<ChangesPage>;
  /** What words as `taskline add` takes them would make: tasks/create params (with `id`: tasks/update changes for that task). Writes nothing. */
  parse(text: string, options?: RequestOptions & { id?: undefined }): Promise<NewTask>;
  parse(text: string, options: RequestOptions & { id: string }): Promise<TaskChanges>;
  /** Reverts this connection's (or with scope 'database', any writer's) newest change group; null when there is none. */
  undo(options?: UndoOptions): Promise<UndoResult | null>;
  /** Re-applies the newest undo of the scope; null when there is none. */
  redo(options?: UndoOptions): Promise<RedoResult | null>;
  /** Every change after `since`, page by page until none are left. */
  changesSince(since: number, options?: ChangesSinceOptions): AsyncGenerator<TaskChange, void, undefined>;

  /** Sends shutdown and exit, waits for the process, and kills it after `grace` ms (default 2000). */
  close(options?: { grace?: number }): Promise<ExitInfo>;
  /** `await using client = await connect(...)`: close() at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;

  /**
   * The 'change' and 'missedChanges' events as an async iterator, until a
   * `break` or close(); rejects with ServerExitedError if the server ends
   * before close(). At most `maxBuffered` (default 1000) wait unread; past that,
   * one `missedChanges` with reason 'overflow' stands for all it left out.
   */
  changeStream(options?: { maxBuffered?: number }): ChangeStream;

  on(event: 'change', listener: (params: DidChangeParams) => void): this;
  on(event: 'missedChanges', listener: (params: DidMissChangesParams) => void): this;
  on(event: 'remind', listener: (params: RemindParams) => void): this;
  on(event: 'exit', listener: (info: ExitInfo) => void): this;
  on(event: 'error', listener: (error: TasklineError) => void): this;
  once(event: 'change', listener: (params: DidChangeParams) => void): this;
  once(event: 'missedChanges', listener: (params: DidMissChangesParams) => void): this;
  once(event: 'remind', listener: (params: RemindParams) => void): this;
  once(event: 'exit', listener: (info: ExitInfo) => void): this;
  once(event: 'error', listener: (error: TasklineError) => void): this;
  off(event: 'change', listener: (params: DidChangeParams) => void): this;
  off(event: 'missedChanges', listener: (params: DidMissChangesParams) => void): this;
  off(event: 'remind', listener: (params: RemindParams) => void): this;
  off(event: 'exit', listener: (info: ExitInfo) => void): this;
  off(event: 'error', listener: (error: TasklineError) => void): this;
}

/** Spawns a server and runs initialize; rejects (and stops the process) if that fails. */
export declare function connect(options?: ClientOptions & InitializeOptions): Promise<TasklineClient>;

/** Incremental LSP frame parser: returns the bodies of the frames each chunk completes. */
export declare class FrameParser {
  push(chunk: Buffer): Buffer[];
}

export declare function encodeFrame(message: unknown): Buffer;

/** Base of every error this library rejects with; `code` is null for client-side failures. */
export declare class TasklineError extends Error {
  constructor(message: string, options?: { code?: number | null; data?: unknown; cause?: unknown });
  code: number | null;
  data: unknown;
  /**
   * In an atomic apply() that failed, the index of the failing operation
   * (`data.operation`, or the `operations[i]` of an invalid-params field).
   */
  readonly operation: number | undefined;
}

export declare class TaskNotFoundError extends TasklineError {
  constructor(message: string, data?: { id: string });
  static readonly code: 1001;
  code: 1001;
  data: { id: string };
  id: string;
}

export declare class VersionConflictError extends TasklineError {
  constructor(message: string, data?: { task: Task });
  static readonly code: 1002;
  code: 1002;
  data: { task: Task };
  currentTask: Task;
}

export declare class TaskAlreadyExistsError extends TasklineError {
  constructor(message: string, data?: { id: string });
  static readonly code: 1003;
  code: 1003;
  data: { id: string };
  id: string;
}

/** What a storage failure was, on either store (protocol §7). */
export type StorageFailureKind = 'busy' | 'readOnly' | 'full' | 'corrupt' | 'storedDataOutOfRange' | 'unreachable' | 'other';

/** The database failed: `data.kind` says how, `data.retryable` whether a retry may succeed. */
export declare class StorageError extends TasklineError {
  constructor(message: string, data?: StorageFailureData);
  static readonly code: 1004;
  code: 1004;
  data: StorageFailureData;
}

export interface StorageFailureData {
  kind: StorageFailureKind;
  /** SQLite's result codes for the failure (on PostgreSQL, those of its kind). */
  code: number;
  extendedCode: number;
  message: string;
  retryable: boolean;
  reason?: 'storedDataOutOfRange';
  operation?: number;
}

/** tasks/changes was asked for changes older than the kept history: refetch everything. */
export declare class HistoryExpiredError extends TasklineError {
  constructor(message: string, data?: { oldestSeq: number });
  static readonly code: 1005;
  code: 1005;
  data: { oldestSeq: number };
  /** The oldest seq the server still keeps. */
  oldestSeq: number;
}

/** undo() or redo() found tasks of the group changed since, and reverted nothing. */
export declare class UndoConflictError extends TasklineError {
  constructor(message: string, data?: { tasks: Task[]; deleted: string[] });
  static readonly code: 1007;
  code: 1007;
  data: { tasks: Task[]; deleted: string[] };
  /** Those tasks as they are now. */
  tasks: Task[];
  /** The ids of those that no longer exist. */
  deleted: string[];
}

export declare class InvalidParamsError extends TasklineError {
  constructor(message: string, data?: { field: string; reason: string });
  static readonly code: -32602;
  code: -32602;
  data: { field: string; reason: string };
  /** Dotted path of the offending member, e.g. `changes.priority`; "" for the params as a whole. */
  field: string;
}

export declare class MethodNotFoundError extends TasklineError {
  constructor(message: string, data?: { method: string });
  static readonly code: -32601;
  code: -32601;
  data: { method: string };
  method: string;
}

export declare class ServerNotInitializedError extends TasklineError {
  constructor(message: string, data?: unknown);
  static readonly code: -32002;
  code: -32002;
}

/** The server answered -32800, or the request's AbortSignal fired (then `cause` is the abort reason). */
export declare class RequestCancelledError extends TasklineError {
  constructor(message: string, data?: unknown, cause?: unknown);
  static readonly code: -32800;
  code: -32800;
}

export declare class ServerExitedError extends TasklineError {
  constructor(
    message: string,
    details?: { exitCode?: number | null; signal?: NodeJS.Signals | null; stderr?: string; cause?: unknown },
  );
  code: null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what the server wrote to stderr. */
  stderr: string;
}

/** Not sent: a string holding a lone surrogate, or a message over the server's maxMessageBytes. */
export declare class UnsendableRequestError extends TasklineError {
  constructor(message: string, details: { method: string });
  code: null;
  method: string;
}

export declare class TimeoutError extends TasklineError {
  constructor(message: string, details: { method: string; timeout: number });
  code: null;
  method: string;
  timeout: number;
}

/** The server wrote something that is not a valid frame or JSON-RPC message. */
export declare class ProtocolError extends TasklineError {
  code: null;
}
