import SQLite
import TaskModel

extension TaskStoreError {
    /// SQLite's error as the store reports it: its kind, by its result code, with the codes
    /// themselves and its message, which clients receive as error 1004's data.
    init(_ error: SQLiteError) {
        let kind: StorageFailure.Kind =
            switch error.resultCode.primary {
            case .busy, .locked: .busy
            case .readOnly: .readOnly
            case .full: .full
            case .corrupt, .notADatabase: .corrupt
            default: .other
            }
        self = .storage(StorageFailure(kind, error.message, code: error.code, extendedCode: error.extendedCode))
    }
}

/// Runs `body`, turning SQLite's errors into `TaskStoreError.storage`; every other error
/// (the store's own, or one that a caller's closure threw) goes through as it is. The one
/// translation of SQLite's errors for a store that is open; `StoreOpenError.init` is the
/// one for opening.
func translatingSQLiteErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SQLiteError {
        throw TaskStoreError(error)
    }
}

extension StoreOpenError {
    /// SQLite's error while opening `path`: a file that is not a database (or is damaged),
    /// or one that SQLite cannot open.
    init(_ error: SQLiteError, path: String) {
        switch error.resultCode {
        case .notADatabase, .corrupt: self = .notADatabase(path: path, detail: error.message)
        default: self = .cannotOpen(path: path, detail: error.message)
        }
    }
}
