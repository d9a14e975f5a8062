/// A mistake in the words a person typed, said so that they can fix it: the command line
/// exits 2 with it, the server answers -32602 naming `text` (`tasks/parse`).
public struct UsageError: Error, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}
