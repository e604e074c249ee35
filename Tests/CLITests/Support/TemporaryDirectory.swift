import Foundation

/// A fresh empty directory under the temporary directory, `plumb-<purpose>-<UUID>`; the caller
/// removes it.
func makeTemporaryDirectory(_ purpose: String) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-\(purpose)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}
