// `make docs`: writes the references generated from the code, so they cannot drift from it.
// `plumb-docs ROOT` writes them under the repository at ROOT; `plumb-docs --check ROOT` writes
// nothing and exits 1 naming each file that differs (the test suite checks the same).
import Foundation
import PlumbCLI

var arguments = Array(CommandLine.arguments.dropFirst())
let check = arguments.first == "--check"
if check { arguments.removeFirst() }
guard arguments.count == 1 else {
    FileHandle.standardError.write(Data("usage: plumb-docs [--check] ROOT (the repository's root)\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[0])
var stale: [String] = []
for file in ReferenceDocs.files() {
    let url = root.appendingPathComponent(file.path)
    let current = try? String(contentsOf: url, encoding: .utf8)
    guard current != file.contents else { continue }
    if check {
        stale.append(file.path)
        continue
    }
    do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try file.contents.write(to: url, atomically: true, encoding: .utf8)
        print("plumb-docs: wrote \(file.path)")
    } catch {
        FileHandle.standardError.write(Data("plumb-docs: could not write \(file.path): \(error)\n".utf8))
        exit(1)
    }
}
if !stale.isEmpty {
    FileHandle.standardError.write(Data("plumb-docs: out of date: \(stale.joined(separator: ", ")); run make docs\n".utf8))
    exit(1)
}
