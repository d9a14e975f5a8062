#if canImport(Glibc)
import Glibc
#endif

/// Reading a small file whole: the settings, a task being edited.
enum WholeFile {
    /// The file's bytes, at most `limit` of them (`complete` false when there were more); nil
    /// when it cannot be opened, `errno` saying why.
    static func read(_ path: String, limit: Int = .max) -> (bytes: [UInt8], complete: Bool)? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { return (bytes, true) }
            bytes += buffer[..<count]
            if bytes.count > limit { return (Array(bytes.prefix(limit)), false) }
        }
    }
}
