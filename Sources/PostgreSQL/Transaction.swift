import CLibPQ

/// The isolation level of a transaction (https://www.postgresql.org/docs/current/transaction-iso.html).
public enum IsolationLevel: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    /// As if the transactions ran one at a time; one that cannot be fails with 40001
    /// (`SQLState.serializationFailure`) and must be run again from its start.
    case serializable = "SERIALIZABLE"
}

extension PostgresConnection {
    /// Runs `body` in a transaction at `level`. Any error rolls the transaction back and is
    /// rethrown; so is a failed `COMMIT`. Retrying after a retryable error
    /// (`PostgresError.isRetryable`) is the caller's: only it knows whether `body` may run twice.
    public func transaction<T>(_ level: IsolationLevel = .serializable, _ body: () throws -> T) throws -> T {
        // A lost connection's status is PQTRANS_UNKNOWN: an error, not a transaction inside one.
        guard status == .ok else { throw connectionError("no connection to") }
        precondition(PQtransactionStatus(handle) == PQTRANS_IDLE, "a transaction inside a transaction")
        try execute("BEGIN ISOLATION LEVEL \(level.rawValue)")
        do {
            let value = try body()
            try commit()
            return value
        } catch {
            let state = PQtransactionStatus(handle)
            if state == PQTRANS_INTRANS || state == PQTRANS_INERROR { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// PostgreSQL answers `COMMIT` in a transaction that an earlier error aborted with a
    /// rollback, not an error: a failure that `body` caught and went on from would otherwise
    /// look committed.
    private func commit() throws {
        let tag = try query("COMMIT").commandTag
        guard tag == "COMMIT" else {
            throw PostgresError(message: "the transaction was rolled back (\(tag)): a statement in it failed", sql: "COMMIT")
        }
    }
}
