"""Python client for the Taskline task server (protocol version 1)."""

__version__ = "0.1.0"

from .async_client import AsyncClient, ChangeStream
from .client import Client
from .discovery import find_server
from .errors import (
    HistoryExpired,
    InvalidParams,
    MethodNotFound,
    ProtocolError,
    RequestCancelled,
    ServerError,
    ServerExited,
    ServerNotFound,
    ServerNotInitialized,
    StorageError,
    TaskAlreadyExists,
    TasklineError,
    TaskNotFound,
    Timeout,
    UnsendableRequest,
    UnsupportedTimestamp,
    VersionConflict,
)
from .models import (
    Change,
    ChangeKind,
    ChangesPage,
    DidChange,
    DidMissChanges,
    FetchPage,
    Priority,
    Recurrence,
    Remind,
    ServerInfo,
    Task,
)
from .operations import Create, Delete, Operation, OperationResult, Update
from .query import Filter, SortKey

__all__ = [
    "AsyncClient",
    "Change",
    "ChangeKind",
    "ChangeStream",
    "ChangesPage",
    "Client",
    "Create",
    "Delete",
    "DidChange",
    "DidMissChanges",
    "FetchPage",
    "Filter",
    "HistoryExpired",
    "InvalidParams",
    "MethodNotFound",
    "Operation",
    "OperationResult",
    "Priority",
    "Recurrence",
    "ProtocolError",
    "Remind",
    "RequestCancelled",
    "ServerError",
    "ServerExited",
    "ServerInfo",
    "ServerNotFound",
    "ServerNotInitialized",
    "SortKey",
    "StorageError",
    "Task",
    "TaskAlreadyExists",
    "TaskNotFound",
    "TasklineError",
    "Timeout",
    "UnsendableRequest",
    "UnsupportedTimestamp",
    "Update",
    "VersionConflict",
    "find_server",
]
