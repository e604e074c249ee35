import Foundation

/// Why the harness could not do what a test asked: the command, and what it printed.
public struct BrokerHarnessError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Finds a tool on PATH, then in the sbin directories (mosquitto lives in /usr/sbin, which a
/// normal user's PATH often lacks).
func executablePath(_ name: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    for directory in directories where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
        return "\(directory)/\(name)"
    }
    throw BrokerHarnessError("\(name) is not installed (looked in PATH and /usr/sbin). Run `make deps` "
        + "(it installs the mosquitto, mosquitto-clients and openssl packages).")
}

/// A short-lived child process (mosquitto_sub, openssl, …) whose output is read on background
/// threads, with `async` waits that never block a Swift concurrency thread: the cooperative pool
/// has as many threads as cores (two here), and parallel tests share it.
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: every `var` below is read and written with `lock` held.
    private let process: SpawnedProcess
    private let lock = NSLock()
    private var stdoutData = Data()
    private var stderrData = Data()
    private var openStreams = 2
    private var exitStatus: Int32?
    private var exitGraceOver = false
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiterID = 0
    var commandLine: String { process.commandLine }

    private struct Waiter {
        /// nil: wait for the end of the process; otherwise for this text on stdout.
        let marker: String?
        let continuation: CheckedContinuation<Bool, Never>
    }

    init(_ executable: String, _ arguments: [String]) throws {
        let output = try makePipe()
        let errors = try makePipe()
        let nullDevice = open("/dev/null", O_RDONLY)
        defer {
            // The child has its own copies; ours of the write ends must go, or EOF never comes.
            close(output.write)
            close(errors.write)
            close(nullDevice)
        }
        do {
            process = try SpawnedProcess(executable, arguments, stdin: nullDevice, stdout: output.write,
                                         stderr: errors.write)
        } catch {
            close(output.read)
            close(errors.read)
            throw error
        }
        read(FileHandle(fileDescriptor: output.read, closeOnDealloc: true), isError: false)
        read(FileHandle(fileDescriptor: errors.read, closeOnDealloc: true), isError: true)
        process.whenExited { [self] status in didExit(status) }
    }

    /// Runs a command to completion and returns its stdout; throws with stderr on failure.
    static func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(10)) async throws
        -> String {
        let child = try ChildProcess(executable, arguments)
        guard await child.waitForExit(timeout: timeout) else {
            child.signal(SIGKILL)
            throw BrokerHarnessError("\(child.commandLine) did not finish within \(timeout)")
        }
        guard child.status == 0 else {
            throw BrokerHarnessError("\(child.commandLine) failed with status \(child.status ?? -1): \(child.stderr)")
        }
        return child.stdout
    }

    /// Runs a command to completion without `async`, for the synchronous broker set-up (a few
    /// short commands, once per broker or once per process).
    static func runBlocking(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(10)) throws
        -> String {
        let child = try ChildProcess(executable, arguments)
        let deadline = Date().addingTimeInterval(TestTimeScale.scaled(timeout).timeInterval)
        while child.lock.withLock({ child.resolution(for: nil) }) == nil {
            guard Date() < deadline else {
                child.signal(SIGKILL)
                throw BrokerHarnessError("\(child.commandLine) did not finish within \(timeout)")
            }
            usleep(2_000)
        }
        guard child.status == 0 else {
            throw BrokerHarnessError("\(child.commandLine) failed with status \(child.status ?? -1): \(child.stderr)")
        }
        return child.stdout
    }

    var stdout: String { lock.withLock { String(decoding: stdoutData, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: stderrData, as: UTF8.self) } }
    var status: Int32? { lock.withLock { exitStatus } }

    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    /// Waits until stdout contains `marker`; false if the process ended first or time ran out.
    func waitForOutput(containing marker: String, timeout: Duration) async -> Bool {
        await wait(marker: marker, timeout: timeout)
    }

    /// Waits until the process has exited and its output is read; false when time ran out.
    func waitForExit(timeout: Duration) async -> Bool {
        await wait(marker: nil, timeout: timeout)
    }

    private func wait(marker: String?, timeout: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id: Int? = lock.withLock {
                if let result = resolution(for: marker) { continuation.resume(returning: result); return nil }
                nextWaiterID += 1
                waiters[nextWaiterID] = Waiter(marker: marker, continuation: continuation)
                return nextWaiterID
            }
            guard let id else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + TestTimeScale.scaled(timeout).timeInterval) { [weak self] in
                // Weak: a finished child must not live on until its timeout fires.
                guard let self else { return }
                lock.withLock { waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
            }
        }
    }

    /// Whether a waiter can be answered now, and how. Call with `lock` held.
    private func resolution(for marker: String?) -> Bool? {
        let finished = exitStatus != nil && (openStreams == 0 || exitGraceOver)
        if let marker {
            if String(decoding: stdoutData, as: UTF8.self).contains(marker) { return true }
            return finished ? false : nil
        }
        return finished ? true : nil
    }

    /// Answers every waiter that can be answered. Resumes outside the lock.
    private func settle() {
        let ready: [(CheckedContinuation<Bool, Never>, Bool)] = lock.withLock {
            var ready: [(CheckedContinuation<Bool, Never>, Bool)] = []
            for (id, waiter) in waiters {
                if let result = resolution(for: waiter.marker) {
                    ready.append((waiter.continuation, result))
                    waiters.removeValue(forKey: id)
                }
            }
            return ready
        }
        for (continuation, result) in ready { continuation.resume(returning: result) }
    }

    private func didExit(_ status: Int32) {
        lock.withLock { exitStatus = status }
        settle()
        // Our own children never inherit this pipe (Spawn.swift closes everything), but one that
        // Foundation's `Process` starts at the same moment elsewhere in the test process can, and
        // end-of-file then comes late: after a short grace, what was read is all there is.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { [self] in
            lock.withLock { exitGraceOver = true }
            settle()
        }
    }

    private func read(_ handle: FileHandle, isError: Bool) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { if isError { stderrData.append(chunk) } else { stdoutData.append(chunk) } }
                settle()
            }
            lock.withLock { openStreams -= 1 }
            settle()
        }
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`, for Foundation and Dispatch.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
