import BrokerHarness
import Foundation
import Testing

/// `plumb watch` end to end: one line per reading without a terminal, and the live screen under a
/// pseudo-terminal (util-linux `script`, in every Debian as part of the essential bsdutils).
@Suite("plumb watch end to end")
struct WatchCLITests {
    /// The first number after `name` in `line`: `tilt     1.006°` → 1.006.
    private func number(after name: String, in line: String) -> Double? {
        guard let range = line.range(of: name + " ") else { return nil }
        let rest = line[range.upperBound...].drop { $0 == " " }
        return Double(rest.prefix { "+-0123456789.".contains($0) })
    }

    @Test func withoutATerminalItPrintsALinePerReading() async throws {
        let outcome = try await PlumbProcess.run(["watch", "--sensor", "sim", "--sim-roll", "1", "--raw", "--count", "3",
                                            "--average-window", "0.5"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.lines.count == 3, "\(outcome)")
        for line in outcome.lines {
            let tilt = try #require(number(after: "tilt", in: line), "\(line)")
            #expect(abs(tilt - 1) < 0.1, "\(line)")
            #expect(line.contains("  NOT LEVEL  ") && line.contains("  STABLE  "), "\(line)")
            #expect(line.contains("  raw  vibration"), "\(line)")
            #expect(!line.contains("rise") && !line.contains("shims"), "\(line)")
        }
        let level = try await PlumbProcess.run(["watch", "--sensor", "sim", "--raw", "--count", "1", "--tolerance", "0.5"])
        #expect(level.lines.first?.contains("  LEVEL      STABLE  ") == true, "\(level)")
        let moving = try await PlumbProcess.run(["watch", "--sensor", "sim", "--sim-motion", "vibration", "--raw", "--count", "1"])
        #expect(moving.lines.first?.contains("  UNSTABLE  ") == true, "\(moving)")
    }

    @Test func theVibrationLineShowsTheVelocityZoneAndRunningState() async throws {
        let outcome = try await PlumbProcess.run(["watch", "--sensor", "sim", "--sim-vibration", "z:3@50", "--rate", "800",
                                            "--raw", "--count", "2"])
        #expect(outcome.status == 0, "\(outcome)")
        let line = try #require(outcome.lines.last)
        let velocity = try #require(number(after: "vibration", in: line), "\(line)")
        #expect(abs(velocity - 3) < 0.15, "\(line)")
        #expect(line.contains("(10–312.5 Hz)  zone C  dominant 50.0 Hz  running"), "\(line)")
        let slow = try await PlumbProcess.run(["watch", "--sensor", "sim", "--rate", "25", "--raw", "--count", "1"])
        #expect(slow.lines.first?.contains("vibration: none (") == true, "\(slow)")
        let bad = try await PlumbProcess.run(["watch", "--sensor", "sim", "--class", "class_v"])
        #expect(bad.status == 2 && bad.stderr.contains("class_i"), "\(bad)")
    }

    @Test func aSpanAddsTheRiseAndAFootprintTheShims() async throws {
        // Roll +1°: the left side (+y) is high by tan 1° = 17.455 mm a metre.
        let outcome = try await PlumbProcess.run(["watch", "--sensor", "sim", "--sim-roll", "1", "--raw", "--count", "2",
                                            "--span", "1m", "--length", "1m", "--width", "0.5m", "--feet", "4"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.lines.count == 2, "\(outcome)")
        for line in outcome.lines {
            let rise = try #require(number(after: "rise", in: line), "\(line)")
            #expect(abs(rise - 17.455) < 1, "\(line)")
            #expect(line.contains("high +y (the left side)"), "\(line)")
            let shims = try #require(line.components(separatedBy: "shims ").last)
            let feet = shims.components(separatedBy: ", ")
            #expect(feet.map { $0.components(separatedBy: " ").first ?? "" }
                    == ["front_left", "front_right", "rear_left", "rear_right"], "\(line)")
            for foot in feet {
                let name = foot.components(separatedBy: " ")[0]
                let shim = try #require(number(after: name, in: foot), "\(foot)")
                // The right feet come up by 0.5 m × tan 1° = 8.727 mm; the left ones stay.
                #expect(abs(shim - (name.hasSuffix("right") ? 8.727 : 0)) < 1, "\(line)")
            }
        }
        let three = try await PlumbProcess.run(["watch", "--sensor", "sim", "--raw", "--count", "1", "--length", "1m",
                                          "--width", "0.5m", "--feet", "3", "--result-unit", "in"])
        #expect(three.lines.first?.contains("shims front 0.") == true && three.lines.first?.contains("rear_right") == true,
                "\(three)")
    }

    @Test(arguments: [
        (["watch", "--sensor", "sim", "--length", "1m"], "give --length and --width together"),
        (["watch", "--sensor", "sim", "--width", "1m"], "give --length and --width together"),
        (["watch", "--sensor", "sim", "--feet", "3"], "--feet is for the shims"),
        (["watch", "--sensor", "sim", "--feet", "5", "--length", "1m", "--width", "1m"], "--feet takes one of 3, 4"),
        (["watch", "--sensor", "sim", "--axis", "pitch"], "give --span too"),
        (["watch", "--sensor", "sim", "--span", "5"], "has no unit"),
        (["watch", "--sensor", "sim", "--span", "-1m"], "--span"),
        (["watch", "--sensor", "sim", "--average-window", "0"], "--average-window must be between 0.2 and 60"),
        (["watch", "--sensor", "sim", "--count", "0"], "--count must be between 1"),
        (["watch", "--sensor", "sim", "--unit", "furlongs"], "--unit"),
        (["watch", "--sensor", "sim", "--raw", "--state-dir", "/tmp"], "exclude each other"),
        (["watch", "--sim-roll", "1"], "--sensor sim"),
        (["watch", "--bogus"], "--bogus"),
    ] as [([String], String)])
    func badFlagsPrintUsageAndExitTwo(arguments: [String], message: String) async throws {
        try await PlumbProcess.expectUsageError(arguments, mentioning: message)
    }

