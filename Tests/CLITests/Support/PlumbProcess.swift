import BrokerHarness
import Foundation

/// The built `plumb` binary, run as a subprocess the way a person runs it.
struct PlumbProcess {
    /// What a finished run left behind.
    struct Outcome: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Non-empty stdout lines.
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }

        /// Each stdout line parsed as a JSON object.
        func jsonObjects() throws -> [[String: Any]] {
            try lines.map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw CocoaError(.propertyListReadCorrupt)
                }
                return object
            }
        }

        var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    /// The directory SwiftPM built the products into: the test bundle lives there too.
    static let productsDirectory: URL = {
        if let override = ProcessInfo.processInfo.environment["PLUMB_PRODUCTS_DIR"] {
            return URL(fileURLWithPath: override)
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On Linux the test runner is `<products>/PlumbPackageTests.xctest`, a plain executable.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("plumb").path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory
    }()

    static var binary: URL { productsDirectory.appendingPathComponent("plumb") }

    /// Runs `plumb arguments…` with `environment` added to this process's, and waits at most
    /// `timeout` seconds before killing it (a hung command fails the test instead of the suite).
    /// The wait runs on a thread of its own (``offThePool(_:)``): a test blocking a thread of the
    /// cooperative pool (one per core) would stall every test running beside it.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 30) async throws
        -> Outcome {
        try await offThePool {
            try runBlocking(arguments, environment: environment, timeout: TestTimeScale.scaled(timeout))
        }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String], timeout: Double) throws
        -> Outcome {
        let outcome = try CommandRun.blocking([binary.path] + arguments, environment: environment, timeout: timeout)
        return Outcome(status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
    }

    /// Starts `plumb` and returns the running process with its stdout pipe, for `--watch`.
    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out)
    }
}
