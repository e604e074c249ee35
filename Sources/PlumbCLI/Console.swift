import FoundationEssentials
import Geometry
#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes. Each line goes straight to the file descriptor, unbuffered, so
/// `plumb read --watch | jq` and the tests that read the pipe see readings as they happen.
struct Console: Sendable {
    func print(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }

    func error(_ text: String) { write(text + "\n", to: STDERR_FILENO) }

    /// Writes to stdout without ending the line, for a screen redrawn in place.
    func printWithoutNewline(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Writes to stderr without ending the line, for a progress bar redrawn with `\r`.
    func errorWithoutNewline(_ text: String) { write(text, to: STDERR_FILENO) }

    /// Writes bytes to stdout as they are: a picture piped to a file or a viewer.
    func printBytes(_ data: [UInt8]) { write(data, to: STDOUT_FILENO) }

    private func write(_ text: String, to descriptor: Int32) { write(Array(text.utf8), to: descriptor) }

    private func write(_ data: [UInt8], to descriptor: Int32) {
        var bytes = data[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // a closed pipe: nothing useful left to do with the text
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

extension Console {
    /// Writes `text` to the file at `path` (replacing it atomically) and says so on stderr, so
    /// stdout stays for the command's own output.
    ///
    /// - Throws: ``CommandFailure`` saying why the file could not be written.
    func write(_ text: String, toFile path: String) throws(CommandFailure) {
        try write(Array(text.utf8), toFile: path)
    }

    /// Writes `bytes` to the file at `path` (replacing it atomically) and says so on stderr.
    ///
    /// - Throws: ``CommandFailure`` saying why the file could not be written.
    func write(_ bytes: [UInt8], toFile path: String) throws(CommandFailure) {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure(Sentences.join("cannot write \(path): \(error)", "Check the folder exists and is writable."))
        }
        self.error("wrote \(path)")
    }
}