    @Test func helpNamesTheFlags() async throws {
        let outcome = try await PlumbProcess.run(["watch", "--help"])
        #expect(outcome.status == 0)
        for flag in ["--span", "--length", "--feet", "--average-window", "--state-dir", "--raw", "--sensor"] {
            #expect(outcome.stdout.contains(flag), "\(flag)")
        }
    }

    // MARK: At a terminal

    /// How a test ends the live view.
    enum Stop: String, CaseIterable, CustomTestStringConvertible {
        case q, controlC, sigterm
        var testDescription: String { rawValue }
    }

    @Test(arguments: Stop.allCases)
    func atATerminalItDrawsInPlaceAndRestoresTheTerminal(stop: Stop) async throws {
        let directory = try makeTemporaryDirectory("watch")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The shell records the terminal's settings before and after, and plumb's pid (exec keeps
        // it) for SIGTERM. `trap : INT` keeps the shell alive through Ctrl-C to record the after.
        let watch = [PlumbProcess.binary.path, "watch", "--sensor", "sim", "--sim-roll", "1", "--raw", "--span", "1m"]
            .map { "'\($0)'" }.joined(separator: " ")
        let command = "trap : INT; stty rows 30 cols 100; stty -g > \(directory)/before; "
            + "sh -c 'echo $$ > \(directory)/pid; exec \"$0\" \"$@\"' \(watch); echo \"rc=$?\"; stty -g > \(directory)/after"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 }
        let keys = Pipe()
        let screen = Pipe()
        process.standardInput = keys
        process.standardOutput = screen
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = ScreenBuffer()
        screen.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        defer {
            if process.isRunning { process.terminate() }
            // Ends Foundation's Process reference cycle, which polling isRunning never does
            // (LeakSanitizer); `script` is gone by now or goes on SIGTERM.
            process.waitUntilExit()
            screen.fileHandleForReading.readabilityHandler = nil
        }

        // A few frames: the first is drawn at once, the window fills in 1 s.
        #expect(await output.wait(for: "LEVEL  STABLE", seconds: 15), "no live screen: \(output.text)")
        switch stop {
        case .q: keys.fileHandleForWriting.write(Data("q".utf8))
        case .controlC: keys.fileHandleForWriting.write(Data([0x03]))
        case .sigterm:
            let pid = try #require(Int32(try String(contentsOfFile: directory + "/pid", encoding: .utf8).trimmed))
            kill(pid, SIGTERM)
        }
        #expect(await output.wait(for: "rc=0", seconds: 10), "did not quit with 0 on \(stop): \(output.text)")
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let before = try String(contentsOfFile: directory + "/before", encoding: .utf8)
        let after = try String(contentsOfFile: directory + "/after", encoding: .utf8)
        #expect(before == after, "stty settings before and after differ")

        let text = output.text
        // The alternate screen entered and left; each frame starts at the top left and clears
        // behind itself rather than the whole screen.
        #expect(text.contains("\u{1B}[?1049h") && text.contains("\u{1B}[?25h\u{1B}[?1049l"),
                "\(text.debugDescription.prefix(400))")
        let frames = text.components(separatedBy: "\u{1B}[H").dropFirst().filter { $0.contains("q or Ctrl-C") }
        #expect(frames.count >= 5, "\(frames.count) frames")
        let last = try #require(frames.last).replacingOccurrences(of: "\u{1B}[K", with: "")
        let lines = last.components(separatedBy: "\r\n")
        #expect(lines.first?.hasPrefix("plumb watch   raw   mount flat   deg") == true, "\(lines)")
        let tilt = try #require(lines.first { $0.contains("tilt ") }.flatMap { number(after: "tilt", in: $0) }, "\(lines)")
        #expect(abs(tilt - 1) < 0.1 && lines.contains { $0.contains("NOT LEVEL  STABLE") }, "\(lines)")
        #expect(lines.contains { $0.contains("rise over 1 m (steepest)") }, "\(lines)")
        // Roll +1° is far beyond 4 × the 0.1° tolerance: the bubble is pinned to the edge on the
        // high side, +y, which is up; the crosshair row is the vial's middle.
        let vial = lines.map { String($0.prefix(29)) }
        let middle = try #require(vial.firstIndex { $0.contains("- + -") }, "\(lines)")
        let bubble = try #require(vial.firstIndex { $0.contains("O") }, "\(lines)")
        #expect(middle - bubble == 6, "the bubble is \(middle - bubble) rows above the middle:\n\(vial.joined(separator: "\n"))")
        // Straight up: the centre column, give or take the pitch's noise.
        let column = try #require(vial[bubble].firstIndex(of: "O").map { vial[bubble].distance(from: vial[bubble].startIndex, to: $0) })
        #expect((13...15).contains(column), "column \(column)")
    }
}

/// What the pseudo-terminal has shown so far, filled from a pipe's handler and read by the test.
private final class ScreenBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) {
        lock.lock()
        data.append(more)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether `needle` appears within `seconds`; sleeps, never blocks a cooperative pool thread.
    func wait(for needle: String, seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if text.contains(needle) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return text.contains(needle)
    }
}

private extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
