import BrokerHarness
import Foundation

/// Renders SVG files with `rsvg-convert` (Debian's librsvg2-bin, which `scripts/install-deps.sh`
/// installs), the way a browser or Home Assistant would have to, and reads back the PNG's size.
enum SVGRendering {
    /// What to do when the renderer is missing, for the failure message.
    static let installHint = "rsvg-convert is missing: install it with 'sudo apt-get install -y librsvg2-bin'"
        + " (or run scripts/install-deps.sh)."

    /// `rsvg-convert` on PATH, or nil.
    static var renderer: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("rsvg-convert") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Renders `svg` to `png`; returns rsvg-convert's exit status and what it printed.
    static func render(_ svg: URL, to png: URL, with renderer: URL) throws -> (status: Int32, output: String) {
        let outcome = try CommandRun.blocking([renderer.path, "-o", png.path, svg.path], timeout: 120)
        return (outcome.status, outcome.stdout + outcome.stderr)
    }

    /// A PNG's width and height from its IHDR chunk: after the 8-byte signature, the chunk's
    /// length and type (8 bytes), then width and height as big-endian 32-bit numbers at bytes
    /// 16–23.
    static func pngSize(_ png: URL) throws -> (width: Int, height: Int)? {
        let bytes = [UInt8](try Data(contentsOf: png))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return nil
        }
        func bigEndian(_ offset: Int) -> Int {
            bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        return (bigEndian(16), bigEndian(20))
    }

    /// The root element's `width`, `height` and `viewBox` attributes, as written.
    static func rootAttributes(_ svg: String) -> [String: String] {
        guard let start = svg.range(of: "<svg "), let end = svg[start.upperBound...].firstIndex(of: ">") else { return [:] }
        var attributes: [String: String] = [:]
        let tag = svg[start.upperBound..<end]
        // Attributes are name='value' or name="value"; the drawing writes no quotes inside values.
        let pattern = try? NSRegularExpression(pattern: #"([a-zA-Z:]+)=(['"])([^'"]*)\2"#)
        let text = String(tag)
        for match in pattern?.matches(in: text, range: NSRange(text.startIndex..., in: text)) ?? [] {
            guard let name = Range(match.range(at: 1), in: text), let value = Range(match.range(at: 3), in: text) else {
                continue
            }
            attributes[String(text[name])] = String(text[value])
        }
        return attributes
    }

    /// A fresh empty directory under the temporary directory.
    static func temporaryDirectory() throws -> URL {
        URL(fileURLWithPath: try makeTemporaryDirectory("svg"), isDirectory: true)
    }
}
