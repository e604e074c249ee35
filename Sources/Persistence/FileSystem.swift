#if canImport(Glibc)
import Glibc
#endif

/// Why a file operation failed: the errno, or a size over the limit.
package struct FileProblem: Error, Sendable, Equatable {
    package var errno: Int32
    /// Set when the file was larger than the caller's limit (then ``errno`` is `EFBIG`).
    package var tooLargeLimit: Int?

    /// `permission denied (EACCES)`.
    package var description: String {
        if let tooLargeLimit { return "it is larger than \(tooLargeLimit) bytes" }
        return Self.describe(errno)
    }

    package static func describe(_ value: Int32) -> String {
        let names: [Int32: String] = [
            ENOENT: "ENOENT", EACCES: "EACCES", EPERM: "EPERM", EISDIR: "EISDIR", ENOTDIR: "ENOTDIR",
            EROFS: "EROFS", ENOSPC: "ENOSPC", EIO: "EIO", EEXIST: "EEXIST", EDQUOT: "EDQUOT", ELOOP: "ELOOP",
        ]
        let text = strerror(value).map { String(cString: $0) } ?? "error"
        return text.prefix(1).lowercased() + text.dropFirst() + " (" + (names[value] ?? "errno \(value)") + ")"
    }
}

/// Plain POSIX file access: every failure keeps its errno, so messages can say what happened.
package enum FileSystem {
    /// The whole file, at most `limit` bytes.
    package static func read(_ path: String, limit: Int) -> Result<[UInt8], FileProblem> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(FileProblem(errno: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(FileProblem(errno: errno))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { return .failure(FileProblem(errno: EFBIG, tooLargeLimit: limit)) }
        }
    }

    /// Whether the process may read `path`; the problem otherwise.
    package static func checkReadable(_ path: String) -> FileProblem? {
        access(path, R_OK) == 0 ? nil : FileProblem(errno: errno)
    }

    /// Whether `path` exists and is a directory.
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Creates `path` and any missing parents with `mode`; succeeds when it already is a
    /// directory.
    package static func makeDirectories(_ path: String, mode: mode_t) -> FileProblem? {
        if isDirectory(path) { return nil }
        let parent = parentDirectory(of: path)
        if parent != path, !parent.isEmpty, !isDirectory(parent), let problem = makeDirectories(parent, mode: mode) {
            return problem
        }
        if mkdir(path, mode) != 0, errno != EEXIST { return FileProblem(errno: errno) }
        return isDirectory(path) ? nil : FileProblem(errno: ENOTDIR)
    }

    package static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// Replaces `path` with `bytes` so that a reader, or a power cut, sees either the old file or
    /// the new one, never a mix: write a temporary file in the same directory, fsync it, rename
    /// it over `path`, fsync the directory so the rename itself is on disk.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t) -> FileProblem? {
        let directory = parentDirectory(of: path)
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return FileProblem(errno: errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return abandon(temporary, descriptor: descriptor)
            }
            written += count
        }
        guard fsync(descriptor) == 0 else { return abandon(temporary, descriptor: descriptor) }
        guard close(descriptor) == 0 else { return abandon(temporary, descriptor: nil) }
        guard rename(temporary, path) == 0 else { return abandon(temporary, descriptor: nil) }
        return syncDirectory(directory)
    }

    /// Removes `path` (a missing file is fine) and makes the removal durable.
    package static func remove(_ path: String) -> FileProblem? {
        guard unlink(path) == 0 else { return errno == ENOENT ? nil : FileProblem(errno: errno) }
        return syncDirectory(parentDirectory(of: path))
    }

    /// Renames `path` to `newPath` and makes it durable.
    package static func move(_ path: String, to newPath: String) -> FileProblem? {
        guard rename(path, newPath) == 0 else { return FileProblem(errno: errno) }
        return syncDirectory(parentDirectory(of: path))
    }

    package static func syncDirectory(_ directory: String) -> FileProblem? {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return FileProblem(errno: errno) }
        defer { close(descriptor) }
        // Some file systems cannot sync a directory (EINVAL); the rename is then as durable as
        // they make it.
        guard fsync(descriptor) == 0 || errno == EINVAL else { return FileProblem(errno: errno) }
        return nil
    }

    private static func abandon(_ temporary: String, descriptor: Int32?) -> FileProblem {
        let problem = FileProblem(errno: errno)
        if let descriptor { close(descriptor) }
        unlink(temporary)
        return problem
    }
}
