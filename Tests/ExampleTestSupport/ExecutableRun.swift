import Foundation

/// One finished run of an executable built next to the test bundle: its exit status, standard
/// output and standard error.
///
/// The run happens on a thread of its own: waiting for a child process blocks, and a blocked thread
/// of Swift's shared concurrency pool (two threads on a two-core machine) would stall the model
/// tests running beside it.
package struct ExecutableRun: Sendable {
    package let status: Int32
    package let output: String
    package let errors: String

    /// Runs `name` with `arguments` and `input` on standard input, and waits for it to exit.
    package static func run(_ name: String, _ arguments: [String], input: String = "") async throws -> ExecutableRun {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try ExecutableRun(name, arguments, input: input) })
            }.start()
        }
    }

    private init(_ name: String, _ arguments: [String], input: String) throws {
        let process = Process()
        process.executableURL = try Self.executable(named: name)
        process.arguments = arguments
        let standardInput = Pipe()
        let standardOutput = Pipe()
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID()).stderr")
        try Data().write(to: errorsFile)
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        let standardError = try FileHandle(forWritingTo: errorsFile)
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        // A hung app would hang the test run: stop it after a minute (its own waits are shorter).
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        standardInput.fileHandleForWriting.write(Data(input.utf8))
        try standardInput.fileHandleForWriting.close()
        // Reading to the end first: the process cannot block on a full pipe while we wait for it.
        let output = standardOutput.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try standardError.close()
        self.status = process.terminationStatus
        self.output = String(decoding: output, as: UTF8.self)
        self.errors = try String(contentsOf: errorsFile, encoding: .utf8)
    }

    /// The executable `name` in the build directory holding this test bundle.
    package static func executable(named name: String) throws -> URL {
        let starts = [URL(fileURLWithPath: CommandLine.arguments[0])]
            + Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        for start in starts {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            while directory.pathComponents.count > 1 {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory.deleteLastPathComponent()
            }
        }
        throw MissingExecutable(name: name)
    }

    struct MissingExecutable: Error, CustomStringConvertible {
        let name: String
        var description: String { "No \(name) executable next to the tests: `swift build --product \(name)`." }
    }
}
