import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid` on a thread of its own.
///
/// Why not Foundation's `Process` (learnt the hard way in parallel tests):
/// - it notices an exit through the end-of-file of a socket the child inherits; a child spawned
///   at the same moment by another test can inherit that socket too, and the exit then goes
///   unnoticed until that other child ends (ten-second stalls, unreaped zombies);
/// - the child inherits the spawning thread's signal mask, and Swift concurrency's threads block
///   SIGTERM, SIGINT, SIGHUP and SIGALRM: mosquitto would ignore SIGTERM and `mosquitto_sub -W`
///   would never time out.
///
/// Here the child gets an empty signal mask, default signal dispositions, stdio from the given
/// descriptors and no other descriptor of ours.
final class SpawnedProcess: @unchecked Sendable {
    // @unchecked Sendable: `exitStatus` and `onExit` are only touched with `lock` held.
    let pid: pid_t
    let commandLine: String
    private let lock = NSLock()
    private var exitStatus: Int32?
    private var onExit: [@Sendable (Int32) -> Void] = []

    /// Starts `executable`; `stdin`, `stdout`, `stderr` are descriptors the child gets as 0, 1, 2.
    init(_ executable: String, _ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32) throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        closeEverythingElse(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard rc == 0 else {
            throw BrokerHarnessError("cannot run \(commandLine): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
        Thread.detachNewThread { [self] in reap() }
    }

    /// Whether the child has not exited yet.
    var isRunning: Bool { lock.withLock { exitStatus == nil } }

    /// The exit code, or 128 + the signal that killed it; nil while running.
    var status: Int32? { lock.withLock { exitStatus } }

    /// Calls `handler` with the status once the child has exited (at once if it already has).
    func whenExited(_ handler: @escaping @Sendable (Int32) -> Void) {
        let status: Int32? = lock.withLock {
            if exitStatus == nil { onExit.append(handler) }
            return exitStatus
        }
        if let status { handler(status) }
    }

    func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Blocks until the child exits or `timeout` passes; true if it exited.
    func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            guard Date() < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    private func reap() {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let signal = raw & 0x7F
        let status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        let handlers = lock.withLock { () -> [@Sendable (Int32) -> Void] in
            exitStatus = status
            defer { onExit.removeAll() }
            return onExit
        }
        for handler in handlers { handler(status) }
    }
}

/// Adds "close every descriptor above 2" to `actions`: glibc's `closefrom` action when it has one
/// (2.34+; Swift does not import it, hence dlsym), otherwise one close per open descriptor.
private func closeEverythingElse(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        return
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for fd in open.compactMap({ Int32($0) }) where fd > 2 {
        posix_spawn_file_actions_addclose(&actions, fd)
    }
}

/// A pipe. Children never inherit its ends (they close everything above 2) unless dup2'd.
func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw BrokerHarnessError("pipe(): \(String(cString: strerror(errno)))") }
    return (fds[0], fds[1])
}
