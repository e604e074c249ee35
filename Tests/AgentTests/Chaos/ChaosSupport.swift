import Foundation
import Geometry
import Testing

/// What `make chaos` and `make soak` set: the suites run only with `PLUMB_CHAOS` (chaos) or
/// `PLUMB_SOAK` (soak) in the environment, so `make test` skips them.
enum ChaosEnvironment {
    static let environment = ProcessInfo.processInfo.environment
    static var chaosEnabled: Bool { environment["PLUMB_CHAOS"] != nil }
    static var soakEnabled: Bool { environment["PLUMB_SOAK"] != nil }

    static func integer(_ name: String, default value: Int) -> Int {
        environment[name].flatMap { Int($0) } ?? value
    }

    static func double(_ name: String, default value: Double) -> Double {
        environment[name].flatMap { Double($0) } ?? value
    }

    /// `CHAOS_MESSAGES`: hostile messages at the paced rate, before the flood.
    static var messages: Int { integer("CHAOS_MESSAGES", default: 10_000) }
    /// `CHAOS_RATE`: messages a second.
    static var rate: Double { double("CHAOS_RATE", default: 80) }
    /// `CHAOS_FLOOD`: messages sent as fast as the client can after the paced ones.
    static var flood: Int { integer("CHAOS_FLOOD", default: 1000) }
    /// `CHAOS_SEED`: the generator's seed; the same seed sends the same messages.
    static var seed: UInt64 { environment["CHAOS_SEED"].flatMap { UInt64($0) } ?? 12 }
    /// `SOAK_SECONDS`: the soak's length.
    static var soakSeconds: Double { double("SOAK_SECONDS", default: 3600) }
}

/// A small, seeded, portable generator, so that a seed names one run on any machine.
typealias SeededGenerator = SplitMix64

/// One look at a process in /proc: resident set, its peak, open descriptors, CPU time.
struct ProcessSample {
    /// VmRSS, bytes.
    var residentBytes: Int
    /// VmHWM, the peak resident set since start, bytes.
    var peakBytes: Int
    var openFiles: Int
    /// utime + stime, seconds.
    var cpuSeconds: Double
    var time: Date

    init?(pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kilobytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            return line.split(separator: " ").compactMap { Int($0) }.first
        }
        guard let rss = kilobytes("VmRSS"), let hwm = kilobytes("VmHWM") else { return nil }
        residentBytes = rss * 1024
        peakBytes = hwm * 1024
        openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        cpuSeconds = Self.cpuSeconds(pid: pid) ?? 0
        time = Date()
    }

    /// Fields 14 and 15 of /proc/PID/stat, after the command name (which may hold spaces).
    private static func cpuSeconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ")": state is field 3, so utime (14) is at index 11 and stime (15) at 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// Samples a process every `interval` on a thread of its own until stopped.
final class ProcessWatcher: @unchecked Sendable {
    // @unchecked: `samples` and `running` are only touched under `lock`.
    private let lock = NSLock()
    private var samples: [ProcessSample] = []
    private var running = true
    let pid: Int32

    init(pid: Int32, interval: Double = 1) {
        self.pid = pid
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                if let sample = ProcessSample(pid: pid) { lock.withLock { samples.append(sample) } }
                Thread.sleep(forTimeInterval: interval)
            }
        }
    }

    func stop() { lock.withLock { running = false } }

    var all: [ProcessSample] { lock.withLock { samples } }

    /// The largest resident set seen by sampling (VmHWM is the exact peak).
    var maximumResident: Int { all.map(\.residentBytes).max() ?? 0 }
}

/// A megabyte as `plumb-bench` counts it (1024 KiB, /proc's kB / 1024), so figures compare.
let megabyte = 1024 * 1024

/// Formats bytes as MB with one decimal.
func megabytes(_ bytes: Int) -> String {
    String(format: "%.1f MB", Double(bytes) / Double(megabyte))
}

func signedMegabytes(_ bytes: Int) -> String {
    String(format: "%+.2f MB", Double(bytes) / Double(megabyte))
}

/// One scenario's checks, printed as one summary line: `CHAOS <scenario>: PASS|FAIL figures;
/// failed: …`. Each failed check is also recorded as an issue, so the test fails.
struct ScenarioReport {
    let scenario: String
    private(set) var figures: [String] = []
    private(set) var failures: [String] = []

    init(_ scenario: String) { self.scenario = scenario }

    mutating func figure(_ text: String) { figures.append(text) }

    /// Records `name` as failed (with `detail`) unless `passed`.
    mutating func check(_ passed: Bool, _ name: String, _ detail: @autoclosure () -> String = "",
                        sourceLocation: SourceLocation = #_sourceLocation) {
        guard !passed else { return }
        let text = detail().isEmpty ? name : "\(name) (\(detail()))"
        failures.append(text)
        Issue.record("\(scenario): \(text)", sourceLocation: sourceLocation)
    }

    var line: String {
        let verdict = failures.isEmpty ? "PASS" : "FAIL"
        var text = "CHAOS \(scenario): \(verdict) " + figures.joined(separator: ", ")
        if !failures.isEmpty { text += "; failed: " + failures.joined(separator: "; ") }
        return text
    }

    /// Prints the line (``printSummaryLine(_:)``).
    func print() { printSummaryLine(line) }
}

/// Prints `line` on stdout and appends it to the file `CHAOS_SUMMARY` names, if any: `make
/// chaos` and `make soak` show that file at the end, since `swift test` interleaves its output.
func printSummaryLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
    guard let path = ChaosEnvironment.environment["CHAOS_SUMMARY"] else { return }
    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    guard let handle = FileHandle(forWritingAtPath: path) else { return }
    handle.seekToEndOfFile()
    handle.write(Data((line + "\n").utf8))
    try? handle.close()
}

/// The agent's stderr, checked line by line: every line is one the agent wrote, with its
/// `<N>plumb: ` prefix, and none a payload could have forged.
enum LogForgery {
    /// What hostile payloads put after a line break, hoping to start a line of their own.
    static let marker = "FORGED-LINE"

    /// The problems found, at most a few, quoted; empty when the log is clean.
    static func problems(in log: String) -> [String] {
        var problems: [String] = []
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).dropLast(log.hasSuffix("\n") ? 1 : 0)
        for line in lines {
            let problem: String?
            if line.utf8.contains(0) {
                problem = "a NUL"
            } else if !Self.hasPrefix(line) {
                problem = "no <N>plumb: prefix"
            } else if line.contains(marker) && line.dropFirst(10).hasPrefix(marker) {
                problem = "a forged line"
            } else if line.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) {
                problem = "a control character"
            } else {
                problem = nil
            }
            if let problem {
                problems.append("\(problem): \(String(line.prefix(80)).debugDescription)")
                if problems.count >= 3 { break }
            }
        }
        return problems
    }

    private static func hasPrefix(_ line: Substring) -> Bool {
        let bytes = Array(line.utf8.prefix(10))
        guard bytes.count == 10, bytes[0] == UInt8(ascii: "<"), (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[1]),
              bytes[2] == UInt8(ascii: ">") else { return false }
        return bytes[3...] .elementsEqual("plumb: ".utf8)
    }
}
