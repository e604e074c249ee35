import Foundation

/// A command run to its end, as a person runs it: its exit status and both outputs.
public struct CommandOutcome: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// Runs commands for the tests that drive `plumb` from outside.
public enum CommandRun {
    /// Runs `command` (a program and its arguments) with `environment` added to this process's,
    /// and kills it after `timeout` seconds (a hung command fails the test, not the suite).
    /// Blocking: call it off the cooperative pool.
    ///
    /// - Parameters:
    ///   - enter: writes a newline to its standard input every `enter` seconds while it runs (a
    ///     person pressing Enter).
    ///   - input: its whole standard input. With neither, the standard input is empty.
    ///   - directory: its working directory; nil for this process's.
    public static func blocking(_ command: [String], environment: [String: String] = [:], enter: Double? = nil,
                                input stdin: Data? = nil, directory: String? = nil,
                                timeout: Double) throws -> CommandOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = enter == nil && stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            // On a thread of its own: a child that writes before it has read all of it would
            // otherwise fill its output pipe while this thread still writes.
            Thread.detachNewThread {
                try? input.fileHandleForWriting.write(contentsOf: stdin)
                try? input.fileHandleForWriting.close()
            }
        }
        if let enter {
            Thread.detachNewThread {
                while process.isRunning {
                    Thread.sleep(forTimeInterval: enter)
                    try? input.fileHandleForWriting.write(contentsOf: Data([0x0A]))
                }
            }
        }
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        // Read both pipes to the end before waiting, so a chatty child can't block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        killer.cancel()
        return CommandOutcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                              stderr: String(decoding: errData, as: UTF8.self))
    }
}
