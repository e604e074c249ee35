import Foundation

// Every test makes its scratch space here, one way: a private directory from mkdtemp, or a
// unique path under the same parent for a file the test writes itself.

/// A fresh private (0700) directory under the system's temporary directory,
/// `plumb-<purpose>-XXXXXX`. The caller removes it.
public func makeTemporaryDirectory(_ purpose: String) throws -> String {
    let base = NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
    var template = Array("\(base)/plumb-\(purpose)-XXXXXX".utf8CString)
    guard let created = mkdtemp(&template) else {
        throw BrokerHarnessError("cannot create a temporary directory: \(String(cString: strerror(errno)))")
    }
    return String(cString: created)
}

/// A path under the system's temporary directory that nothing has yet, `plumb-<purpose>-<UUID>`:
/// for a file the test writes, or a directory the code under test must create.
public func temporaryPath(_ purpose: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("plumb-\(purpose)-\(UUID().uuidString)").path
}

/// A ``makeTemporaryDirectory(_:)`` removed with everything in it when the value goes away.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ purpose: String = "tests") throws {
        path = try makeTemporaryDirectory(purpose)
    }

    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` inside it.
    public func file(_ name: String) -> String { path + "/" + name }

    public func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
    }

    /// The names in it, sorted.
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
