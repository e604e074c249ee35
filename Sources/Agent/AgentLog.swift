#if canImport(Glibc)
import Glibc
#endif

/// How much the agent says on stderr (the journal, under systemd).
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// `debug`, `info`, `warning`, `error`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { "\($0)" == name }) else { return nil }
        self = level
    }
}

/// Where log lines go. One small protocol, swift-log style, so tests can capture lines instead
/// of scraping stderr.
public protocol LogSink: Sendable {
    func write(_ level: LogLevel, _ message: String)
}

/// Lines on stderr with a level prefix systemd's journal understands (`<3>` error … `<7>` debug).
public struct StandardErrorSink: LogSink {
    public init() {}

    public func write(_ level: LogLevel, _ message: String) {
        let priority = switch level {
        case .debug: "<7>"
        case .info: "<6>"
        case .warning: "<4>"
        case .error: "<3>"
        }
        // One write(2) per line, so lines from different threads never interleave.
        let line = Array((priority + "plumb: " + message + "\n").utf8)
        _ = line.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// The agent's logger: a threshold and a sink.
public struct AgentLog: Sendable {
    public var level: LogLevel
    public var sink: any LogSink

    public init(level: LogLevel = .info, sink: any LogSink = StandardErrorSink()) {
        self.level = level
        self.sink = sink
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    /// The longest record, in characters; a longer one is cut with `…`.
    public static let recordLimit = 4000

    private func log(_ level: LogLevel, _ message: String) {
        guard level >= self.level else { return }
        sink.write(level, message.singleLogRecord(limit: Self.recordLimit))
    }
}

extension String {
    /// The message as one log record: one line, always. The last line of defence behind
    /// ``escapedForLog``, which every value from outside goes through where it is quoted: a
    /// control character that reached the message anyway (a newline would start a journal line
    /// of its own, `<3>` and all; a NUL would cut it) is shown as an escape. Backslashes are left
    /// alone, so text escaped already reads the same; at most `limit` characters, cut with `…`.
    func singleLogRecord(limit: Int) -> String {
        var result = ""
        var count = 0
        for scalar in unicodeScalars {
            guard count < limit else { return result + "…" }
            count += 1
            if let escape = scalar.logEscape, scalar != "\\" {
                result += escape
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The text as a log line may carry it when it came from outside (a topic level, a payload, a
    /// file's content): control characters (a newline would forge a journal line of its own),
    /// backslashes and Unicode line separators escaped Swift-style (`\n`, `\\`, `\u{1B}`), and at
    /// most 100 characters, cut with `…`.
    var escapedForLog: String { escapedForLog(limit: 100) }

    /// ``escapedForLog`` cut at `limit` characters: longer for whole messages, such as a state
    /// file's warning, which quote what a damaged file held.
    func escapedForLog(limit: Int) -> String {
        var result = ""
        for scalar in unicodeScalars.prefix(limit) {
            if let escape = scalar.logEscape {
                result += escape
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return unicodeScalars.count > limit ? result + "…" : result
    }
}

extension Unicode.Scalar {
    /// How a log record shows this character, Swift-style (`\n`, `\\`, `\u{1B}`), or nil when it
    /// stands for itself: the C0 and C1 controls, DEL, the backslash, and the Unicode line and
    /// paragraph separators, which some viewers break lines at.
    var logEscape: String? {
        switch self {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        case "\\": "\\\\"
        case _ where value < 0x20 || (0x7F...0x9F).contains(value) || self == "\u{2028}" || self == "\u{2029}":
            "\\u{" + String(value, radix: 16, uppercase: true) + "}"
        default: nil
        }
    }
}
