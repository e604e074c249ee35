import BrokerHarness
import Foundation
import Testing

/// `plumb bubble`: the picture the agent publishes on `P/bubble`, from one reading.
@Suite("plumb bubble")
struct BubbleCLITests {
    /// The bubble's circle: the one filled green (level) or amber (not level).
    static func bubble(in svg: String) -> (x: Double, y: Double, fill: String)? {
        let pattern = try? NSRegularExpression(pattern: #"<circle cx="([0-9.]+)" cy="([0-9.]+)" r="10" fill="(#[0-9a-f]{6})""#)
        guard let match = pattern?.firstMatch(in: svg, range: NSRange(svg.startIndex..., in: svg)),
              let x = Range(match.range(at: 1), in: svg), let y = Range(match.range(at: 2), in: svg),
              let fill = Range(match.range(at: 3), in: svg) else { return nil }
        return (Double(svg[x]) ?? -1, Double(svg[y]) ?? -1, String(svg[fill]))
    }

    @Test func theBubbleSitsOnTheHighSideAndTheFileRenders() async throws {
        let directory = URL(fileURLWithPath: try makeTemporaryDirectory("bubble"), isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bubble.svg")
        // Roll +2° raises +y (up in the picture), pitch −1° raises +x (right).
        let outcome = try await PlumbProcess.run(["bubble", "--sensor", "sim", "--sim-roll", "2", "--sim-pitch", "-1",
                                            "--sim-noise-lsb", "0", "--tolerance", "5", "--out", file.path])
        #expect(outcome.status == 0, "\(outcome)")
        let svg = try String(contentsOf: file, encoding: .utf8)
        let bubble = try #require(Self.bubble(in: svg), "\(svg)")
        #expect(bubble.x > 100 && bubble.y < 100, "bubble at \(bubble)")
        // About twice as far up as right, as roll is twice pitch (a noiseless chip reads in steps
        // of 1/256 g: sin 1° as 4 LSB, sin 2° as 9, hence 2.25 rather than 2).
        let up: Double = 100 - bubble.y
        let right: Double = bubble.x - 100
        #expect(abs(up / right - 2) < 0.35)
        #expect(bubble.fill == "#1a7f37", "within a 5° tolerance the bubble is green")
        #expect(svg.contains("2.2"), "the tilt, √(2² + 1²) ≈ 2.24°, is written")

        let renderer = try #require(SVGRendering.renderer, "\(SVGRendering.installHint)")
        let png = directory.appendingPathComponent("bubble.png")
        let rendered = try SVGRendering.render(file, to: png, with: renderer)
        #expect(rendered.status == 0, "\(rendered.output)")
        let size = try #require(try SVGRendering.pngSize(png))
        #expect(size.width == 200 && size.height == 200)
    }

    @Test func outsideTheToleranceTheBubbleIsAmberAndStdoutGetsTheSVG() async throws {
        let outcome = try await PlumbProcess.run(["bubble", "--sensor", "sim", "--sim-roll", "0.5", "--sim-noise-lsb", "0",
                                            "--unit", "mm_per_m"])
        #expect(outcome.status == 0, "\(outcome)")
        let bubble = try #require(Self.bubble(in: outcome.stdout), "\(outcome.stdout)")
        #expect(bubble.fill == "#bf8700")
        #expect(abs(bubble.x - 100) < 0.2 && bubble.y < 100)
        #expect(outcome.stdout.contains("mm/m"))
    }

    @Test func aBadUnitIsAUsageError() async throws {
        let outcome = try await PlumbProcess.run(["bubble", "--sensor", "sim", "--unit", "furlongs"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("deg, percent, mm_per_m or in_per_ft"))
    }
}
