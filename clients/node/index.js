export { TasklineClient, connect } from './lib/client.js';
export { FrameParser, encodeFrame } from './lib/framing.js';
export {
  TasklineError,
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
  ServerExitedError,
  TimeoutError,
  UnsendableRequestError,
  ProtocolError,
} from './lib/errors.js';
