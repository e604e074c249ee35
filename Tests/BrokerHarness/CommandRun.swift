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
    /// - Parameter enter: writes a newline to its standard input every `enter` seconds while it
    ///   runs (a person pressing Enter); nil gives it an empty standard input.
    public static func blocking(_ command: [String], environment: [String: String] = [:], enter: Double? = nil,
                                timeout: Double) throws -> CommandOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = enter == nil ? FileHandle.nullDevice : input
        try process.run()
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
