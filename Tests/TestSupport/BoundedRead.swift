import Foundation

extension FileHandle {
    public struct ReadTimeout: Error, CustomStringConvertible {
        public let description: String
    }

    /// Everything until end of file, failing after `timeout` seconds: a writer that never
    /// closes (a process that hung, or one that inherited the pipe) fails the test instead
    /// of holding the whole suite.
    public func readAll(within timeout: Double = 300) throws -> Data {
        let deadline = Date().addingTimeInterval(timeout)
        var data = Data()
        while let chunk = try readChunk(until: deadline) { data += chunk }
        return data
    }

    /// The bytes that are there or arrive before `deadline`; nil at end of file.
    public func readChunk(until deadline: Date) throws -> Data? {
        var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&poller, 1, Int32(max(0, deadline.timeIntervalSinceNow) * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw ReadTimeout(description: "nothing more to read within the time limit, and no end of file") }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = Glibc.read(fileDescriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            return count <= 0 ? nil : Data(buffer[0..<count])
        }
    }
}
