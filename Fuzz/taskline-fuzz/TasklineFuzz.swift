import FuzzHarness

#if canImport(Glibc)
import Glibc
#endif

// Built by scripts/fuzz with `-sanitize=fuzzer` and `-D FUZZING`: libFuzzer supplies `main`
// and calls this for every input. Built plainly (by `swift build`), it is a replayer:
// `taskline-fuzz FILE...` runs saved inputs through the same harness.

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let problems = FuzzHarness.run(UnsafeBufferPointer(start: data, count: size))
    if !problems.isEmpty { fatalError(problems.joined(separator: "\n")) }
    return 0
}
#else
@main
enum Replay {
    static func main() {
        var failed = false
        for path in CommandLine.arguments.dropFirst() {
            guard let input = readFile(path) else {
                print("\(path): cannot read")
                failed = true
                continue
            }
            let problems = input.withUnsafeBufferPointer(FuzzHarness.run)
            print("\(path): \(problems.isEmpty ? "ok" : problems.joined(separator: "; "))")
            failed = failed || !problems.isEmpty
        }
        exit(failed ? 1 : 0)
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }
}
#endif
