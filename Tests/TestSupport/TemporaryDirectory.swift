import Foundation

/// A fresh folder under the system's temporary directory, removed when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init() {
        let template = NSTemporaryDirectory() + "taskline-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { fatalError("mkdtemp failed") }
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    public func file(_ name: String) -> String {
        path + "/" + name
    }
}

public func fileBytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}

public func fileMode(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
}

/// `TASKLINE_LONG_TESTS=1` asks for the long versions of the soak tests (more kills, larger inputs).
public let longTestsEnabled = ProcessInfo.processInfo.environment["TASKLINE_LONG_TESTS"] == "1"
